import { afterEach, describe, expect, it, vi } from 'vitest';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { BatchWriter, queueWrite } from '../../pipeline/runtime/store/batch-writer.js';
import { StoreError } from '../../pipeline/runtime/store/store-error.js';
import { quietLog } from '../helpers/clickhouse.js';
import { track } from '../helpers/wait.js';

type Row = Record<string, unknown>;

/** A store whose inserts are recorded and settle when the test says so. */
function fakeStore() {
  const inserts: { table: string; rows: Row[]; settle: (error?: unknown) => void }[] = [];
  const store = {
    insert(table: string, rows: readonly Row[]): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        inserts.push({ table, rows: [...rows], settle: (error) => (error ? reject(error) : resolve()) });
      });
    },
  };
  return { store, inserts };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('pipeline/runtime/store/batch-writer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('flushes a table when its batch reaches maxRows, resolving writes only after the insert', async () => {
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 3, maxDelayMs: 60_000 }, quietLog);
    const a = track(writer.write('pages', [{ n: 1 }, { n: 2 }]));
    const other = track(writer.write('checks', [{ n: 9 }]));
    await tick();
    expect(inserts).toHaveLength(0);
    const b = track(writer.write('pages', [{ n: 3 }]));
    await tick();
    expect(inserts.map((i) => [i.table, i.rows])).toEqual([['pages', [{ n: 1 }, { n: 2 }, { n: 3 }]]]);
    expect([a.settled, b.settled]).toEqual([false, false]);
    inserts[0]?.settle();
    await tick();
    expect([a.settled, b.settled, a.error, b.error]).toEqual([true, true, undefined, undefined]);
    expect(other.settled).toBe(false);
    const closing = writer.close();
    await tick();
    inserts[1]?.settle();
    await closing;
    expect(other).toEqual({ settled: true, error: undefined });
  });

  it('flushes a partial batch maxDelayMs after its first row', async () => {
    vi.useFakeTimers();
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 100, maxDelayMs: 50 }, quietLog);
    const first = track(writer.write('jobs', [{ id: 'a' }]));
    await vi.advanceTimersByTimeAsync(30);
    const second = track(writer.write('jobs', [{ id: 'b' }]));
    expect(inserts).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(20);
    expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }, { id: 'b' }]]);
    inserts[0]?.settle();
    await vi.advanceTimersByTimeAsync(0);
    expect([first.settled, second.settled]).toEqual([true, true]);
  });

  it('rejects every write of a failed batch with the store error, and keeps going', async () => {
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 2, maxDelayMs: 60_000 }, quietLog);
    const a = writer.write('pages', [{ n: 1 }]);
    const b = writer.write('pages', [{ n: 2 }]);
    await tick();
    inserts[0]?.settle(new StoreError('clickhouse: connection refused'));
    for (const write of [a, b]) {
      const error = await write.catch((e: unknown) => e);
      expect(hasCode(error, 'store_unavailable')).toBe(true);
      expect((error as Error).message).toBe('clickhouse: connection refused');
    }
    const c = track(writer.write('pages', [{ n: 3 }, { n: 4 }]));
    await tick();
    inserts[1]?.settle();
    await tick();
    expect(c).toEqual({ settled: true, error: undefined });
  });

  it('inserts one table\'s batches one at a time, in order', async () => {
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 1, maxDelayMs: 60_000 }, quietLog);
    const first = track(writer.write('job_pages', [{ seq: 1 }]));
    const second = track(writer.write('job_pages', [{ seq: 2 }]));
    await tick();
    expect(inserts.map((i) => i.rows)).toEqual([[{ seq: 1 }]]);
    inserts[0]?.settle();
    await tick();
    expect(first.settled).toBe(true);
    expect(inserts.map((i) => i.rows)).toEqual([[{ seq: 1 }], [{ seq: 2 }]]);
    inserts[1]?.settle();
    await tick();
    expect(second.settled).toBe(true);
  });

  it('group commit: a due batch waiting on its table\'s previous insert takes the rows written meanwhile', async () => {
    vi.useFakeTimers();
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 100, maxDelayMs: 20 }, quietLog);
    const a = track(writer.write('pages', [{ n: 1 }]));
    await vi.advanceTimersByTimeAsync(20);
    expect(inserts.map((i) => i.rows)).toEqual([[{ n: 1 }]]);
    // The next batch falls due while the first insert still runs...
    const b = track(writer.write('pages', [{ n: 2 }]));
    await vi.advanceTimersByTimeAsync(20);
    // ...and keeps taking rows until its own insert starts.
    const c = track(writer.write('pages', [{ n: 3 }]));
    await vi.advanceTimersByTimeAsync(100);
    const d = track(writer.write('pages', [{ n: 4 }]));
    expect(inserts).toHaveLength(1);
    inserts[0]?.settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(inserts.map((i) => i.rows)).toEqual([[{ n: 1 }], [{ n: 2 }, { n: 3 }, { n: 4 }]]);
    expect([a.settled, b.settled, c.settled, d.settled]).toEqual([true, false, false, false]);
    // A write after the insert started opens the next batch, due maxDelayMs later.
    const e = track(writer.write('pages', [{ n: 5 }]));
    inserts[1]?.settle();
    await vi.advanceTimersByTimeAsync(0);
    expect([b.settled, c.settled, d.settled, e.settled]).toEqual([true, true, true, false]);
    await vi.advanceTimersByTimeAsync(20);
    expect(inserts.map((i) => i.rows).at(-1)).toEqual([{ n: 5 }]);
  });

  it('group commit: with one insert slot, other tables\' due batches wait for it and grow; a full one closes', async () => {
    vi.useFakeTimers();
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 3, maxDelayMs: 20, maxConcurrentInserts: 1 }, quietLog);
    track(writer.write('pages', [{ t: 'p1' }]));
    await vi.advanceTimersByTimeAsync(20);
    expect(inserts.map((i) => i.table)).toEqual(['pages']);
    track(writer.write('checks', [{ t: 'c1' }]));
    track(writer.write('changes', [{ t: 'x1' }]));
    await vi.advanceTimersByTimeAsync(50);
    // Both are due; neither starts while the slot is taken.
    expect(inserts).toHaveLength(1);
    track(writer.write('checks', [{ t: 'c2' }]));
    track(writer.write('checks', [{ t: 'c3' }])); // full: closed, c4 opens the next batch
    const c4 = track(writer.write('checks', [{ t: 'c4' }]));
    track(writer.write('changes', [{ t: 'x2' }]));
    inserts[0]?.settle();
    await vi.advanceTimersByTimeAsync(0);
    // Slots go to due batches in the order they fell due.
    expect(inserts.map((i) => [i.table, i.rows.map((r) => r.t)])).toEqual([
      ['pages', ['p1']],
      ['checks', ['c1', 'c2', 'c3']],
    ]);
    inserts[1]?.settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(inserts.map((i) => [i.table, i.rows.map((r) => r.t)]).at(-1)).toEqual(['changes', ['x1', 'x2']]);
    inserts[2]?.settle();
    await vi.advanceTimersByTimeAsync(20);
    expect(inserts.map((i) => [i.table, i.rows.map((r) => r.t)]).at(-1)).toEqual(['checks', ['c4']]);
    inserts[3]?.settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(c4.settled).toBe(true);
  });

  it('a lazy write waits its own maxDelayMs; a default write makes the batch due sooner; pending counts rows not landed', async () => {
    vi.useFakeTimers();
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 100, maxDelayMs: 20 }, quietLog);
    const lazy = track(writer.write('search_docs', [{ n: 1 }], { maxDelayMs: 1000 }));
    track(writer.write('search_docs', [{ n: 2 }], { maxDelayMs: 1000 }));
    expect(writer.pending('search_docs')).toBe(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(inserts).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(500);
    expect(inserts.map((i) => i.rows)).toEqual([[{ n: 1 }, { n: 2 }]]);
    expect(writer.pending('search_docs')).toBe(2);
    inserts[0]?.settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(lazy.settled).toBe(true);
    expect(writer.pending('search_docs')).toBe(0);
    // A default write joins a lazy batch and makes it due at its own time.
    track(writer.write('search_docs', [{ n: 3 }], { maxDelayMs: 1000 }));
    await vi.advanceTimersByTimeAsync(100);
    track(writer.write('search_docs', [{ n: 4 }]));
    await vi.advanceTimersByTimeAsync(20);
    expect(inserts.map((i) => i.rows).at(-1)).toEqual([{ n: 3 }, { n: 4 }]);
    // A failed insert is no longer pending either.
    inserts[1]?.settle(new StoreError('chdb: broken'));
    await vi.advanceTimersByTimeAsync(0);
    expect(writer.pending('search_docs')).toBe(0);
  });

  it('flush(tables) makes only those tables\' batches due', async () => {
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 100, maxDelayMs: 60_000 }, quietLog);
    const index = track(writer.write('search_docs', [{ n: 1 }]));
    track(writer.write('pages', [{ n: 2 }]));
    const flushed = track(writer.flush(['search_docs']));
    await tick();
    expect(inserts.map((i) => i.table)).toEqual(['search_docs']);
    inserts[0]?.settle();
    await tick();
    expect([index.settled, flushed.settled]).toEqual([true, true]);
    expect(writer.pending('pages')).toBe(1);
  });

  it('queueWrite resolves at once unless maxPendingRows rows wait, and hands a failed insert to its callback', async () => {
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 100, maxDelayMs: 60_000 }, quietLog);
    const failures: unknown[] = [];
    const options = { maxDelayMs: 60_000, maxPendingRows: 2 };
    await queueWrite(writer, 'pages', [{ n: 1 }], options, (e) => failures.push(e));
    await queueWrite(writer, 'pages', [{ n: 2 }], options, (e) => failures.push(e));
    // Two rows wait: the third write is waited for.
    const third = track(queueWrite(writer, 'pages', [{ n: 3 }], options, (e) => failures.push(e)));
    const flushed = writer.flush();
    await tick();
    expect(third.settled).toBe(false);
    inserts[0]?.settle(new StoreError('chdb: broken'));
    await flushed;
    await tick();
    expect(third).toEqual({ settled: true, error: undefined });
    expect(failures).toHaveLength(3);
    expect(writer.pending('pages')).toBe(0);
  });

  it('flushes on close and refuses writes after it', async () => {
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 100, maxDelayMs: 60_000 }, quietLog);
    const a = track(writer.write('pages', [{ n: 1 }]));
    const b = track(writer.write('jobs', [{ n: 2 }]));
    const closed = track(writer.close());
    await tick();
    expect(inserts.map((i) => i.table).sort()).toEqual(['jobs', 'pages']);
    expect(closed.settled).toBe(false);
    for (const i of inserts) i.settle();
    await tick();
    expect([a.settled, b.settled, closed.settled]).toEqual([true, true, true]);
    const late = await writer.write('pages', [{ n: 3 }]).catch((e: unknown) => e);
    expect(hasCode(late, 'service_unavailable')).toBe(true);
    expect(inserts).toHaveLength(2);
  });

  it('resolves an empty write at once and rejects nonsense options', async () => {
    const { store, inserts } = fakeStore();
    const writer = new BatchWriter(store, { maxRows: 1, maxDelayMs: 0 }, quietLog);
    await writer.write('pages', []);
    expect(inserts).toHaveLength(0);
    expect(() => new BatchWriter(store, { maxRows: 0, maxDelayMs: 10 }, quietLog)).toThrow(RangeError);
  });
});
