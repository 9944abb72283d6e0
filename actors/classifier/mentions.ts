/**
 * Mentions found by a collection (MentionsFound): the classifier sorts each post into one of
 * the seven categories, stores the new ones and completes the collection; for a test it
 * answers instead and stores nothing.
 *
 * - **Without a model** (no MODEL_PROVIDER): the offline classifier (pipeline/mentions/
 *   classifier.ts: hashed stems, bigrams and cues over the post with the watch's own names
 *   and its competitors' replaced by placeholders, a linear model trained on public labeled
 *   data). The searcher already applied the watch's context by the word-overlap rule.
 * - **With the operator's model**: the model, constrained to the seven categories, in batches
 *   (pipeline/mentions/judge-model.ts); it also judges whether each post is about the watch's
 *   product when the watch has a context, and posts it judges unrelated are dropped. Posts
 *   the model could not answer for (it failed part-way) fall back to the offline classifier,
 *   which says so in the mention's `classifier`.
 * - **Stored once**: a post already stored (the event delivered twice) is not written again.
 *   The collection's `found` becomes what was stored; the watch's running latch is released.
 *   A watch with a webhook gets a MentionsStored event for the notifier, carrying the body built
 *   from the mentions just stored. Read once: the collection (as the searcher last wrote it)
 *   and the watch's webhook travel on the event; the store is read for a v1 event, or when the
 *   collection no longer holds its watch's running latch (the event may come twice).
 * - **Tests**: the answer is per platform — its status, source, warnings or error, and the
 *   posts it found with their category — charged PRICES.mentionCollection when a platform
 *   answered, nothing otherwise.
 */
import { judgeMentions, type Judgement } from '../../pipeline/mentions/judge-model.js';
import { classifyMention, type MentionCategory } from '../../pipeline/mentions/classifier.js';
import { isFinalCollection, readCollection, writeCollection, type CollectionRecord } from '../../pipeline/mentions/collections.js';
import { anyAnswered, mentionId, type FoundMention, type PlatformResults } from '../../pipeline/mentions/found.js';
import { WATCHES } from '../../pipeline/mentions/schedule.js';
import { mentionsWebhookBody } from '../../pipeline/mentions/notice.js';
import { mentionView, newMentions, storedMentionIds, writeMentions, type Judged, type Mention } from '../../pipeline/mentions/store.js';
import { readWatch } from '../../pipeline/mentions/watch.js';
import type { ModelChoice, ModelCallOptions } from '../../pipeline/clients/models/index.js';
import type { FoundPost, Platform } from '../../pipeline/clients/social/types.js';
import type { AnyEmission } from '../../pipeline/runtime/events.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import type { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';

export type MentionsFound = EventValue<'MentionsFound'>;

export interface MentionDeps {
  readonly state: State;
  readonly store: Pick<Store, 'query'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  /** The operator's model (MODEL_*); null: the offline classifier alone. */
  readonly model: ModelChoice | null;
  readonly modelOptions: Omit<ModelCallOptions, 'signal' | 'log'>;
  readonly log: Logger;
  readonly now?: () => number;
}

interface Terms {
  readonly keywords: readonly string[];
  readonly competitors: readonly string[];
  readonly context: string | null;
}

function termsOf(json: string): Terms {
  const raw = parseJsonObject(json) ?? {};
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
  return { keywords: strings(raw.keywords), competitors: strings(raw.competitors), context: typeof raw.context === 'string' ? raw.context : null };
}

interface Sorted {
  readonly post: FoundMention;
  readonly category: MentionCategory;
  readonly score: number;
  readonly classifier: string;
}

const offline = (post: FoundMention, terms: Terms): Sorted => ({
  post,
  ...classifyMention({ text: post.text, title: post.title, brandTerms: terms.keywords, competitors: terms.competitors }),
});

const asPost = (m: FoundMention): FoundPost => ({ ...m, platform: m.platform as Platform });

/** Each post's category (see the module doc); posts the model judged unrelated are left out. */
export async function sortMentions(posts: readonly FoundMention[], terms: Terms, deps: Pick<MentionDeps, 'model' | 'modelOptions' | 'log'>, signal: AbortSignal): Promise<Sorted[]> {
  if (deps.model === null || posts.length === 0) return posts.map((p) => offline(p, terms));
  const outcome = await judgeMentions(posts.map(asPost), terms, deps.model, { ...deps.modelOptions, signal, log: deps.log });
  if (!outcome.ok) deps.log.warn({ code: outcome.failure.code }, 'the model could not sort every mention; the offline classifier sorts the rest');
  const sorted: Sorted[] = [];
  posts.forEach((post, i) => {
    const judged: Judgement | null | undefined = outcome.judgements[i];
    if (!judged) sorted.push(offline(post, terms));
    else if (judged.relevant || terms.context === null) sorted.push({ post, category: judged.category, score: judged.score, classifier: judged.classifier });
  });
  return sorted;
}

const view = (s: Sorted) => ({ ...s.post, publishedAt: new Date(s.post.publishedAtMs).toISOString(), category: s.category, score: Math.round(s.score * 1000) / 1000, classifier: s.classifier });

/** A test's answer: per platform, what it did and the posts it found, sorted. */
function testAnswer(event: MentionsFound, sorted: readonly Sorted[]): Outcome {
  const results = (parseJsonObject(event.platforms) ?? {}) as PlatformResults;
  const platforms: Record<string, unknown> = {};
  for (const [platform, result] of Object.entries(results)) {
    const mentions = sorted.filter((s) => s.post.platform === platform).map(view);
    platforms[platform] = { ...result, found: mentions.length, mentions: mentions.map(({ platform: _p, publishedAtMs: _ms, ...rest }) => rest) };
  }
  const credits = anyAnswered(results) ? PRICES.mentionCollection.credits : 0;
  const data = { found: sorted.length, platforms };
  return { kind: 'ack', emit: replyTo(event, { ok: true, data: JSON.stringify(data), errorCode: null, errorMessage: null, credits, source: 'classifier' }) };
}

/** What the notifier delivers, carried on the event: the webhook as stored and the body, built from the mentions just stored. */
function storedEvent(event: MentionsFound, watch: { name: string; sealedWebhook: string }, mentions: readonly Mention[], nowMs: number): AnyEmission {
  // Newest found first, as the store lists them (one collection's mentions share their found time).
  const ordered = [...mentions].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const body = mentionsWebhookBody({ id: event.watchId, name: watch.name }, event.collectionId, ordered.map(mentionView));
  return {
    topic: 'mentionEvents',
    key: event.watchId,
    value: { tenant: event.tenant, watchId: event.watchId, collectionId: event.collectionId, mentionIds: ordered.map((m) => m.id), createdAtMs: nowMs, sealedWebhook: watch.sealedWebhook, body },
  };
}

/**
 * The collection as the searcher last wrote it, from the event when it carries it and the
 * collection still holds its watch's running latch (else the event may come twice: the store
 * says whether it is over).
 */
async function collectionOf(event: MentionsFound, deps: MentionDeps): Promise<CollectionRecord | null> {
  const carried = event.collection === null ? null : parseJsonObject<CollectionRecord>(event.collection);
  if (carried && (await WATCHES.running(deps.state, event.watchId)) === event.collectionId) return carried;
  return readCollection(deps.store, event.tenant, event.watchId, event.collectionId);
}

/** The watch's name and sealed webhook: from a v2 event, else (a v1 event) from the store. */
async function webhookOf(event: MentionsFound, deps: MentionDeps): Promise<{ name: string; sealedWebhook: string } | null> {
  if (event.collection !== null) return event.sealedWebhook === null ? null : { name: event.watchName ?? '', sealedWebhook: event.sealedWebhook };
  const watch = await readWatch(deps.store, event.tenant, event.watchId);
  return watch?.sealedWebhook ? { name: watch.name, sealedWebhook: watch.sealedWebhook } : null;
}

async function store(event: MentionsFound, deps: MentionDeps, signal: AbortSignal): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const collection = await collectionOf(event, deps);
  if (!collection || isFinalCollection(collection.status)) return { kind: 'ack' };
  const sorted = await sortMentions(event.posts, termsOf(event.terms), deps, signal);
  if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the classifier stopped while sorting mentions' };
  const judged: Judged[] = sorted.map((s) => ({ ...s, id: mentionId(event.tenant, event.watchId, s.post.platform, s.post.externalId) }));
  const stored = await storedMentionIds(deps.store, event.tenant, judged.map((j) => j.id));
  // Fresh: not stored yet, and the first post of its id in this event.
  const seen = new Set(stored);
  const fresh: Judged[] = [];
  for (const j of judged) {
    if (seen.has(j.id)) continue;
    seen.add(j.id);
    fresh.push(j);
  }
  const mentions = newMentions(event.watchId, event.collectionId, fresh, now());
  await writeMentions(deps.writer, event.tenant, mentions);
  const results = (parseJsonObject(event.platforms) ?? collection.platforms) as PlatformResults;
  const platforms = Object.fromEntries(Object.entries(results).map(([p, r]) => [p, { ...r, found: fresh.filter((j) => j.post.platform === p).length }]));
  await writeCollection(deps.writer, { ...collection, status: 'completed', platforms, found: fresh.length, finishedAtMs: now() });
  await WATCHES.releaseRunning(deps.state, event.watchId, event.collectionId);
  deps.log.info({ watchId: event.watchId, collectionId: event.collectionId, stored: fresh.length }, 'mentions stored');
  const watch = mentions.length > 0 ? await webhookOf(event, deps) : null;
  return { kind: 'ack', ...(watch ? { emit: [storedEvent(event, watch, mentions, now())] } : {}) };
}

export async function handleMentionsFound(event: MentionsFound, deps: MentionDeps, signal: AbortSignal): Promise<Outcome> {
  if (event.replyTo !== null) return testAnswer(event, await sortMentions(event.posts, termsOf(event.terms), deps, signal));
  return store(event, deps, signal);
}
