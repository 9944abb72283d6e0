/**
 * The fetcher actor: reads ScrapeRequested, fetches the page over HTTP behind the SSRF guard
 * (actors/fetcher/http.ts) and emits PageFetched, or answers the failure (handler.ts).
 *
 * `createFetcherActor(runtime, options)` builds its ActorDefinition for the pool; the
 * composition root registers it as `{role: 'fetcher', create: (rt) => createFetcherActor(rt)}`.
 * Proxy pools and the size cap come in through `options` until config has settings for them.
 */
import type { ActorDefinition } from '../../pipeline/pool.js';
import { DEFAULT_POOL_RETRY } from '../../pipeline/pool.js';
import type { Runtime } from '../../pipeline/runtime.js';
import { NetGuard } from '../../pipeline/net/guard.js';
import type { ProxyPools } from '../../pipeline/net/proxies.js';
import type { EventValue } from '../../schemas/events/index.js';
import { handleScrapeRequested } from './handler.js';
import { HttpFetcher } from './http.js';

export { handleScrapeRequested, type FetcherDeps, type ScrapeRequested } from './handler.js';
export { HttpFetcher, DEFAULT_MAX_BYTES, type FetchRequest, type FetchResult, type HttpFetcherOptions } from './http.js';
export { fetchRaw, type RawFetchOptions, type RawFetchResult } from './raw.js';

export interface FetcherActorOptions {
  readonly proxies?: ProxyPools;
  readonly proxiesByCountry?: Readonly<Record<string, readonly string[]>>;
  readonly allowCidrs?: readonly string[];
  readonly maxBytes?: number;
  /** Time allowed for one attempt; above the largest scrape `timeout` (300 s). */
  readonly timeoutMs?: number;
}

export function createFetcherActor(runtime: Runtime, options: FetcherActorOptions = {}): ActorDefinition {
  const guard = new NetGuard({ allowPrivate: runtime.config.fetchAllowPrivate, allowCidrs: options.allowCidrs ?? [] });
  const http = new HttpFetcher({
    guard,
    ...(options.proxies ? { proxies: options.proxies } : {}),
    ...(options.proxiesByCountry ? { proxiesByCountry: options.proxiesByCountry } : {}),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
  });
  const log = runtime.log.child({ actor: 'fetcher' });
  return {
    name: 'fetcher',
    group: 'fetcher',
    topics: ['scrapeRequested'],
    concurrency: runtime.config.poolConcurrency,
    timeoutMs: options.timeoutMs ?? 310_000,
    async handler(event, ctx) {
      if (event.event !== 'ScrapeRequested') return { kind: 'dead', code: 'event_undecodable', message: `unexpected ${event.event} event` };
      const deps = { http, log: ctx.log, maxAttempts: DEFAULT_POOL_RETRY.attempts };
      return handleScrapeRequested(event.value as EventValue<'ScrapeRequested'>, deps, ctx.signal, ctx.attempt);
    },
  };
}
