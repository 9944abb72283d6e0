/**
 * Mention watches below the API, on a real store (chdb) and memory state: the frontier's
 * watch schedule (rebuilt from the store, a due time started once however often it is found,
 * one collection at a time per watch, an interrupted collection resumed), and the classifier
 * sorting found posts with the operator's model (a local OpenAI-compatible stand-in) —
 * namesakes dropped by the model's relevance, the offline classifier taking over when the
 * model fails — and storing a collection's posts once when its event comes twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleMentionsFound, sortMentions, type MentionsFound } from '../../actors/classifier/mentions.js';
import { rebuildWatchSchedules, resumeCollections, startDueCollections } from '../../actors/frontier/schedules/watches.js';
import type { ScheduleDeps } from '../../actors/frontier/schedules/monitors.js';
import { operatorModel } from '../../pipeline/clients/models/index.js';
import { queuedCollection, readCollection, writeCollection } from '../../pipeline/mentions/collections.js';
import type { FoundMention } from '../../pipeline/mentions/found.js';
import { WATCHES } from '../../pipeline/mentions/schedule.js';
import { listMentions } from '../../pipeline/mentions/store.js';
import { createWatch, watchSpecOf, type WatchRecord } from '../../pipeline/mentions/watch.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { BatchWriter, type Store } from '../../pipeline/runtime/store/index.js';
import { chdbAvailable, quietLog, tempDir, chdbIn, openMigrated, type OpenedStore } from '../helpers/clickhouse.js';
import { recentNoon } from '../helpers/clock.js';
import { reply, startFakeOpenAI, type FakeModel, type FakeRequest } from '../helpers/fake-models.js';

const hasChdb = await chdbAvailable();
/** A fixed clock the store's 90-day retention keeps (test/helpers/clock.ts). */
const AT = recentNoon();
const HOUR = 3_600_000;
const KEY = 'sk-test-watches-0123456789abcdef';

let n = 0;
function found(text: string, platform = 'x'): FoundMention {
  n++;
  return { platform, externalId: `p${n}`, url: `https://x.test/p${n}`, author: 'someone', title: null, text, publishedAtMs: AT - HOUR, lang: 'en', matched: ['Mercury'] };
}

const TERMS = { keywords: ['Mercury'], competitors: ['Brex'], context: 'Mercury is a bank for startups: business checking, treasury, cards' };

/** The posts a request carried (one JSON object a line of the user message), answered as a reader would. */
function reader(request: FakeRequest) {
  const user = (request.body.messages ?? []).find((m) => m.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : '';
  const posts = text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { id: string; text: string });
  return reply.object(
    Object.fromEntries(
      posts.map((p) => {
        const t = p.text.toLowerCase();
        return [p.id, { category: t.includes('brex') ? 'competitor' : t.includes('down') ? 'bug_report' : 'praise', relevant: !t.includes('retrograde'), confidence: 0.9 }];
      }),
    ),
  );
}

describe('actors/classifier sortMentions with the operator\'s model', () => {
  let fake: FakeModel;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY, script: (request) => reader(request) });
  });
  afterAll(async () => {
    await fake?.close();
  });

  const model = () => {
    const config = loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: fake.url, MODEL_MAX_RETRIES: '0' });
    return { model: operatorModel(config), modelOptions: { config, backoff: { baseDelayMs: 1, maxDelayMs: 2 } }, log: quietLog };
  };

  it('takes the model\'s category, constrained to the seven, and drops what it judges a namesake', async () => {
    const posts = [found('Mercury is down again, cannot log in'), found('Moved from Brex to Mercury last month'), found('Mercury retrograde ruins my week')];
    const sorted = await sortMentions(posts, TERMS, model(), new AbortController().signal);
    expect(sorted.map((s) => [s.post.externalId, s.category])).toEqual([
      [posts[0]?.externalId, 'bug_report'],
      [posts[1]?.externalId, 'competitor'],
    ]);
    expect(sorted[0]?.classifier).toBe('model:openai/' + (model().model?.name ?? ''));
  });

  it('falls back to the offline classifier for the posts the model could not answer', async () => {
    const broken = await startFakeOpenAI({ apiKey: KEY, script: () => reply.error(500) });
    try {
      const config = loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: broken.url, MODEL_MAX_RETRIES: '0' });
      const sorted = await sortMentions([found('Mercury is down again'), found('Mercury retrograde')], TERMS, { model: operatorModel(config), modelOptions: { config }, log: quietLog }, new AbortController().signal);
      expect(sorted).toHaveLength(2);
      expect(sorted.every((s) => s.classifier === 'linear-v4')).toBe(true);
    } finally {
      await broken.close();
    }
  });
});

describe.skipIf(!hasChdb)('watch schedules and stored mentions on chdb and memory state', () => {
  let store: Store;
  let writer: BatchWriter;
  let opened: OpenedStore | undefined;
  const dir = tempDir('wds-watch-schedules');
  let now = AT;
  let state: MemoryState;
  const deps = (): ScheduleDeps => ({ state, store, writer, log: quietLog, startsPerSecond: 20, now: () => now });

  beforeAll(async () => {
    opened = await openMigrated(() => chdbIn(dir), { maxRows: 1000, maxDelayMs: 5 });
    ({ store, writer } = opened);
  }, 60_000);
  afterAll(() => opened?.close());

  const watchOf = (tenant: string, i: number): Promise<WatchRecord> =>
    createWatch(writer, tenant, watchSpecOf({ name: `w${i}`, keywords: ['Mercury'], intervalMinutes: 60 }), AT, 'test-server-secret');

  it('rebuilds from the store: a watch never collected is due at once, a collected one an interval after', async () => {
    state = new MemoryState();
    now = AT + 10 * 60_000;
    const fresh = await watchOf('rebuild', 1);
    const collected = await watchOf('rebuild', 2);
    await writeCollection(writer, { ...queuedCollection({ tenant: 'rebuild', watchId: collected.id, trigger: 'scheduled', scheduledAtMs: AT, sinceMs: AT - HOUR, nowMs: AT }), status: 'completed', finishedAtMs: AT + 1000 });
    expect(await rebuildWatchSchedules(deps())).toBeGreaterThanOrEqual(2);
    expect((await WATCHES.scheduled(state, fresh.id))?.nextCheckAt).toBe(AT);
    expect((await WATCHES.scheduled(state, collected.id))?.nextCheckAt).toBe(AT + HOUR);
  });

  it('starts a due time once, one collection at a time per watch, and resumes one nobody works on', async () => {
    state = new MemoryState();
    now = AT;
    const watch = await watchOf('once', 1);
    await WATCHES.schedule(state, { id: watch.id, tenant: watch.tenant, intervalMs: HOUR }, AT - 1);
    const first = await startDueCollections(deps(), 10);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ topic: 'watchCollections', key: watch.id, value: { watchId: watch.id, test: null } });
    // The same due time found again (a rebuild before the row landed): not started twice.
    await WATCHES.schedule(state, { id: watch.id, tenant: watch.tenant, intervalMs: HOUR }, AT - 1);
    expect(await startDueCollections(deps(), 10)).toEqual([]);
    // The next due time while the first collection still runs: skipped_overlap.
    now = AT + HOUR + 5;
    expect(await startDueCollections(deps(), 10)).toEqual([]);
    const firstId = (first[0]?.value as { collectionId: string }).collectionId;
    expect((await readCollection(store, watch.tenant, watch.id, firstId))?.status).toBe('queued');
    // Its worker died: the latch expires, the sweep sends it again.
    await state.del(WATCHES.runningKey(watch.id));
    const resumed = await resumeCollections(deps());
    expect(resumed.map((e) => (e.value as { collectionId: string }).collectionId)).toContain(firstId);
  });

  it('stores a collection\'s posts once when its event comes twice, and completes it', async () => {
    state = new MemoryState();
    const watch = await watchOf('store', 1);
    const collection = { ...queuedCollection({ tenant: 'store', watchId: watch.id, trigger: 'scheduled', scheduledAtMs: Date.now(), sinceMs: Date.now() - HOUR, nowMs: Date.now() }), status: 'running' as const, startedAtMs: Date.now() };
    await writeCollection(writer, collection);
    const event: MentionsFound = {
      requestId: collection.id,
      tenant: 'store',
      watchId: watch.id,
      collectionId: collection.id,
      terms: JSON.stringify({ keywords: ['Mercury'], competitors: ['Brex'], context: null }),
      posts: [found('Mercury app crashes every time I open it'), found('Mercury app crashes every time I open it'), found('Love the new Mercury cards')],
      platforms: JSON.stringify({ x: { status: 'ok', found: 3, source: 'x', warnings: [], error: null } }),
      collection: null,
      watchName: null,
      sealedWebhook: null,
      replyTo: null,
      correlationId: null,
      deadlineMs: Date.now() + 60_000,
      createdAtMs: Date.now(),
    };
    event.posts[1] = { ...event.posts[1]!, externalId: event.posts[0]!.externalId };
    const deps = { state, store, writer, model: null, modelOptions: { config: loadConfig({}) }, log: quietLog };
    await handleMentionsFound(event, deps, new AbortController().signal);
    await handleMentionsFound(event, deps, new AbortController().signal);
    const page = await listMentions(store, 'store', { watchId: watch.id }, null, 100);
    expect(page.mentions).toHaveLength(2);
    expect(page.mentions.every((m) => m.classifier === 'linear-v4' && m.status === 'new')).toBe(true);
    expect(await readCollection(store, 'store', watch.id, collection.id)).toMatchObject({ status: 'completed', found: 2 });
  });
});
