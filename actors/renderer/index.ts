/**
 * The renderer actor: reads ScrapeRequested from `renderRequested` (the scrapes the gateway
 * routes to a browser: waitFor, actions, the screenshot and network formats), renders the
 * page in a warm Chromium (browser.ts) behind the SSRF guard (policy.ts, proxy.ts) and emits
 * PageFetched with the rendered DOM and what the render produced (handler.ts).
 *
 * `createRendererActor(runtime, options)` builds its ActorDefinition; the composition root
 * registers it as `{role: 'renderer', serves: ['render'], create: (rt) => createRendererActor(rt)}`.
 * Its pool's concurrency is RENDER_CONCURRENCY: the pages one process keeps open at once.
 * The browser is launched on the first render, replaced by a new one after RENDER_RECYCLE_PAGES
 * renders (browser.ts) and closed when the pool stops.
 */
import type { ActorDefinition } from '../../pipeline/runtime/pool.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { proxyPoolsOf, ProxyRouter } from '../../pipeline/runtime/net/proxies.js';
import { BrowserPool } from './browser.js';
import { defaultChromiumPath } from './flags.js';
import { renderRequestedHandling } from './handler.js';
import { JobEnds } from '../../pipeline/jobs/ended.js';

export { BrowserPool, CHROMIUM_ARGS, type BrowserPoolOptions } from './browser.js';
export { CHROMIUM_EXECUTABLES, defaultChromiumPath } from './flags.js';
export { handleRenderRequested, renderRequestedHandling, type RendererDeps, type ScrapeRequested } from './handler.js';
export { renderPage, type RenderExtras, type RenderRequest, type RenderResult } from './render.js';
export { contextOptions, MOBILE_VIEWPORT, DESKTOP_VIEWPORT } from './context.js';
export { GuardedProxy } from './proxy.js';

export interface RendererActorOptions {
  readonly allowCidrs?: readonly string[];
  /** Time allowed for one attempt; above the largest scrape `timeout` (300 s). */
  readonly timeoutMs?: number;
}

/** Attempts the renderer makes at most: a render that failed for a retriable reason is tried once more. */
export const RENDER_ATTEMPTS = 2;

export function createRendererActor(runtime: ServiceRuntime, options: RendererActorOptions = {}): ActorDefinition {
  const { config } = runtime;
  const log = runtime.log.child({ actor: 'renderer' });
  const guard = new NetGuard({ allowPrivate: config.fetchAllowPrivate, allowCidrs: options.allowCidrs ?? [] });
  const chromium = config.renderChromiumPath ?? defaultChromiumPath();
  const browsers = new BrowserPool({ executablePath: chromium, concurrency: config.renderConcurrency, recyclePages: config.renderRecyclePages, guard, log });
  const pools = proxyPoolsOf(config);
  const proxies = new ProxyRouter(pools, config.proxyCountryUrls ?? {});
  // How many proxies each pool has, never the URLs: they may carry credentials.
  log.info(
    {
      chromium,
      concurrency: config.renderConcurrency,
      recyclePages: config.renderRecyclePages,
      proxies: { datacenter: pools.datacenter?.length ?? 0, residential: pools.residential?.length ?? 0, mobile: pools.mobile?.length ?? 0 },
    },
    'renderer configured',
  );
  return {
    name: 'renderer',
    group: 'renderer',
    topics: ['renderRequested'],
    concurrency: config.renderConcurrency,
    timeoutMs: options.timeoutMs ?? 310_000,
    // A job page of a job that has ended is not rendered, nor finished (pipeline/jobs/ended.ts).
    handlers: { ScrapeRequested: renderRequestedHandling({ browsers, guard, proxies, maxAttempts: RENDER_ATTEMPTS, jobs: new JobEnds(runtime.state) }) },
    close: () => browsers.close(),
  };
}
