/**
 * A map's first step (map.ts): the page at the seed URL and, at the same time, the seed
 * origin's robots.txt; the final origin's robots.txt too when the seed redirected to another
 * origin. The seed page's failure is the map's failure (a seed URL the SSRF guard cannot
 * parse included); a robots.txt that cannot be read means nothing is walked on its origin.
 */
import { errorCode } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { FetchResult, HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { isHtml, type BudgetFetch } from './map-budget.js';
import type { Findings, Found } from './map-found.js';
import type { PageFacts } from './page-links.js';
import type { PageLinksReader } from './page-links-pool.js';
import { DISALLOW_ALL, robotsFromStatus, type RobotsPolicy } from './robots.js';
import { cleanUrl, siteOf, urlKey } from './urls.js';

export interface SeedDeps {
  readonly http: HttpFetcher;
  /** Fetches within the map's budget (robots.txt). */
  readonly fetch: BudgetFetch;
  readonly remaining: () => number;
  readonly log: Logger;
}

export interface SeedAnswer {
  readonly seedUrl: URL;
  readonly page: FetchResult;
  /** The seed page's URL after redirects. */
  readonly finalUrl: URL;
  /** The final host without `www.` (urls.ts `siteOf`). */
  readonly site: string;
  /** The final origin's robots.txt. */
  readonly robots: RobotsPolicy;
  /** The seed origin's robots.txt sitemaps when the seed redirected to another origin. */
  readonly extraSitemaps: readonly string[];
}

/** Reads the seed page and the robots.txt of its origins. */
export async function readSeed(seed: string, deps: SeedDeps, signal: AbortSignal): Promise<SeedAnswer> {
  // The guard's parse, as the seed page's fetch would: a URL that does not parse (a port over
  // 65535, a broken IPv6 literal, a control character in the host) or is not http(s) is
  // `url_blocked`, as for a scrape, before anything is asked, robots.txt included.
  const seedUrl = deps.http.guard.parse(seed);
  // robots.txt is read also with ignoreSitemap: its rules bound the walk.
  const seedRobots = robotsOf(seedUrl.origin, deps);
  // The seed page: its failure is the map's failure; its own timeout is the rest of the budget.
  const page = await deps.http.fetch({ url: seedUrl.href, timeoutMs: Math.max(1, deps.remaining()), proxy: 'auto', content: null, signal });
  const finalUrl = new URL(page.finalUrl);
  const site = siteOf(finalUrl);
  const robots = finalUrl.origin === seedUrl.origin ? await seedRobots : await robotsOf(finalUrl.origin, deps);
  const extraSitemaps = finalUrl.origin === seedUrl.origin ? [] : (await seedRobots).sitemaps;
  return { seedUrl, page, finalUrl, site, robots, extraSitemaps };
}

async function robotsOf(origin: string, deps: SeedDeps): Promise<RobotsPolicy> {
  const url = `${origin}/robots.txt`;
  try {
    const res = await deps.fetch(url, deps.remaining(), { maxBytes: 2 * 1024 * 1024 });
    return robotsFromStatus(res.statusCode, res.text().text, res.finalUrl);
  } catch (error) {
    deps.log.debug({ url, code: errorCode(error) }, 'robots.txt unreachable: nothing is walked on that origin');
    return DISALLOW_ALL;
  }
}

export interface SeedPage {
  /** The seed page's final URL, cleaned. */
  readonly url: string;
  readonly facts: PageFacts;
}

/**
 * Notes the seed page (listed first) and its links in the site (listed next). A page whose
 * links cannot be read within the limits (page-links-pool.ts) is listed with none.
 */
export async function noteSeedPage(seed: SeedAnswer, findings: Findings, readLinks: PageLinksReader, signal: AbortSignal, log: Logger): Promise<SeedPage> {
  const { page } = seed;
  const facts = isHtml(page.contentType) ? await seedFacts(page, readLinks, signal, log) : { links: [] };
  const url = cleanUrl(page.finalUrl) ?? seed.seedUrl.href;
  findings.notePage(url, facts);
  const found: Found = { link: { url, ...(facts.title ? { title: facts.title } : {}) }, key: urlKey(url) };
  findings.sources.seed.push(found);
  findings.note(found);
  findings.sources.home = findings.inSiteLinks(facts);
  return { url, facts };
}

async function seedFacts(page: FetchResult, readLinks: PageLinksReader, signal: AbortSignal, log: Logger): Promise<PageFacts> {
  try {
    return await readLinks(page.text().text, page.finalUrl, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    log.info({ code: errorCode(error) }, `the seed page's links were not read: ${error instanceof Error ? error.message : String(error)}`);
    return { links: [] };
  }
}
