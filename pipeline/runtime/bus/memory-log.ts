/**
 * The memory bus's storage: a topic is a fixed array of partition logs; a partition log is
 * an append-only sequence of messages addressed by offset (0, 1, 2, … for the life of the
 * bus). `trimBelow` forgets a prefix (retention); offsets never move.
 */
import type { Headers } from './bus.js';
import { partitionOf } from './murmur2.js';

export interface StoredMessage {
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Headers;
}

export class PartitionLog {
  private entries: (StoredMessage | undefined)[] = [];
  /** Index in `entries` of the message at offset `start`. */
  private head = 0;
  private startOffset = 0;
  private retained = 0;

  /** Offset of the oldest retained message. */
  get start(): number {
    return this.startOffset;
  }

  /** Offset the next appended message gets. */
  get end(): number {
    return this.startOffset + this.entries.length - this.head;
  }

  /** Bytes of message values retained. */
  get bytes(): number {
    return this.retained;
  }

  append(message: StoredMessage): number {
    this.entries.push(message);
    this.retained += message.value.length;
    return this.end - 1;
  }

  /** The message at `offset`, or undefined when it was trimmed or not written yet. */
  at(offset: number): StoredMessage | undefined {
    if (offset < this.startOffset || offset >= this.end) return undefined;
    return this.entries[this.head + offset - this.startOffset];
  }

  /** Forgets every message below `offset`. */
  trimBelow(offset: number): void {
    const until = Math.min(offset, this.end);
    while (this.startOffset < until) {
      this.retained -= this.entries[this.head]?.value.length ?? 0;
      this.entries[this.head] = undefined;
      this.head++;
      this.startOffset++;
    }
    // Compact now and then, so trimming is amortised O(1) per message.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}

export class MemoryTopic {
  readonly partitions: readonly PartitionLog[];

  constructor(
    readonly name: string,
    partitionCount: number,
  ) {
    this.partitions = Array.from({ length: partitionCount }, () => new PartitionLog());
  }

  /** Appends to the key's partition (murmur2, as Kafka's default partitioner). */
  append(message: StoredMessage): { partition: number; offset: number } {
    const partition = partitionOf(message.key, this.partitions.length);
    return { partition, offset: (this.partitions[partition] as PartitionLog).append(message) };
  }

  log(partition: number): PartitionLog {
    const log = this.partitions[partition];
    if (!log) throw new RangeError(`topic ${this.name} has no partition ${partition}`);
    return log;
  }
}
