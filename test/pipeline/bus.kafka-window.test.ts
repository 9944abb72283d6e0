/**
 * pipeline/runtime/bus/kafka-window.ts, alone: a partition's commit is its lowest message not yet
 * handled (a message given up keeps it there), a key waits for its earlier message, the window
 * stops MAX_PARTITION_WINDOW past its lowest open message, windows of partitions lost at a
 * rebalance are retired, and the member's slots bound what runs. The Kafka behaviour built on it
 * is the contract's (bus.contract.test.ts) and the SIGKILL test's (bus.kafka.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { MAX_PARTITION_WINDOW } from '../../pipeline/runtime/bus/bus.js';
import { PartitionWindow, Slots, Windows } from '../../pipeline/runtime/bus/kafka-window.js';

describe('pipeline/runtime/bus/kafka-window', () => {
  it('commits at the lowest message not yet handled, and one past the last started when none is open', () => {
    const window = new PartitionWindow();
    window.start(10n, 'a');
    window.start(11n, 'b');
    window.start(12n, 'c');
    expect(window.commitOffset()).toBe(10n);
    window.settle(11n, true);
    window.settle(12n, true);
    expect(window.commitOffset()).toBe(10n); // 10 still runs: nothing at or above it is committed
    window.settle(10n, true);
    expect(window.commitOffset()).toBe(13n);
    expect(window.lastStarted).toBe(12n);
  });

  it('keeps the commit below a message given up uncommitted (the member stops)', () => {
    const window = new PartitionWindow();
    window.start(0n, 'a');
    window.start(1n, 'b');
    window.settle(0n, false);
    window.settle(1n, true);
    expect(window.commitOffset()).toBe(0n);
  });

  it('makes a key wait for its earlier message, and lets other keys start', async () => {
    const window = new PartitionWindow();
    window.start(0n, 'a');
    expect(window.blocker('b')).toBeNull();
    const wait = window.blocker('a');
    expect(wait).toBeInstanceOf(Promise);
    let freed = false;
    void wait?.then(() => (freed = true));
    await Promise.resolve();
    expect(freed).toBe(false);
    window.settle(0n, true);
    await wait;
    expect(freed).toBe(true);
    expect(window.blocker('a')).toBeNull();
  });

  it(`stops ${MAX_PARTITION_WINDOW} past its lowest open message until that one settles`, () => {
    const window = new PartitionWindow();
    window.start(0n, 'stuck');
    for (let offset = 1n; offset < BigInt(MAX_PARTITION_WINDOW) - 1n; offset++) {
      window.start(offset, `k${offset}`);
      window.settle(offset, true);
    }
    expect(window.blocker('next')).toBeNull(); // 9,999 started: one more fits
    window.start(BigInt(MAX_PARTITION_WINDOW) - 1n, 'last');
    window.settle(BigInt(MAX_PARTITION_WINDOW) - 1n, true);
    expect(window.blocker('next')).toBeInstanceOf(Promise);
    window.settle(0n, true);
    expect(window.blocker('next')).toBeNull();
    expect(window.commitOffset()).toBe(BigInt(MAX_PARTITION_WINDOW));
  });

  it('retires the windows of partitions the member no longer owns, and starts fresh ones', () => {
    const windows = new Windows();
    const kept = windows.of('t', 0);
    const lost = windows.of('t', 1);
    lost.start(5n, 'a');
    windows.retain((topic, partition) => topic === 't' && partition === 0);
    expect(kept.retired).toBe(false);
    expect(lost.retired).toBe(true);
    expect(windows.of('t', 0)).toBe(kept);
    const again = windows.of('t', 1);
    expect(again).not.toBe(lost);
    expect(again.lastStarted).toBe(-1n);
  });

  it('gives at most its size of slots, and wakes a waiter when one comes back', async () => {
    const slots = new Slots(2);
    expect([slots.tryTake(), slots.tryTake(), slots.tryTake()]).toEqual([true, true, false]);
    const changed = slots.changed();
    slots.give();
    await changed;
    expect(slots.tryTake()).toBe(true);
    expect(slots.tryTake()).toBe(false);
  });
});
