/**
 * The frontier actor: decides what to fetch when. It answers POST /v1/map (reads
 * MapRequested, discovers the site's URLs from robots.txt, sitemaps and a shallow link walk,
 * answers the reply topic: map-handler.ts), and it schedules crawl and batch jobs (reads
 * JobEvent: seeds a job, sends its pages to the fetcher a few at a time, follows a crawl's
 * links, pays for each page and ends the job: jobs/handler.ts). Its building blocks: robots.txt rules (robots.ts), sitemap reading (sitemaps.ts), URL cleaning, dedupe keys
 * and site scope (urls.ts), page links with their text (page-links.ts).
 *
 * Every request goes through the shared HTTP stack (pipeline/runtime/net/http.ts) behind the SSRF
 * guard (FETCH_ALLOW_PRIVATE), through the configured proxy pools like the fetcher's.
 * `createFrontierActor(runtime, options)` builds its ActorDefinition for the pool; the
 * composition root registers it as `{role: 'frontier', serves: ['map'], …}`. Each frontier
 * process also runs the jobs' stall watchdog (jobs/handler.ts sweepStalledJobs) every
 * quarter of JOB_STALL_MS (at least 250 ms, at most 30 s), publishing what it sends again;
 * in embedded mode with a durable state (STATE=file) it resumes the running jobs at start
 * (jobs/handler.ts resumeJobs).
 *
 * It also holds the monitors' and the mention watches' schedules (schedules/monitors.ts,
 * schedules/watches.ts, run by schedules/run.ts): at start-up it rebuilds them from the store
 * (again every REBUILD_MS) and resumes interrupted checks and collections (again every
 * RESUME_MS), and once both are done, every TICK_MS it starts the ones due, at most MONITOR_STARTS_PER_SECOND checks and
 * MENTION_STARTS_PER_SECOND collections a second.
 */
import type { ActorDefinition } from '../../pipeline/runtime/pool.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { proxyPoolsOf } from '../../pipeline/runtime/net/proxies.js';
import { MAP_TIME_BUDGET_MS } from '../../schemas/api/page-reading.js';
import { keyRegistryFor } from '../../pipeline/keys/index.js';
import { handleJobEvent, resumeJobs, sweepStalledJobs, type JobHandlerDeps } from './jobs/handler.js';
import { siteReader } from './jobs/site.js';
import { handleMapRequested } from './map-handler.js';
import { rebuildSchedules, resumeChecks, startDueChecks } from './schedules/monitors.js';
import { runSchedules } from './schedules/run.js';
import { rebuildWatchSchedules, resumeCollections, startDueCollections } from './schedules/watches.js';
import type { DiscoveryLimits } from './map.js';
import { PageLinksPool } from './page-links-pool.js';

export { handleMapRequested, mapOptionsOf, REPLY_MARGIN_MS, type MapHandlerDeps, type MapRequested } from './map-handler.js';
export { discoverSite, DEFAULT_DISCOVERY_LIMITS, type Discovery, type DiscoveryLimits, type MapOptions } from './map.js';

export interface FrontierActorOptions {
  readonly allowCidrs?: readonly string[];
  /** Overrides MAP_TIME_BUDGET_MS (tests). */
  readonly mapBudgetMs?: number;
  readonly limits?: Partial<DiscoveryLimits>;
}

/** How often the stall watchdog looks, for a stall time of `stallMs`. */
export const watchdogIntervalMs = (stallMs: number) => Math.min(30_000, Math.max(250, Math.floor(stallMs / 4)));

export function createFrontierActor(runtime: ServiceRuntime, options: FrontierActorOptions = {}): ActorDefinition {
  const { config } = runtime;
  const guard = new NetGuard({ allowPrivate: config.fetchAllowPrivate, allowCidrs: options.allowCidrs ?? [] });
  const http = new HttpFetcher({
    guard,
    proxies: proxyPoolsOf(config),
    proxiesByCountry: config.proxyCountryUrls ?? {},
    maxBytes: config.fetchMaxBytes,
  });
  // Job pages are paid for as they complete, through the same key registry the gateway uses.
  const keys = keyRegistryFor(config, runtime, { batchCharges: true });
  const log = runtime.log.child({ actor: 'frontier' });
  const site = siteReader(http, log);
  // A map's pages of heavy markup are read in a worker thread (page-links-pool.ts).
  const mapPages = new PageLinksPool(config, log);
  const jobDeps = (jobLog: JobHandlerDeps['log']): JobHandlerDeps => ({ state: runtime.state, writer: runtime.writer, keys, site, log: jobLog, operatorModel: runtime.config.modelProvider !== null });
  const stopping = new AbortController();
  let sweeping: Promise<void> | null = null;
  const sweep = async () => {
    try {
      const emissions = await sweepStalledJobs(jobDeps(log), config.jobStallMs, stopping.signal);
      if (emissions.length > 0) await runtime.events.emit(emissions);
    } catch (error) {
      log.warn({ err: error }, 'the job watchdog could not finish a sweep; it tries again');
    }
  };
  const watchdog = setInterval(() => {
    sweeping ??= sweep().finally(() => (sweeping = null));
  }, watchdogIntervalMs(config.jobStallMs));
  watchdog.unref();
  // One process with a durable state (embedded mode, STATE=file): the running jobs' state
  // outlived the last process and nothing of their work in flight did, so they resume now,
  // not a JOB_STALL_MS later. (The pools that read what this sends may start after this one:
  // they read their topics from the beginning.)
  if (config.bus === 'memory' && config.state === 'file') {
    sweeping = resumeJobs(jobDeps(log), stopping.signal)
      .then(async (emissions) => {
        if (emissions.length > 0) await runtime.events.emit(emissions);
      })
      .catch((error: unknown) => log.warn({ err: error }, 'the running jobs could not be resumed at start; the watchdog resumes them'))
      .finally(() => (sweeping = null));
  }
  const scheduleDeps = { state: runtime.state, store: runtime.store, writer: runtime.writer, log };
  const schedules = [
    runSchedules(runtime.events, 'monitor', { rebuild: rebuildSchedules, resume: resumeChecks, start: startDueChecks }, { ...scheduleDeps, startsPerSecond: config.monitorStartsPerSecond }, stopping.signal),
    runSchedules(runtime.events, 'watch', { rebuild: rebuildWatchSchedules, resume: resumeCollections, start: startDueCollections }, { ...scheduleDeps, startsPerSecond: config.mentionStartsPerSecond }, stopping.signal),
  ];
  return {
    name: 'frontier',
    group: 'frontier',
    topics: ['mapRequested', 'jobEvents'],
    concurrency: config.poolConcurrency,
    // A map's budget, the seed's fetch and the answer fit in it; so do a job's sitemap seeding
    // and a `delay` (at most 60 s) before its next page.
    timeoutMs: Math.max((options.mapBudgetMs ?? MAP_TIME_BUDGET_MS) + 20_000, 180_000),
    async close() {
      clearInterval(watchdog);
      stopping.abort();
      await sweeping;
      await Promise.all(schedules.map((s) => s.stop()));
      keys.close();
      await mapPages.close();
    },
    handlers: {
      JobEvent: (event, ctx) => handleJobEvent(event, jobDeps(ctx.log), ctx.signal),
      MapRequested: (event, ctx) =>
        handleMapRequested(
          event,
          {
            http,
            log: ctx.log,
            readLinks: mapPages.read,
            ...(options.mapBudgetMs !== undefined ? { budgetMs: options.mapBudgetMs } : {}),
            ...(options.limits ? { limits: options.limits } : {}),
          },
          ctx.signal,
        ),
    },
  };
}
