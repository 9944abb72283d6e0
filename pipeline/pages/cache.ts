/**
 * The page cache (scrape options `maxAge`, `storeInCache`), defined once for the two actors
 * that use it: the fetcher looks a copy up before fetching (actors/fetcher/cache.ts), the
 * parser writes the copy it read (actors/parser/index.ts `pagesRow`). The copies are rows of
 * `pages` (infra/clickhouse/0001_init.sql, 0002_page_cache.sql); the reads are in
 * pipeline/runtime/store/queries.ts.
 *
 * What a copy is found by:
 * - `url`: the requested URL normalized by the runtime's rule (pipeline/runtime/url.ts
 *   normalizeUrl: WHATWG parsing, no `#fragment`, query parameters in their order).
 * - `cache_key`: a hash of the options that change the bytes the server sends: `mobile`
 *   (the browser identity), `location` (its country routes the proxy; its languages, as
 *   the fetcher turns them into Accept-Language, pick the language of the page), the `pdf`
 *   parser (without it the fetcher refuses a PDF) and the caller's own `headers`. Options
 *   that only change how the bytes are read (formats, onlyMainContent, tags…) are not part
 *   of it: the cache keeps the raw body, and the parser reads it again with the options of
 *   the request it serves. `proxy` and `timeout` change how the bytes are fetched, not which.
 *   A rendered page (pipeline/pages/rendering.ts) adds its `waitFor`, `actions` and `blockAssets`
 *   to the key, so its DOM never answers a plain fetch nor a render with other actions;
 *   a page fetched over HTTP has no such part and keeps the key it always had.
 * - `shareable`: a request that sends its own headers (cookies, authorization) may see a
 *   page meant for that caller only. Its copy is never shared: the shared index reads only
 *   shareable copies, and the headers are part of the key (as a hash; their values are not
 *   stored), so the tenant's own cache serves it only to requests with the same headers.
 *
 * Prices (spec, Charging rule 2): the caller's own copy is free, a copy from the shared index
 * costs 1 credit, a fresh fetch 1 credit (schemas/api/prices.ts SOURCE_CREDITS).
 */
import { createHash } from 'node:crypto';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import { parseJsonObject } from '../runtime/json.js';
import { languagesFor } from '../runtime/net/locale.js';
import { normalizeUrl } from '../runtime/url.js';
import { needsBrowser, renderVariant } from './rendering.js';

export type PageSource = 'fresh' | 'cache' | 'index';

export const PAGE_SOURCES: readonly PageSource[] = ['fresh', 'cache', 'index'];

/** Bumped when the key's derivation changes, so that old copies stop matching. */
const KEY_VERSION = 1;

export interface CachePlan {
  /** The normalized URL: the `url` column of the copy, and what a lookup matches. */
  readonly url: string;
  /** Hash of the options that change the bytes (`cache_key`). */
  readonly key: string;
  /** False when the caller sent its own headers: the copy stays out of the shared index. */
  readonly shareable: boolean;
  /** How old a copy may be, in ms; 0 fetches fresh without looking. */
  readonly maxAgeMs: number;
  /** Whether a freshly fetched response is written to the cache (`storeInCache`). */
  readonly store: boolean;
}

export function isPageSource(value: unknown): value is PageSource {
  return typeof value === 'string' && (PAGE_SOURCES as readonly string[]).includes(value);
}

/** Caller headers as sorted `[lower-case name, value]` pairs; null when there are none. */
function callerHeaders(headers: Readonly<Record<string, string>> | undefined): [string, string][] | null {
  const pairs = Object.entries(headers ?? {}).map(([name, value]): [string, string] => [name.toLowerCase(), String(value)]);
  if (pairs.length === 0) return null;
  return pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The page cache key (`cache_key`) of a request's options: worked out once, by the producer of
 * the ScrapeRequested (pipeline/pages/scrape-request.ts), with its decision whether a browser
 * reads the page (`browser`: the render's options join the key), and carried on the events.
 */
export function cacheKeyOf(options: ScrapeOptions, browser: boolean): string {
  const location = options.location ?? null;
  const render = browser ? renderVariant(options) : null;
  const variant = {
    v: KEY_VERSION,
    mobile: options.mobile ?? false,
    country: location ? location.country.toUpperCase() : null,
    languages: location ? languagesFor(location) : null,
    pdf: (options.parsers ?? []).includes('pdf'),
    headers: callerHeaders(options.headers),
    ...(render ? { render } : {}),
  };
  return createHash('sha256').update(JSON.stringify(variant)).digest('hex').slice(0, 32);
}

/** Whether a request's copy may be shared across keys: it sent no headers of its own. */
export function isShareableRequest(options: ScrapeOptions): boolean {
  return callerHeaders(options.headers) === null;
}

/**
 * A request's cache plan. `cacheKey` is the key its producer worked out and the event carries
 * (ScrapeRequested and PageFetched `cacheKey`); when empty (events written before they
 * carried it) it is worked out from the options, with the browser decision the producer took.
 */
export function cachePlan(url: string, options: ScrapeOptions, cacheKey = ''): CachePlan {
  const maxAge = options.maxAge ?? 0;
  return {
    url: normalizeUrl(url),
    key: cacheKey || cacheKeyOf(options, needsBrowser(options)),
    shareable: isShareableRequest(options),
    maxAgeMs: Number.isFinite(maxAge) && maxAge > 0 ? Math.floor(maxAge) : 0,
    store: options.storeInCache !== false,
  };
}

/**
 * The cache columns of a `pages` row. The body travels and is stored as base64: JSONEachRow
 * carries text, and raw bytes that are not UTF-8 would not come back unchanged through both
 * drivers (an EPHEMERAL column decoding base64 on insert would store the raw bytes, but
 * ClickHouse ignores EPHEMERAL columns in JSONEachRow inserts).
 */
export function cacheColumns(plan: CachePlan, page: { readonly body: Uint8Array; readonly headers: Readonly<Record<string, string>> }): Record<string, unknown> {
  return {
    url: plan.url,
    cache_key: plan.key,
    shareable: plan.shareable ? 1 : 0,
    body_base64: Buffer.from(page.body.buffer, page.body.byteOffset, page.body.byteLength).toString('base64'),
    response_headers: JSON.stringify(page.headers),
  };
}

/** A copy as the cache lookups return it (pipeline/runtime/store/queries.ts CACHED_PAGE_*). */
export interface CachedRow {
  readonly tenant: string;
  readonly request_id: string;
  /** Int64 comes back as a string (wire.ts). */
  readonly fetched_at_ms: string | number;
  readonly status_code: number;
  readonly content_type: string;
  readonly final_url: string;
  readonly response_headers: string;
  readonly body_base64: string;
}

export interface CachedCopy {
  readonly source: Exclude<PageSource, 'fresh'>;
  /** The request that fetched it. */
  readonly requestId: string;
  readonly fetchedAtMs: number;
  readonly statusCode: number;
  readonly contentType: string;
  readonly finalUrl: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

function headersOf(json: string): Record<string, string> {
  const value = parseJsonObject(json) ?? {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export function cachedCopy(row: CachedRow, source: CachedCopy['source']): CachedCopy {
  return {
    source,
    requestId: row.request_id,
    fetchedAtMs: Number(row.fetched_at_ms),
    statusCode: Number(row.status_code),
    contentType: row.content_type,
    finalUrl: row.final_url,
    headers: headersOf(row.response_headers),
    body: Buffer.from(row.body_base64, 'base64'),
  };
}
