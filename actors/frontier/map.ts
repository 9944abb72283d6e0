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
 *
 * The steps, one file each: the budget (map-budget.ts), the seed (map-seed.ts), the sitemaps
 * (map-sitemaps.ts) and the walk (map-walk.ts), noting what they find (map-found.ts).
 */
import type { Logger } from '../../pipeline/runtime/log.js';
import type { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { inThreadPageLinks, type PageLinksReader } from './page-links-pool.js';
import { fetchWithin, startBudget, type MapBudget } from './map-budget.js';
import { Findings } from './map-found.js';
import { noteSeedPage, readSeed, type SeedAnswer } from './map-seed.js';
import { listedSitemaps, readSitemaps } from './map-sitemaps.js';
import { walkLinks } from './map-walk.js';
import { rankLinks, type MapLink } from './results.js';
import { inSite } from './urls.js';

export { NOT_A_PAGE } from './map-walk.js';

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
  /** How a page's links are read (page-links-pool.ts: heavy markup off this thread); default: on this thread. */
  readonly readLinks?: PageLinksReader;
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

export async function discoverSite(seed: string, options: MapOptions, deps: DiscoveryDeps, untilMs: number, signal: AbortSignal): Promise<Discovery> {
  const limits = { ...DEFAULT_DISCOVERY_LIMITS, ...deps.limits };
  const { http, log } = deps;
  const budget = startBudget(untilMs, deps.now ?? Date.now, signal);
  try {
    const fetch = fetchWithin(http, budget);
    const start = await readSeed(seed, { http, fetch, remaining: budget.remaining, log }, signal);
    const findings = findingsFor(start, options, limits, budget);
    const readLinks = deps.readLinks ?? inThreadPageLinks;
    const seedPage = await noteSeedPage(start, findings, readLinks, budget.signal, log);
    const [sitemapsRead, pagesWalked] = await Promise.all([
      options.ignoreSitemap ? 0 : readSitemaps(listedSitemaps(start), { fetch, budget, log, findings, limits, site: start.site, includeSubdomains: options.includeSubdomains }),
      walkLinks(
        { host: start.finalUrl.host, robots: start.robots, seedUrl: seedPage.url, links: seedPage.facts.links.map((l) => l.url) },
        { fetch, budget, log, findings, limits, readLinks },
      ),
    ]);
    const { links, titles } = findings.merge();
    const answer = rankLinks(links, options.search, options.limit, (link) => titles.get(link) ?? []);
    return { links: answer, stats: { sitemapsRead, pagesWalked, found: links.length, outOfTime: budget.outOfTime } };
  } finally {
    budget.end();
  }
}

/** What the steps note: URLs in the site; enough of them stops discovery. */
function findingsFor(start: SeedAnswer, options: MapOptions, limits: DiscoveryLimits, budget: MapBudget): Findings {
  return new Findings({
    search: options.search,
    limit: options.limit,
    candidates: limits.candidates,
    keep: (url) => inSite(url, start.site, options.includeSubdomains),
    onEnough: () => budget.stop(new Error('enough URLs found')),
  });
}
