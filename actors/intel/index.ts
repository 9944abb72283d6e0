/**
 * The intel actor: site and company intelligence. It reads IntelRequested (POST /v1/domain,
 * /v1/domain/report, /v1/domain/history/snapshots, /v1/domain/screen) and answers the reply
 * topic (handler.ts). Registry, DNS and archive calls wait on outside services, and a report
 * waits on the pages it reads, so this work has its own pool and never holds the searcher's
 * or the parser's slots.
 *
 * Every intel process shares one client per service (pipeline/intel/sources.ts: RDAP with
 * its per-registry limit, DNS, the Wayback Machine's index), reads the link graph and the
 * reports' records in the store, and reads pages through the scrape path with a Requester
 * of its own (pages.ts), started with the pool. `createIntelActor(runtime)`
 * builds its ActorDefinition; the composition root registers it as
 * `{role: 'intel', serves: ['intel'], …}`.
 */
import type { ActorDefinition } from '../../pipeline/runtime/pool.js';
import { lazyRequester } from '../../pipeline/runtime/request-reply.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { intelSources, sourceLimits } from '../../pipeline/intel/sources.js';
import { operatorModel } from '../../pipeline/clients/models/index.js';
import { handleIntelRequested, type IntelDeps } from './handler.js';
import { pageReader } from './pages.js';

export { handleIntelRequested, REPLY_MARGIN_MS, type IntelDeps, type IntelRequested } from './handler.js';
export { pageReader } from './pages.js';

/** The longest an intel question may run: a 500-name screen or a report, within the gateway's own wait. */
const INTEL_MAX_MS = 330_000;

export function createIntelActor(runtime: ServiceRuntime): ActorDefinition {
  const { config } = runtime;
  const log = runtime.log.child({ actor: 'intel' });
  const requester = lazyRequester(runtime.events, log.child({ component: 'requester' }));
  // Started now rather than on the first report's first page: joining the replies topic's
  // group takes seconds on Kafka, which that report's budget would otherwise pay. A failed
  // start is tried again by the next page read.
  requester.get().catch((error: unknown) => log.warn({ err: error }, 'the page requester did not start; the next page read tries again'));
  // A malformed DNS_SERVERS stops the process here, at start.
  const deps: Omit<IntelDeps, 'log'> = {
    sources: intelSources(config, runtime.store, runtime.writer),
    limits: sourceLimits(config),
    writer: runtime.writer,
    pages: (requestId, tenant) => pageReader(requester.get, requestId, tenant),
    pageTimeoutMs: config.domainPageTimeoutMs,
    pageConcurrency: config.domainPageConcurrency,
    reportBudgetMs: config.domainReportBudgetMs,
    screenConcurrency: config.domainScreenConcurrency,
    site: {
      store: runtime.store,
      writer: runtime.writer,
      requester: requester.get,
      pageTimeoutMs: config.sitePageTimeoutMs,
      readBudgetMs: config.siteReadBudgetMs,
      companyCacheHours: config.companyCacheHours,
      // The operator's model reads what the pages state in words no rule knows (a bad MODEL_* setting stops the process).
      model: operatorModel(config),
      modelConfig: config,
    },
  };
  return {
    name: 'intel',
    group: 'intel',
    topics: ['intelRequested'],
    concurrency: config.poolConcurrency,
    timeoutMs: INTEL_MAX_MS + 10_000,
    async close() {
      await requester.stop();
    },
    handlers: {
      IntelRequested: { handle: (event, ctx) => handleIntelRequested(event, { ...deps, log: ctx.log }, ctx.signal), replySource: 'intel' },
    },
  };
}
