/**
 * What only MemoryState has: an injectable clock (so expiry and refill are exact), the
 * sweep of expired keys nobody reads, and a timer that never holds the process open.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { createState } from '../../pipeline/runtime/state/index.js';

function clocked(start = 1_000_000): { state: MemoryState; advance(ms: number): void } {
  let now = start;
  const state = new MemoryState({ now: () => now, sweepIntervalMs: 0 });
  return { state, advance: (ms) => void (now += ms) };
}

describe('pipeline/runtime/state/memory', () => {
  it('expires a key exactly when its TTL has passed on the injected clock', async () => {
    const { state, advance } = clocked();
    await state.set('k', 'v', 100);
    advance(99);
    expect(await state.get('k')).toBe('v');
    expect(await state.ttl('k')).toBe(1);
    advance(1);
    expect(await state.get('k')).toBeNull();
    expect(await state.ttl('k')).toBe(-2);
    await state.close();
  });

  it('keeps a collection TTL set by expire() until it runs out', async () => {
    const { state, advance } = clocked();
    await state.sadd('s', 'a', 'b');
    expect(await state.expire('s', 50)).toBe(true);
    await state.sadd('s', 'c');
    advance(49);
    expect(await state.scard('s')).toBe(3);
    advance(1);
    expect(await state.scard('s')).toBe(0);
    await state.close();
  });

  it('sweeps expired keys that nobody reads', async () => {
    const { state, advance } = clocked();
    await state.set('a', '1', 10);
    await state.set('b', '2', 30);
    await state.set('c', '3');
    advance(20);
    expect(state.storedKeys).toBe(3);
    expect(state.sweep()).toBe(1);
    expect(state.storedKeys).toBe(2);
    advance(20);
    expect(state.sweep()).toBe(1);
    expect(await state.get('c')).toBe('3');
    await state.close();
  });

  it('runs the sweep on its own timer', async () => {
    const state = new MemoryState({ sweepIntervalMs: 20 });
    await state.set('gone', 'v', 10);
    const deadline = Date.now() + 3000;
    while (state.storedKeys > 0 && Date.now() < deadline) await sleep(10);
    expect(state.storedKeys).toBe(0);
    await state.close();
  });

  it('computes the token bucket from elapsed time', async () => {
    const { state, advance } = clocked();
    const rule = { capacity: 2, refillPerSecond: 4 };
    expect(await state.takeToken('b', rule)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    expect(await state.takeToken('b', rule)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    expect(await state.takeToken('b', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 250 });
    advance(100);
    expect(await state.takeToken('b', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 150 });
    advance(150);
    expect(await state.takeToken('b', rule)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    advance(10_000);
    expect(await state.takeToken('b', { ...rule, cost: 2 })).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    await state.close();
  });

  it('forgets a bucket once it would be full again', async () => {
    const { state, advance } = clocked();
    await state.takeToken('b', { capacity: 4, refillPerSecond: 2 });
    expect(await state.ttl('bucket:b')).toBe(500 + 1000);
    advance(1500);
    expect(await state.hgetall('bucket:b')).toEqual({});
    await state.close();
  });

  it('is what createState gives for kind memory', async () => {
    const state = await createState({ kind: 'memory' });
    expect(state).toBeInstanceOf(MemoryState);
    await state.close();
  });
});
