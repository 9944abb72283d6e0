/**
 * What a crawl reads of a site besides its pages: robots.txt (per origin, cached for a few
 * minutes in a small bounded map shared by every job of the process) and the sitemaps a
 * crawl seeds from (robots.txt `Sitemap:` lines and `/sitemap.xml`, indexes followed, gzipped
 * ones inflated; sitemaps.ts), through the shared HTTP stack and its SSRF guard.
 */
import { errorCode } from '../../../pipeline/runtime/errors.js';
import type { Logger } from '../../../pipeline/runtime/log.js';
import type { HttpFetcher } from '../../../pipeline/runtime/net/http.js';
import { DISALLOW_ALL, robotsFromStatus, type RobotsPolicy } from '../robots.js';
import { parseSitemap, sitemapText, SITEMAP_MAX_BYTES } from '../sitemaps.js';

const ROBOTS_TTL_MS = 5 * 60_000;
const ROBOTS_ENTRIES = 500;
const FETCH_TIMEOUT_MS = 15_000;

export interface SiteReader {
  robots(origin: string, signal: AbortSignal): Promise<RobotsPolicy>;
  /**
   * The page URLs the site's sitemaps list, handed to `take` as they are read; stops when
   * `take` answers false (the crawl's limit is reached) or after `maxFiles` files.
   */
  sitemapUrls(origin: string, take: (url: string) => Promise<boolean>, signal: AbortSignal, maxFiles?: number): Promise<void>;
}

export function siteReader(http: HttpFetcher, log: Logger, now: () => number = Date.now): SiteReader {
  const cache = new Map<string, { atMs: number; policy: Promise<RobotsPolicy> }>();
  const robots = (origin: string, signal: AbortSignal): Promise<RobotsPolicy> => {
    const held = cache.get(origin);
    if (held && now() - held.atMs < ROBOTS_TTL_MS) return held.policy;
    const url = `${origin}/robots.txt`;
    const policy = http
      .fetch({ url, timeoutMs: FETCH_TIMEOUT_MS, proxy: 'auto', content: null, maxBytes: 2 * 1024 * 1024, signal })
      .then((res) => robotsFromStatus(res.statusCode, res.text().text, res.finalUrl))
      .catch((error: unknown) => {
        log.debug({ url, code: errorCode(error) }, 'robots.txt unreachable: the origin is disallowed');
        return DISALLOW_ALL;
      });
    if (cache.size >= ROBOTS_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(origin, { atMs: now(), policy });
    return policy;
  };

  return {
    robots,
    async sitemapUrls(origin, take, signal, maxFiles = 100) {
      const listed = [...(await robots(origin, signal)).sitemaps, `${origin}/sitemap.xml`];
      const visited = new Set<string>();
      const queue = listed.filter((u) => !visited.has(u) && visited.add(u));
      let read = 0;
      while (queue.length && read < maxFiles && !signal.aborted) {
        const url = queue.shift() as string;
        read++;
        let sitemap;
        try {
          const res = await http.fetch({ url, timeoutMs: FETCH_TIMEOUT_MS, proxy: 'auto', content: null, maxBytes: SITEMAP_MAX_BYTES, signal });
          if (res.statusCode < 200 || res.statusCode >= 300) continue;
          sitemap = parseSitemap(sitemapText(res.body, res.contentType));
        } catch (error) {
          log.debug({ url, code: errorCode(error) }, 'sitemap not read');
          continue;
        }
        for (const child of sitemap.sitemaps) if (!visited.has(child)) visited.add(child) && queue.push(child);
        for (const entry of sitemap.urls) if (!(await take(entry.url))) return;
      }
    },
  };
}
