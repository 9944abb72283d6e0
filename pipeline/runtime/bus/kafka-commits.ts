/**
 * Offsets a Kafka member has earned, committed within `intervalMs` and coalesced: at most one
 * OffsetCommit request is in flight, and offsets marked meanwhile go in the next one. Under
 * load that is a few commits a second instead of one per message; the price is that a member
 * that dies redelivers up to `intervalMs` of handled messages (at least once, as always). A partition
 * is marked with its lowest message not yet handled (kafka-window.ts), so a mark never covers an
 * unhandled message; messages handled above it are delivered again if the member dies first.
 *
 * A failed commit is logged and not retried: the messages are delivered again after the next
 * rebalance (at least once). Marks for partitions the member no longer owns are dropped at
 * each join, so a slow commit cannot rewind a partition another member has moved on.
 */
import type { Logger } from '../log.js';

export interface PartitionOffset {
  topic: string;
  partition: number;
  /** The next offset to read: one past the last handled message. */
  offset: string;
}

export class OffsetCommits {
  private pending = new Map<string, PartitionOffset>();
  private inFlight: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly commit: (offsets: PartitionOffset[]) => Promise<void>,
    private readonly log: Logger,
    private readonly intervalMs = 50,
  ) {}

  mark(topic: string, partition: number, next: string): void {
    this.pending.set(`${topic}\u0000${partition}`, { topic, partition, offset: next });
    if (this.intervalMs <= 0) {
      void this.flush();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.intervalMs);
  }

  /** Keeps only marks for partitions `owned` says are still this member's. */
  retain(owned: (topic: string, partition: number) => boolean): void {
    for (const [key, p] of this.pending) if (!owned(p.topic, p.partition)) this.pending.delete(key);
  }

  /** Forgets every mark (a crash-like exit). */
  discard(): void {
    this.cancelTimer();
    this.pending.clear();
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Commits everything marked so far; resolves when that is done (failures are logged). */
  async flush(): Promise<void> {
    this.cancelTimer();
    while (this.inFlight) await this.inFlight;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.inFlight = this.commit(batch)
      .catch((error: unknown) => {
        this.log.warn({ err: error, offsets: batch }, 'kafka offset commit failed; those messages will be delivered again');
      })
      .finally(() => {
        this.inFlight = null;
      });
    await this.inFlight;
  }
}
