/**
 * The one contract of pipeline/runtime/state/state.ts, run over every implementation: MemoryState
 * and FileState always, RedisState when the Redis of test/helpers/redis.ts answers (engine policy of
 * test/helpers/engines.ts). Timing tests use short TTLs and poll a little past them; they
 * never assert how fast anything was.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileState } from '../../pipeline/runtime/state/file.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { RedisState } from '../../pipeline/runtime/state/redis.js';
import type { Claim, State, WorkQueueKeys } from '../../pipeline/runtime/state/state.js';
import { engine } from '../helpers/engines.js';
import { dropNamespace, REDIS_INSTALL, redisProbe, TEST_REDIS_URL, testNamespace } from '../helpers/redis.js';
import { rejection } from '../helpers/wait.js';

interface Subject {
  /** A State over the suite's data; two calls may give two clients of the same data. */
  open(): Promise<State>;
  /** A State with its own lifetime, for close(). */
  isolated(): Promise<State>;
  teardown(): Promise<void>;
}

/** Polls `check` every 10 ms until it holds; fails after a generous `limitMs`. */
async function eventually(check: () => Promise<boolean>, limitMs = 3000): Promise<void> {
  const giveUpAt = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`condition did not hold within ${limitMs} ms`);
    await sleep(10);
  }
}

function stateContract(name: string, makeSubject: () => Subject): void {
  describe(name, () => {
    let subject: Subject;
    let a: State;
    let b: State;
    const key = (label: string) => `${label}:${randomUUID()}`;

    beforeAll(async () => {
      subject = makeSubject();
      a = await subject.open();
      b = await subject.open();
    });
    afterAll(async () => {
      await subject?.teardown();
    });

    describe('keys', () => {
      it('gets, sets, overwrites and deletes', async () => {
        const k = key('kv');
        expect(await a.get(k)).toBeNull();
        await a.set(k, 'one');
        expect(await b.get(k)).toBe('one');
        await b.set(k, 'two');
        expect(await a.get(k)).toBe('two');
        expect(await a.del(k, key('absent'))).toBe(1);
        expect(await a.get(k)).toBeNull();
        expect(await a.del()).toBe(0);
      });

      it('expires a key set with a TTL and reports the TTL', async () => {
        const k = key('ttl');
        const plain = key('plain');
        await a.set(k, 'v', 80);
        await a.set(plain, 'v');
        const left = await a.ttl(k);
        expect(left).toBeGreaterThan(0);
        expect(left).toBeLessThanOrEqual(80);
        expect(await a.ttl(plain)).toBe(-1);
        expect(await a.ttl(key('absent'))).toBe(-2);
        expect(await a.get(k)).toBe('v');
        await eventually(async () => (await a.get(k)) === null);
        expect(await a.ttl(k)).toBe(-2);
        expect(await a.get(plain)).toBe('v');
      });

      it('set without a TTL clears an earlier one', async () => {
        const k = key('persist');
        await a.set(k, 'v', 60);
        await a.set(k, 'w');
        expect(await a.ttl(k)).toBe(-1);
        await sleep(100);
        expect(await a.get(k)).toBe('w');
      });

      it('expire() applies to present keys only', async () => {
        const k = key('expire');
        expect(await a.expire(k, 50)).toBe(false);
        await a.set(k, 'v');
        expect(await a.expire(k, 60)).toBe(true);
        expect(await a.ttl(k)).toBeGreaterThan(0);
        await eventually(async () => (await b.get(k)) === null);
      });

      it('refuses a TTL that is not a positive integer', async () => {
        expect(await rejection(a.set(key('bad'), 'v', 0))).toBeInstanceOf(RangeError);
        expect(await rejection(a.setIfAbsent(key('bad'), 'v', 1.5))).toBeInstanceOf(RangeError);
        expect(await rejection(a.expire(key('bad'), -1))).toBeInstanceOf(RangeError);
      });
    });

    describe('setIfAbsent', () => {
      it('sets only when absent, and again after the TTL ran out', async () => {
        const k = key('nx');
        expect(await a.setIfAbsent(k, 'first', 60)).toBe(true);
        expect(await b.setIfAbsent(k, 'second', 60)).toBe(false);
        expect(await a.get(k)).toBe('first');
        await eventually(async () => (await a.get(k)) === null);
        expect(await b.setIfAbsent(k, 'third')).toBe(true);
        expect(await a.get(k)).toBe('third');
        expect(await a.ttl(k)).toBe(-1);
      });

      it('has exactly one winner among concurrent callers', async () => {
        const k = key('nx-race');
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).setIfAbsent(k, `caller-${i}`, 10_000)),
        );
        const winners = results.flatMap((won, i) => (won ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(await a.get(k)).toBe(`caller-${winners[0]}`);
      });
    });

    describe('counters', () => {
      it('increments from 0, by any integer, keeping the TTL', async () => {
        const k = key('incr');
        expect(await a.incr(k)).toBe(1);
        expect(await b.incr(k, 10)).toBe(11);
        expect(await a.incr(k, -20)).toBe(-9);
        await a.expire(k, 10_000);
        await a.incr(k);
        expect(await a.ttl(k)).toBeGreaterThan(0);
        expect(await a.get(k)).toBe('-8');
      });

      it('refuses to count a value that is not an integer', async () => {
        const k = key('not-int');
        await a.set(k, 'abc');
        const error = await rejection(a.incr(k));
        expect(hasCode(error, 'state_unavailable')).toBe(false);
        expect(await rejection(a.decrIfAtLeast(k, 1))).toBeInstanceOf(Error);
        expect(await rejection(a.incr(key('frac'), 1.5))).toBeInstanceOf(RangeError);
      });

      it('decrIfAtLeast subtracts only when there is enough', async () => {
        const k = key('decr');
        expect(await a.decrIfAtLeast(k, 1)).toBeNull();
        expect(await a.decrIfAtLeast(k, 0)).toBe(0);
        await a.incr(k, 5);
        expect(await a.decrIfAtLeast(k, 3)).toBe(2);
        expect(await b.decrIfAtLeast(k, 3)).toBeNull();
        expect(await a.get(k)).toBe('2');
        expect(await b.decrIfAtLeast(k, 2)).toBe(0);
        expect(await rejection(a.decrIfAtLeast(k, -1))).toBeInstanceOf(RangeError);
      });

      it('decrIfAtLeast never goes below zero under 100 concurrent calls', async () => {
        const k = key('decr-race');
        await a.incr(k, 37);
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).decrIfAtLeast(k, 1)));
        const taken = results.filter((r) => r !== null);
        expect(taken).toHaveLength(37);
        expect(new Set(taken).size).toBe(37);
        expect(Math.min(...(taken as number[]))).toBe(0);
        expect(await a.get(k)).toBe('0');

        const k3 = key('decr-race-3');
        await a.incr(k3, 100);
        const by3 = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).decrIfAtLeast(k3, 3)));
        expect(by3.filter((r) => r !== null)).toHaveLength(33);
        expect(await b.get(k3)).toBe('1');
      });
    });

    describe('sets', () => {
      it('adds, tests, counts and removes members', async () => {
        const k = key('set');
        expect(await a.sadd(k, 'x', 'y', 'x')).toBe(2);
        expect(await b.sadd(k, 'y', 'z')).toBe(1);
        expect(await a.scard(k)).toBe(3);
        expect(await a.sismember(k, 'z')).toBe(true);
        expect(await a.sismember(k, 'w')).toBe(false);
        expect(await a.srem(k, 'x', 'w')).toBe(1);
        expect(await a.scard(k)).toBe(2);
        expect(await a.sadd(k)).toBe(0);
      });

      it('counts concurrent adds of overlapping members exactly', async () => {
        const k = key('set-race');
        const added = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).sadd(k, `m${i % 20}`)));
        expect(added.reduce((sum, n) => sum + n, 0)).toBe(20);
        expect(await a.scard(k)).toBe(20);
      });

      it('an emptied set is gone, as is an absent one', async () => {
        const k = key('set-empty');
        await a.sadd(k, 'only');
        expect(await a.srem(k, 'only')).toBe(1);
        expect(await a.ttl(k)).toBe(-2);
        expect(await a.scard(k)).toBe(0);
        expect(await a.srem(k, 'only')).toBe(0);
        expect(await a.sismember(k, 'only')).toBe(false);
      });
    });

    describe('hashes', () => {
      it('sets, gets, increments and deletes fields', async () => {
        const k = key('hash');
        expect(await a.hgetall(k)).toEqual({});
        expect(await a.hget(k, 'f')).toBeNull();
        await a.hset(k, { f: '1', g: 'two' });
        await b.hset(k, { h: '3' });
        expect(await a.hget(k, 'g')).toBe('two');
        expect(await b.hgetall(k)).toEqual({ f: '1', g: 'two', h: '3' });
        expect(await a.hincrby(k, 'f', 41)).toBe(42);
        expect(await a.hincrby(k, 'new', -2)).toBe(-2);
        expect(await a.hdel(k, 'g', 'nope')).toBe(1);
        expect(await a.hgetall(k)).toEqual({ f: '42', h: '3', new: '-2' });
        expect(await a.hdel(k, 'f', 'h', 'new')).toBe(3);
        expect(await a.ttl(k)).toBe(-2);
      });

      it('hincrby is atomic under concurrency', async () => {
        const k = key('hincr');
        await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).hincrby(k, 'n', 2)));
        expect(await a.hget(k, 'n')).toBe('200');
      });
    });

    describe('queues', () => {
      it('pops in FIFO order, up to count', async () => {
        const k = key('queue');
        expect(await a.pop(k, 5)).toEqual([]);
        expect(await a.push(k, 'a', 'b')).toBe(2);
        expect(await b.push(k, 'c', 'd', 'e')).toBe(5);
        expect(await a.qlen(k)).toBe(5);
        expect(await b.pop(k, 2)).toEqual(['a', 'b']);
        expect(await a.pop(k, 1)).toEqual(['c']);
        expect(await a.pop(k, 0)).toEqual([]);
        expect(await a.pop(k, 10)).toEqual(['d', 'e']);
        expect(await a.qlen(k)).toBe(0);
        expect(await a.ttl(k)).toBe(-2);
      });

      it('hands each value to one of many concurrent consumers, in order', async () => {
        const k = key('queue-race');
        const values = Array.from({ length: 300 }, (_, i) => `v${String(i).padStart(3, '0')}`);
        await a.push(k, ...values);
        const batches = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).pop(k, 9)));
        const got = batches.flat();
        expect(got).toHaveLength(300);
        expect([...got].sort()).toEqual(values);
        for (const batch of batches) expect(batch).toEqual([...batch].sort());
      });
    });

    describe('schedules', () => {
      it('pops due members lowest score first, up to the limit', async () => {
        const k = key('zset');
        await a.zadd(k, 300, 'c');
        await a.zadd(k, 100, 'a');
        await b.zadd(k, 200, 'b');
        await a.zadd(k, 900, 'later');
        await a.zadd(k, -5, 'negative');
        expect(await a.zcard(k)).toBe(5);
        expect(await a.zpopDue(k, 250, 2)).toEqual([
          { member: 'negative', score: -5 },
          { member: 'a', score: 100 },
        ]);
        expect(await b.zpopDue(k, 250, 10)).toEqual([{ member: 'b', score: 200 }]);
        expect(await a.zpopDue(k, 250, 10)).toEqual([]);
        expect(await a.zpopDue(k, Number.POSITIVE_INFINITY, 0)).toEqual([]);
        expect(await a.zcard(k)).toBe(2);
        expect(await a.zpopDue(k, Number.POSITIVE_INFINITY, 10)).toEqual([
          { member: 'c', score: 300 },
          { member: 'later', score: 900 },
        ]);
        expect(await a.zcard(k)).toBe(0);
        expect(await a.zpopDue(k, 1000, 1)).toEqual([]);
      });

      it('re-adding a member moves it; equal scores pop in member byte order', async () => {
        const k = key('zset-move');
        const due = 1_763_700_000_123.5;
        await a.zadd(k, 50, 'm');
        await a.zadd(k, due, 'm');
        for (const member of ['\u{1F600}', '\uFF5E', 'b', 'a', 'é']) await b.zadd(k, due, member);
        expect(await a.zcard(k)).toBe(6);
        expect(await a.zpopDue(k, 100, 10)).toEqual([]);
        // Ties go by UTF-8 bytes (code points), not UTF-16 units: U+FF5E sorts before U+1F600.
        expect((await a.zpopDue(k, due, 10)).map((p) => [p.member, p.score])).toEqual(
          ['a', 'b', 'm', 'é', '\uFF5E', '\u{1F600}'].map((member) => [member, due]),
        );
      });

      it('never hands a member to two concurrent poppers', async () => {
        const k = key('zset-race');
        const members = Array.from({ length: 200 }, (_, i) => `job-${i}`);
        await Promise.all(members.map((m, i) => a.zadd(k, i, m)));
        const popped = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).zpopDue(k, 1e12, 7)));
        const all = popped.flat().map((p) => p.member);
        expect(all).toHaveLength(200);
        expect(new Set(all).size).toBe(200);
        for (const batch of popped) {
          const scores = batch.map((p) => p.score);
          expect(scores).toEqual([...scores].sort((x, y) => x - y));
        }
        expect(await a.zcard(k)).toBe(0);
      });
    });

    describe('work queues with claims', () => {
      const queueOf = (): WorkQueueKeys => {
        const id = randomUUID();
        return { seen: `wq:${id}:seen`, queue: `wq:${id}:queue`, counters: `wq:${id}`, claims: `wq:${id}:claims`, claimedAt: `wq:${id}:at`, settled: `wq:${id}:settled`, ranks: `wq:${id}:ranks` };
      };

      it('admits a dedupe key once, up to the limit, counting what it queues and keeping its smallest rank', async () => {
        const q = queueOf();
        expect(await a.queueAdmit(q, 'k1', 'one', 2, 3)).toBe('added');
        expect(await b.queueAdmit(q, 'k1', 'one again', 2, 5)).toBe('seen');
        expect(await a.queueAdmit(q, 'k2', 'two', 2, 2)).toBe('added');
        expect(await b.queueAdmit(q, 'k1', 'one closer', 2, 1)).toBe('seen');
        expect(await a.queueAdmit(q, 'k3', 'three', 2, 0)).toBe('full');
        expect(await a.queueAdmit(q, 'k3', 'three', 5, 0)).toBe('seen');
        expect(await b.hget(q.counters, 'total')).toBe('2');
        expect(await b.pop(q.queue, 10)).toEqual(['one', 'two']);
        expect(await a.hgetall(q.ranks)).toEqual({ k1: '1', k2: '2' });
      });

      it('admits a batch of offers in order as one by one would, and stops after the first that finds the queue full', async () => {
        const q = queueOf();
        expect(await a.queueAdmit(q, 'k1', 'one', 3, 4)).toBe('added');
        const offer = (dedupeKey: string, item: string, rank: number) => ({ dedupeKey, item, rank });
        const offers = [offer('k2', 'two', 2), offer('k1', 'one again', 1), offer('k2', 'two again', 1), offer('k3', 'three', 3), offer('k4', 'four', 0), offer('k5', 'five', 0)];
        expect(await b.queueAdmitMany(q, offers, 3)).toEqual(['added', 'seen', 'seen', 'added', 'full']);
        // k4 is seen now (as queueAdmit's `full` leaves it); k5 was not looked at.
        expect(await a.sismember(q.seen, 'k4')).toBe(true);
        expect(await a.sismember(q.seen, 'k5')).toBe(false);
        expect(await b.hget(q.counters, 'total')).toBe('3');
        expect(await a.pop(q.queue, 10)).toEqual(['one', 'two', 'three']);
        expect(await b.hgetall(q.ranks)).toEqual({ k1: '1', k2: '1', k3: '3' });
        expect(await a.queueAdmitMany(q, [], 3)).toEqual([]);
        expect(await a.queueAdmitMany(q, [{ dedupeKey: 'k5', item: 'five', rank: 0 }], 10)).toEqual(['added']);
        await expect(a.queueAdmitMany(q, [{ dedupeKey: 'k6', item: 'six', rank: 0.5 }], 10)).rejects.toThrow(RangeError);
        await expect(a.queueAdmitMany(q, Array.from({ length: 501 }, (_, i) => ({ dedupeKey: `m${i}`, item: 'x', rank: 0 })), 1000)).rejects.toThrow(RangeError);
        expect(await a.sismember(q.seen, 'k6')).toBe(false);
      });

      it('claims in order with numbers, at most maxInflight held, says when another could follow, and settles each once', async () => {
        const q = queueOf();
        for (const item of ['a', 'b', 'c']) await a.queueAdmit(q, item, item, 10, 0);
        expect(await a.queueClaim(q, 2, 1000)).toEqual({ seq: 1, item: 'a', more: true });
        // Full now (c still queued): no more.
        expect(await b.queueClaim(q, 2, 1001)).toEqual({ seq: 2, item: 'b', more: false });
        expect(await a.queueClaim(q, 2, 1002)).toBe('busy');
        expect(await a.hgetall(q.claims)).toEqual({ '1': 'a', '2': 'b' });
        expect(await a.hgetall(q.claimedAt)).toEqual({ '1': '1000', '2': '1001' });

        expect(await a.queueSettle(q, 2, { completed: 1, credits: 5 })).toBe(true);
        expect(await b.queueSettle(q, 2, { completed: 1, credits: 5 })).toBe(false);
        expect(await a.queueSettle(q, 9, { completed: 1 })).toBe(false);
        expect(await a.hgetall(q.claims)).toEqual({ '1': 'a' });
        expect(await a.hgetall(q.claimedAt)).toEqual({ '1': '1000' });
        expect(await a.sismember(q.settled, '2')).toBe(true);
        expect(await a.hgetall(q.counters)).toEqual({ total: '3', seq: '2', inflight: '1', completed: '1', credits: '5' });

        // Room for more, nothing left queued: no more.
        expect(await a.queueClaim(q, 5, 1003)).toEqual({ seq: 3, item: 'c', more: false });
        expect(await a.queueClaim(q, 5, 1004)).toBe('empty');
        expect(await a.queueSettle(q, 1, { failed: 1 })).toBe(true);
        expect(await a.queueSettle(q, 3, {})).toBe(true);
        expect(await a.hgetall(q.counters)).toMatchObject({ seq: '3', inflight: '0', completed: '1', failed: '1' });
      });

      it('claims nothing while an end key is set or the counters are gone, and marks a claim as it settles it', async () => {
        const q = queueOf();
        const end = `${q.counters}:end`;
        const marked = `${q.counters}:marked`;
        for (const item of ['a', 'b', 'c']) await a.queueAdmit(q, item, item, 10, 0);
        expect(await a.queueClaim(q, 5, 1000, end)).toEqual({ seq: 1, item: 'a', more: true });
        await b.set(end, 'cancelled');
        expect(await a.queueClaim(q, 5, 1001, end)).toBe('ended');
        expect(await a.hgetall(q.counters)).toEqual({ total: '3', seq: '1', inflight: '1' });
        // Without the end key the queue is a plain queue.
        expect(await b.queueClaim(q, 5, 1002)).toEqual({ seq: 2, item: 'b', more: true });
        await a.del(end);
        expect(await b.queueClaim(q, 5, 1003, end)).toEqual({ seq: 3, item: 'c', more: false });
        // A queue whose counters were dropped (its owner gone) claims nothing with the end key.
        const gone = queueOf();
        await a.push(gone.queue, 'x');
        expect(await a.queueClaim(gone, 5, 1004, `${gone.counters}:end`)).toBe('ended');
        expect(await a.qlen(gone.queue)).toBe(1);

        expect(await a.queueSettle(q, 1, { completed: 1 }, marked)).toBe(true);
        expect(await b.queueSettle(q, 1, { completed: 1 }, marked)).toBe(false);
        expect(await a.queueSettle(q, 2, { failed: 1 })).toBe(true);
        // Marked whether or not the call settles it (a copy stored after another copy failed).
        expect(await b.queueSettle(q, 2, {}, marked)).toBe(false);
        expect(await a.hgetall(q.counters)).toMatchObject({ inflight: '1', completed: '1', failed: '1' });
        expect(await a.sismember(marked, '1')).toBe(true);
        expect(await a.sismember(marked, '2')).toBe(true);
        expect(await a.sismember(marked, '3')).toBe(false);
        expect(await a.sismember(q.settled, '2')).toBe(true);
      });

      it('moves the watermark over consecutive settled claims only, counting the marked ones into listed', async () => {
        const q = queueOf();
        const marked = `${q.counters}:marked`;
        for (const item of ['a', 'b', 'c', 'd', 'e']) await a.queueAdmit(q, item, item, 10, 0);
        for (let i = 0; i < 5; i++) await a.queueClaim(q, 10, 1000 + i);
        expect(await a.queueAdvance(q, marked)).toBe(0);
        await a.sadd(marked, '2', '4');
        await a.queueSettle(q, 2, {});
        await b.queueSettle(q, 4, {});
        expect(await a.queueAdvance(q, marked)).toBe(0);
        expect(await a.hget(q.counters, 'watermark')).toBeNull();
        await a.queueSettle(q, 1, {});
        expect(await b.queueAdvance(q, marked)).toBe(2);
        expect(await a.hgetall(q.counters)).toMatchObject({ watermark: '2', listed: '1' });
        expect(await a.sismember(q.settled, '2')).toBe(false);
        expect(await a.sismember(q.settled, '4')).toBe(true);
        expect(await a.sismember(marked, '4')).toBe(true);
        await a.queueSettle(q, 3, {});
        await a.queueSettle(q, 5, {});
        // Two handlers moving it at once move it once: every claim counted into listed once.
        const marks = await Promise.all([a.queueAdvance(q, marked), b.queueAdvance(q, marked)]);
        expect(Math.max(...marks)).toBe(5);
        expect(await a.hgetall(q.counters)).toMatchObject({ watermark: '5', listed: '2' });
        expect(await a.sismember(q.settled, '5')).toBe(false);
        expect(await a.sismember(marked, '4')).toBe(false);
      });

      it('never hands an item to two concurrent claimers, nor counts a settle twice', async () => {
        const q = queueOf();
        for (let i = 0; i < 40; i++) await a.queueAdmit(q, `k${i}`, `item${i}`, 100, 0);
        const claims = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).queueClaim(q, 100, i)));
        const taken = claims.filter((c): c is Claim => typeof c === 'object');
        expect(taken).toHaveLength(40);
        expect(new Set(taken.map((c) => c.item)).size).toBe(40);
        expect(new Set(taken.map((c) => c.seq)).size).toBe(40);
        const settles = await Promise.all(taken.flatMap((c) => [a.queueSettle(q, c.seq, { completed: 1 }), b.queueSettle(q, c.seq, { completed: 1 })]));
        expect(settles.filter(Boolean)).toHaveLength(40);
        expect(await a.hgetall(q.counters)).toMatchObject({ total: '40', seq: '40', inflight: '0', completed: '40' });
      });
    });

    describe('locks', () => {
      it('is exclusive until released by its holder', async () => {
        const name = key('lock');
        const held = await a.lock(name, 10_000);
        expect(held).not.toBeNull();
        expect(held?.name).toBe(name);
        expect(await b.lock(name, 10_000)).toBeNull();
        expect(await held?.release()).toBe(true);
        expect(await held?.release()).toBe(false);
        const next = await b.lock(name, 10_000);
        expect(next).not.toBeNull();
        await next?.release();
      });

      it('has exactly one holder among concurrent takers', async () => {
        const name = key('lock-race');
        const locks = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).lock(name, 10_000)));
        expect(locks.filter((l) => l !== null)).toHaveLength(1);
      });

      it('expires; the old holder can then neither release nor extend it', async () => {
        const name = key('lock-expiry');
        const first = await a.lock(name, 60);
        expect(first).not.toBeNull();
        let second: Awaited<ReturnType<State['lock']>> = null;
        await eventually(async () => (second = await b.lock(name, 10_000)) !== null);
        expect(await first?.release()).toBe(false);
        expect(await first?.extend(10_000)).toBe(false);
        expect(await a.lock(name, 10_000)).toBeNull();
        expect(await second!.release()).toBe(true);
      });

      it('extend() keeps it past its first expiry', async () => {
        const name = key('lock-extend');
        const held = await a.lock(name, 80);
        expect(await held?.extend(10_000)).toBe(true);
        await sleep(150);
        expect(await b.lock(name, 10_000)).toBeNull();
        expect(await held?.release()).toBe(true);
      });
    });

    describe('token buckets', () => {
      it('allows up to capacity, then denies with a retry time', async () => {
        const bucket = key('bucket');
        const rule = { capacity: 3, refillPerSecond: 1 };
        const taken = [await a.takeToken(bucket, rule), await b.takeToken(bucket, rule), await a.takeToken(bucket, rule)];
        expect(taken.map((t) => t.allowed)).toEqual([true, true, true]);
        expect(taken.map((t) => t.remaining)).toEqual([2, 1, 0]);
        expect(taken.every((t) => t.retryAfterMs === 0)).toBe(true);
        const denied = await b.takeToken(bucket, rule);
        expect(denied.allowed).toBe(false);
        expect(denied.remaining).toBe(0);
        expect(denied.retryAfterMs).toBeGreaterThan(0);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(1000);
      });

      it('refills over time and honours cost', async () => {
        const bucket = key('bucket-refill');
        const rule = { capacity: 2, refillPerSecond: 20, cost: 2 };
        expect((await a.takeToken(bucket, rule)).allowed).toBe(true);
        const denied = await a.takeToken(bucket, rule);
        expect(denied.allowed).toBe(false);
        expect(denied.retryAfterMs).toBeGreaterThan(0);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(100);
        await sleep(denied.retryAfterMs + 30);
        expect((await b.takeToken(bucket, rule)).allowed).toBe(true);
      });

      it('admits exactly capacity among concurrent takers', async () => {
        const bucket = key('bucket-race');
        const rule = { capacity: 10, refillPerSecond: 0.001 };
        const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).takeToken(bucket, rule)));
        expect(results.filter((r) => r.allowed)).toHaveLength(10);
        expect(results.filter((r) => !r.allowed).every((r) => r.retryAfterMs > 0)).toBe(true);
      });

      it('refuses a bucket that could never serve its cost', async () => {
        const error = await rejection(a.takeToken(key('bucket-bad'), { capacity: 1, refillPerSecond: 1, cost: 2 }));
        expect(error).toBeInstanceOf(RangeError);
        expect(await rejection(a.takeToken(key('bucket-bad'), { capacity: 1, refillPerSecond: 0 }))).toBeInstanceOf(RangeError);
      });
    });

    describe('kinds and lifetime', () => {
      it('refuses to use a key as another kind, without blaming the connection', async () => {
        const k = key('kind');
        await a.set(k, 'text');
        for (const misuse of [a.hset(k, { f: 'v' }), a.sadd(k, 'm'), a.push(k, 'v'), a.zadd(k, 1, 'm'), a.hgetall(k)]) {
          const error = await rejection(misuse);
          expect(error).toBeInstanceOf(Error);
          expect(String((error as Error).message)).toMatch(/WRONGTYPE/);
          expect(hasCode(error, 'state_unavailable')).toBe(false);
        }
        expect(await a.get(k)).toBe('text');
      });

      it('rejects every call with state_unavailable once closed', async () => {
        const own = await subject.isolated();
        await own.set(key('closing'), 'v');
        await own.close();
        for (const call of [own.get('k'), own.incr('k'), own.zpopDue('k', 1, 1), own.lock('k', 1000)]) {
          expect(hasCode(await rejection(call), 'state_unavailable')).toBe(true);
        }
      });
    });
  });
}

stateContract('pipeline/runtime/state (memory)', () => {
  const shared = new MemoryState();
  return {
    open: async () => shared,
    isolated: async () => new MemoryState(),
    teardown: () => shared.close(),
  };
});

stateContract('pipeline/runtime/state (file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wds-state-contract-'));
  const shared = FileState.open({ path: join(dir, 'shared.sqlite') });
  let n = 0;
  const isolated: FileState[] = [];
  return {
    open: async () => shared,
    isolated: async () => {
      const own = FileState.open({ path: join(dir, `own-${n++}.sqlite`) });
      isolated.push(own);
      return own;
    },
    teardown: async () => {
      await shared.close();
      await Promise.all(isolated.map((s) => s.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const hasRedis = await engine('redis', () => redisProbe(), REDIS_INSTALL);

describe.skipIf(!hasRedis)('redis', () => {
  stateContract('pipeline/runtime/state (redis)', () => {
    const namespace = testNamespace();
    const log = pino({ level: 'silent' });
    const opened: State[] = [];
    const make = async (): Promise<State> => {
      const state = new RedisState({ url: TEST_REDIS_URL, namespace, log, connectTimeoutMs: 2000 });
      await state.connect();
      opened.push(state);
      return state;
    };
    return {
      open: make,
      isolated: make,
      teardown: async () => {
        await Promise.all(opened.map((s) => s.close()));
        await dropNamespace(namespace);
      },
    };
  });
});
