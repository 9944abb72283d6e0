/**
 * Which URLs a job takes, and under which dedupe key.
 *
 * A job's params are the validated request body (defaults filled in by the gateway), minus
 * the webhook. `jobParamsOf` reads them back with the schema's defaults for anything missing.
 *
 * Crawl scope (`crawlScope`), for every URL but the start page:
 * - http(s) only, cleaned like every frontier URL (urls.ts: no fragment, no credentials,
 *   tracking parameters and session ids dropped — `;jsessionid=…`, `PHPSESSID`, a token
 *   `sid`, …, so every view of a page that hands out a new session is one URL, with or
 *   without `deduplicateSimilarURLs`); with `ignoreQueryParameters` the query is dropped too;
 * - the dedupe key is urls.ts `urlKey` (scheme, `www.`, trailing slash and parameter order
 *   ignored) with `deduplicateSimilarURLs` (the default), else the cleaned URL itself;
 * - the start page's site (its host without `www.`) only, unless `allowExternalLinks`;
 * - on the start page's host, paths under the start page's path only, unless
 *   `allowBackwardLinks` (`/docs` admits `/docs`, `/docs/a`, not `/blog`);
 * - `includePaths` (any matches, when given) and `excludePaths` (none matches; exclude wins)
 *   are tested against the path and query (`/docs/a?x=1`), in RE2's linear-time engine;
 * - URLs whose extension says they are not pages (images, archives, scripts: map.ts
 *   `NOT_A_PAGE`) are not crawled.
 */
import { parseJsonObject } from '../../../pipeline/runtime/json.js';
import { compileLinearRegex, type LinearRegex } from '../../../pipeline/runtime/linear-regex.js';
import { NOT_A_PAGE } from '../map.js';
import { identify, inSite, siteOf, urlKey } from '../urls.js';

export interface CrawlParams {
  readonly url: string;
  readonly limit: number;
  readonly maxDepth: number;
  readonly maxConcurrency: number;
  readonly includePaths: readonly string[];
  readonly excludePaths: readonly string[];
  readonly allowExternalLinks: boolean;
  readonly allowBackwardLinks: boolean;
  readonly ignoreSitemap: boolean;
  readonly ignoreQueryParameters: boolean;
  readonly deduplicateSimilarURLs: boolean;
  readonly delay: number;
  readonly respectRobots: boolean;
  readonly scrapeOptions: Record<string, unknown>;
}

export interface BatchParams {
  readonly urls: readonly string[];
  readonly maxConcurrency: number;
  readonly scrapeOptions: Record<string, unknown>;
}

const int = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) ? v : fallback);
const bool = (v: unknown, fallback: boolean) => (typeof v === 'boolean' ? v : fallback);
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const object = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export function crawlParamsOf(json: string): CrawlParams {
  const o = parseJsonObject(json) ?? {};
  return {
    url: typeof o.url === 'string' ? o.url : '',
    limit: int(o.limit, 100),
    maxDepth: int(o.maxDepth, 3),
    maxConcurrency: int(o.maxConcurrency, 5),
    includePaths: strings(o.includePaths),
    excludePaths: strings(o.excludePaths),
    allowExternalLinks: bool(o.allowExternalLinks, false),
    allowBackwardLinks: bool(o.allowBackwardLinks, false),
    ignoreSitemap: bool(o.ignoreSitemap, false),
    ignoreQueryParameters: bool(o.ignoreQueryParameters, false),
    deduplicateSimilarURLs: bool(o.deduplicateSimilarURLs, true),
    delay: int(o.delay, 0),
    respectRobots: bool(o.respectRobots, false),
    scrapeOptions: object(o.scrapeOptions),
  };
}

export function batchParamsOf(json: string): BatchParams {
  const o = parseJsonObject(json) ?? {};
  return { urls: strings(o.urls), maxConcurrency: int(o.maxConcurrency, 10), scrapeOptions: object(o.scrapeOptions) };
}

/** A URL a job takes: the form it is fetched in and its dedupe key. */
export interface Candidate {
  readonly url: string;
  readonly key: string;
}

/** Caller patterns run in RE2, in time linear in the path (pipeline/runtime/linear-regex.ts). */
function compile(patterns: readonly string[]): LinearRegex[] {
  const out: LinearRegex[] = [];
  // The gateway refused patterns RE2 cannot run (422); one that still fails here matches nothing.
  for (const p of patterns) {
    try {
      out.push(compileLinearRegex(p));
    } catch {
      /* unreachable after validation */
    }
  }
  return out;
}

export interface CrawlScope {
  /** The start page as a candidate (it bypasses the path filters); null when it is not http(s). */
  readonly start: Candidate | null;
  /** A discovered URL as a candidate; null when the crawl does not take it. */
  candidate(ref: string, base?: string): Candidate | null;
}

export function crawlScope(params: CrawlParams): CrawlScope {
  const include = compile(params.includePaths);
  const exclude = compile(params.excludePaths);
  const startId = identify(params.url);
  const startUrl = startId ? new URL(startId.url) : null;
  const site = startUrl ? siteOf(startUrl) : '';
  let prefix = startUrl?.pathname ?? '/';
  while (prefix.length > 1 && prefix.endsWith('/')) prefix = prefix.slice(0, -1);

  const shape = (ref: string, base?: string): Candidate | null => {
    const id = identify(ref, base);
    if (!id) return null;
    let url = id.url;
    if (params.ignoreQueryParameters) {
      const u = new URL(url);
      u.search = '';
      url = u.href;
    }
    return { url, key: params.deduplicateSimilarURLs ? urlKey(url) : url };
  };

  return {
    start: startId ? shape(startId.url) : null,
    candidate(ref, base) {
      const c = shape(ref, base);
      if (!c || !startUrl) return null;
      const u = new URL(c.url);
      if (NOT_A_PAGE.test(u.pathname)) return null;
      const sameSite = inSite(u, site, false);
      if (!sameSite && !params.allowExternalLinks) return null;
      if (sameSite && !params.allowBackwardLinks && prefix !== '/') {
        if (u.pathname !== prefix && !u.pathname.startsWith(`${prefix}/`)) return null;
      }
      const target = `${u.pathname}${u.search}`;
      if (include.length && !include.some((r) => r.test(target))) return null;
      if (exclude.some((r) => r.test(target))) return null;
      return c;
    },
  };
}
