/**
 * pipeline/runtime/store/runs.ts against the real store, on both drivers: chdb in this process
 * (embedded mode) and @clickhouse/client over HTTP to chdb's ClickHouse interface in its own
 * process (distributed mode), through a watch's collections (pipeline/mentions/collections.ts).
 * Per parent, its newest run and its newest completed one, the latest version of each run, one
 * tenant's only; and one snapshot for both, so a run that finishes while a record is read is
 * shown as its parent's current run or as its last completed one, never as both.
 */
import { beforeAll, expect, it } from 'vitest';
import { newestCollections, queuedCollection, writeCollection, type CollectionRecord } from '../../pipeline/mentions/collections.js';
import type { BatchWriter, Store } from '../../pipeline/runtime/store/index.js';
import { recentNoon } from '../helpers/clock.js';
import { chdbAvailable, describeOnBothStores } from '../helpers/clickhouse.js';

const hasChdb = await chdbAvailable();

// Recent: the table drops rows 90 days after they were queued.
const T0 = recentNoon();

function collection(tenant: string, watchId: string, atMs: number): CollectionRecord {
  return queuedCollection({ tenant, watchId, trigger: 'scheduled', scheduledAtMs: atMs, sinceMs: atMs - 60_000, nowMs: atMs });
}

const running = (c: CollectionRecord): CollectionRecord => ({ ...c, status: 'running', startedAtMs: c.queuedAtMs + 10 });
const completed = (c: CollectionRecord, found: number): CollectionRecord => ({ ...running(c), status: 'completed', finishedAtMs: c.queuedAtMs + 20, found, creditsUsed: 1 });
const failed = (c: CollectionRecord): CollectionRecord => ({ ...running(c), status: 'failed', reason: 'no platform answered', finishedAtMs: c.queuedAtMs + 20 });

describeOnBothStores('pipeline/runtime/store/runs', 'runs', hasChdb, (opened) => {
  let store: Store;
  let writer: BatchWriter;
  beforeAll(() => {
    ({ store, writer } = opened());
  });

  it("reads each parent's newest run and its newest completed one, each as its latest version, for one tenant only", async () => {
    const tenant = 'key-runs-newest';
    const first = collection(tenant, 'wat_a', T0);
    const second = collection(tenant, 'wat_a', T0 + 60_000);
    const onlyFailed = collection(tenant, 'wat_b', T0);
    const done = collection(tenant, 'wat_c', T0);
    const othersNewer = collection('key-runs-other', 'wat_a', T0 + 120_000);
    for (const c of [first, completed(first, 3), second, running(second), onlyFailed, failed(onlyFailed), done, completed(done, 0), othersNewer, completed(othersNewer, 9)]) {
      await writeCollection(writer, c);
    }

    const { newest, completed: lastCompleted } = await newestCollections(store, tenant, ['wat_a', 'wat_b', 'wat_c', 'wat_none']);
    expect(newest.get('wat_a')).toMatchObject({ id: second.id, status: 'running', startedAtMs: second.queuedAtMs + 10 });
    expect(lastCompleted.get('wat_a')).toMatchObject({ id: first.id, status: 'completed', found: 3 });
    expect(newest.get('wat_b')).toMatchObject({ id: onlyFailed.id, status: 'failed', reason: 'no platform answered' });
    expect(lastCompleted.has('wat_b')).toBe(false);
    expect(newest.get('wat_c')).toMatchObject({ id: done.id, status: 'completed' });
    expect(lastCompleted.get('wat_c')).toEqual(newest.get('wat_c'));
    expect([...newest.keys()].sort()).toEqual(['wat_a', 'wat_b', 'wat_c']);
    expect(await newestCollections(store, tenant, [])).toEqual({ newest: new Map(), completed: new Map() });
  });

  it("shows a run that completes while the record is read as the parent's current run or its last completed one, never both", async () => {
    const tenant = 'key-runs-snapshot';
    const previous = collection(tenant, 'wat_s', T0);
    const current = collection(tenant, 'wat_s', T0 + 60_000);
    for (const c of [previous, completed(previous, 1), current, running(current)]) await writeCollection(writer, c);

    // A store on which the run completes between any two reads of one call: after the first
    // read has answered, the completed version lands, then the next read runs.
    let reads = 0;
    let firstAnswered: Promise<unknown> = Promise.resolve();
    const racing: Pick<Store, 'query'> = {
      query: (async (sql: string, params?: Record<string, unknown>) => {
        reads++;
        if (reads === 1) {
          const answer = store.query(sql, params);
          firstAnswered = answer.catch(() => undefined);
          return answer;
        }
        await firstAnswered;
        if (reads === 2) await writeCollection(writer, completed(current, 2));
        return store.query(sql, params);
      }) as Store['query'],
    };

    const seen = await newestCollections(racing, tenant, ['wat_s']);
    const newest = seen.newest.get('wat_s');
    const last = seen.completed.get('wat_s');
    // Either the run still runs (and the last completed one is the one before it), or it is
    // the last completed one itself: one moment of the table.
    if (newest?.status === 'running') expect(last?.id).toBe(previous.id);
    else expect(last).toEqual(newest);
    expect(newest?.id).toBe(current.id);

    if (reads === 1) await writeCollection(writer, completed(current, 2));
    const after = await newestCollections(store, tenant, ['wat_s']);
    expect(after.newest.get('wat_s')).toMatchObject({ id: current.id, status: 'completed', found: 2 });
    expect(after.completed.get('wat_s')).toEqual(after.newest.get('wat_s'));
  });
});
