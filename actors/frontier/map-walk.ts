/**
 * A map's walk step (map.ts): a shallow breadth-first walk from the seed page's links, at
 * most `walkPages` HTML pages of the seed's own host (after redirects) that its robots.txt
 * allows (robots.ts), `walkConcurrency` at once. A walked page's links in the site are noted
 * and walked next; its own title and description are kept for its URL.
 */
import { errorCode } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { mapBounded } from '../../pipeline/runtime/bounded.js';
import { isHtml, type BudgetFetch, type MapBudget } from './map-budget.js';
import type { Findings, Found } from './map-found.js';
import type { PageLinksReader } from './page-links-pool.js';
import type { RobotsPolicy } from './robots.js';
import { cleanUrl, urlKey } from './urls.js';

/** Paths whose extension says they are not HTML pages: listed, never walked (nor crawled). */
export const NOT_A_PAGE = /\.(?:pdf|jpe?g|png|gif|webp|svg|ico|bmp|tiff?|avif|mp[34]|m4a|webm|ogg|wav|avi|mov|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|msi|apk|iso|css|js|mjs|json|xml|rss|atom|txt|csv|docx?|xlsx?|pptx?|woff2?|ttf|eot)$/i;

export interface WalkLimits {
  readonly walkPages: number;
  readonly walkConcurrency: number;
  readonly pageTimeoutMs: number;
  readonly pageMaxBytes: number;
}

export interface WalkDeps {
  readonly fetch: BudgetFetch;
  readonly budget: MapBudget;
  readonly log: Logger;
  readonly findings: Findings;
  readonly limits: WalkLimits;
  /** How a walked page's links are read (page-links-pool.ts); a page that cannot be read is not walked. */
  readonly readLinks: PageLinksReader;
}

export interface WalkStart {
  /** The seed page's host after redirects: the only host walked. */
  readonly host: string;
  readonly robots: RobotsPolicy;
  /** The seed page's URL (cleaned): not walked again. */
  readonly seedUrl: string;
  /** The seed page's links: the first level. */
  readonly links: readonly string[];
}

/**
 * Distinct URLs a walk asks robots.txt about, at most; the others are not walked. Each is
 * matched against every rule: a robots.txt of 500 KiB of wildcard rules takes 0.75 ms a URL,
 * and the walk's levels can hold 100,000 links it disallows, so without a bound one map would
 * hold the thread for a minute. A walk of 25 pages needs far fewer.
 */
export const ROBOTS_ASKED_MAX = 1_000;

/** Walks level by level; returns how many pages were fetched. */
export async function walkLinks(start: WalkStart, deps: WalkDeps): Promise<number> {
  const { limits, budget } = deps;
  const walked = new Set<string>([urlKey(start.seedUrl)]);
  const asked = new Map<string, boolean>();
  const walkable = (url: string) => {
    const u = new URL(url);
    const key = urlKey(url);
    if (u.host !== start.host || NOT_A_PAGE.test(u.pathname) || walked.has(key)) return false;
    let allowed = asked.get(key);
    if (allowed === undefined) {
      if (asked.size >= ROBOTS_ASKED_MAX) return false;
      allowed = start.robots.allows(u);
      asked.set(key, allowed);
    }
    return allowed;
  };
  let level = start.links;
  let pagesWalked = 0;
  while (level.length && pagesWalked < limits.walkPages && !budget.signal.aborted) {
    const batch = nextBatch(level, limits.walkPages - pagesWalked, walkable, walked);
    pagesWalked += batch.length;
    const read = await mapBounded(batch, limits.walkConcurrency, (url) => walkPage(url, deps), budget.signal);
    const next: string[] = [];
    for (const found of read) {
      if (!found) continue;
      deps.findings.sources.walk.push(found);
      for (const item of found) next.push(item.link.url);
    }
    level = next;
  }
  return pagesWalked;
}

/** The next pages to walk from `level`, at most `room`, each marked walked. */
function nextBatch(level: readonly string[], room: number, walkable: (url: string) => boolean, walked: Set<string>): string[] {
  const batch: string[] = [];
  for (const url of level) {
    if (batch.length >= room) break;
    if (!walkable(url)) continue;
    walked.add(urlKey(url));
    batch.push(url);
  }
  return batch;
}

/** One walked page: its links in the site, noted; null when it is not read or left the site. */
async function walkPage(url: string, deps: WalkDeps): Promise<Found[] | null> {
  const { findings, limits } = deps;
  try {
    const res = await deps.fetch(url, limits.pageTimeoutMs, { maxBytes: limits.pageMaxBytes, html: true });
    if (res.statusCode < 200 || res.statusCode >= 300 || !isHtml(res.contentType)) return null;
    const facts = await deps.readLinks(res.text().text, res.finalUrl, deps.budget.signal);
    findings.notePage(cleanUrl(url) ?? url, facts);
    const final = cleanUrl(res.finalUrl);
    if (final) findings.notePage(final, facts);
    if (final && !findings.keep(final)) return null;
    return findings.inSiteLinks(facts);
  } catch (error) {
    if (!deps.budget.signal.aborted) deps.log.debug({ url, code: errorCode(error) }, 'page not walked');
    return null;
  }
}
