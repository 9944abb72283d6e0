/**
 * The fetcher actor: reads ScrapeRequested, fetches the page over HTTP behind the SSRF guard
 * (pipeline/runtime/net/http.ts) and emits PageFetched, or answers the failure (handler.ts), or,
 * in a build with a renderer (`render`), sends a page holding a challenge to it; reads
 * FetchRequested (GET /v1/fetch) and answers the bytes themselves (fetch-handler.ts).
 *
 * `createFetcherActor(runtime, options)` builds its ActorDefinition for the pool; the
 * composition root registers it as `{role: 'fetcher', create: (rt) => createFetcherActor(rt)}`.
 * Proxy pools (PROXY_*_URLS) and the size cap (FETCH_MAX_BYTES) come from the runtime's
 * config; `options` overrides them (tests).
 */
import type { ActorDefinition } from '../../pipeline/runtime/pool.js';
import { JobEnds } from '../../pipeline/jobs/ended.js';
import { DEFAULT_POOL_RETRY } from '../../pipeline/runtime/pool.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { proxyPoolsOf, type ProxyPools } from '../../pipeline/runtime/net/proxies.js';
import { handleFetchRequested } from './fetch-handler.js';
import { scrapeRequestedHandling } from './handler.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';

export { handleScrapeRequested, scrapeRequestedHandling, type FetcherDeps, type ScrapeRequested } from './handler.js';
export { handleFetchRequested, type FetchHandlerDeps, type FetchRequested } from './fetch-handler.js';
export { HttpFetcher, DEFAULT_MAX_BYTES, type FetchRequest, type FetchResult, type HttpFetcherOptions } from '../../pipeline/runtime/net/http.js';
export { fetchRaw, type RawFetchOptions, type RawFetchResult } from './raw.js';

export interface FetcherActorOptions {
  readonly proxies?: ProxyPools;
  readonly proxiesByCountry?: Readonly<Record<string, readonly string[]>>;
  readonly allowCidrs?: readonly string[];
  readonly maxBytes?: number;
  /** Time allowed for one attempt; above the largest scrape `timeout` (300 s). */
  readonly timeoutMs?: number;
  /**
   * The build has a renderer (main.ts: an actor serving `render`, as the gateway's routing):
   * a page whose HTML holds a challenge frame is sent to `renderRequested` (handler.ts).
   */
  readonly render?: boolean;
}

/** The proxy pools of the config (shared with the frontier; pipeline/runtime/net/proxies.ts). */
export { proxyPoolsOf };

export function createFetcherActor(runtime: ServiceRuntime, options: FetcherActorOptions = {}): ActorDefinition {
  const { config } = runtime;
  const guard = new NetGuard({ allowPrivate: config.fetchAllowPrivate, allowCidrs: options.allowCidrs ?? [] });
  const proxies = options.proxies ?? proxyPoolsOf(config);
  const proxiesByCountry = options.proxiesByCountry ?? config.proxyCountryUrls ?? {};
  const maxBytes = options.maxBytes ?? config.fetchMaxBytes;
  const http = new HttpFetcher({ guard, proxies, proxiesByCountry, maxBytes });
  // How many proxies each pool has, never the URLs: they may carry credentials.
  runtime.log.child({ actor: 'fetcher' }).info(
    {
      maxBytes,
      render: options.render ?? false,
      proxies: { datacenter: proxies.datacenter?.length ?? 0, residential: proxies.residential?.length ?? 0, mobile: proxies.mobile?.length ?? 0 },
      proxyCountries: Object.keys(proxiesByCountry),
    },
    'fetcher configured',
  );
  return {
    name: 'fetcher',
    group: 'fetcher',
    topics: ['scrapeRequested', 'fetchRequested'],
    concurrency: config.poolConcurrency,
    timeoutMs: options.timeoutMs ?? 310_000,
    handlers: {
      // The store answers the page cache lookups of `maxAge` (actors/fetcher/cache.ts).
      // A job page of a job that has ended is not fetched, nor finished (pipeline/jobs/ended.ts).
      ScrapeRequested: scrapeRequestedHandling({ http, maxAttempts: DEFAULT_POOL_RETRY.attempts, store: runtime.store, render: options.render ?? false, jobs: new JobEnds(runtime.state) }),
      FetchRequested: (event, ctx) => handleFetchRequested(event, { http, log: ctx.log, maxAttempts: DEFAULT_POOL_RETRY.attempts }, ctx.signal, ctx.attempt),
    },
  };
}
