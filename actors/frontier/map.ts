/**
 * Map: a site's URLs without fetching every page. What is read, in this order of trust:
 *
 * 1. the page at the seed URL (its failure is the map's failure: `url_blocked`,
 *    `dns_failed`, `fetch_timeout`, …; any HTTP status is an answer) and, at the same time,
 *    the seed origin's robots.txt; the final origin's robots.txt too when the seed redirected
 *    to another origin;
 * 2. unless `ignoreSitemap`: the robots.txt `Sitemap:` URLs and `<origin>/sitemap.xml`,
 *    sitemap indexes followed (nested up to `sitemapDepth`, at most `sitemapFiles` files),
 *    gzipped ones inflated (sitemaps.ts);
 * 3. at the same time, a shallow breadth-first walk from the seed page's links: at most
 *    `walkPages` HTML pages of the seed's own host (after redirects) that its robots.txt
 *    allows (robots.ts), `walkConcurrency` at once.
 *
 * Everything runs against one time budget (`untilMs`): a fetch still running when it ends
 * is abandoned and the URLs found so far are the answer. Discovery also stops as soon as
 * `limit` URLs matching `search` are known, or `candidates` URLs are held.
 *
 * URLs are cleaned and deduplicated (urls.ts) and kept when they are in the site (the final
 * host without `www.`, plus its subdomains with `includeSubdomains`). The answer lists the
 * seed page first, then the seed page's links, the sitemaps' URLs and the walked pages'
 * links, each in the order found. A title is the page's own `<title>` when the page was
 * read, else the first title found for it: its sitemap title or the text of a link to it
 * (sources in the order above). `search` may match any of them.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from '../../pipeline/runtime/log.js';
import { mediaType } from '../../pipeline/runtime/net/content.js';
import type { FetchResult, HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { mapBounded } from './bounded.js';
import { readPage, type PageFacts } from './page-links.js';
import { rankLinks, matcher, type MapLink } from './results.js';
import { DISALLOW_ALL, robotsFromStatus, type RobotsPolicy } from './robots.js';
import { parseSitemap, sitemapText, SITEMAP_MAX_BYTES } from './sitemaps.js';
import { cleanUrl, hostInSite, identify, inSite, siteOf, UrlSet, urlKey } from './urls.js';

export interface MapOptions {
  readonly search: string | null;
  readonly limit: number;
  readonly includeSubdomains: boolean;
  readonly ignoreSitemap: boolean;
}

export interface DiscoveryLimits {
  /** Pages fetched by the link walk, besides the seed page. */
  readonly walkPages: number;
  readonly walkConcurrency: number;
  readonly sitemapConcurrency: number;
  /** Sitemap files read at most, indexes included. */
  readonly sitemapFiles: number;
  /** How deep sitemap indexes are followed (1: the listed sitemaps only). */
  readonly sitemapDepth: number;
  /** Time one walked page may take. */
  readonly pageTimeoutMs: number;
  /** Largest walked page read. */
  readonly pageMaxBytes: number;
  /** URLs held at most while looking (bounds memory on huge sitemaps). */
  readonly candidates: number;
}

export const DEFAULT_DISCOVERY_LIMITS: DiscoveryLimits = {
  walkPages: 25,
  walkConcurrency: 4,
  sitemapConcurrency: 4,
  sitemapFiles: 100,
  sitemapDepth: 4,
  pageTimeoutMs: 5_000,
  pageMaxBytes: 2 * 1024 * 1024,
  candidates: 200_000,
};

export interface DiscoveryDeps {
  readonly http: HttpFetcher;
  readonly log: Logger;
  readonly limits?: Partial<DiscoveryLimits>;
  readonly now?: () => number;
}

export interface DiscoveryStats {
  readonly sitemapsRead: number;
  readonly pagesWalked: number;
  readonly found: number;
  /** The budget ended before discovery did. */
  readonly outOfTime: boolean;
}

export interface Discovery {
  readonly links: MapLink[];
  readonly stats: DiscoveryStats;
}

/** Paths whose extension says they are not HTML pages: listed, never walked (nor crawled). */
export const NOT_A_PAGE = /\.(?:pdf|jpe?g|png|gif|webp|svg|ico|bmp|tiff?|avif|mp[34]|m4a|webm|ogg|wav|avi|mov|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|msi|apk|iso|css|js|mjs|json|xml|rss|atom|txt|csv|docx?|xlsx?|pptx?|woff2?|ttf|eot)$/i;

function isHtml(contentType: string): boolean {
  const type = mediaType(contentType);
  return type === 'text/html' || type === 'application/xhtml+xml';
}

/** A URL found, with its dedupe key. */
interface Found {
  readonly link: MapLink;
  readonly key: string;
}

/** Who found a URL: merged in this order. */
interface Sources {
  seed: Found[];
  home: Found[];
  sitemaps: Found[][];
  walk: Found[][];
}

/** URLs found so far, to know when there are enough. */
class Tally {
  private readonly seen = new Map<string, { url: string; matched: boolean }>();
  matches = 0;
  constructor(private readonly rank: (url: string, titles: readonly string[]) => number) {}

  get size(): number {
    return this.seen.size;
  }

  note({ link, key }: Found): void {
    const held = this.seen.get(key);
    const titles = link.title ? [link.title] : [];
    if (!held) {
      const matched = this.rank(link.url, titles) > 0;
      this.seen.set(key, { url: link.url, matched });
      if (matched) this.matches++;
      return;
    }
    if (!held.matched && this.rank(held.url, titles) > 0) {
      held.matched = true;
      this.matches++;
    }
  }
}

export async function discoverSite(seed: string, options: MapOptions, deps: DiscoveryDeps, untilMs: number, signal: AbortSignal): Promise<Discovery> {
  const limits = { ...DEFAULT_DISCOVERY_LIMITS, ...deps.limits };
  const now = deps.now ?? Date.now;
  const { http, log } = deps;
  const remaining = () => untilMs - now();
  // Stops the sitemaps and the walk: enough found, the budget spent, or the pool stopping.
  const stop = new AbortController();
  // Every fetch in flight listens to it: a few sitemaps and walked pages, the robots.txt.
  setMaxListeners(0, stop.signal);
  // Set by the budget's own timer (which can fire a millisecond before the clock says the
  // budget is spent), or when anything else stops discovery once the budget is spent.
  let outOfTime = false;
  const budget = setTimeout(() => {
    outOfTime = true;
    stop.abort(new Error('map time budget spent'));
  }, Math.max(0, remaining()));
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  stop.signal.addEventListener('abort', () => (outOfTime ||= remaining() <= 0), { once: true });

  const fetchOnce = (url: string, timeoutMs: number, extra: { maxBytes?: number; html?: boolean } = {}): Promise<FetchResult> =>
    http.fetch({
      url,
      timeoutMs: Math.max(1, Math.min(timeoutMs, remaining())),
      proxy: 'auto',
      // Walked pages: HTML and text only, refused at the headers otherwise; the rest: any bytes.
      content: extra.html ? { pdf: false } : null,
      ...(extra.maxBytes !== undefined ? { maxBytes: extra.maxBytes } : {}),
      signal: stop.signal,
    });

  const robotsOf = async (origin: string): Promise<RobotsPolicy> => {
    const url = `${origin}/robots.txt`;
    try {
      const res = await fetchOnce(url, remaining(), { maxBytes: 2 * 1024 * 1024 });
      return robotsFromStatus(res.statusCode, res.text().text, res.finalUrl);
    } catch (error) {
      log.debug({ url, code: (error as { code?: unknown }).code }, 'robots.txt unreachable: nothing is walked on that origin');
      return DISALLOW_ALL;
    }
  };

  try {
    const seedUrl = new URL(seed);
    // robots.txt is read also with ignoreSitemap: its rules bound the walk.
    const seedRobots = robotsOf(seedUrl.origin);
    // The seed page: its failure is the map's failure; its own timeout is the rest of the budget.
    const page = await http.fetch({ url: seedUrl.href, timeoutMs: Math.max(1, remaining()), proxy: 'auto', content: null, signal });
    const finalUrl = new URL(page.finalUrl);
    const site = siteOf(finalUrl);
    const keep = (url: string) => inSite(url, site, options.includeSubdomains);
    const robots = finalUrl.origin === seedUrl.origin ? await seedRobots : await robotsOf(finalUrl.origin);
    const extraSitemaps = finalUrl.origin === seedUrl.origin ? [] : (await seedRobots).sitemaps;

    const tally = new Tally(matcher(options.search));
    const enough = () => tally.matches >= options.limit || tally.size >= limits.candidates;
    const note = (found: Found) => {
      tally.note(found);
      if (enough() && !stop.signal.aborted) stop.abort(new Error('enough URLs found'));
    };
    /** The links of a page that are in the site, noted. */
    const inSiteLinks = (facts: PageFacts): Found[] => {
      const out: Found[] = [];
      for (const link of facts.links) {
        if (!keep(link.url)) continue;
        const found = { link: { url: link.url, ...(link.text ? { title: link.text } : {}) }, key: urlKey(link.url) };
        out.push(found);
        note(found);
      }
      return out;
    };
    const pages = new Map<string, PageFacts>();
    const sources: Sources = { seed: [], home: [], sitemaps: [], walk: [] };

    const seedFacts = isHtml(page.contentType) ? readPage(page.text().text, page.finalUrl) : { links: [] };
    const seedClean = cleanUrl(page.finalUrl) ?? seedUrl.href;
    pages.set(urlKey(seedClean), seedFacts);
    const seedFound: Found = { link: { url: seedClean, ...(seedFacts.title ? { title: seedFacts.title } : {}) }, key: urlKey(seedClean) };
    sources.seed.push(seedFound);
    note(seedFound);
    sources.home = inSiteLinks(seedFacts);

    let sitemapsRead = 0;
    const readSitemaps = async () => {
      if (options.ignoreSitemap) return;
      const listed = [...robots.sitemaps, ...extraSitemaps, `${finalUrl.origin}/sitemap.xml`];
      const visited = new Set<string>();
      let level = listed.filter((u) => !visited.has(u) && visited.add(u));
      for (let depth = 0; depth < limits.sitemapDepth && level.length && !stop.signal.aborted; depth++) {
        const room = Math.max(0, limits.sitemapFiles - sitemapsRead);
        const files = level.slice(0, room);
        sitemapsRead += files.length;
        const parsed = await mapBounded(
          files,
          limits.sitemapConcurrency,
          async (url) => {
            try {
              const res = await fetchOnce(url, remaining(), { maxBytes: SITEMAP_MAX_BYTES });
              if (res.statusCode < 200 || res.statusCode >= 300) return null;
              const sitemap = parseSitemap(sitemapText(res.body, res.contentType));
              const found: Found[] = [];
              for (const entry of sitemap.urls) {
                const id = identify(entry.url);
                if (!id || !hostInSite(id.host, site, options.includeSubdomains)) continue;
                const item: Found = { link: { url: id.url, ...(entry.title ? { title: entry.title } : {}) }, key: id.key };
                found.push(item);
                note(item);
              }
              return { found, children: sitemap.sitemaps };
            } catch (error) {
              if (!stop.signal.aborted) log.debug({ url, code: (error as { code?: unknown }).code }, 'sitemap not read');
              return null;
            }
          },
          stop.signal,
        );
        const next: string[] = [];
        for (const result of parsed) {
          if (!result) continue;
          sources.sitemaps.push(result.found);
          for (const child of result.children) {
            if (!visited.has(child)) {
              visited.add(child);
              next.push(child);
            }
          }
        }
        level = next;
      }
    };

    let pagesWalked = 0;
    const walk = async () => {
      const walked = new Set<string>([urlKey(seedClean)]);
      const walkable = (url: string) => {
        const u = new URL(url);
        return u.host === finalUrl.host && !NOT_A_PAGE.test(u.pathname) && !walked.has(urlKey(url)) && robots.allows(u);
      };
      let level = seedFacts.links.map((l) => l.url);
      while (level.length && pagesWalked < limits.walkPages && !stop.signal.aborted) {
        const batch: string[] = [];
        for (const url of level) {
          if (batch.length >= limits.walkPages - pagesWalked) break;
          if (!walkable(url)) continue;
          walked.add(urlKey(url));
          batch.push(url);
        }
        pagesWalked += batch.length;
        const read = await mapBounded(
          batch,
          limits.walkConcurrency,
          async (url) => {
            try {
              const res = await fetchOnce(url, limits.pageTimeoutMs, { maxBytes: limits.pageMaxBytes, html: true });
              if (res.statusCode < 200 || res.statusCode >= 300 || !isHtml(res.contentType)) return null;
              const facts = readPage(res.text().text, res.finalUrl);
              pages.set(urlKey(cleanUrl(url) ?? url), facts);
              const final = cleanUrl(res.finalUrl);
              if (final) pages.set(urlKey(final), facts);
              if (final && !keep(final)) return null;
              return inSiteLinks(facts);
            } catch (error) {
              if (!stop.signal.aborted) log.debug({ url, code: (error as { code?: unknown }).code }, 'page not walked');
              return null;
            }
          },
          stop.signal,
        );
        const next: string[] = [];
        for (const found of read) {
          if (!found) continue;
          sources.walk.push(found);
          for (const item of found) next.push(item.link.url);
        }
        level = next;
      }
    };

    await Promise.all([readSitemaps(), walk()]);
    const { links, titles } = merge(sources, pages);
    const answer = rankLinks(links, options.search, options.limit, (link) => titles.get(link) ?? []);
    return { links: answer, stats: { sitemapsRead, pagesWalked, found: links.length, outOfTime } };
  } finally {
    // Whatever still runs (robots.txt of a seed that failed, a sitemap) is abandoned.
    if (!stop.signal.aborted) stop.abort(new Error('map finished'));
    clearTimeout(budget);
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The sources in their order, deduplicated; a page's own title and description win. Also
 * every title each link is known by (its page's, its sitemap's, link texts), for search.
 */
function merge(sources: Sources, pages: ReadonlyMap<string, PageFacts>): { links: MapLink[]; titles: Map<MapLink, string[]> } {
  const set = new UrlSet<MapLink>();
  const byKey = new Map<string, string[]>();
  const keys = new Map<MapLink, string>();
  for (const list of [sources.seed, sources.home, ...sources.sitemaps, ...sources.walk]) {
    for (const { link, key } of list) {
      const copy = { ...link };
      if (set.add(copy, key)) keys.set(copy, key);
      if (!link.title) continue;
      const known = byKey.get(key);
      if (!known) byKey.set(key, [link.title]);
      else if (!known.includes(link.title)) known.push(link.title);
    }
  }
  const links = set.values();
  const titles = new Map<MapLink, string[]>();
  for (const link of links) {
    const key = keys.get(link) ?? urlKey(link.url);
    const facts = pages.get(key);
    if (facts?.title) link.title = facts.title;
    if (facts?.description) link.description = facts.description;
    titles.set(link, [...(facts?.title ? [facts.title] : []), ...(byKey.get(key) ?? [])]);
  }
  return { links, titles };
}
