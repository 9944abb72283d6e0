/**
 * The in-process bus of embedded mode. It keeps the contract of bus.ts in one process:
 * keyed partitions (murmur2, as Kafka's default partitioner), per-group committed offsets,
 * partitions shared among a group's live members, one message in flight per partition,
 * at most `concurrency` handlers per member, commit only after the handler resolved.
 *
 * Topics are created on first use (publish, consume) with `defaultPartitions` unless
 * `ensureTopics` made them first; a topic's partition count never changes afterwards. A
 * group's starting position in a topic is set by the first of its members that reads it
 * (`fromBeginning`: the oldest retained message, else the end of the log).
 *
 * `publish` appends and returns; it never waits for consumers. Memory bound: with
 * `retention: 'committed'` (default) a partition keeps the messages at or above the lowest
 * committed offset of the groups that read its topic, so memory grows only with the backlog
 * of the slowest group; a topic no group has read yet keeps everything (a group that joins
 * later with `fromBeginning` sees it), and a group whose members all left still holds its
 * offsets (as Kafka does), so a group that never comes back pins its backlog for the life of
 * the bus. `retention: 'all'` keeps every message (tests, replay). Values are copied once at
 * publish; every group's handler sees the same Buffer and must not modify it.
 */
import { AppError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { liveSubscription, type Bus, type ConsumeOptions, type ConsumerLag, type OutgoingMessage, type Subscription } from './bus.js';
import { MemoryGroup } from './memory-group.js';
import { MemoryTopic } from './memory-log.js';

export interface MemoryBusOptions {
  /** Partitions of a topic created on first use (default 8). */
  defaultPartitions?: number;
  /** What is kept after every group committed it (default 'committed': dropped). */
  retention?: 'committed' | 'all';
  /** Handler rejections are logged here (default: a warn-level logger on stdout). */
  log?: Logger;
  /** First backoff before a rejected message is handed over again, in ms (default 200). */
  redeliveryDelayMs?: number;
  /** Longest such backoff, in ms (default 10000). */
  maxRedeliveryDelayMs?: number;
}

export interface TopicStats {
  partitions: number;
  /** Messages ever published. */
  published: number;
  /** Messages still held in memory. */
  retainedMessages: number;
  retainedBytes: number;
}

export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private readonly topics = new Map<string, MemoryTopic>();
  private readonly groups = new Map<string, MemoryGroup>();
  private readonly live = new Set<Subscription>();
  private closed = false;
  private readonly defaultPartitions: number;
  private readonly retention: 'committed' | 'all';
  private readonly log: Logger;
  private readonly redeliveryDelayMs: number;
  private readonly maxRedeliveryDelayMs: number;

  constructor(options: MemoryBusOptions = {}) {
    this.defaultPartitions = options.defaultPartitions ?? 8;
    if (!Number.isInteger(this.defaultPartitions) || this.defaultPartitions < 1) {
      throw new RangeError('defaultPartitions must be a positive integer');
    }
    this.retention = options.retention ?? 'committed';
    this.log = (options.log ?? createLogger('warn')).child({ component: 'bus', bus: 'memory' });
    this.redeliveryDelayMs = options.redeliveryDelayMs ?? 200;
    this.maxRedeliveryDelayMs = options.maxRedeliveryDelayMs ?? 10_000;
  }

  async ensureTopics(topics: readonly { name: string; partitions: number }[]): Promise<void> {
    this.assertOpen();
    for (const { name, partitions } of topics) {
      if (!this.topics.has(name)) this.topics.set(name, new MemoryTopic(name, partitions));
    }
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.assertOpen();
    const target = this.topic(topic);
    for (const m of messages) {
      target.append({ key: m.key, value: Buffer.from(m.value), headers: { ...m.headers } });
    }
    for (const group of this.groups.values()) if (group.positions.has(topic)) group.schedule();
  }

  async consume(options: ConsumeOptions): Promise<Subscription> {
    this.assertOpen();
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError('concurrency must be a positive integer');
    }
    let group = this.groups.get(options.group);
    if (!group) {
      group = new MemoryGroup(options.group, {
        topic: (name) => this.topic(name),
        log: this.log,
        redeliveryDelayMs: this.redeliveryDelayMs,
        maxRedeliveryDelayMs: this.maxRedeliveryDelayMs,
        committed: (name, partition) => this.trim(name, partition),
      });
      this.groups.set(options.group, group);
    }
    const member = group.join(options);
    const owner = group;
    return liveSubscription(this.live, { stop: () => owner.stop(member), abort: () => owner.abort(member) });
  }

  /** Stops every subscription (waiting for running handlers); later calls are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.live].map((s) => s.stop()));
  }

  /** Every group's backlog: what its partitions hold past its committed positions (the queue depth). */
  async lag(): Promise<readonly ConsumerLag[]> {
    const out: ConsumerLag[] = [];
    for (const [group, { positions }] of this.groups) {
      for (const [name, offsets] of positions) {
        const topic = this.topic(name);
        offsets.forEach((offset, partition) => out.push({ group, topic: name, partition, lag: Math.max(0, topic.log(partition).end - offset) }));
      }
    }
    return out;
  }

  /** What each topic holds, for tests and metrics. */
  stats(): Record<string, TopicStats> {
    const out: Record<string, TopicStats> = {};
    for (const [name, topic] of this.topics) {
      out[name] = {
        partitions: topic.partitions.length,
        published: topic.partitions.reduce((n, log) => n + log.end, 0),
        retainedMessages: topic.partitions.reduce((n, log) => n + log.end - log.start, 0),
        retainedBytes: topic.partitions.reduce((n, log) => n + log.bytes, 0),
      };
    }
    return out;
  }

  private topic(name: string): MemoryTopic {
    let topic = this.topics.get(name);
    if (!topic) {
      topic = new MemoryTopic(name, this.defaultPartitions);
      this.topics.set(name, topic);
    }
    return topic;
  }

  /** Drops what every group that reads `name` has committed on that partition. */
  private trim(name: string, partition: number): void {
    if (this.retention !== 'committed') return;
    let lowest = Number.POSITIVE_INFINITY;
    for (const group of this.groups.values()) {
      const offset = group.positions.get(name)?.[partition];
      if (offset !== undefined) lowest = Math.min(lowest, offset);
    }
    if (Number.isFinite(lowest)) this.topic(name).log(partition).trimBelow(lowest);
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError('bus_unavailable', 'the memory bus is closed');
  }
}
