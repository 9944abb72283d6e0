/**
 * What only FileState has: the state survives its process. Each test works on a file, closes
 * it (or only lets the write-behind flush, as a killed process would leave it) and opens it
 * again, and reads back what the calls left; random runs compare it with a MemoryState given
 * the same calls. One process owns a file; locks do not outlive their process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { FileState } from '../../pipeline/runtime/state/file.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import type { State, WorkQueueKeys } from '../../pipeline/runtime/state/state.js';

const dir = mkdtempSync(join(tmpdir(), 'wds-state-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newPath = () => join(dir, `state-${files++}.sqlite`);

const queueKeys = (id: string): WorkQueueKeys => ({
  seen: `${id}:seen`,
  queue: `${id}:queue`,
  counters: id,
  claims: `${id}:claims`,
  claimedAt: `${id}:at`,
  settled: `${id}:settled`,
  ranks: `${id}:ranks`,
});

/** Everything the test keys hold, read through the State interface (lists and schedules are emptied: do it to both sides). */
async function dump(state: State, q: WorkQueueKeys, names: { strings: string[]; sets: string[]; hashes: string[]; lists: string[]; zsets: string[] }) {
  const out: Record<string, unknown> = {};
  for (const k of names.strings) out[k] = await state.get(k);
  for (const k of names.sets) {
    const members: string[] = [];
    for (let m = 0; m < 30; m++) if (await state.sismember(k, `m${m}`)) members.push(`m${m}`);
    out[k] = members;
  }
  for (const k of names.hashes) out[k] = await state.hgetall(k);
  for (const k of [...names.lists, q.queue]) out[k] = await state.pop(k, 10_000);
  for (const k of names.zsets) out[k] = await state.zpopDue(k, Number.POSITIVE_INFINITY, 10_000);
  out.ttl = await Promise.all(names.strings.map((k) => state.ttl(k)));
  out.counters = await state.hgetall(q.counters);
  out.claims = await state.hgetall(q.claims);
  out.settled = await state.scard(q.settled);
  return out;
}

describe('pipeline/runtime/state/file', () => {
  it('keeps every kind of value across a close and an open', async () => {
    const path = newPath();
    const a = FileState.open({ path });
    await a.set('s', 'text');
    await a.set('ttl', 'v', 60_000);
    await a.sadd('set', 'a', 'b', 'c');
    await a.srem('set', 'b');
    await a.hset('h', { f: '1', g: '2' });
    await a.hincrby('h', 'f', 41);
    await a.hdel('h', 'g');
    await a.push('list', 'x', 'y', 'z');
    await a.pop('list', 1);
    await a.zadd('z', 5, 'five');
    await a.zadd('z', Number.POSITIVE_INFINITY, 'never');
    await a.zadd('z', 1, 'one');
    await a.zpopDue('z', 1, 10);
    await a.incr('n', 7);
    await a.close();

    const b = FileState.open({ path });
    expect(await b.get('s')).toBe('text');
    expect(await b.get('ttl')).toBe('v');
    expect(await b.ttl('ttl')).toBeGreaterThan(50_000);
    expect(await b.ttl('s')).toBe(-1);
    expect(await b.sismember('set', 'a')).toBe(true);
    expect(await b.sismember('set', 'b')).toBe(false);
    expect(await b.scard('set')).toBe(2);
    expect(await b.hgetall('h')).toEqual({ f: '42' });
    expect(await b.pop('list', 10)).toEqual(['y', 'z']);
    expect(await b.zpopDue('z', Number.POSITIVE_INFINITY, 10)).toEqual([
      { member: 'five', score: 5 },
      { member: 'never', score: Number.POSITIVE_INFINITY },
    ]);
    expect(await b.get('n')).toBe('7');
    await b.close();
  });

  it('writes behind within its flush time, so a process that dies without closing keeps what was flushed', async () => {
    const path = newPath();
    const a = FileState.open({ path, flushMs: 5 });
    const q = queueKeys('job');
    for (let i = 0; i < 50; i++) await a.queueAdmit(q, `k${i}`, `item${i}`, 40, i % 3);
    const first = await a.queueClaim(q, 10, 1000);
    await a.queueClaim(q, 10, 1001);
    await a.queueSettle(q, 1, { completed: 1 });
    await sleep(50);
    // A second open of a file a live process holds is refused; the file is read as the dead process left it.
    expect(hasCode(captured(() => FileState.open({ path })), 'state_unavailable')).toBe(true);
    const copy = join(dir, `copy-${files++}.sqlite`);
    snapshotFile(a, copy);
    const b = FileState.open({ path: copy });
    expect(first).toEqual({ seq: 1, item: 'item0', more: true });
    expect(await b.hgetall(q.counters)).toEqual({ total: '40', seq: '2', inflight: '1', completed: '1' });
    expect(await b.hgetall(q.claims)).toEqual({ 2: 'item1' });
    expect(await b.scard(q.seen)).toBe(50);
    expect(await b.qlen(q.queue)).toBe(38);
    // The queue goes on where it was: the next claim is the next item, numbered on.
    expect(await b.queueClaim(q, 10, 2000)).toEqual({ seq: 3, item: 'item2', more: true });
    await b.close();
    await a.close();
  });

  it('makes its changes durable at once when asked (durable()), not only at its flush time', async () => {
    const a = FileState.open({ path: newPath(), flushMs: 60_000 });
    await a.hincrby('job', 'completed', 1);
    const early = join(dir, `copy-${files++}.sqlite`);
    snapshotFile(a, early);
    await a.durable();
    const late = join(dir, `copy-${files++}.sqlite`);
    snapshotFile(a, late);
    for (const [path, expected] of [[early, {}], [late, { completed: '1' }]] as const) {
      const b = FileState.open({ path });
      expect(await b.hgetall('job')).toEqual(expected);
      await b.close();
    }
    await a.close();
  });

  it('drops expired keys, locks and running latches when it opens, and keeps a recreated key whole', async () => {
    let now = 1_000_000;
    const path = newPath();
    const a = FileState.open({ path, now: () => now, sweepIntervalMs: 0 });
    await a.set('short', 'v', 100);
    await a.sadd('recreated', 'old1', 'old2');
    await a.expire('recreated', 100);
    const lock = await a.lock('held', 60_000);
    expect(lock).not.toBeNull();
    await a.set('monitor:m1:running', 'check-1', 60_000);
    await a.set('monitor:m1:slot:123', '1', 60_000);
    now += 200;
    expect(await a.scard('recreated')).toBe(0);
    await a.sadd('recreated', 'new');
    await a.close();
    const b = FileState.open({ path, now: () => now });
    expect(await b.get('short')).toBeNull();
    expect(await b.scard('recreated')).toBe(1);
    expect(await b.sismember('recreated', 'new')).toBe(true);
    expect(await b.lock('held', 1000)).not.toBeNull();
    // A due schedule's running latch goes with its process; the due time's slot stays.
    expect(await b.get('monitor:m1:running')).toBeNull();
    expect(await b.get('monitor:m1:slot:123')).toBe('1');
    await b.close();
  });

  it('agrees with MemoryState after random calls, reopened several times', async () => {
    let path = newPath();
    let file = FileState.open({ path, flushMs: 1 });
    const memory = new MemoryState();
    const q = queueKeys('rq');
    const names = { strings: ['s0', 's1', 's2'], sets: ['t0', 't1'], hashes: ['h0', 'h1'], lists: ['l0', 'l1'], zsets: ['z0', 'z1'] };
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pick = <T,>(xs: readonly T[]) => xs[rand(xs.length)] as T;
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 400; i++) {
        const op = rand(12);
        const run = async (s: State) => {
          switch (op) {
            case 0:
              return s.set(pick(names.strings), `v${i}`);
            case 1:
              return s.del(pick([...names.strings, ...names.sets, ...names.lists]));
            case 2:
              return s.sadd(pick(names.sets), `m${rand(30)}`, `m${rand(30)}`);
            case 3:
              return s.srem(pick(names.sets), `m${rand(30)}`);
            case 4:
              return s.hset(pick(names.hashes), { [`f${rand(10)}`]: `v${i}` });
            case 5:
              return s.hdel(pick(names.hashes), `f${rand(10)}`);
            case 6:
              return s.push(pick(names.lists), `i${i}`, `j${i}`);
            case 7:
              return s.pop(pick(names.lists), rand(4));
            case 8:
              return s.zadd(pick(names.zsets), rand(100), `z${rand(20)}`);
            case 9:
              return s.zpopDue(pick(names.zsets), rand(100), rand(3));
            case 10:
              return s.queueAdmit(q, `k${rand(200)}`, `item${i}`, 150, rand(5));
            default:
              return rand(2) ? s.queueClaim(q, 20, i) : s.queueSettle(q, 1 + rand(Number((await s.hget(q.counters, 'seq')) ?? 1)), { done: 1 });
          }
        };
        const seedBefore = seed;
        const fromMemory = await run(memory);
        seed = seedBefore;
        expect(await run(file)).toEqual(fromMemory);
      }
      await sleep(10);
      // Odd rounds: the file as a process killed now leaves it (no close); even ones: closed.
      if (round % 2 === 1) {
        const copy = join(dir, `copy-${files++}.sqlite`);
        snapshotFile(file, copy);
        path = copy;
      }
      await file.close();
      file = FileState.open({ path, flushMs: 1 });
      expect(await dump(file, q, names)).toEqual(await dump(memory, q, names));
    }
    await file.close();
    await memory.close();
  });
});

function captured(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return null;
}

/** A copy of what the file holds now (as a process killed now would leave it): SQLite's backup of the open database. */
function snapshotFile(state: FileState, to: string): void {
  (state as unknown as { db: { exec(sql: string): void } }).db.exec(`VACUUM INTO '${to.replace(/'/g, "''")}'`);
}
