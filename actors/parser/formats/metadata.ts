/**
 * Page metadata from the `<head>` (and `<html lang>`), read before anything is removed.
 * Field names are Firecrawl's: `title`, `description`, `language`, `keywords`, `robots`,
 * `og*` from Open Graph, `publishedTime`/`modifiedTime` from `article:*`, plus
 * `canonical`, `author` and `twitter*` from Twitter cards. URLs (favicon, canonical,
 * og:image, twitter:image) are made absolute. Unlike Firecrawl we do not copy every other
 * `<meta>` into metadata: the set is fixed, so the document shape stays bounded.
 *
 * Open Graph tags are matched on `property` or `name` (sites use both); so are Twitter tags.
 */
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { DocumentMetadata } from '../document/types.js';
import { absolute } from './urls.js';

export type PageMetadata = Omit<DocumentMetadata, 'statusCode' | 'contentType' | 'sourceURL' | 'url'>;

/** meta key → metadata field, for single-valued string fields. */
const META_FIELDS: ReadonlyArray<readonly [string, keyof PageMetadata]> = [
  ['description', 'description'],
  ['keywords', 'keywords'],
  ['author', 'author'],
  ['robots', 'robots'],
  ['article:published_time', 'publishedTime'],
  ['article:modified_time', 'modifiedTime'],
  ['og:title', 'ogTitle'],
  ['og:description', 'ogDescription'],
  ['og:url', 'ogUrl'],
  ['og:image', 'ogImage'],
  ['og:type', 'ogType'],
  ['og:site_name', 'ogSiteName'],
  ['og:locale', 'ogLocale'],
  ['og:audio', 'ogAudio'],
  ['og:video', 'ogVideo'],
  ['og:determiner', 'ogDeterminer'],
  ['twitter:card', 'twitterCard'],
  ['twitter:site', 'twitterSite'],
  ['twitter:creator', 'twitterCreator'],
  ['twitter:title', 'twitterTitle'],
  ['twitter:description', 'twitterDescription'],
  ['twitter:image', 'twitterImage'],
];

const URL_FIELDS: ReadonlyArray<keyof PageMetadata> = ['ogUrl', 'ogImage', 'ogAudio', 'ogVideo', 'twitterImage'];

const clean = (value: string | undefined): string | undefined => {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : undefined;
};

/** The `<meta>`, `<link>` and first `<title>` elements under a scope, in document order. */
interface HeadTags {
  readonly metas: Element[];
  readonly links: Element[];
  title: Element | undefined;
}

/** One walk over the scope's descendants (the scope itself excluded, as `find` does). */
function headTags(scope: AnyNode): HeadTags {
  const out: HeadTags = { metas: [], links: [], title: undefined };
  const walk = (node: AnyNode) => {
    const children = (node as { children?: AnyNode[] }).children;
    if (!children) return;
    for (const c of children) {
      if (c.type !== 'tag' && c.type !== 'script' && c.type !== 'style') continue;
      const el = c as Element;
      if (el.name === 'meta') out.metas.push(el);
      else if (el.name === 'link') out.links.push(el);
      else if (el.name === 'title') out.title ??= el;
      walk(el);
    }
  };
  walk(scope);
  return out;
}

/** All `<meta>` contents keyed by lower-cased name/property; the first value of a key wins. */
function metaValues(metas: readonly Element[]): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const el of metas) {
    if (el.attribs['content'] === undefined) continue;
    const key = (el.attribs['property'] ?? el.attribs['name'] ?? el.attribs['itemprop'] ?? '').trim().toLowerCase();
    const content = clean(el.attribs['content']);
    if (!key || !content) continue;
    const list = values.get(key);
    if (list) list.push(content);
    else values.set(key, [content]);
  }
  return values;
}

const relsOf = (el: Element): string[] => (el.attribs['rel'] ?? '').toLowerCase().split(/[ \t\n\f\r]+/);

function favicon(links: readonly Element[], base: string): string | undefined {
  const candidates = links.filter((el) => el.attribs['rel'] !== undefined && el.attribs['href'] !== undefined);
  const pick =
    candidates.find((el) => relsOf(el).includes('icon')) ??
    candidates.find((el) => relsOf(el).some((r) => r.endsWith('icon')));
  const href = pick?.attribs['href'];
  return href ? (absolute(href, base) ?? undefined) : undefined;
}

/** Text of an element (all its text descendants), as cheerio's `.text()` reads it. */
function textOf(node: AnyNode): string {
  if (node.type === 'text') return (node as unknown as { data: string }).data;
  const children = (node as { children?: AnyNode[] }).children;
  if (!children || node.type === 'comment') return '';
  let text = '';
  for (const c of children) text += textOf(c);
  return text;
}

/**
 * Metadata of a loaded HTML page. `base` resolves relative URLs; `headers` give a
 * fallback language (`content-language`) when `<html lang>` is missing.
 */
export function pageMetadata($: CheerioAPI, base: string, headers: Readonly<Record<string, string>> = {}): PageMetadata {
  // The head holds these tags; a page without one (or with tags misplaced into the body
  // by the parser) is searched whole, in one walk. The loader gives a document exactly
  // one <html> and one <head>, its children: they are reached directly, not searched for.
  const html = $.root().children('html');
  const head = html.children('head');
  const scope: AnyNode | undefined = head.length && head.children().length ? head[0] : $.root()[0];
  const tags = scope ? headTags(scope) : { metas: [], links: [], title: undefined };
  const meta = metaValues(tags.metas);
  const out: PageMetadata = {};
  const title = tags.title ? clean(textOf(tags.title)) : undefined;
  if (title) out.title = title;
  for (const [key, field] of META_FIELDS) {
    const value = meta.get(key)?.[0];
    if (value) (out as Record<string, unknown>)[field] = value;
  }
  if (!out.title && out.ogTitle) out.title = out.ogTitle;
  const alternates = meta.get('og:locale:alternate');
  if (alternates) out.ogLocaleAlternate = alternates;
  const httpLanguage = tags.metas.find((el) => el.attribs['http-equiv']?.toLowerCase() === 'content-language');
  const language =
    clean(html.attr('lang')) ??
    clean(httpLanguage?.attribs['content']) ??
    clean(headers['content-language']?.split(',')[0]);
  if (language) out.language = language;
  const canonical = tags.links.find((el) => el.attribs['href'] !== undefined && relsOf(el).includes('canonical'))?.attribs['href'];
  const canonicalUrl = canonical ? absolute(canonical, base) : null;
  if (canonicalUrl) out.canonical = canonicalUrl;
  const icon = favicon(tags.links, base);
  if (icon) out.favicon = icon;
  for (const field of URL_FIELDS) {
    const value = out[field];
    if (typeof value === 'string') (out as Record<string, unknown>)[field] = absolute(value, base) ?? value;
  }
  return out;
}
