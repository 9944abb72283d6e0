/**
 * Reading syndication feeds and finding them on pages, for the feeds connector (feeds.ts):
 * RSS 2.0, RSS 1.0 (RDF), Atom 1.0 and JSON Feed 1.0/1.1, each item in one shape.
 *
 * - XML is read by htmlparser2 in XML mode (linear, lenient: a feed with a stray `&` still
 *   reads), unless it nests elements deeper than MAX_FEED_DEPTH (counted first); a document whose root is not `rss`, `rdf:RDF` or `feed`, or JSON without a
 *   `https://jsonfeed.org/version/…` version and an `items` list, is not a feed (null).
 * - Element names are matched as the feeds write them: the conventional prefixes `dc:` and
 *   `content:` (RSS), none or `atom:` (Atom). Namespaces are not resolved: feeds that bind
 *   these URIs to other prefixes are rare enough not to pay for a namespace-aware parser.
 * - An item: `id` (RSS `guid`, RDF `rdf:about`, Atom `id`, JSON `id`; else its link), `link`
 *   (resolved against the feed's URL; http(s) only), `title`, `author` (`dc:creator` or
 *   `author`; Atom `author/name`, the feed's when the entry has none; JSON `authors[0].name`
 *   or 1.0's `author.name`), `publishedAtMs` (`pubDate`/`dc:date`, `published`/`updated`,
 *   `date_published`/`date_modified`: RFC 822 or RFC 3339; null when none reads or it lies
 *   in the future), `updatedAtMs` (`updated`, `date_modified`, RSS's `atom:updated`), `summary`
 *   (the short form beside the body: RSS `description`, Atom `summary`, JSON `summary`),
 *   `text` (the fullest body: `content:encoded` over `description`, Atom
 *   `content` over `summary`, JSON `content_text` over `content_html` over `summary`; HTML
 *   made plain text by html-text.ts) and `lang` (the item's `xml:lang` or JSON `language`,
 *   else the feed's `language`/`dc:language`/`xml:lang`).
 * - Discovery (`feedLinks`): a page's `<link rel="alternate">` of a feed type, resolved
 *   against the page's URL; a plain `application/json` alternate (WordPress lists its REST
 *   API that way) only when the page names no feed of a feed type.
 */
import { isTag, type Element, type ParentNode } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';
import { markupDepthOver } from '../../runtime/markup-limits.js';
import { isoDate, list, record, text } from '../json-shapes.js';
import { htmlText } from './html-text.js';

export interface FeedItem {
  /** The feed's id of the item, else its link; null when it has neither. */
  readonly id: string | null;
  readonly link: string | null;
  readonly title: string | null;
  readonly author: string | null;
  readonly publishedAtMs: number | null;
  /** When the item says it was last changed (Atom `updated`, JSON `date_modified`, RSS `atom:updated`); null when it does not. */
  readonly updatedAtMs: number | null;
  readonly text: string;
  /** The item's own short form when it has one beside its body (RSS `description` beside `content:encoded`, Atom `summary`, JSON `summary`), plain text; else null. */
  readonly summary: string | null;
  readonly lang: string | null;
}

export interface ParsedFeed {
  readonly format: 'rss' | 'rdf' | 'atom' | 'json';
  /** The site the feed is about (its home page), when it says. */
  readonly link: string | null;
  readonly items: readonly FeedItem[];
}

/** Deepest element nesting of a feed read (an item's fields sit 4 levels down); deeper is not a feed read. */
export const MAX_FEED_DEPTH = 48;
/** Deepest element nesting of a page searched for feed links (as the site readers' MAX_HTML_DEPTH). */
export const MAX_PAGE_DEPTH = 512;

/** Items read from one feed at most (newest come first in practice). */
export const MAX_ITEMS_PER_FEED = 500;
/** A date further ahead than this is not believed. */
const FUTURE_SLACK_MS = 24 * 3_600_000;

const FEED_TYPES = ['application/rss+xml', 'application/atom+xml', 'application/feed+json'];

/** The feed in `body` (fetched from `feedUrl`), or null when it is none of the four formats. */
export function parseFeed(body: string, feedUrl: string, nowMs = Date.now()): ParsedFeed | null {
  const start = body.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('{')) return jsonFeed(start, feedUrl, nowMs);
  if (!start.startsWith('<')) return null;
  // Counted before any tree is built: htmlparser2's tree costs the square of the depth, and
  // walking a deep one overflows the stack (a feed 100,000 elements deep: 25 s, then a 500).
  if (markupDepthOver(start, MAX_FEED_DEPTH, false)) return null;
  const root = elements(parseDocument(start, { xmlMode: true }))[0];
  if (!root) return null;
  if (root.name === 'rss') return rssFeed(root, feedUrl, nowMs);
  if (root.name === 'rdf:RDF') return rdfFeed(root, feedUrl, nowMs);
  if (root.name === 'feed' || root.name === 'atom:feed') return atomFeed(root, feedUrl, nowMs);
  return null;
}

/** The feeds a page links to as alternates, resolved, each once. */
export function feedLinks(html: string, pageUrl: string): string[] {
  if (markupDepthOver(html, MAX_PAGE_DEPTH, true)) return [];
  const links = DomUtils.findAll((el) => el.name === 'link' && tokens(el.attribs.rel).includes('alternate'), parseDocument(html).children);
  const typed = (types: readonly string[]) =>
    links.filter((el) => types.includes((el.attribs.type ?? '').split(';')[0]?.trim().toLowerCase() ?? '')).map((el) => resolved(el.attribs.href, pageUrl));
  const feeds = typed(FEED_TYPES);
  const found = feeds.some(Boolean) ? feeds : typed(['application/json']);
  return [...new Set(found.filter((u): u is string => u !== null))];
}

/** RFC 822 (`Tue, 10 Jun 2003 04:00:00 GMT`) or RFC 3339 as epoch ms; null when unreadable or too far ahead. */
export function feedTime(raw: string | null, nowMs: number): number | null {
  if (!raw) return null;
  const iso = isoDate(raw);
  const ms = Date.parse(iso ?? raw);
  return Number.isFinite(ms) && ms > 0 && ms <= nowMs + FUTURE_SLACK_MS ? ms : null;
}

// ---- RSS 2.0 and RSS 1.0 -------------------------------------------------------------------

function rssFeed(root: Element, feedUrl: string, nowMs: number): ParsedFeed | null {
  const channel = child(root, 'channel');
  if (!channel) return null;
  const lang = value(child(channel, 'language')) ?? value(child(channel, 'dc:language'));
  const items = children(channel, 'item').slice(0, MAX_ITEMS_PER_FEED);
  return { format: 'rss', link: resolved(value(child(channel, 'link')), feedUrl), items: items.map((item) => rssItem(item, null, lang, feedUrl, nowMs)) };
}

/** RSS 1.0: the items are the channel's siblings, each named by its `rdf:about`. */
function rdfFeed(root: Element, feedUrl: string, nowMs: number): ParsedFeed {
  const channel = child(root, 'channel');
  const lang = value(child(channel, 'dc:language'));
  const items = children(root, 'item').slice(0, MAX_ITEMS_PER_FEED);
  return { format: 'rdf', link: resolved(value(child(channel, 'link')), feedUrl), items: items.map((item) => rssItem(item, text(item.attribs['rdf:about']), lang, feedUrl, nowMs)) };
}

function rssItem(item: Element, about: string | null, feedLang: string | null, feedUrl: string, nowMs: number): FeedItem {
  const guid = child(item, 'guid');
  const guidText = value(guid);
  // A guid is the item's permanent link unless it says otherwise (RSS 2.0 spec).
  const guidLink = guid && guid.attribs.isPermaLink !== 'false' ? resolved(guidText, feedUrl) : null;
  const link = resolved(value(child(item, 'link')), feedUrl) ?? guidLink;
  const description = value(child(item, 'description'));
  const body = value(child(item, 'content:encoded')) ?? description;
  return {
    id: guidText ?? about ?? link,
    link,
    title: plain(value(child(item, 'title'))),
    author: value(child(item, 'dc:creator')) ?? value(child(item, 'author')),
    publishedAtMs: feedTime(value(child(item, 'pubDate')) ?? value(child(item, 'dc:date')), nowMs),
    updatedAtMs: feedTime(value(child(item, 'atom:updated')) ?? value(child(item, 'dcterms:modified')), nowMs),
    text: body ? htmlText(body) : '',
    summary: description ? text(htmlText(description)) : null,
    lang: text(item.attribs['xml:lang']) ?? feedLang,
  };
}

// ---- Atom 1.0 ------------------------------------------------------------------------------

function atomFeed(root: Element, feedUrl: string, nowMs: number): ParsedFeed {
  const lang = text(root.attribs['xml:lang']);
  const author = atomAuthor(root);
  const entries = atomChildren(root, 'entry').slice(0, MAX_ITEMS_PER_FEED);
  return { format: 'atom', link: atomLink(root, feedUrl), items: entries.map((entry) => atomEntry(entry, lang, author, feedUrl, nowMs)) };
}

function atomEntry(entry: Element, feedLang: string | null, feedAuthor: string | null, feedUrl: string, nowMs: number): FeedItem {
  const link = atomLink(entry, feedUrl);
  const summary = atomChildren(entry, 'summary')[0] ?? null;
  const content = atomChildren(entry, 'content')[0] ?? summary;
  const updated = value(atomChildren(entry, 'updated')[0] ?? null);
  return {
    id: value(atomChildren(entry, 'id')[0] ?? null) ?? link,
    link,
    title: atomText(atomChildren(entry, 'title')[0] ?? null),
    author: atomAuthor(entry) ?? feedAuthor,
    publishedAtMs: feedTime(value(atomChildren(entry, 'published')[0] ?? null) ?? updated, nowMs),
    updatedAtMs: feedTime(updated, nowMs),
    text: atomText(content) ?? '',
    summary: atomText(summary),
    lang: text(entry.attribs['xml:lang']) ?? text(content?.attribs['xml:lang']) ?? feedLang,
  };
}

/** An Atom text construct as plain text: `text` as it is, `html` and `xhtml` made plain. */
function atomText(el: Element | null): string | null {
  if (!el) return null;
  const type = (el.attribs.type ?? 'text').toLowerCase();
  if (type === 'xhtml') return text(htmlText(DomUtils.getInnerHTML(el, { xmlMode: true })));
  const raw = value(el);
  if (raw === null) return null;
  return type === 'html' || type === 'text/html' ? text(htmlText(raw)) : plain(raw);
}

/** The `alternate` link (a link without `rel` is one), resolved. */
function atomLink(el: Element, feedUrl: string): string | null {
  const links = atomChildren(el, 'link');
  const alternate = links.find((l) => (l.attribs.rel ?? 'alternate') === 'alternate');
  return resolved(alternate?.attribs.href, feedUrl);
}

function atomAuthor(el: Element): string | null {
  const author = atomChildren(el, 'author')[0];
  return author ? value(atomChildren(author, 'name')[0] ?? null) : null;
}

// ---- JSON Feed 1.0 / 1.1 -------------------------------------------------------------------

function jsonFeed(body: string, feedUrl: string, nowMs: number): ParsedFeed | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const feed = record(json);
  if (!feed || !text(feed.version)?.startsWith('https://jsonfeed.org/version/') || !Array.isArray(feed.items)) return null;
  const lang = text(feed.language);
  const author = jsonAuthor(feed);
  const items = list(feed.items)
    .slice(0, MAX_ITEMS_PER_FEED)
    .map((item) => jsonItem(item, lang, author, feedUrl, nowMs))
    .filter((item): item is FeedItem => item !== null);
  return { format: 'json', link: resolved(text(feed.home_page_url), feedUrl), items };
}

function jsonItem(raw: unknown, feedLang: string | null, feedAuthor: string | null, feedUrl: string, nowMs: number): FeedItem | null {
  const item = record(raw);
  if (!item) return null;
  const link = resolved(text(item.url) ?? text(item.external_url), feedUrl);
  const html = text(item.content_html);
  const body = text(item.content_text) ?? (html ? htmlText(html) : null) ?? text(item.summary);
  return {
    id: (typeof item.id === 'number' ? String(item.id) : text(item.id)) ?? link,
    link,
    title: text(item.title),
    author: jsonAuthor(item) ?? feedAuthor,
    publishedAtMs: feedTime(text(item.date_published) ?? text(item.date_modified), nowMs),
    updatedAtMs: feedTime(text(item.date_modified), nowMs),
    text: body ?? '',
    summary: text(item.summary),
    lang: text(item.language) ?? feedLang,
  };
}

/** 1.1's `authors[0].name`, or 1.0's `author.name`. */
function jsonAuthor(obj: Readonly<Record<string, unknown>>): string | null {
  return text(record(list(obj.authors)[0])?.name) ?? text(record(obj.author)?.name);
}

// ---- the DOM -------------------------------------------------------------------------------

function elements(node: ParentNode | null): Element[] {
  return node ? node.children.filter(isTag) : [];
}

function children(node: ParentNode | null, name: string): Element[] {
  return elements(node).filter((el) => el.name === name);
}

function child(node: ParentNode | null, name: string): Element | null {
  return children(node, name)[0] ?? null;
}

/** Atom's elements, unprefixed or written `atom:`. */
function atomChildren(node: ParentNode, name: string): Element[] {
  return elements(node).filter((el) => el.name === name || el.name === `atom:${name}`);
}

/** The element's text (CDATA included), trimmed; null when blank. */
function value(el: Element | null): string | null {
  return el ? text(DomUtils.textContent(el)) : null;
}

/** Whitespace runs made one space (titles are one line). */
function plain(raw: string | null): string | null {
  return raw === null ? null : text(raw.replace(/\s+/g, ' '));
}

function tokens(attr: string | undefined): string[] {
  return (attr ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** `href` resolved against `base`, when it makes an http(s) URL. */
function resolved(href: string | null | undefined, base: string): string | null {
  const raw = text(href);
  if (!raw) return null;
  try {
    const url = new URL(raw, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
