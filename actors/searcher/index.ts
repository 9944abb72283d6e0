/**
 * The searcher actor: answers POST /v1/search, /v1/serp and /v1/places/search. It reads
 * SearchRequested, asks the configured web-search providers in order with fallback
 * (providers.ts, fallback.ts) or OpenStreetMap for places (pipeline/search/places.ts), and
 * answers the reply topic (handler.ts). Provider calls wait on outside services, so they run
 * in their own pool and never hold the fetcher's or the parser's slots.
 *
 * Every searcher process shares one client per service (pipeline/clients/), the local index
 * reads the store (pipeline/search/index/), and Nominatim's one-request-a-second limiter and
 * the places cache live in coordination state, so several searcher processes together keep
 * the public instance's policy. `createSearcherActor(runtime)` builds its ActorDefinition; the
 * composition root registers it as `{role: 'searcher', serves: ['search'], …}`.
 *
 * It also collects mention watches (WatchCollectRequested, collect.ts) and answers the social
 * catalog's calls (SocialRequested, social.ts): asking the platforms (pipeline/mentions/connectors.ts:
 * one client per platform, shared by every collection and call of the process) is the same
 * kind of work as asking search providers. And it answers Find Leads (LeadsRequested, leads.ts):
 * the sources question, and runs carried out to their end, asking OpenStreetMap and the open
 * business registers, and the intel pool for each lead's contacts.
 */
import { NominatimClient } from '../../pipeline/clients/nominatim.js';
import { OverpassClient } from '../../pipeline/clients/overpass.js';
import type { ActorDefinition } from '../../pipeline/runtime/pool.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { handleSearchRequested, type SearcherDeps } from './handler.js';
import { handleWatchCollectRequested, type CollectDeps } from './collect.js';
import { keyRegistryFor } from '../../pipeline/keys/index.js';
import { connectorsOf, platformClients } from '../../pipeline/mentions/connectors.js';
import { handleSocialRequested, type SocialDeps } from './social.js';
import { searchProviders } from '../../pipeline/search/providers.js';
import { configuredRegisters } from '../../pipeline/leads/sources.js';
import { lazyRequester, PIPELINE_SLACK_MS } from '../../pipeline/runtime/request-reply.js';
import { handleLeadsRequested, runMaxMs, type LeadsDeps } from './leads.js';
import { resumeRuns } from '../../pipeline/leads/record.js';

export { handleSearchRequested, REPLY_MARGIN_MS, type SearcherDeps, type SearchRequested } from './handler.js';
export { providerOrder, searchProviders } from '../../pipeline/search/providers.js';
export { askInOrder, ProvidersFailed, type FailedProvider } from '../../pipeline/search/fallback.js';
export { ASK_PER_PLATFORM, gather, handleWatchCollectRequested, type CollectDeps, type WatchCollectRequested } from './collect.js';
export { handleSocialRequested, type SocialDeps, type SocialRequested } from './social.js';
export { CONTACTS_BUDGET_MS, CONTACT_CONCURRENCY, handleLeadsRequested, type LeadsDeps, type LeadsRequested } from './leads.js';

/** The longest a search may run: the request's `timeout` (schemas/api/search.ts) at most, and the answer. */
const SEARCH_MAX_MS = 300_000;

export function createSearcherActor(runtime: ServiceRuntime): ActorDefinition {
  const { config } = runtime;
  const log = runtime.log.child({ actor: 'searcher' });
  const deps: SearcherDeps = {
    // A provider named but not configured stops the process at start.
    providers: searchProviders(config, runtime.store, runtime.writer),
    perProviderMs: config.searchTimeoutMs,
    places: {
      nominatim: new NominatimClient({ baseUrl: config.nominatimUrl, state: runtime.state, email: config.nominatimEmail }),
      overpass: new OverpassClient({ url: config.overpassUrl }),
      state: runtime.state,
    },
    log,
  };
  log.info({ providers: deps.providers.map((p) => p.name) }, 'search providers, in order');
  const keys = keyRegistryFor(config, runtime, { batchCharges: true });
  // One client per platform for the process: collections and social calls share tokens and sessions.
  const clients = platformClients(config, runtime.store, runtime.writer);
  const social: Omit<SocialDeps, 'log'> = { clients, platformTimeoutMs: config.mentionPlatformTimeoutMs };
  const collect: Omit<CollectDeps, 'log'> = {
    state: runtime.state,
    store: runtime.store,
    writer: runtime.writer,
    keys,
    connectors: connectorsOf(clients),
    platformTimeoutMs: config.mentionPlatformTimeoutMs,
    modelJudgesContext: config.modelProvider !== null,
  };
  // Find Leads: company enrichment asks the intel pool, with a Requester of the pool's own (as the classifier reads pages).
  const requester = lazyRequester(runtime.events, log.child({ component: 'requester' }));
  const leads: Omit<LeadsDeps, 'log'> = {
    places: deps.places,
    registers: configuredRegisters(config),
    sourceTimeoutMs: config.leadsSourceTimeoutMs,
    state: runtime.state,
    writer: runtime.writer,
    keys,
    requester: requester.get,
    companyWaitMs: config.siteReadBudgetMs + config.sitePageTimeoutMs + PIPELINE_SLACK_MS,
  };
  // One process with a durable state (embedded mode, STATE=file): the runs' state outlived the
  // last process and their events on its memory bus did not, so each run not ended is asked
  // again now (the pool reads its topic from the beginning, so it may start after this).
  if (config.bus === 'memory' && config.state === 'file') {
    resumeRuns(runtime.state, Date.now())
      .then(async (emissions) => {
        if (emissions.length === 0) return;
        log.info({ runs: emissions.length }, 'leads runs resumed after a restart');
        await runtime.events.emit(emissions);
      })
      .catch((error: unknown) => log.warn({ err: error }, 'the leads runs could not be resumed at start; they end as stalled'));
  }
  return {
    name: 'searcher',
    group: 'searcher',
    topics: ['searchRequested', 'watchCollections', 'socialRequested', 'leadsRequested', 'leadsSources'],
    concurrency: config.poolConcurrency,
    timeoutMs: Math.max(SEARCH_MAX_MS, runMaxMs(config.leadsSourceTimeoutMs)) + 10_000,
    async close() {
      await requester.stop();
      keys.close();
    },
    handlers: {
      SearchRequested: { handle: (event, ctx) => handleSearchRequested(event, { ...deps, log: ctx.log }, ctx.signal), replySource: null },
      WatchCollectRequested: { handle: (event, ctx) => handleWatchCollectRequested(event, { ...collect, log: ctx.log }, ctx.signal), replySource: null },
      SocialRequested: { handle: (event, ctx) => handleSocialRequested(event, { ...social, log: ctx.log }, ctx.signal), replySource: null },
      // A run is carried out whatever its event's deadline (that is the sources question's wait).
      LeadsRequested: { handle: (event, ctx) => handleLeadsRequested(event, { ...leads, log: ctx.log }, ctx.signal), replySource: null, expires: false },
    },
  };
}
