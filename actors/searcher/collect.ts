/**
 * A mention watch's collection (WatchCollectRequested): the searcher asks each platform of the
 * watch for posts containing its keywords, keeps those the watch matches, and hands them to
 * the classifier (MentionsFound), which sorts, stores and completes.
 *
 * - **Each platform once, in parallel**, through its connector (pipeline/mentions/connectors.ts),
 *   newest first, back to `sinceMs` (pipeline/mentions/collections.ts sinceFor: the previous
 *   completed collection's start less a margin; a week for the first, and for tests), each
 *   within MENTION_PLATFORM_TIMEOUT_MS and the event's deadline. A platform without
 *   credentials is `not_configured`; a failure is that platform's `error` (code and message,
 *   a rate limit's wait), never the others'.
 * - **Matching** (pipeline/mentions/match.ts): keywords, exclusions, languages, and the
 *   watch's context by the word-overlap rule — unless the operator configured a model, which
 *   the classifier asks instead (it also judges relevance).
 * - **Once**: posts the watch already has stored (same mention id) are dropped; at most
 *   MAX_POSTS_PER_PLATFORM newest posts of a platform are kept.
 * - **Charged** PRICES.mentionCollection when at least one platform answered (held before the
 *   platforms are asked; a key that cannot pay gets `skipped_no_credits`); a collection where
 *   none answered is `failed` and costs nothing.
 * - **Tests** (`test` holds the watch fields): the same collection, a week back, nothing read
 *   from or written to the store, charged by the gateway only when a platform answered; the
 *   classifier answers the test's reply.
 * - One worker per collection (a lock), one collection per watch (the frontier's running
 *   latch, released by the classifier when it stores the posts, or here when nothing is left
 *   to store).
 */
import type { Connector, FoundPost, Platform } from '../../pipeline/clients/social/types.js';
import { isServiceError } from '../../pipeline/clients/service-http.js';
import type { KeyRecord, KeyRegistry } from '../../pipeline/keys/index.js';
import { FIRST_REACH_MS, isFinalCollection, newestCollections, readCollection, sinceFor, writeCollection, type CollectionRecord } from '../../pipeline/mentions/collections.js';
import type { Connectors } from '../../pipeline/mentions/connectors.js';
import { anyAnswered, foundMention, MAX_POSTS_PER_PLATFORM, mentionId, type FoundMention, type PlatformResult, type PlatformResults } from '../../pipeline/mentions/found.js';
import { compileWatch, matchPost, type CompiledWatch } from '../../pipeline/mentions/match.js';
import { WATCHES } from '../../pipeline/mentions/schedule.js';
import { storedMentionIds } from '../../pipeline/mentions/store.js';
import { readWatch, watchSpecOf, type WatchRecord, type WatchSpec } from '../../pipeline/mentions/watch.js';
import { mapBounded } from '../../pipeline/runtime/bounded.js';
import type { AnyEmission } from '../../pipeline/runtime/events.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { RUNNING_TTL_MS } from '../../pipeline/runtime/state/due-schedule.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import type { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS } from '../../schemas/topics.js';

export type WatchCollectRequested = EventValue<'WatchCollectRequested'>;

/** Posts a connector is asked for, before matching keeps MAX_POSTS_PER_PLATFORM of them. */
export const ASK_PER_PLATFORM = 200;

export interface CollectDeps {
  readonly state: State;
  readonly store: Pick<Store, 'query'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly keys: Pick<KeyRegistry, 'get' | 'reserve' | 'settle'>;
  readonly connectors: Connectors;
  /** MENTION_PLATFORM_TIMEOUT_MS. */
  readonly platformTimeoutMs: number;
  /** The operator configured a model: the classifier judges the watch's context, not the overlap rule. */
  readonly modelJudgesContext: boolean;
  readonly log: Logger;
  readonly now?: () => number;
}

interface Gathered {
  readonly results: PlatformResults;
  readonly posts: FoundMention[];
}

/** The platform's failure as its result: the error code a caller can act on, and the wait a rate limit asked for. */
function failedPlatform(error: unknown): PlatformResult {
  if (isServiceError(error)) {
    const code = error.kind === 'rate_limited' ? 'provider_rate_limited' : error.kind === 'timeout' ? 'provider_timeout' : 'provider_failed';
    return { status: 'error', found: 0, source: null, warnings: [], error: { code, message: error.message, ...(error.retryAfterMs !== null ? { retryAfterMs: error.retryAfterMs } : {}) } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { status: 'error', found: 0, source: null, warnings: [], error: { code: 'provider_failed', message } };
}

async function askPlatform(connector: Connector, tenant: string, spec: WatchSpec, sinceMs: number, timeoutMs: number, signal: AbortSignal): Promise<{ result: PlatformResult; posts: readonly FoundPost[] }> {
  if (connector.notConfigured !== null) {
    return { result: { status: 'not_configured', found: 0, source: null, warnings: [], error: { code: 'not_configured', message: connector.notConfigured } }, posts: [] };
  }
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  try {
    const collected = await connector.collect({
      terms: spec.keywords,
      sinceMs,
      limit: ASK_PER_PLATFORM,
      timeoutMs,
      signal: bounded,
      sources: { feeds: spec.feeds, sites: spec.sites },
      tenant,
    });
    return { result: { status: 'ok', found: 0, source: collected.source, warnings: [...collected.warnings], error: null }, posts: collected.posts };
  } catch (error) {
    if (signal.aborted) throw error;
    if (bounded.aborted) return { result: failedPlatform(new Error(`${connector.platform} did not answer within ${timeoutMs} ms`)), posts: [] };
    return { result: failedPlatform(error), posts: [] };
  }
}

/** The posts of one platform the watch keeps, newest first, at most MAX_POSTS_PER_PLATFORM. */
function keptPosts(posts: readonly FoundPost[], watch: CompiledWatch): FoundMention[] {
  const kept: FoundMention[] = [];
  for (const post of [...posts].sort((a, b) => b.publishedAtMs - a.publishedAtMs)) {
    const match = matchPost(post, watch);
    if (match.keep) kept.push(foundMention(post, match.matchedKeywords, match.lang));
    if (kept.length === MAX_POSTS_PER_PLATFORM) break;
  }
  return kept;
}

/** Asks every platform of the watch and keeps what matches. */
export async function gather(
  tenant: string,
  spec: WatchSpec,
  sinceMs: number,
  deps: Pick<CollectDeps, 'connectors' | 'platformTimeoutMs' | 'modelJudgesContext'>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Gathered> {
  const watch = compileWatch({ ...spec, context: deps.modelJudgesContext ? null : spec.context });
  const results: PlatformResults = {};
  const posts: FoundMention[] = [];
  const platforms = spec.platforms.filter((p) => deps.connectors.has(p));
  await mapBounded(platforms, platforms.length || 1, async (platform: Platform) => {
    const connector = deps.connectors.get(platform) as Connector;
    const asked = await askPlatform(connector, tenant, spec, sinceMs, Math.min(deps.platformTimeoutMs, timeoutMs), signal);
    const kept = keptPosts(asked.posts, watch);
    results[platform] = { ...asked.result, found: kept.length };
    posts.push(...kept);
  }, signal);
  posts.sort((a, b) => b.publishedAtMs - a.publishedAtMs);
  return { results, posts };
}

/** The posts the watch has not stored yet (one read for every platform), each platform's `found` counting those. */
async function withoutStored(store: CollectDeps['store'], tenant: string, watchId: string, gathered: Gathered): Promise<Gathered> {
  const ids = gathered.posts.map((p) => mentionId(tenant, watchId, p.platform, p.externalId));
  const stored = await storedMentionIds(store, tenant, ids);
  const posts = gathered.posts.filter((_, i) => !stored.has(ids[i] as string));
  const results: PlatformResults = {};
  for (const [platform, result] of Object.entries(gathered.results) as [Platform, PlatformResult][]) {
    results[platform] = { ...result, found: posts.filter((p) => p.platform === platform).length };
  }
  return { results, posts };
}

/** What the classifier needs besides the posts: the collection as last written, and the watch's name and sealed webhook (none for a test). */
interface Carried {
  readonly collection: CollectionRecord;
  readonly watch: Pick<WatchRecord, 'name' | 'sealedWebhook'>;
}

function foundEvent(event: WatchCollectRequested, spec: WatchSpec, gathered: Gathered, nowMs: number, carried: Carried | null = null): AnyEmission {
  return {
    topic: 'mentionsFound',
    key: event.watchId || event.requestId,
    headers: { [HEADERS.requestId]: event.requestId },
    value: {
      requestId: event.requestId,
      tenant: event.tenant,
      watchId: event.watchId,
      collectionId: event.collectionId,
      terms: JSON.stringify({ keywords: spec.keywords, competitors: spec.competitors, context: spec.context }),
      posts: gathered.posts,
      platforms: JSON.stringify(gathered.results),
      replyTo: event.replyTo,
      correlationId: event.correlationId,
      deadlineMs: event.deadlineMs,
      createdAtMs: nowMs,
      collection: carried && JSON.stringify(carried.collection),
      watchName: carried?.watch.name ?? null,
      sealedWebhook: carried?.watch.sealedWebhook ?? null,
    },
  };
}

/** Why no platform answered, in one line (a failed collection's reason). */
function noneAnswered(results: PlatformResults): string {
  const parts = Object.entries(results).map(([platform, r]) => `${platform}: ${r?.error?.message ?? r?.status}`);
  return `no platform answered (${parts.join('; ') || 'no platform asked'})`;
}

async function runTest(event: WatchCollectRequested, deps: CollectDeps, signal: AbortSignal): Promise<Outcome> {
  const fields = parseJsonObject(event.test ?? '');
  if (!fields) return { kind: 'fail', code: 'bad_request', message: 'the watch fields of the test are not a JSON object' };
  const spec = watchSpecOf(fields);
  const now = deps.now ?? Date.now;
  const gathered = await gather(event.tenant, spec, now() - FIRST_REACH_MS, deps, Math.max(1_000, event.deadlineMs - now() - 2_000), signal);
  return { kind: 'ack', emit: [foundEvent(event, spec, gathered, now())] };
}

async function finish(deps: CollectDeps, collection: CollectionRecord, changes: Partial<CollectionRecord>): Promise<void> {
  const now = deps.now ?? Date.now;
  await writeCollection(deps.writer, { ...collection, finishedAtMs: now(), ...changes });
  await WATCHES.releaseRunning(deps.state, collection.watchId, collection.id);
}

/** The watch as the frontier read it (a v2 event), else as the store has it; null when deleted. */
async function watchOf(event: WatchCollectRequested, deps: CollectDeps, carried: boolean): Promise<WatchRecord | null> {
  const watch = carried && event.watch !== null ? parseJsonObject<WatchRecord>(event.watch) : null;
  if (!watch) return readWatch(deps.store, event.tenant, event.watchId);
  // Deleting a watch takes it off the schedule: a state read, not a store read, tells.
  return (await WATCHES.scheduled(deps.state, event.watchId)) ? watch : null;
}

async function runCollection(event: WatchCollectRequested, deps: CollectDeps, started: Started, account: KeyRecord, signal: AbortSignal): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const { collection } = started;
  const watch = await watchOf(event, deps, started.carried);
  const held = PRICES.mentionCollection.credits;
  if (!watch) {
    await deps.keys.settle(account, held, 0, { requestId: collection.id, op: 'mentionCollection' });
    await finish(deps, collection, { status: 'failed', reason: 'the watch was deleted' });
    return { kind: 'ack' };
  }
  const { completed } = await newestCollections(deps.store, event.tenant, [watch.id]);
  const sinceMs = sinceFor(completed.get(watch.id) ?? null, now());
  const running: CollectionRecord = { ...collection, status: 'running', startedAtMs: now(), sinceMs };
  await writeCollection(deps.writer, running);
  let gathered: Gathered;
  try {
    const asked = await gather(event.tenant, { ...watch, webhook: null }, sinceMs, deps, Math.max(1_000, event.deadlineMs - now()), signal);
    gathered = await withoutStored(deps.store, event.tenant, watch.id, asked);
  } catch (error) {
    await deps.keys.settle(account, held, 0, { requestId: collection.id, op: 'mentionCollection' });
    throw error;
  }
  const answered = anyAnswered(gathered.results);
  await deps.keys.settle(account, held, answered ? held : 0, { requestId: collection.id, op: 'mentionCollection' });
  const done = { ...running, platforms: gathered.results, found: gathered.posts.length, creditsUsed: answered ? held : 0 };
  if (!answered) {
    deps.log.info({ watchId: watch.id, collectionId: collection.id }, 'watch collection failed: no platform answered');
    await finish(deps, done, { status: 'failed', reason: noneAnswered(gathered.results), creditsUsed: 0 });
    return { kind: 'ack' };
  }
  if (gathered.posts.length === 0) {
    await finish(deps, done, { status: 'completed' });
    return { kind: 'ack' };
  }
  // The classifier stores the posts, completes the collection and releases the latch.
  await writeCollection(deps.writer, done);
  await WATCHES.extendRunning(deps.state, watch.id);
  return { kind: 'ack', emit: [foundEvent(event, { ...watch, webhook: null }, gathered, now(), { collection: done, watch })] };
}

interface Started {
  readonly collection: CollectionRecord;
  /** The collection and the watch came on the event as queued. */
  readonly carried: boolean;
}

/**
 * The collection as queued, from the event when it carries it and the collection holds its
 * watch's running latch (the frontier took it); else (a resumed collection, a v1 event, a
 * latch gone: the event may come twice) from the store.
 */
async function startedCollection(event: WatchCollectRequested, deps: CollectDeps): Promise<Started | null> {
  const carried = event.collection === null ? null : parseJsonObject<CollectionRecord>(event.collection);
  if (carried && (await WATCHES.running(deps.state, event.watchId)) === event.collectionId) return { collection: carried, carried: true };
  const stored = await readCollection(deps.store, event.tenant, event.watchId, event.collectionId);
  return stored && { collection: stored, carried: false };
}

export async function handleWatchCollectRequested(event: WatchCollectRequested, deps: CollectDeps, signal: AbortSignal): Promise<Outcome> {
  if (event.test !== null) return runTest(event, deps, signal);
  const started = await startedCollection(event, deps);
  const collection = started?.collection;
  // Unknown (another key's, or never written) or already over: nothing to do. One left
  // `running` by a worker that died is collected again (what it had stored is recognised).
  if (!started || !collection || isFinalCollection(collection.status)) return { kind: 'ack' };
  const worker = await deps.state.lock(`watch-collection:${collection.id}`, RUNNING_TTL_MS);
  if (!worker) return { kind: 'ack' };
  try {
    const account = await deps.keys.get(event.tenant);
    const held = PRICES.mentionCollection.credits;
    if (!account || account.revoked || !(await deps.keys.reserve(account, held))) {
      const reason = !account || account.revoked ? 'the key is revoked' : `insufficient_credits: a collection costs ${held} credit; the key's balance does not cover it`;
      await finish(deps, collection, { status: 'skipped_no_credits', reason });
      return { kind: 'ack' };
    }
    return await runCollection(event, deps, started, account, signal);
  } finally {
    await worker.release();
  }
}
