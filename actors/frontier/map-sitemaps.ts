/**
 * A map's sitemap step (map.ts): the robots.txt `Sitemap:` URLs and `<origin>/sitemap.xml`,
 * read level by level: sitemap indexes followed (nested up to `sitemapDepth`, at most
 * `sitemapFiles` files in all, `sitemapConcurrency` at once), gzipped ones inflated
 * (sitemaps.ts). Each URL in the site is noted as soon as its file is read.
 */
import { errorCode } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { mapBounded } from '../../pipeline/runtime/bounded.js';
import type { BudgetFetch, MapBudget } from './map-budget.js';
import type { Findings, Found } from './map-found.js';
import type { SeedAnswer } from './map-seed.js';
import { parseSitemap, sitemapText, SITEMAP_MAX_BYTES } from './sitemaps.js';
import { hostInSite, identify } from './urls.js';

export interface SitemapLimits {
  readonly sitemapConcurrency: number;
  readonly sitemapFiles: number;
  readonly sitemapDepth: number;
}

export interface SitemapDeps {
  readonly fetch: BudgetFetch;
  readonly budget: MapBudget;
  readonly log: Logger;
  readonly findings: Findings;
  readonly limits: SitemapLimits;
  readonly site: string;
  readonly includeSubdomains: boolean;
}

/** A sitemap file read: its URLs in the site, and the sitemaps it lists (an index). */
interface SitemapFile {
  readonly found: Found[];
  readonly children: readonly string[];
}

/** The sitemaps to start from: the robots.txt ones, then `<origin>/sitemap.xml`. */
export function listedSitemaps(seed: SeedAnswer): string[] {
  return [...seed.robots.sitemaps, ...seed.extraSitemaps, `${seed.finalUrl.origin}/sitemap.xml`];
}

/** Reads `listed` and the sitemaps they list; returns how many files were read. */
export async function readSitemaps(listed: readonly string[], deps: SitemapDeps): Promise<number> {
  const { limits, budget } = deps;
  const visited = new Set<string>();
  let level = unvisited(listed, visited);
  let read = 0;
  for (let depth = 0; depth < limits.sitemapDepth && level.length && !budget.signal.aborted; depth++) {
    const files = level.slice(0, Math.max(0, limits.sitemapFiles - read));
    read += files.length;
    const parsed = await mapBounded(files, limits.sitemapConcurrency, (url) => readSitemap(url, deps), budget.signal);
    const next: string[] = [];
    for (const file of parsed) {
      if (!file) continue;
      deps.findings.sources.sitemaps.push(file.found);
      for (const child of unvisited(file.children, visited)) next.push(child);
    }
    level = next;
  }
  return read;
}

/** `urls` not visited yet, each once, now visited. */
function unvisited(urls: readonly string[], visited: Set<string>): string[] {
  return urls.filter((u) => !visited.has(u) && visited.add(u));
}

/** One sitemap file: null when it is not read (not 2xx, unreachable, stopped). */
async function readSitemap(url: string, deps: SitemapDeps): Promise<SitemapFile | null> {
  try {
    const res = await deps.fetch(url, deps.budget.remaining(), { maxBytes: SITEMAP_MAX_BYTES });
    if (res.statusCode < 200 || res.statusCode >= 300) return null;
    const sitemap = parseSitemap(sitemapText(res.body, res.contentType));
    const found: Found[] = [];
    for (const entry of sitemap.urls) {
      const id = identify(entry.url);
      if (!id || !hostInSite(id.host, deps.site, deps.includeSubdomains)) continue;
      const item: Found = { link: { url: id.url, ...(entry.title ? { title: entry.title } : {}) }, key: id.key };
      found.push(item);
      deps.findings.note(item);
    }
    return { found, children: sitemap.sitemaps };
  } catch (error) {
    if (!deps.budget.signal.aborted) deps.log.debug({ url, code: errorCode(error) }, 'sitemap not read');
    return null;
  }
}
