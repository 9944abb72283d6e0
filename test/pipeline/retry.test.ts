/**
 * pipeline/runtime/retry.ts: backoff bounds and jitter, RetriesExhausted with the last failure as its
 * cause, non-retriable failures rethrown at once, the abort signal, and injected fast sleeps.
 * No test here waits on a real timer longer than a few milliseconds; the real sleep's delay is
 * shown on fake timers.
 */
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../pipeline/runtime/errors.js';
import { backoffDelay, retry, RetriesExhausted, sleep } from '../../pipeline/runtime/retry.js';

/** A sleep that records the delays asked for and returns at once. */
function fakeSleep() {
  const delays: number[] = [];
  const wait = async (ms: number, signal?: AbortSignal) => {
    if (signal?.aborted) throw signal.reason;
    delays.push(ms);
  };
  return { delays, wait };
}

/** Work that fails `failures` times (with numbered errors), then returns `value`. */
function flaky<T>(failures: number, value: T, make: (n: number) => unknown = (n) => new Error(`failure ${n}`)) {
  const calls: number[] = [];
  const work = async (attempt: number): Promise<T> => {
    calls.push(attempt);
    if (calls.length <= failures) throw make(calls.length);
    return value;
  };
  return { calls, work };
}

describe('pipeline/runtime/retry', () => {
  describe('backoffDelay', () => {
    it('doubles the ceiling each attempt, capped at maxDelayMs (random = 1 hits the ceiling)', () => {
      const options = { baseDelayMs: 100, maxDelayMs: 1000, random: () => 1 };
      expect([1, 2, 3, 4, 5, 6, 30].map((a) => backoffDelay(a, options))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
      expect(backoffDelay(2000, options)).toBe(1000); // 2^1999 is Infinity: still the cap
    });

    it('is 0 when random is 0 (full jitter starts at zero)', () => {
      expect(backoffDelay(5, { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 })).toBe(0);
    });

    it('treats attempt 0 or below like attempt 1', () => {
      expect(backoffDelay(0, { baseDelayMs: 100, maxDelayMs: 1000, random: () => 1 })).toBe(100);
      expect(backoffDelay(-3, { baseDelayMs: 100, maxDelayMs: 1000, random: () => 1 })).toBe(100);
    });

    it('with the real random source stays within [0, ceiling] and actually varies', () => {
      for (let attempt = 1; attempt <= 8; attempt++) {
        const ceiling = Math.min(5000, 50 * 2 ** (attempt - 1));
        const seen = new Set<number>();
        for (let i = 0; i < 300; i++) {
          const d = backoffDelay(attempt, { baseDelayMs: 50, maxDelayMs: 5000 });
          expect(Number.isInteger(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(ceiling);
          seen.add(d);
        }
        expect(seen.size).toBeGreaterThan(10);
      }
    });
  });

  describe('retry', () => {
    it('returns the first success, backing off between failures with the jittered delays', async () => {
      const { delays, wait } = fakeSleep();
      const { calls, work } = flaky(3, 'done');
      const retried: [string, number, number][] = [];
      const result = await retry(work, {
        attempts: 5,
        baseDelayMs: 10,
        maxDelayMs: 25,
        random: () => 0.5,
        sleep: wait,
        onRetry: (error, attempt, delayMs) => retried.push([(error as Error).message, attempt, delayMs]),
      });
      expect(result).toBe('done');
      expect(calls).toEqual([1, 2, 3, 4]);
      expect(delays).toEqual([5, 10, 13]); // round(0.5 × 10), round(0.5 × 20), round(0.5 × min(25, 40))
      expect(retried).toEqual([
        ['failure 1', 1, 5],
        ['failure 2', 2, 10],
        ['failure 3', 3, 13],
      ]);
    });

    it('gives up after exactly `attempts` with RetriesExhausted whose cause is the last failure', async () => {
      const { delays, wait } = fakeSleep();
      const { calls, work } = flaky(Number.POSITIVE_INFINITY, 'never');
      const error = await retry(work, { attempts: 4, baseDelayMs: 1, maxDelayMs: 8, sleep: wait }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetriesExhausted);
      const exhausted = error as RetriesExhausted;
      expect(exhausted.name).toBe('RetriesExhausted');
      expect(exhausted.attempts).toBe(4);
      expect((exhausted.cause as Error).message).toBe('failure 4');
      expect(exhausted.message).toBe('gave up after 4 attempts: failure 4');
      expect(calls).toEqual([1, 2, 3, 4]);
      expect(delays).toHaveLength(3); // no backoff after the last attempt
    });

    it('with attempts = 1 runs once and does not sleep', async () => {
      const { delays, wait } = fakeSleep();
      const { calls, work } = flaky(1, 'x', () => 'a string, not an Error');
      const error = (await retry(work, { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, sleep: wait }).catch((e: unknown) => e)) as RetriesExhausted;
      expect(error).toBeInstanceOf(RetriesExhausted);
      expect(error.message).toBe('gave up after 1 attempt: a string, not an Error');
      expect(error.cause).toBe('a string, not an Error');
      expect(calls).toEqual([1]);
      expect(delays).toEqual([]);
    });

    it('rethrows a non-retriable failure at once, unwrapped', async () => {
      const { delays, wait } = fakeSleep();
      const fatal = new AppError('validation_failed', 'bad input');
      const { calls, work } = flaky(2, 'x', (n) => (n === 1 ? new AppError('rate_limited', 'slow down') : fatal));
      const error = await retry(work, {
        attempts: 10,
        baseDelayMs: 1,
        maxDelayMs: 1,
        sleep: wait,
        retriable: (e) => (e as AppError).retriable,
      }).catch((e: unknown) => e);
      expect(error).toBe(fatal);
      expect(calls).toEqual([1, 2]);
      expect(delays).toHaveLength(1);
    });

    it('stops when the signal is aborted during a backoff: rejects with the reason, no further attempt', async () => {
      const controller = new AbortController();
      const { calls, work } = flaky(Number.POSITIVE_INFINITY, 'never');
      const pending = retry(work, { attempts: 10, baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 1, signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const reason = new Error('shutting down');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      // Rejected by the abort within the test's time limit, not after the 60 s backoff.
      expect(calls).toEqual([1]);
    });

    it('does not retry once the signal is aborted: RetriesExhausted with the failure as cause', async () => {
      const controller = new AbortController();
      const { delays, wait } = fakeSleep();
      const calls: number[] = [];
      const error = await retry(
        async (attempt) => {
          calls.push(attempt);
          controller.abort(new Error('cancelled'));
          throw new Error('failed while being cancelled');
        },
        { attempts: 5, baseDelayMs: 1, maxDelayMs: 1, sleep: wait, signal: controller.signal },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetriesExhausted);
      expect(((error as RetriesExhausted).cause as Error).message).toBe('failed while being cancelled');
      expect(calls).toEqual([1]);
      expect(delays).toEqual([]);
    });

    it('uses the real sleep by default (fast settings keep it short)', async () => {
      const { calls, work } = flaky(2, 42);
      expect(await retry(work, { attempts: 3, baseDelayMs: 2, maxDelayMs: 4 })).toBe(42);
      expect(calls).toEqual([1, 2, 3]);
    });
  });

  describe('sleep', () => {
    it('resolves after the delay, not before', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        let done = false;
        const pending = sleep(15).then(() => (done = true));
        await vi.advanceTimersByTimeAsync(14);
        expect(done).toBe(false);
        await vi.advanceTimersByTimeAsync(1);
        expect(done).toBe(true);
        await pending;
      } finally {
        vi.useRealTimers();
      }
    });

    it('rejects with the reason when aborted before or during the wait', async () => {
      const before = new AbortController();
      before.abort(new Error('already'));
      await expect(sleep(10, before.signal)).rejects.toThrow('already');

      const during = new AbortController();
      const pending = sleep(60_000, during.signal);
      during.abort(new Error('now'));
      await expect(pending).rejects.toThrow('now');
    });
  });
});
