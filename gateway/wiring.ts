/**
 * The operation table: for each operation of the contract (schemas/api/operations.ts, which
 * holds its id, method, path and schemas), how this service serves it: its handler's
 * factory, its price and the capabilities it needs of the build's actors, or that it is not
 * served yet. The gateway builds its handlers from this table (`operationHandlers`, called by
 * gateway/app.ts with the pipeline main.ts gives it); an operation without a handler answers
 * 501 `not_implemented` (gateway/routes.ts).
 *
 * A row is one of:
 * - `byGateway(price, factory)`: answered by the gateway itself, in every build (templates,
 *   source).
 * - `byPipeline(needs, price, factory)`: answered through the actors, in a build whose actors
 *   (all roles; main.ts ACTORS `serves`) serve every capability in `needs`
 *   (schemas/capabilities.ts); in any other build it answers 501.
 * - `NOT_SERVED`: answered 501 in every build.
 *
 * A price is `'free'` for an operation the contract prices free (TypeScript insists), else
 * `{estimate}`: the most a request can cost, reserved before the work (402 when the balance
 * is short). What is charged is what the handler reports, from the actor's reply; every
 * figure comes from schemas/api/prices.ts, where each names the spec charging rule it
 * implements. `flat(price)` reserves one unit of a price.
 *
 * Adding an operation: its contract row in schemas/api/operations.ts (id, method, path,
 * schemas) already exists for each of the spec's 46; write its handler (a factory returning
 * an OperationHandler, gateway/handler.ts) in gateway/handlers/, usually one event out and its
 * reply awaited (gateway/handlers/ask.ts); then replace its `NOT_SERVED` row here with a
 * `byPipeline` row naming the capabilities it needs, its price and the factory. A new kind of
 * actor work is a new capability in schemas/capabilities.ts, served by the actor that does it
 * (its `serves` in main.ts ACTORS). The table is keyed by the contract's ids: a missing or
 * unknown id does not compile, and test/gateway/wiring.test.ts checks the spec's endpoint
 * index against it.
 */
import type { Config } from '../pipeline/service/config.js';
import { NetGuard } from '../pipeline/runtime/net/guard.js';
import { serverWebhookSecret } from '../pipeline/webhooks/secret.js';
import type { Requester } from '../pipeline/runtime/request-reply.js';
import type { FreeOperationId, OperationId } from '../schemas/api/operations.js';
import type { ExtractBody, ScrapeBody } from '../schemas/api/page-reading.js';
import type { SearchBody } from '../schemas/api/search.js';
import type { DomainReportBody, DomainScreenBody, ListingBody, SnapshotsBody } from '../schemas/api/intel.js';
import { PRICES, type Price } from '../schemas/api/prices.js';
import type { ScrapeOptions } from '../schemas/api/scrape-options.js';
import type { Capability } from '../schemas/capabilities.js';
import type { HandlerContext, Handlers, OperationHandler, RecordDeps } from './handler.js';
import { fetchHandler } from './handlers/fetch.js';
import { companyEstimate, companyHandler, listingEstimate, postsHandler, productsHandler, type SiteWaits } from './handlers/sites.js';
import {
  domainHandler,
  domainReportHandler,
  domainScreenHandler,
  domainSnapshotsHandler,
  reportEstimate,
  screenEstimate,
  snapshotsEstimate,
  type IntelWaits,
} from './handlers/intel.js';
import {
  crawlCancelHandler,
  crawlErrorsHandler,
  jobPagesHandler,
  jobStartHandler,
  jobStatusHandler,
  type JobHandlerOptions,
} from './handlers/jobs.js';
import { extractEstimate, extractHandler } from './handlers/extract.js';
import { mapHandler } from './handlers/map.js';
import {
  monitorChecksHandler,
  monitorCreateHandler,
  monitorDeleteHandler,
  monitorGetHandler,
  monitorListHandler,
  monitorRunHandler,
  monitorUpdateHandler,
  RUN_WAIT_MS,
  type MonitorHandlerOptions,
} from './handlers/monitors.js';
import { parseHandler } from './handlers/parse.js';
import { sourceHandler, templatesHandler } from './handlers/reference.js';
import { scrapeEstimate, scrapeHandler } from './handlers/scrape.js';
import { placesHandler, searchEstimate, searchHandler, serpHandler } from './handlers/search.js';
import { mentionListHandler, mentionUpdateHandler } from './handlers/mentions.js';
import { socialCatalogHandler, socialEstimate, socialRunHandler } from './handlers/social.js';
import { leadsCancelHandler, leadsEstimate, leadsSourcesHandler, leadsStartHandler, leadsStatusHandler } from './handlers/leads.js';
import { allSources, configuredRegisters } from '../pipeline/leads/sources.js';
import {
  watchCreateHandler,
  watchDeleteHandler,
  watchGetHandler,
  watchListHandler,
  watchTestHandler,
  watchTestUnsavedHandler,
  watchUpdateHandler,
  type WatchHandlerOptions,
} from './handlers/watches.js';

/** What every handler factory is given: the gateway's own settings. */
export interface GatewayHandlerDeps {
  readonly config: Config;
  readonly version: string;
}

/** What the gateway is given to send operations to the actors (main.ts). */
export interface PipelineDeps {
  /** What this build's actors serve, all roles together (main.ts ACTORS `serves`). */
  readonly serves: ReadonlySet<Capability>;
  readonly requester: Requester;
  /** Where jobs, monitors, watches and mentions are kept (the runtime's state, store, writer and events). */
  readonly records: RecordDeps;
}

/** What a `byPipeline` row's factory is given. */
export interface PipelineHandlerDeps extends GatewayHandlerDeps, PipelineDeps {
  /** How this build takes a job's webhook and browser options, made once for the job operations. */
  readonly jobOptions: JobHandlerOptions;
}

/** The most a request of a metered operation can cost, reserved before the work (given the gateway's settings). */
export interface MeteredPrice {
  estimate(ctx: HandlerContext, deps: GatewayHandlerDeps): number;
}

export type OperationPrice = 'free' | MeteredPrice;

export interface GatewayRow<P extends OperationPrice = OperationPrice> {
  readonly served: 'gateway';
  readonly price: P;
  handler(deps: GatewayHandlerDeps): OperationHandler;
}

export interface PipelineRow<P extends OperationPrice = OperationPrice> {
  readonly served: 'pipeline';
  /** Capabilities the build's actors must all serve for the gateway to serve the operation. */
  readonly needs: readonly [Capability, ...Capability[]];
  readonly price: P;
  handler(deps: PipelineHandlerDeps): OperationHandler;
}

/** Not served by this service yet: a valid request answers 501 `not_implemented`. */
export interface NotServedRow {
  readonly served: false;
}

export type OperationRow<P extends OperationPrice = OperationPrice> = GatewayRow<P> | PipelineRow<P> | NotServedRow;

/** One row per operation of the contract; a free operation's price is `'free'`, a metered one's an estimate. */
export type OperationTable = {
  readonly [Id in OperationId]: OperationRow<Id extends FreeOperationId ? 'free' : MeteredPrice>;
};

export const NOT_SERVED: NotServedRow = { served: false };

export function byGateway<P extends OperationPrice>(price: P, handler: (deps: GatewayHandlerDeps) => OperationHandler): GatewayRow<P> {
  return { served: 'gateway', price, handler };
}

export function byPipeline<P extends OperationPrice>(
  needs: readonly [Capability, ...Capability[]],
  price: P,
  handler: (deps: PipelineHandlerDeps) => OperationHandler,
): PipelineRow<P> {
  return { served: 'pipeline', needs, price, handler };
}

/** Reserves one unit of `price`. */
export function flat(price: Price): MeteredPrice {
  return { estimate: () => price.credits };
}

/**
 * A crawl or batch costs nothing to start, but a key that cannot pay for its first page (a
 * browser page when the scrape options need a browser) is refused before anything runs;
 * each page is then held and charged by the frontier (actors/frontier/jobs/schedule.ts).
 */
const jobStart: MeteredPrice = {
  estimate: (ctx, deps) => scrapeEstimate((ctx.body as { scrapeOptions?: ScrapeOptions }).scrapeOptions ?? {}, operatorModel(deps)),
};

/** The operator configured a model (MODEL_PROVIDER): extraction formats may call it, at its price. */
const operatorModel = (deps: Pick<GatewayHandlerDeps, 'config'>) => deps.config.modelProvider !== null;

/** JOB_RETENTION_HOURS in whole ms (state TTLs are whole ms). */
const retentionMs = (deps: GatewayHandlerDeps) => Math.round(deps.config.jobRetentionHours * 3_600_000);
const pipelineWait = (deps: GatewayHandlerDeps) => deps.config.requestTimeoutMs;
/** Crawl and batch jobs: the frontier schedules them, the fetcher and parser read their pages. */
const JOBS = ['jobs', 'scrape'] as const;
/** Monitors: the frontier schedules their checks, the classifier runs them through the scrape path. */
const MONITORS = ['monitors', 'jobs', 'scrape'] as const;

function monitorOptions(deps: PipelineHandlerDeps): MonitorHandlerOptions {
  return {
    guard: new NetGuard({ allowPrivate: deps.config.fetchAllowPrivate }),
    webhooks: deps.serves.has('webhooks'),
    webhookAttempts: deps.config.webhookAttempts,
    serverSecret: serverWebhookSecret(deps.config),
  };
}

/** Mention watches: the frontier schedules their collections, the searcher collects, the classifier sorts and stores. */
const MENTIONS = ['mentions', 'search', 'jobs'] as const;

function watchOptions(deps: PipelineHandlerDeps): WatchHandlerOptions {
  return {
    guard: new NetGuard({ allowPrivate: deps.config.fetchAllowPrivate }),
    webhooks: deps.serves.has('webhooks'),
    serverSecret: serverWebhookSecret(deps.config),
    config: deps.config,
  };
}

/** Domain lookups and screens: the intel pool asks the registries, DNS and the link graph. */
const INTEL = ['intel'] as const;
/** Domain reports and snapshot loads: the intel pool, reading pages through the scrape path. */
const INTEL_PAGES = ['intel', 'scrape'] as const;

const intelWaits = (deps: GatewayHandlerDeps): IntelWaits => ({ requestTimeoutMs: pipelineWait(deps), config: deps.config });
/** Company, products and posts: the intel pool, reading the site's pages through the fetch path. */
const INTEL_FETCH = ['intel', 'fetch'] as const;
const siteWaits = (deps: GatewayHandlerDeps): SiteWaits => ({ requestTimeoutMs: pipelineWait(deps), config: deps.config });

/** Find Leads runs: the searcher carries them out, the intel pool reads each lead's website through the fetch path. */
const LEADS = ['leads', 'intel', 'fetch'] as const;
/** How long GET /v1/leads/sources waits for Nominatim's turn and answer. */
const LEADS_SOURCES_WAIT_MS = 30_000;

export const OPERATION_TABLE = {
  // Page reading
  scrape: byPipeline(
    ['scrape'],
    // A browser page when the options need a browser, else a fetched page (rules 2 and 3).
    { estimate: (ctx, deps) => scrapeEstimate(ctx.body as ScrapeBody, operatorModel(deps)) },
    (d) => scrapeHandler(d.requester, pipelineWait(d), { render: d.serves.has('render'), extract: d.serves.has('extract'), operatorModel: operatorModel(d) }),
  ),
  crawlStart: byPipeline(JOBS, jobStart, (d) => jobStartHandler(d.records, 'crawl', retentionMs(d), d.jobOptions)),
  crawlStatus: byPipeline(JOBS, 'free', (d) => jobStatusHandler(d.records, 'crawl')),
  crawlCancel: byPipeline(JOBS, 'free', (d) => crawlCancelHandler(d.records)),
  crawlPages: byPipeline(JOBS, 'free', (d) => jobPagesHandler(d.records, 'crawl')),
  crawlErrors: byPipeline(JOBS, 'free', (d) => crawlErrorsHandler(d.records)),
  batchStart: byPipeline(JOBS, jobStart, (d) => jobStartHandler(d.records, 'batch', retentionMs(d), d.jobOptions)),
  batchStatus: byPipeline(JOBS, 'free', (d) => jobStatusHandler(d.records, 'batch')),
  batchPages: byPipeline(JOBS, 'free', (d) => jobPagesHandler(d.records, 'batch')),
  map: byPipeline(['map'], flat(PRICES.map), (d) => mapHandler(d.requester, pipelineWait(d))),
  extract: byPipeline(['scrape', 'extract'], { estimate: (ctx, deps) => extractEstimate(ctx.body as ExtractBody, operatorModel(deps)) }, (d) => extractHandler(d, { render: d.serves.has('render'), extract: true, operatorModel: operatorModel(d) })),
  parse: byPipeline(['parse'], flat(PRICES.parsedFile), (d) => parseHandler(d.requester, pipelineWait(d))),
  fetch: byPipeline(['fetch'], flat(PRICES.freshPage), (d) => fetchHandler(d.requester, pipelineWait(d))),
  // Search
  search: byPipeline(
    ['search', 'scrape'],
    // The call, and with `scrapeOptions` each result's page at its scrape price.
    { estimate: (ctx, deps) => searchEstimate(ctx.body as SearchBody, operatorModel(deps)) },
    (d) => searchHandler(d.requester, pipelineWait(d), { render: d.serves.has('render'), extract: d.serves.has('extract'), operatorModel: operatorModel(d) }),
  ),
  serp: byPipeline(['search'], flat(PRICES.searchCall), (d) => serpHandler(d.requester, pipelineWait(d))),
  placesSearch: byPipeline(['search'], flat(PRICES.placesCall), (d) => placesHandler(d.requester, pipelineWait(d))),
  // Site and company intelligence
  // A lookup is charged when a section it asked for answered.
  domain: byPipeline(INTEL, flat(PRICES.domainLookup), (d) => domainHandler(d.requester, intelWaits(d))),
  // One credit a page the site answered, and the operator's model's price when it filled a field; the most a call may cost is reserved.
  company: byPipeline(INTEL_FETCH, { estimate: (_ctx, deps) => companyEstimate(operatorModel(deps)) }, (d) => companyHandler(d.requester, siteWaits(d))),
  products: byPipeline(INTEL_FETCH, { estimate: (ctx) => listingEstimate(ctx.body as ListingBody) }, (d) => productsHandler(d.requester, siteWaits(d))),
  posts: byPipeline(INTEL_FETCH, { estimate: (ctx) => listingEstimate(ctx.body as ListingBody) }, (d) => postsHandler(d.requester, siteWaits(d))),
  // The depth's flat price and each snapshot beyond those included (rule 7).
  domainReport: byPipeline(INTEL_PAGES, { estimate: (ctx) => reportEstimate(ctx.body as DomainReportBody) }, (d) => domainReportHandler(d.requester, intelWaits(d))),
  // Each year it may load at the loaded price; included, stored and unread years are free (rule 8).
  domainSnapshots: byPipeline(INTEL_PAGES, { estimate: (ctx) => snapshotsEstimate(ctx.body as SnapshotsBody) }, (d) => domainSnapshotsHandler(d.requester, intelWaits(d))),
  // One credit per distinct valid name, charged for the names the registry answered for (rule 6).
  domainScreen: byPipeline(INTEL, { estimate: (ctx) => screenEstimate(ctx.body as DomainScreenBody) }, (d) => domainScreenHandler(d.requester, intelWaits(d))),
  // Monitoring
  monitorCreate: byPipeline(MONITORS, 'free', (d) => monitorCreateHandler(d.records, monitorOptions(d))),
  monitorList: byPipeline(MONITORS, 'free', (d) => monitorListHandler(d.records, monitorOptions(d))),
  monitorGet: byPipeline(MONITORS, 'free', (d) => monitorGetHandler(d.records, monitorOptions(d))),
  monitorUpdate: byPipeline(MONITORS, 'free', (d) => monitorUpdateHandler(d.records, monitorOptions(d))),
  monitorDelete: byPipeline(MONITORS, 'free', (d) => monitorDeleteHandler(d.records)),
  // The check holds and charges its pages itself (rule 4), as a scheduled check does.
  monitorRun: byPipeline(MONITORS, { estimate: () => 0 }, (d) => monitorRunHandler(d.records, d.requester, { ...monitorOptions(d), runWaitMs: Math.min(RUN_WAIT_MS, pipelineWait(d)) })),
  monitorChecks: byPipeline(MONITORS, 'free', (d) => monitorChecksHandler(d.records, monitorOptions(d))),
  watchCreate: byPipeline(MENTIONS, 'free', (d) => watchCreateHandler(d.records, watchOptions(d))),
  watchList: byPipeline(MENTIONS, 'free', (d) => watchListHandler(d.records, watchOptions(d))),
  watchGet: byPipeline(MENTIONS, 'free', (d) => watchGetHandler(d.records, watchOptions(d))),
  watchUpdate: byPipeline(MENTIONS, 'free', (d) => watchUpdateHandler(d.records, watchOptions(d))),
  watchDelete: byPipeline(MENTIONS, 'free', (d) => watchDeleteHandler(d.records)),
  // A test is charged like a collection: only when a platform answered (the reply's credits).
  watchTest: byPipeline(MENTIONS, flat(PRICES.mentionCollection), (d) => watchTestHandler(d.requester, d.records, watchOptions(d))),
  watchTestUnsaved: byPipeline(MENTIONS, flat(PRICES.mentionCollection), (d) => watchTestUnsavedHandler(d.requester, watchOptions(d))),
  mentionList: byPipeline(MENTIONS, 'free', (d) => mentionListHandler(d.records)),
  mentionUpdate: byPipeline(MENTIONS, 'free', (d) => mentionUpdateHandler(d.records)),
  // Leads: the searcher asks OpenStreetMap and the registers, the intel pool reads each lead's website for contacts.
  // `limit` leads are reserved so a key that cannot pay is refused before the run exists; the run holds and charges them itself.
  leadsStart: byPipeline(LEADS, { estimate: (ctx) => leadsEstimate(ctx.body as { limit?: number }) }, (d) => leadsStartHandler(d.records, allSources(configuredRegisters(d.config)), retentionMs(d))),
  leadsSources: byPipeline(['leads'], 'free', (d) => leadsSourcesHandler(d.requester, Math.min(pipelineWait(d), LEADS_SOURCES_WAIT_MS))),
  leadsStatus: byPipeline(LEADS, 'free', (d) => leadsStatusHandler(d.records)),
  leadsCancel: byPipeline(LEADS, 'free', (d) => leadsCancelHandler(d.records)),
  // Social: the searcher asks the platforms; a call is charged only when data comes back (the reply's credits).
  socialCatalog: byPipeline(['social'], 'free', (d) => socialCatalogHandler(d.config)),
  socialRun: byPipeline(['social'], { estimate: (ctx) => socialEstimate(ctx) }, (d) => socialRunHandler(d.requester, pipelineWait(d), new NetGuard({ allowPrivate: d.config.fetchAllowPrivate }))),
  // Reference
  templates: byGateway('free', () => templatesHandler()),
  source: byGateway('free', (d) => sourceHandler({ sourceUrl: d.config.sourceUrl, version: d.version })),
} as const satisfies OperationTable;

/**
 * The handlers of the operations this build serves: every `byGateway` row, and, given the
 * pipeline, each `byPipeline` row whose needs the build's actors serve. A metered row's
 * handler gets its price's estimate.
 */
export function operationHandlers(gateway: GatewayHandlerDeps, pipeline: PipelineDeps | null, table: OperationTable = OPERATION_TABLE): Handlers {
  const piped: PipelineHandlerDeps | null = pipeline && {
    ...gateway,
    ...pipeline,
    jobOptions: {
      // With the notifier, jobs take a `webhook`, whose URL the SSRF guard checks when the job starts.
      webhooks: pipeline.serves.has('webhooks') ? new NetGuard({ allowPrivate: gateway.config.fetchAllowPrivate }) : null,
      // A crawl's start URL and a batch's URLs pass the guard before the job is created, as a scrape's URL does.
      guard: new NetGuard({ allowPrivate: gateway.config.fetchAllowPrivate }),
      render: pipeline.serves.has('render'),
      extract: pipeline.serves.has('extract'),
      operatorModel: gateway.config.modelProvider !== null,
    },
  };
  const handlers: Record<string, OperationHandler> = {};
  for (const [id, row] of Object.entries(table) as [OperationId, OperationRow][]) {
    if (row.served === false) continue;
    let handler: OperationHandler | null = null;
    if (row.served === 'gateway') handler = row.handler(gateway);
    else if (piped && row.needs.every((c) => piped.serves.has(c))) handler = row.handler(piped);
    const price = row.price;
    if (handler) handlers[id] = price === 'free' ? handler : { ...handler, estimate: (ctx) => price.estimate(ctx, gateway) };
  }
  return handlers;
}
