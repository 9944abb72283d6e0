/**
 * pipeline/runtime/within.ts: the one bound on a wait. The value when work answers in time; the
 * timeout's error (default or the caller's) when it does not; the signal's reason or the caller's
 * error when the signal aborts, before or during the wait; work given as a function is handed a
 * signal that aborts when the wait gives up; a value that arrives late goes to `late`, and only then.
 * Fake timers: no test waits on a real one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { within } from '../../pipeline/runtime/within.js';

/** A promise and the hands that settle it. */
function pending<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('within', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers with the value when work answers in time, and leaves no timer behind', async () => {
    const work = pending<string>();
    const waiting = within(work.promise, { ms: 1000 });
    work.resolve('done');
    await expect(waiting).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes work's own failure through unchanged", async () => {
    const work = pending<string>();
    const waiting = within(work.promise, { ms: 1000 });
    work.reject(new Error('refused'));
    await expect(waiting).rejects.toThrow('refused');
  });

  it('rejects after ms with the default error, or the one the caller builds from ms', async () => {
    const first = within(new Promise<never>(() => undefined), { ms: 250 });
    const second = within(new Promise<never>(() => undefined), { ms: 500, timeout: (ms) => new RangeError(`no assignment within ${ms} ms`) });
    const settled = Promise.allSettled([first, second]);
    await vi.advanceTimersByTimeAsync(249);
    let done = false;
    void settled.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(251);
    const [a, b] = await settled;
    expect(a).toMatchObject({ status: 'rejected', reason: { message: 'no answer within 250 ms' } });
    expect(b.status === 'rejected' && b.reason).toBeInstanceOf(RangeError);
    expect(b).toMatchObject({ reason: { message: 'no assignment within 500 ms' } });
  });

  it('has no time bound when ms is null or absent', async () => {
    const work = pending<number>();
    const waiting = within(work.promise, { ms: null });
    await vi.advanceTimersByTimeAsync(3_600_000);
    work.resolve(7);
    await expect(waiting).resolves.toBe(7);
  });

  it("rejects with the signal's reason when it aborts mid-wait, or with the caller's error", async () => {
    const controller = new AbortController();
    const plain = within(new Promise<never>(() => undefined), { ms: 10_000, signal: controller.signal });
    const mapped = within(new Promise<never>(() => undefined), { signal: controller.signal, aborted: (reason) => new Error(`cancelled: ${String((reason as Error).message)}`) });
    controller.abort(new Error('run cancelled'));
    await expect(plain).rejects.toThrow('run cancelled');
    await expect(mapped).rejects.toThrow('cancelled: run cancelled');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not start work given as a function when the signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    const work = vi.fn(async () => 'started');
    await expect(within(work, { ms: 100, signal: controller.signal })).rejects.toThrow('gone');
    expect(work).not.toHaveBeenCalled();
  });

  it("aborts the signal handed to work when the wait gives up, so that work can stop", async () => {
    let seen: AbortSignal | undefined;
    const waiting = within(
      (signal) => {
        seen = signal;
        return new Promise<never>(() => undefined);
      },
      { ms: 100 },
    );
    const outcome = expect(waiting).rejects.toThrow('no answer within 100 ms');
    expect(seen?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    await outcome;
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe('no answer within 100 ms');
  });

  it('hands a value that arrives after the wait gave up to late, and a value in time never', async () => {
    const late = vi.fn();
    const slow = pending<string>();
    const waiting = within(slow.promise, { ms: 50, late });
    const outcome = expect(waiting).rejects.toThrow('no answer within 50 ms');
    await vi.advanceTimersByTimeAsync(50);
    await outcome;
    slow.resolve('context');
    await Promise.resolve();
    await Promise.resolve();
    expect(late).toHaveBeenCalledWith('context');

    const inTime = vi.fn();
    await expect(within(Promise.resolve('used'), { ms: 50, late: inTime })).resolves.toBe('used');
    const failed = pending<string>();
    const failing = within(failed.promise, { ms: 50, late: inTime });
    failed.reject(new Error('no'));
    await expect(failing).rejects.toThrow('no');
    expect(inTime).not.toHaveBeenCalled();
  });

  it('hands the value to late when the signal had aborted before the wait began', async () => {
    const controller = new AbortController();
    controller.abort(new Error('left'));
    const late = vi.fn();
    const work = pending<string>();
    await expect(within(work.promise, { signal: controller.signal, late })).rejects.toThrow('left');
    work.resolve('orphan');
    await Promise.resolve();
    await Promise.resolve();
    expect(late).toHaveBeenCalledWith('orphan');
  });
});
