/**
 * A site's sitemaps, for the readers that look for pages by kind (a company's about and
 * imprint pages, a store's products, a blog's posts).
 *
 * - Where: the `Sitemap:` lines of `/robots.txt`, else `/sitemap.xml`, `/sitemap_index.xml`
 *   and `/wp-sitemap.xml`; an index's sitemaps are read in the order `rank` gives them (the
 *   caller's preference: `product` sitemaps for a store, `post` ones for a blog), at most
 *   SITEMAPS_MAX files in all. Gzipped sitemaps (`.gz`) are skipped: the read path answers text.
 * - How: htmlparser2's tokenizer in XML mode, streamed (no tree), linear; each `<url>`'s `<loc>`
 *   and `<lastmod>`, each `<sitemap>`'s `<loc>`; at most MAX_SITEMAP_URLS entries a file (the rest is not read); only
 *   http(s) URLs on the site are kept. Namespace prefixes are ignored.
 */
import { Parser } from 'htmlparser2';
import { MAX_SITEMAP_URLS, SITEMAPS_MAX } from './limits.js';
import type { SiteReader } from './read.js';
import { onSite, siteUrl, type Site } from './site.js';

export interface SitemapEntry {
  readonly url: string;
  /** `<lastmod>` as written (ISO 8601 in practice), or null. */
  readonly lastmod: string | null;
}

export interface ParsedSitemap {
  readonly urls: readonly SitemapEntry[];
  /** The sitemaps an index lists. */
  readonly sitemaps: readonly string[];
}

const localName = (name: string): string => name.slice(name.indexOf(':') + 1).toLowerCase();

function httpUrl(text: string): string | null {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Reads a sitemap's or an index's entries (see the file comment). */
export function parseSitemap(xml: string): ParsedSitemap {
  const urls: SitemapEntry[] = [];
  const sitemaps: string[] = [];
  let entry: 'url' | 'sitemap' | null = null;
  let field: 'loc' | 'lastmod' | null = null;
  let loc = '';
  let lastmod = '';
  const parser = new Parser(
    {
      onopentag: (name) => {
        const tag = localName(name);
        if (tag === 'url' || tag === 'sitemap') {
          entry = tag;
          loc = '';
          lastmod = '';
        } else if (entry && (tag === 'loc' || tag === 'lastmod')) field = tag;
      },
      ontext: (text) => {
        if (field === 'loc' && loc.length < 4096) loc += text;
        else if (field === 'lastmod' && lastmod.length < 64) lastmod += text;
      },
      onclosetag: (name) => {
        const tag = localName(name);
        if (tag === 'loc' || tag === 'lastmod') field = null;
        else if (tag === entry) {
          const url = httpUrl(loc);
          if (url && entry === 'url' && urls.length < MAX_SITEMAP_URLS) urls.push({ url, lastmod: lastmod.trim() || null });
          if (url && entry === 'sitemap' && sitemaps.length < MAX_SITEMAP_URLS) sitemaps.push(url);
          entry = null;
          // Full: the rest of the file is not read (a file of 200,000 URLs held the thread over a second).
          if (urls.length >= MAX_SITEMAP_URLS || sitemaps.length >= MAX_SITEMAP_URLS) parser.pause();
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return { urls, sitemaps };
}

/** The `Sitemap:` lines of a robots.txt. */
export function robotsSitemaps(robots: string): string[] {
  const out: string[] = [];
  for (const line of robots.split('\n').slice(0, 10_000)) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'sitemap') continue;
    const url = httpUrl(line.slice(colon + 1));
    if (url) out.push(url);
  }
  return out;
}

const FALLBACK_PATHS = ['/sitemap.xml', '/sitemap_index.xml', '/wp-sitemap.xml'];

/**
 * The site's sitemap entries, read within `maxFiles` files: robots.txt's sitemaps (else the
 * usual places); an index's children by `rank` (higher first; a negative rank is skipped).
 */
export async function siteSitemaps(
  site: Site,
  reader: SiteReader,
  rank: (sitemapUrl: string) => number,
  maxFiles = SITEMAPS_MAX,
): Promise<SitemapEntry[]> {
  const robots = await reader.page(siteUrl(site, '/robots.txt'), 'any');
  const declared = robots && robots.status === 200 && !/html/i.test(robots.contentType) ? robotsSitemaps(robots.body) : [];
  const queue = (declared.length ? declared : FALLBACK_PATHS.map((p) => siteUrl(site, p))).filter((u) => onSite(site, u));
  const seen = new Set<string>();
  const out: SitemapEntry[] = [];
  let files = 0;
  let fallbacks = declared.length ? 0 : FALLBACK_PATHS.length;
  while (queue.length && files < maxFiles && !reader.signal?.aborted) {
    const next = queue.shift() as string;
    const isFallback = fallbacks > 0;
    if (fallbacks > 0) fallbacks -= 1;
    if (seen.has(next) || /\.gz($|\?)/i.test(next)) continue;
    seen.add(next);
    const page = await reader.xml(next);
    if (!page) continue;
    files += 1;
    const parsed = parseSitemap(page.body);
    out.push(...parsed.urls.filter((e) => onSite(site, e.url)));
    const children = parsed.sitemaps.filter((u) => onSite(site, u) && rank(u) >= 0).sort((a, b) => rank(b) - rank(a));
    queue.unshift(...children);
    // The first fallback that answers is the site's sitemap: the others are other names for it.
    if (isFallback && (parsed.urls.length || parsed.sitemaps.length)) {
      queue.splice(queue.length - fallbacks, fallbacks);
      fallbacks = 0;
    }
  }
  return out;
}
