/**
 * The bus: topics of keyed messages, consumed by named groups. Two implementations of this
 * one interface: `memory` (in-process, embedded mode) and `kafka` (kafkajs).
 *
 * Contract, shared by both and checked by test/pipeline/bus.contract.test.ts:
 * - A topic has a fixed number of partitions; a message goes to the partition of its key
 *   (the same key always lands on the same partition), so messages with one key are
 *   delivered in publish order, one at a time: a message waits while an earlier one of its
 *   key runs. Nothing is promised across keys.
 * - Each consumer group receives every message of its topics; within a group each partition
 *   is read by one member at a time, and partitions are shared among members.
 * - Delivery is at least once: a message counts as consumed only when its handler resolved.
 *   A member that stops or dies without that leaves the message to be delivered again,
 *   to itself or another member. Handlers must therefore be idempotent.
 * - Backpressure: a member runs at most `concurrency` handlers at once and fetches no more
 *   than it can run. The memory bus runs messages of different keys of one partition side by
 *   side (memory-group.ts), so a slow message holds back only its own key; the Kafka bus runs
 *   one message per partition at a time (kafka-member.ts), so there a slow message holds its
 *   partition and a group's messages in flight are at most its topics' partitions.
 * - A handler that rejects is a bug in the handler's error handling: the bus logs it and
 *   redelivers the message. Retries, backoff and dead-lettering are the actor pool's job
 *   (pipeline/runtime/pool.ts), which never lets a handler reject.
 */
export type Headers = Record<string, string>;

/**
 * How far past its committed offset (its lowest message not yet handled) a partition may deliver
 * while that message still runs: bounds what a member keeps about a partition, and what a
 * member that dies leaves to be delivered again.
 */
export const MAX_PARTITION_WINDOW = 10_000;

export interface OutgoingMessage {
  /** Partition key. */
  key: string;
  value: Buffer;
  headers?: Headers;
}

export interface BusMessage {
  readonly topic: string;
  readonly partition: number;
  /** Position within the partition, as a decimal string. */
  readonly offset: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Headers;
}

export interface ConsumeOptions {
  group: string;
  topics: readonly string[];
  /** Most handlers running at once in this member. */
  concurrency: number;
  /** Read topics from their start when the group has no committed position (default: true). */
  fromBeginning?: boolean;
  handler: (message: BusMessage) => Promise<void>;
}

export interface Subscription {
  /** Stops fetching, waits for running handlers, commits what they finished, leaves the group. */
  stop(): Promise<void>;
  /**
   * Leaves the group at once, as a crash would: running handlers are not waited for and
   * nothing they finish is committed, so their messages are delivered again (to another
   * member, or to a later one). For shutdown deadlines and for tests of at-least-once.
   */
  abort(): Promise<void>;
}

/**
 * A subscription that stays in `live` until it stops or aborts: the set a bus's `close()`
 * stops. `ends` is the consumer's own stop and abort (a Kafka group member, a memory group's).
 */
export function liveSubscription(live: Set<Subscription>, ends: { stop(): Promise<void>; abort(): Promise<void> | void }): Subscription {
  const subscription: Subscription = {
    stop: async () => {
      await ends.stop();
      live.delete(subscription);
    },
    abort: async () => {
      await ends.abort();
      live.delete(subscription);
    },
  };
  live.add(subscription);
  return subscription;
}

export interface Bus {
  readonly kind: 'memory' | 'kafka';
  /** Makes sure topics exist with the given partition count (no-op for existing ones). */
  ensureTopics(topics: readonly { name: string; partitions: number }[]): Promise<void>;
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /**
   * Joins `options.group` as a new member. Resolves once the member has its partitions and
   * its starting positions, so a message published after that reaches the group even with
   * `fromBeginning: false`.
   */
  consume(options: ConsumeOptions): Promise<Subscription>;
  /**
   * The backlog of every group this bus's members joined, per topic and partition: the
   * partition's end minus the group's committed position (the metrics' consumer lag).
   */
  lag(): Promise<readonly ConsumerLag[]>;
  close(): Promise<void>;
}

/** One partition's backlog for one consumer group. */
export interface ConsumerLag {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
}
