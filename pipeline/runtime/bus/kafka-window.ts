/**
 * What a Kafka group member runs at once (kafka-delivery.ts): its handler slots, shared by all
 * its partitions, and each partition's window of messages started and not yet handled.
 *
 * - A partition's messages are started in offset order; a message waits while an earlier one of
 *   its key runs, and the partition's later messages wait with it. Messages of other keys run
 *   side by side, so a slow message holds back only its own key.
 * - The offset to commit is the partition's lowest message started and not handled (or one past
 *   the last started): a commit never covers a message that has not been handled, and a member
 *   that dies redelivers from there (at least once).
 * - A partition starts at most MAX_PARTITION_WINDOW messages past its lowest unhandled one.
 * - A window is retired when its partition leaves the member at a rebalance: what its running
 *   messages later do commits nothing.
 */
import { MAX_PARTITION_WINDOW } from './bus.js';

/** A member's handler slots: at most `size` messages run at once, across its partitions. */
export class Slots {
  private used = 0;
  private waiters: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** True when a slot was free and is now taken. */
  tryTake(): boolean {
    if (this.used >= this.size) return false;
    this.used++;
    return true;
  }

  give(): void {
    this.used--;
    this.wake();
  }

  /** Resolves at the next change worth looking at again (a slot given back). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes every waiter, e.g. so that it sees the member stopping. */
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** One partition's messages started and not yet handled, by offset, with their keys. */
export class PartitionWindow {
  /** The highest offset started here; -1 before the first. */
  lastStarted = -1n;
  private readonly running = new Map<bigint, string>();
  /** Started, then given up (the member stops): the commit stays below them. */
  private readonly released = new Set<bigint>();
  private readonly keys = new Map<string, Promise<void>>();
  private readonly finished = new Map<bigint, () => void>();
  retired = false;

  /** What the partition's next message (key `key`) must wait for before it starts, or null when it may start now. */
  blocker(key: string): Promise<void> | null {
    const sameKey = this.keys.get(key);
    if (sameKey) return sameKey;
    const lowest = this.lowestOpen();
    if (lowest === null || this.lastStarted + 1n - lowest < BigInt(MAX_PARTITION_WINDOW)) return null;
    const lowestKey = this.running.get(lowest);
    return lowestKey === undefined ? null : (this.keys.get(lowestKey) ?? null);
  }

  start(offset: bigint, key: string): void {
    this.running.set(offset, key);
    this.lastStarted = offset;
    this.keys.set(key, new Promise<void>((resolve) => this.finished.set(offset, resolve)));
  }

  /** The message at `offset` settled: handled, or released uncommitted. */
  settle(offset: bigint, handled: boolean): void {
    const key = this.running.get(offset);
    this.running.delete(offset);
    if (!handled) this.released.add(offset);
    if (key !== undefined) this.keys.delete(key);
    this.finished.get(offset)?.();
    this.finished.delete(offset);
  }

  /** The next offset to read once everything below it was handled. */
  commitOffset(): bigint {
    return this.lowestOpen() ?? this.lastStarted + 1n;
  }

  private lowestOpen(): bigint | null {
    let lowest: bigint | null = null;
    for (const offset of this.running.keys()) if (lowest === null || offset < lowest) lowest = offset;
    for (const offset of this.released) if (lowest === null || offset < lowest) lowest = offset;
    return lowest;
  }
}

const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/** A member's windows, one per partition it reads. */
export class Windows {
  private readonly byPartition = new Map<string, PartitionWindow>();

  of(topic: string, partition: number): PartitionWindow {
    const key = partitionKey(topic, partition);
    let window = this.byPartition.get(key);
    if (!window) {
      window = new PartitionWindow();
      this.byPartition.set(key, window);
    }
    return window;
  }

  /** Retires the windows of partitions `owned` says are no longer the member's. */
  retain(owned: (topic: string, partition: number) => boolean): void {
    for (const [key, window] of this.byPartition) {
      const [topic, partition] = key.split('\u0000') as [string, string];
      if (owned(topic, Number(partition))) continue;
      window.retired = true;
      this.byPartition.delete(key);
    }
  }
}
