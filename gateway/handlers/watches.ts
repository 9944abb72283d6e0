/**
 * Mention watches at the gateway: create, list, get, update, delete, and tests of watch
 * fields; and the mentions they collect: list, set a status.
 *
 * A watch is stored (pipeline/mentions/watch.ts) and put on the frontier's schedule
 * (pipeline/mentions/schedule.ts) due at once: its first collection runs within a moment of
 * its creation, reaching back a week, the next `intervalMinutes` later. The searcher collects
 * (actors/searcher/collect.ts), the classifier sorts and stores (actors/classifier/
 * mentions.ts), the notifier calls the webhook. Another key's watch or mention is 404, like an
 * unknown id.
 *
 * - PATCH changes only the fields it names. A change to what is looked for (keywords,
 *   platforms, feeds, sites) collects at once; a new interval moves the next collection to one
 *   new interval after the last one was due.
 * - The webhook is stored sealed and shown opened to its key; it, the feeds and the sites are
 *   checked against the SSRF guard when given (`url_blocked`), as every fetch checks them
 *   again later. A watch with a webhook needs the notifier (501 without it).
 * - A watch shows, per platform it asks, whether the platform is configured (`platforms`
 *   status: the credentials a platform lacks are named), and its newest collection: status,
 *   per-platform outcome and errors, mentions found, credits.
 * - Tests (POST /v1/mentions/watches/{id}/test and /v1/mentions/test) run the collection now,
 *   a week back, and answer per platform what it found, sorted into categories; nothing is
 *   stored or sent. Charged PRICES.mentionCollection when a platform answered.
 */
import type { Static } from '@sinclair/typebox';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import { platformReadiness } from '../../pipeline/mentions/connectors.js';
import { FIRST_REACH_MS, isFinalCollection, newestCollections, type CollectionRecord } from '../../pipeline/mentions/collections.js';
import { WATCHES } from '../../pipeline/mentions/schedule.js';
import {
  createWatch,
  deleteWatch,
  listWatches,
  openWatchWebhook,
  readWatch,
  specOfRecord,
  updateWatch,
  watchIntervalMs,
  watchSpecOf,
  type WatchRecord,
  type WatchSpec,
} from '../../pipeline/mentions/watch.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Config } from '../../pipeline/service/config.js';
import type { WatchBody } from '../../schemas/api/monitoring.js';
import { isErrorCode } from '../../schemas/errors.js';
import { tenantOf, type HandlerContext, type OperationHandler, type RecordDeps } from '../handler.js';
import { askPipeline } from './ask.js';

export interface WatchHandlerOptions {
  /** The SSRF check of webhook, feed and site URLs (NetGuard). */
  readonly guard: { check(url: string): Promise<unknown> };
  /** The build delivers webhooks (it has the notifier). */
  readonly webhooks: boolean;
  /** The deployment's server secret, under which webhook URLs are stored sealed. */
  readonly serverSecret: string;
  /** Which platforms lack credentials (pipeline/mentions/connectors.ts platformReadiness). */
  readonly config: Parameters<typeof platformReadiness>[0] & Pick<Config, 'requestTimeoutMs'>;
}

export type WatchGatewayDeps = Pick<RecordDeps, 'state' | 'store' | 'writer'>;

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** Fields that change what a watch looks for: changing one collects at once. */
const SEARCHED: readonly (keyof WatchSpec)[] = ['keywords', 'platforms', 'feeds', 'sites'];

async function watchOf(deps: WatchGatewayDeps, ctx: HandlerContext): Promise<WatchRecord> {
  const id = ctx.params.watch_id ?? '';
  const watch = await readWatch(deps.store, tenantOf(ctx), id);
  if (!watch) throw new AppError('not_found', `no watch ${id} for this key`);
  return watch;
}

function collectionView(c: CollectionRecord) {
  return {
    id: c.id,
    status: c.status,
    reason: c.reason || null,
    scheduledAt: iso(c.scheduledAtMs),
    startedAt: iso(c.startedAtMs),
    finishedAt: iso(c.finishedAtMs),
    since: c.startedAtMs === null ? null : iso(c.sinceMs),
    found: c.found,
    creditsUsed: c.creditsUsed,
    platforms: c.platforms,
  };
}

async function watchView(deps: WatchGatewayDeps, options: WatchHandlerOptions, watch: WatchRecord, newest: CollectionRecord | undefined, completed: CollectionRecord | undefined) {
  const scheduled = await WATCHES.scheduled(deps.state, watch.id);
  const readiness = platformReadiness(options.config);
  const { id, tenant: _t, version: _v, sealedWebhook: _s, createdAtMs, updatedAtMs, ...fields } = watch;
  return {
    id,
    ...fields,
    webhook: openWatchWebhook(options.serverSecret, watch),
    status: 'active',
    platformStatus: Object.fromEntries(watch.platforms.map((p) => [p, readiness[p] === null ? { configured: true } : { configured: false, reason: readiness[p] }])),
    createdAt: iso(createdAtMs),
    updatedAt: iso(updatedAtMs),
    nextCollectionAt: iso(scheduled?.nextCheckAt),
    lastCollectionAt: iso(completed?.finishedAtMs),
    currentCollectionId: newest && !isFinalCollection(newest.status) ? newest.id : null,
    lastCollection: newest && isFinalCollection(newest.status) ? collectionView(newest) : completed ? collectionView(completed) : null,
  };
}

async function viewOf(deps: WatchGatewayDeps, options: WatchHandlerOptions, watch: WatchRecord) {
  const { newest, completed } = await newestCollections(deps.store, watch.tenant, [watch.id]);
  return watchView(deps, options, watch, newest.get(watch.id), completed.get(watch.id));
}

/** The URLs a watch will call or read passed the guard; else the guard's error, named after the field. */
async function checkUrls(options: WatchHandlerOptions, spec: Pick<WatchSpec, 'webhook' | 'feeds' | 'sites'>): Promise<void> {
  if (spec.webhook !== null && !options.webhooks) {
    throw new AppError('not_implemented', 'this instance does not deliver webhooks (it runs no notifier); save the watch without `webhook` and read its mentions');
  }
  const urls: [string, string][] = [...spec.feeds.map((u) => ['feeds', u] as [string, string]), ...spec.sites.map((u) => ['sites', u] as [string, string])];
  if (spec.webhook !== null) urls.push(['webhook', spec.webhook]);
  for (const [field, url] of urls) {
    try {
      await options.guard.check(url);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // A name that does not resolve now may later; an address the guard refuses never will (a webhook must resolve now).
      if (error.code === 'url_blocked' || field === 'webhook') throw new AppError(error.code, `${field}: ${error.message}`, { cause: error });
    }
  }
}

export function watchCreateHandler(deps: WatchGatewayDeps, options: WatchHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const spec = watchSpecOf(ctx.body as Static<typeof WatchBody>);
      await checkUrls(options, spec);
      const watch = await createWatch(deps.writer, tenantOf(ctx), spec, Date.now(), options.serverSecret);
      await WATCHES.schedule(deps.state, { id: watch.id, tenant: watch.tenant, intervalMs: watchIntervalMs(watch) }, watch.createdAtMs);
      return { data: await watchView(deps, options, watch, undefined, undefined) };
    },
  };
}

export function watchListHandler(deps: WatchGatewayDeps, options: WatchHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const watches = await listWatches(deps.store, tenantOf(ctx));
      const { newest, completed } = await newestCollections(deps.store, tenantOf(ctx), watches.map((w) => w.id));
      const views = [];
      for (const w of watches) views.push(await watchView(deps, options, w, newest.get(w.id), completed.get(w.id)));
      return { data: { watches: views } };
    },
  };
}

export function watchGetHandler(deps: WatchGatewayDeps, options: WatchHandlerOptions): OperationHandler {
  return { handle: async (ctx) => ({ data: await viewOf(deps, options, await watchOf(deps, ctx)) }) };
}

export function watchUpdateHandler(deps: WatchGatewayDeps, options: WatchHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const watch = await watchOf(deps, ctx);
      const changes = ctx.body as Record<string, unknown>;
      const before = specOfRecord(watch, options.serverSecret);
      const spec = watchSpecOf({ ...before, ...changes });
      await checkUrls(options, { webhook: 'webhook' in changes ? spec.webhook : null, feeds: 'feeds' in changes ? spec.feeds : [], sites: 'sites' in changes ? spec.sites : [] });
      const now = Date.now();
      const updated = await updateWatch(deps.writer, watch, spec, now, options.serverSecret);
      const every = watchIntervalMs(updated);
      const scheduled = await WATCHES.scheduled(deps.state, watch.id);
      if (SEARCHED.some((field) => field in changes)) {
        await WATCHES.schedule(deps.state, { id: watch.id, tenant: watch.tenant, intervalMs: every }, now);
      } else if (every !== watchIntervalMs(watch)) {
        const lastDue = scheduled ? scheduled.nextCheckAt - watchIntervalMs(watch) : watch.createdAtMs;
        await WATCHES.schedule(deps.state, { id: watch.id, tenant: watch.tenant, intervalMs: every }, Math.max(now, lastDue + every));
      }
      return { data: await viewOf(deps, options, updated) };
    },
  };
}

export function watchDeleteHandler(deps: WatchGatewayDeps): OperationHandler {
  return {
    async handle(ctx) {
      const watch = await watchOf(deps, ctx);
      await deleteWatch(deps.writer, watch, Date.now());
      await WATCHES.unschedule(deps.state, watch.id);
      return { data: { id: watch.id, deleted: true } };
    },
  };
}

/** How long a test may take: every platform's time, sorting, and the answer's way back. */
export const TEST_TIMEOUT_MS = 120_000;

async function runTest(requester: Requester, ctx: HandlerContext, options: WatchHandlerOptions, watchId: string, spec: WatchSpec) {
  const { webhook: _w, ...fields } = spec;
  const timeoutMs = Math.min(TEST_TIMEOUT_MS, Math.max(options.config.requestTimeoutMs, 30_000));
  const startedAtMs = Date.now();
  const reply = await askPipeline(requester, ctx, 'watchCollections', { watchId, collectionId: ctx.requestId, test: JSON.stringify(fields), watch: null, collection: null }, timeoutMs);
  if (!reply.ok) throw new AppError(reply.errorCode && isErrorCode(reply.errorCode) ? reply.errorCode : 'upstream_error', reply.errorMessage ?? 'the test could not run');
  const answer = reply.data ? (parseJsonObject(reply.data) ?? {}) : {};
  return { data: { watchId: watchId || null, since: iso(startedAtMs - FIRST_REACH_MS), ...answer }, credits: reply.credits };
}

export function watchTestHandler(requester: Requester, deps: WatchGatewayDeps, options: WatchHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const watch = await watchOf(deps, ctx);
      return runTest(requester, ctx, options, watch.id, { ...specOfRecord(watch, options.serverSecret), webhook: null });
    },
  };
}

export function watchTestUnsavedHandler(requester: Requester, options: WatchHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const spec = watchSpecOf(ctx.body as Static<typeof WatchBody>);
      await checkUrls(options, { ...spec, webhook: null });
      return runTest(requester, ctx, options, '', spec);
    },
  };
}
