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
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode } from 'domhandler';
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

/** All `<meta>` contents keyed by lower-cased name/property; the first value of a key wins. */
function metaValues($: CheerioAPI, scope: Cheerio<AnyNode>): Map<string, string[]> {
  const values = new Map<string, string[]>();
  scope.find('meta[content]').each((_, el) => {
    const key = (el.attribs['property'] ?? el.attribs['name'] ?? el.attribs['itemprop'] ?? '').trim().toLowerCase();
    const content = clean(el.attribs['content']);
    if (!key || !content) return;
    const list = values.get(key);
    if (list) list.push(content);
    else values.set(key, [content]);
  });
  return values;
}

function favicon(scope: Cheerio<AnyNode>, base: string): string | undefined {
  const links = scope.find('link[rel][href]').toArray();
  const rels = (el: (typeof links)[number]) => (el.attribs['rel'] ?? '').toLowerCase().split(/\s+/);
  const pick =
    links.find((el) => rels(el).includes('icon')) ??
    links.find((el) => rels(el).some((r) => r.endsWith('icon')));
  const href = pick?.attribs['href'];
  return href ? (absolute(href, base) ?? undefined) : undefined;
}

/**
 * Metadata of a loaded HTML page. `base` resolves relative URLs; `headers` give a
 * fallback language (`content-language`) when `<html lang>` is missing.
 */
export function pageMetadata($: CheerioAPI, base: string, headers: Readonly<Record<string, string>> = {}): PageMetadata {
  // The head holds these tags; a page without one (or with tags misplaced into the body
  // by the parser) is searched whole. One scope keeps this to a few small queries. The
  // parser gives a document exactly one <html> and one <head>, its children: they are
  // reached directly, not searched for through the page.
  const html = $.root().children('html');
  const head = html.children('head');
  const scope: Cheerio<AnyNode> = head.length && head.children().length ? head : $.root();
  const meta = metaValues($, scope);
  const out: PageMetadata = {};
  const title = clean(scope.find('title').first().text());
  if (title) out.title = title;
  for (const [key, field] of META_FIELDS) {
    const value = meta.get(key)?.[0];
    if (value) (out as Record<string, unknown>)[field] = value;
  }
  if (!out.title && out.ogTitle) out.title = out.ogTitle;
  const alternates = meta.get('og:locale:alternate');
  if (alternates) out.ogLocaleAlternate = alternates;
  const language =
    clean(html.attr('lang')) ??
    clean(scope.find('meta[http-equiv="content-language" i]').attr('content')) ??
    clean(headers['content-language']?.split(',')[0]);
  if (language) out.language = language;
  const canonical = scope.find('link[rel~="canonical" i][href]').first().attr('href');
  const canonicalUrl = canonical ? absolute(canonical, base) : null;
  if (canonicalUrl) out.canonical = canonicalUrl;
  const icon = favicon(scope, base);
  if (icon) out.favicon = icon;
  for (const field of URL_FIELDS) {
    const value = out[field];
    if (typeof value === 'string') (out as Record<string, unknown>)[field] = absolute(value, base) ?? value;
  }
  return out;
}
