/**
 * The rows of a monitor check (actors/classifier/check.ts) against a writer that records each
 * write and lands it when the test says: a scheduled check that finds its page `same` answers
 * before its rows land, writes them lazily (UNCHANGED_ROWS) and holds the monitor's running
 * latch until they did; so does one whose page moved only by noise (judged from the digests,
 * no store read; its new snapshot lazy too); a changed page's rows (its result, its new
 * snapshot once a row of the check landed, the check), and a manual run's, are written at the
 * writer's pace and landed before the answer. A check reads its page without keeping it in the
 * page cache.
 */
import { describe, expect, it } from 'vitest';
import { checkScrapeOptions, handleCheckRequested, type CheckDeps, type MonitorCheckRequested } from '../../actors/classifier/check.js';
import { UNCHANGED_ROWS } from '../../pipeline/monitors/checks.js';
import { runningCheck, scheduleMonitor, takeRunning } from '../../pipeline/monitors/schedule.js';
import { keepDigest, snapshotDigest, storedDigest } from '../../pipeline/monitors/snapshots.js';
import type { KeyRegistry } from '../../pipeline/keys/registry.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import type { WriteOptions } from '../../pipeline/runtime/store/batch-writer.js';
import { quietLog } from '../helpers/clickhouse.js';
import { recentNoon } from '../helpers/clock.js';

const AT = recentNoon();
const URL = 'https://shop.test/pricing';
const MARKDOWN = 'Starter plan: $19 a month.';

interface Write {
  readonly table: string;
  readonly options: WriteOptions;
  land(): void;
}

/** A writer whose writes land only when the test lands them. */
function heldWriter() {
  const writes: Write[] = [];
  return {
    writes,
    writer: {
      write: (table: string, _rows: readonly object[], options: WriteOptions = {}) =>
        new Promise<void>((resolve) => writes.push({ table, options, land: resolve })),
    },
    /** Lands every write made so far. */
    landAll: () => writes.forEach((w) => w.land()),
  };
}

/** A requester that answers every page with `markdown`. */
const answering = (markdown: string): Requester =>
  ({
    request: async () => ({ ok: true, data: JSON.stringify({ markdown, metadata: { statusCode: 200 } }), errorCode: null, errorMessage: null, credits: 1, source: 'fresh' }),
  }) as unknown as Requester;

const keys = {
  get: async () => ({ id: 'key', revoked: false }),
  reserve: async () => true,
  settle: async () => 0,
} as unknown as KeyRegistry;

function event(trigger: 'scheduled' | 'manual', checkId: string): MonitorCheckRequested {
  return {
    requestId: checkId,
    tenant: 't',
    monitorId: 'mon_1',
    checkId,
    createdAtMs: AT,
    check: { trigger, scheduledAtMs: AT, queuedAtMs: AT, urls: [URL], resumed: false },
    monitor: { name: 'Pricing', goal: null, sealedWebhook: null },
    replyTo: null,
    correlationId: null,
    deadlineMs: null,
  } as unknown as MonitorCheckRequested;
}

/** A check of mon_1 whose page was last seen as MARKDOWN (its digest kept in state), its latch taken as the frontier takes it. */
async function setUp(markdown: string) {
  const state = new MemoryState();
  await keepDigest(state, 'mon_1', URL, snapshotDigest({ statusCode: 200, markdown: MARKDOWN }));
  await scheduleMonitor(state, { id: 'mon_1', tenant: 't', intervalMs: 300_000 }, AT + 300_000);
  const held = heldWriter();
  const deps: CheckDeps = {
    state,
    store: { query: async () => [] },
    writer: held.writer,
    keys,
    requester: async () => answering(markdown),
    pageTimeoutMs: 10_000,
    pageConcurrency: 1,
    log: quietLog,
    now: () => AT,
  };
  return { state, held, deps };
}

describe('actors/classifier check rows', () => {
  it('reads a page without keeping it in the page cache', () => {
    expect(checkScrapeOptions(10_000)).toMatchObject({ maxAge: 0, storeInCache: false });
  });

  it("answers a scheduled check that found its page same before its rows land, lazily written, and holds the latch until they did", async () => {
    const { state, held, deps } = await setUp(MARKDOWN);
    await takeRunning(state, 'mon_1', 'chk_1');
    const outcome = await handleCheckRequested(event('scheduled', 'chk_1'), deps, new AbortController().signal);
    expect(outcome.kind).toBe('ack');
    // The page's row is queued lazily; the final row follows once it landed.
    expect(held.writes.map((w) => [w.table, w.options])).toEqual([['monitor_check_pages', UNCHANGED_ROWS]]);
    expect(await runningCheck(state, 'mon_1')).toBe('chk_1');
    held.landAll();
    await until(() => held.writes.length === 2);
    expect(held.writes[1]).toMatchObject({ table: 'monitor_checks', options: UNCHANGED_ROWS });
    expect(await runningCheck(state, 'mon_1')).toBe('chk_1');
    held.landAll();
    await until(async () => (await runningCheck(state, 'mon_1')) === null);
  });

  it('writes a changed page and its check at the writer\'s pace, landed before the answer, the new snapshot once a row of the check landed', async () => {
    const { state, held, deps } = await setUp('Starter plan: $24 a month.');
    await takeRunning(state, 'mon_1', 'chk_2');
    const answered = handleCheckRequested(event('scheduled', 'chk_2'), deps, new AbortController().signal);
    const tables = await landAsTheyCome(held, answered);
    // A scheduled check's queued row follows its event (QUEUED_ROWS): its running row lands before the new snapshot.
    expect(tables).toEqual(['monitor_checks', 'monitor_check_pages', 'page_changes', 'monitor_checks']);
    expect(held.writes.length).toBe(4);
    expect(await runningCheck(state, 'mon_1')).toBeNull();
    expect(await storedDigest(state, 'mon_1', URL)).toBe(snapshotDigest({ statusCode: 200, markdown: 'Starter plan: $24 a month.' }));
  });

  it("writes a manual run's new snapshot after its page's row, before its final row (the gateway stored the check)", async () => {
    const { state, held, deps } = await setUp('Starter plan: $24 a month.');
    await takeRunning(state, 'mon_1', 'chk_4');
    const answered = handleCheckRequested(event('manual', 'chk_4'), deps, new AbortController().signal);
    const tables = await landAsTheyCome(held, answered);
    expect(tables).toEqual(['monitor_check_pages', 'page_changes', 'monitor_checks']);
  });

  it('judges a page that moved only by noise from its digest, reading no store, and writes its rows and new snapshot lazily', async () => {
    const before = `${MARKDOWN} Updated 2026-11-26 10:00:01 UTC`;
    const moved = `${MARKDOWN} Updated 2026-11-26 10:05:44 UTC`;
    const { state, held, deps } = await setUp(moved);
    await keepDigest(state, 'mon_1', URL, snapshotDigest({ statusCode: 200, markdown: before }));
    await takeRunning(state, 'mon_1', 'chk_5');
    let reads = 0;
    const outcome = await handleCheckRequested(event('scheduled', 'chk_5'), { ...deps, store: { query: async () => ((reads += 1), []) } }, new AbortController().signal);
    expect(outcome.kind).toBe('ack');
    expect(reads).toBe(0);
    expect(await runningCheck(state, 'mon_1')).toBe('chk_5');
    expect(held.writes.map((w) => [w.table, w.options])).toEqual([
      ['monitor_check_pages', UNCHANGED_ROWS],
      ['page_changes', UNCHANGED_ROWS],
    ]);
    // The digest moves on once the snapshot landed; the final row follows the page's rows.
    expect(await storedDigest(state, 'mon_1', URL)).toBe(snapshotDigest({ statusCode: 200, markdown: before }));
    held.landAll();
    await until(() => held.writes.length === 3);
    expect(held.writes[2]).toMatchObject({ table: 'monitor_checks', options: UNCHANGED_ROWS });
    expect(await storedDigest(state, 'mon_1', URL)).toBe(snapshotDigest({ statusCode: 200, markdown: moved }));
    held.landAll();
    await until(async () => (await runningCheck(state, 'mon_1')) === null);
  });

  it("writes a manual run's rows at the writer's pace even when its page is the same", async () => {
    const { state, held, deps } = await setUp(MARKDOWN);
    await takeRunning(state, 'mon_1', 'chk_3');
    const answered = handleCheckRequested(event('manual', 'chk_3'), deps, new AbortController().signal);
    await until(() => held.writes.length === 1);
    held.landAll();
    await until(() => held.writes.length === 2);
    held.landAll();
    await answered;
    expect(held.writes.map((w) => [w.table, w.options])).toEqual([
      ['monitor_check_pages', {}],
      ['monitor_checks', {}],
    ]);
    expect(await runningCheck(state, 'mon_1')).toBeNull();
  });
});

/**
 * Lands each write at the writer's pace as it comes (each is awaited before the next) until
 * `answered` settles; the tables of those writes in order. A lazy write (behind the answer) is
 * left to the test.
 */
async function landAsTheyCome(held: ReturnType<typeof heldWriter>, answered: Promise<unknown>): Promise<string[]> {
  const tables: string[] = [];
  let seen = 0;
  let settled = false;
  void answered.then(() => (settled = true));
  while (!settled) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    for (const w of held.writes.slice(seen)) {
      seen += 1;
      if (w.options.maxDelayMs !== undefined) continue;
      expect(settled).toBe(false);
      tables.push(w.table);
      w.land();
    }
  }
  return tables;
}

/** Polls `done` on the event loop (no wall-clock assertion: it only yields until the awaited work ran). */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1_000; i += 1) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error('the awaited work never ran');
}
