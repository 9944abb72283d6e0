/**
 * A page the site readers read: its tree (cheerio over htmlparser2, the parser's library), and
 * what the readers ask of it, each worked out once, on demand: its structured markup
 * (pipeline/structured/markup), its links, its visible text, its canonical URL.
 *
 * - Links: every `<a href>` (and `<area href>`), resolved against the page's base, http(s),
 *   mailto: and tel: kept as written; with the anchor's text (or its image's `alt`, or its
 *   `title` / `aria-label`).
 * - Visible text: the text of the body outside `script`, `style`, `noscript`, `template` and
 *   `svg`, a newline at each block element and `<br>`, read by an iterative walk (a deeply
 *   nested page cannot overflow the stack); the scanners (emails, phones, facts) read it.
 */
import { load, type CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import { readStructuredData } from '../../structured/markup/index.js';
import type { Thing } from '../../structured/types.js';

export interface PageLink {
  /** Absolute URL (http, https, mailto or tel). */
  readonly href: string;
  /** The anchor's text, whitespace collapsed. */
  readonly text: string;
  readonly rel: string;
}

export interface HtmlPage {
  readonly url: string;
  readonly $: CheerioAPI;
  readonly things: readonly Thing[];
  readonly links: readonly PageLink[];
  readonly text: string;
  readonly canonical: string | null;
  /** The `<title>` text. */
  readonly title: string | null;
  /** `<meta name|property=…>` content, first of each name, names lower case. */
  meta(name: string): string | null;
}

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);
const BLOCKS = new Set([
  'p', 'div', 'br', 'li', 'ul', 'ol', 'tr', 'td', 'th', 'table', 'section', 'article', 'header', 'footer', 'nav', 'aside',
  'main', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'blockquote', 'pre', 'dd', 'dt', 'dl', 'form', 'fieldset', 'figure',
  'figcaption', 'hr', 'body', 'option', 'label',
]);

const CHEERIO_OPTIONS = { xml: { xmlMode: false, decodeEntities: true } } as const;

export const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

function baseOf($: CheerioAPI, url: string): string {
  const href = $('base[href]').first().attr('href');
  if (!href) return url;
  try {
    return new URL(href, url).href;
  } catch {
    return url;
  }
}

/** `href` resolved against `base` when it makes an http(s) URL; null otherwise. */
export function absolute(href: string | undefined | null, base: string): string | null {
  if (!href) return null;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function readLinks($: CheerioAPI, base: string): PageLink[] {
  const out: PageLink[] = [];
  $('a[href], area[href]').each((_, el) => {
    const raw = (el.attribs.href ?? '').trim();
    const lower = raw.slice(0, 7).toLowerCase();
    const href = lower.startsWith('mailto:') || lower.startsWith('tel:') || lower.startsWith('callto:') ? raw : absolute(raw, base);
    if (!href) return;
    const $el = $(el);
    const text = collapse($el.text()) || collapse($el.find('img[alt]').first().attr('alt') ?? '') || collapse(el.attribs.title ?? el.attribs['aria-label'] ?? '');
    out.push({ href, text, rel: (el.attribs.rel ?? '').toLowerCase() });
  });
  return out;
}

/** The visible text of the tree under `root` (see the file comment). */
export function visibleText(root: AnyNode): string {
  let out = '';
  const stack: (AnyNode | null)[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (node === null) {
      if (!out.endsWith('\n')) out += '\n';
      continue;
    }
    if (!node) continue;
    if (node.type === 'text') {
      out += (node as Text).data;
      continue;
    }
    if (node.type !== 'tag' && node.type !== 'root') continue;
    const el = node as Element;
    if (node.type === 'tag' && SKIPPED.has(el.name)) continue;
    const block = node.type === 'tag' && BLOCKS.has(el.name);
    if (block) {
      if (!out.endsWith('\n')) out += '\n';
      stack.push(null);
    }
    for (let i = el.children.length - 1; i >= 0; i -= 1) stack.push(el.children[i] as AnyNode);
  }
  return out
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v\u00a0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** What bot-protection pages write and ordinary pages do not (Cloudflare, PerimeterX, DataDome, Imperva). */
const CHALLENGE_MARKERS = ['cf_chl_opt', 'cf-browser-verification', '<title>just a moment', 'attention required! | cloudflare', 'px-captcha', 'geo.captcha-delivery.com', '_incapsula_resource'];

/** Whether a page is a bot challenge rather than the site (its first 64 KiB, markers above). */
export function looksLikeChallenge(body: string): boolean {
  const head = body.slice(0, 65_536).toLowerCase();
  return CHALLENGE_MARKERS.some((m) => head.includes(m));
}

/** The page's view (see the file comment); its parts are read on first use. */
export function loadPage(url: string, html: string): HtmlPage {
  const $ = load(html, CHEERIO_OPTIONS);
  const base = baseOf($, url);
  let things: readonly Thing[] | undefined;
  let links: readonly PageLink[] | undefined;
  let text: string | undefined;
  let metas: Map<string, string> | undefined;
  const meta = (name: string): string | null => {
    if (!metas) {
      metas = new Map();
      $('meta[content]').each((_, el) => {
        const key = (el.attribs.name ?? el.attribs.property ?? el.attribs.itemprop ?? '').toLowerCase();
        const content = collapse(el.attribs.content ?? '');
        if (key && content && !metas?.has(key)) metas?.set(key, content);
      });
    }
    return metas.get(name.toLowerCase()) ?? null;
  };
  return {
    url,
    $,
    get things() {
      things ??= readStructuredData($, base).things;
      return things;
    },
    get links() {
      links ??= readLinks($, base);
      return links;
    },
    get text() {
      text ??= visibleText($.root()[0] as AnyNode);
      return text;
    },
    get canonical() {
      return absolute($('link[rel~="canonical"][href]').first().attr('href'), base);
    },
    get title() {
      return collapse($('title').first().text()) || null;
    },
    meta,
  };
}
