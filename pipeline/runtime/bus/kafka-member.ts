/**
 * One member of a Kafka consumer group: a kafkajs consumer per `consume()` call.
 *
 * - `partitionsConsumedConcurrently = concurrency`: kafkajs runs one batch per partition per
 *   worker, so at most `concurrency` handlers run, one per partition, in offset order.
 * - Offsets are committed by this file, never by kafkajs (`autoCommit: false`): a message is
 *   marked only when its handler resolved (kafka-commits.ts). A handler that rejects is logged
 *   and retried in place (deliver.ts), keeping the partition's order.
 * - While a handler runs, the member keeps heartbeating, so a slow handler does not cost the
 *   member its partitions; a member that dies stops heartbeating and the group coordinator
 *   hands its partitions to the others after `sessionTimeoutMs`.
 * - `stop()` pauses fetching, waits for running handlers, commits what they finished, then
 *   leaves the group. `abort()` leaves at once and commits nothing more: the messages of
 *   running handlers go to the next owner.
 * - `consume()` resolves after the member joined and its first fetch ran, so its starting
 *   offsets (committed, or earliest/latest for a new group) are fixed by then.
 */
import { setMaxListeners } from 'node:events';
import kafkajs, { type Consumer, type EachMessagePayload, type IHeaders, type Kafka, type PartitionAssigner } from 'kafkajs';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { backoffDelay } from '../retry.js';
import type { BusMessage, ConsumeOptions, Headers, Subscription } from './bus.js';
import { deliver, type DeliveryOutcome } from './deliver.js';
import { OffsetCommits } from './kafka-commits.js';

const { KafkaJSError, PartitionAssigners } = kafkajs;

export interface MemberSettings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  rebalanceTimeoutMs: number;
  /** Longest a fetch waits on the broker for new messages. */
  maxWaitTimeMs: number;
  /** Largest message the member can read; sizes the fetch buffers. */
  maxMessageBytes: number;
  redeliveryDelayMs: number;
  maxRedeliveryDelayMs: number;
  /** How long `consume()` waits for the first join before failing with `bus_unavailable`. */
  readyTimeoutMs: number;
  /** How long a group's leader waits before it sends the assignment (see `leaderWaits`). */
  leaderSyncDelayMs: number;
}

/**
 * kafkajs's round-robin assigner, whose leader waits `delayMs` before answering. A group's
 * members all get their JoinGroup answer at once; the leader then refreshes metadata, assigns
 * and sends SyncGroup while each follower sends its SyncGroup at once. Apache Kafka takes the
 * two in either order. librdkafka's mock cluster (the tests' broker) answers a follower's
 * SyncGroup that arrives after the leader's with INVALID_REQUEST, which kafkajs treats as
 * fatal: the member restarts and the group rebalances again (a session timeout each time).
 * A leader that waits lets the followers go first. Same name and version as the round-robin
 * assigner, so members with and without the wait share a group.
 */
export function leaderWaits(delayMs: number, inner: PartitionAssigner = PartitionAssigners.roundRobin): PartitionAssigner {
  return (config) => {
    const assigner = inner(config);
    return {
      name: assigner.name,
      version: assigner.version,
      protocol: (subscription) => assigner.protocol(subscription),
      async assign(group) {
        await new Promise<void>((resolve) => setTimeout(resolve, delayMs));
        return assigner.assign(group);
      },
    };
  };
}

function headersOf(headers: IHeaders | undefined): Headers {
  const out: Headers = {};
  for (const [name, raw] of Object.entries(headers ?? {})) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (value !== undefined) out[name] = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  }
  return out;
}

const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function joinGroup(kafka: Kafka, options: ConsumeOptions, settings: MemberSettings, parentLog: Logger): Promise<Subscription> {
  const log = parentLog.child({ group: options.group });
  const consumer: Consumer = kafka.consumer({
    groupId: options.group,
    sessionTimeout: settings.sessionTimeoutMs,
    rebalanceTimeout: settings.rebalanceTimeoutMs,
    heartbeatInterval: settings.heartbeatIntervalMs,
    maxWaitTimeInMs: settings.maxWaitTimeMs,
    maxBytesPerPartition: settings.maxMessageBytes,
    maxBytes: settings.maxMessageBytes * 2,
    allowAutoTopicCreation: true,
    ...(settings.leaderSyncDelayMs > 0 ? { partitionAssigners: [leaderWaits(settings.leaderSyncDelayMs)] } : {}),
  });
  let state: 'running' | 'stopping' | 'aborted' | 'stopped' = 'running';
  // Read through a function: the handlers below see changes made while they awaited.
  const current = () => state;
  const abandoned = new AbortController();
  // Every delivery in flight listens on it until it settles: more than 10 is normal.
  setMaxListeners(0, abandoned.signal);
  const running = new Set<Promise<DeliveryOutcome>>();
  const commits = new OffsetCommits((offsets) => consumer.commitOffsets(offsets), log);
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    const owned = new Set(Object.entries(payload.memberAssignment).flatMap(([t, ps]) => ps.map((p) => partitionKey(t, p))));
    commits.retain((topic, partition) => owned.has(partitionKey(topic, partition)));
    log.debug({ assignment: payload.memberAssignment, durationMs: payload.duration }, 'kafka member joined its group');
  });
  let restarts = 0;
  consumer.on(consumer.events.FETCH, () => {
    restarts = 0;
    markReady();
  });
  // kafkajs restarts a consumer after a retriable crash and leaves it dead after any other
  // one (librdkafka's mock cluster answers a follower's late SyncGroup with INVALID_REQUEST,
  // for one). A member must not die silently: this restarts it, with backoff, logging each.
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) {
      log.warn({ err: payload.error }, 'kafka consumer crashed; kafkajs restarts it');
      return;
    }
    const delayMs = backoffDelay(++restarts, { baseDelayMs: 500, maxDelayMs: 30_000 });
    log.error({ err: payload.error, attempt: restarts }, `kafka consumer crashed; restarting it in ${delayMs} ms`);
    setTimeout(() => void restart(), delayMs);
  });
  const restart = async (): Promise<void> => {
    if (current() !== 'running') return;
    try {
      await consumer.connect();
      await consumer.run(runConfig);
    } catch (error) {
      const delayMs = backoffDelay(++restarts, { baseDelayMs: 500, maxDelayMs: 30_000 });
      log.error({ err: error, attempt: restarts }, `kafka consumer did not restart; trying again in ${delayMs} ms`);
      setTimeout(() => void restart(), delayMs);
    }
  };

  const eachMessage = async ({ topic, partition, message, heartbeat }: EachMessagePayload): Promise<void> => {
    // After stop/abort began, a message already fetched is left uncommitted for the next owner.
    if (state !== 'running') return;
    const busMessage: BusMessage = {
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? '',
      value: message.value ?? Buffer.alloc(0),
      headers: headersOf(message.headers),
    };
    const keepAlive = setInterval(() => void heartbeat().catch(() => undefined), settings.heartbeatIntervalMs);
    const delivery = deliver(busMessage, options.handler, {
      log,
      redeliveryDelayMs: settings.redeliveryDelayMs,
      maxRedeliveryDelayMs: settings.maxRedeliveryDelayMs,
      mayRetry: () => current() === 'running',
      abandoned: abandoned.signal,
    });
    running.add(delivery);
    let outcome: DeliveryOutcome;
    try {
      outcome = await delivery;
    } finally {
      clearInterval(keepAlive);
      running.delete(delivery);
    }
    if (outcome === 'handled') {
      if (current() !== 'aborted') commits.mark(topic, partition, (BigInt(message.offset) + 1n).toString());
      return;
    }
    // Returning would let kafkajs move past the message; throwing makes it fetch it again.
    if (current() === 'running') throw new KafkaJSError('message released while the member runs; fetching it again', { retriable: true });
  };

  const runConfig = { autoCommit: false, partitionsConsumedConcurrently: options.concurrency, eachMessage };
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...options.topics], fromBeginning: options.fromBeginning ?? true });
    await consumer.run(runConfig);
    await within(ready, settings.readyTimeoutMs, () => new Error(`no assignment within ${settings.readyTimeoutMs} ms`));
  } catch (error) {
    state = 'stopped';
    await consumer.disconnect().catch(() => undefined);
    throw new AppError('bus_unavailable', `kafka consumer for group ${options.group} could not start: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }

  let stopping: Promise<void> | null = null;
  const stop = async (): Promise<void> => {
    state = 'stopping';
    try {
      consumer.pause(options.topics.map((topic) => ({ topic })));
    } catch {
      // Not running (crashed and restarting): nothing is being fetched anyway.
    }
    await Promise.allSettled([...running]);
    await commits.flush();
    await consumer.disconnect().catch((error: unknown) => log.warn({ err: error }, 'kafka consumer did not disconnect cleanly'));
    if (current() === 'stopping') state = 'stopped';
  };

  return {
    stop() {
      if (!stopping && state === 'running') stopping = stop();
      return stopping ?? Promise.resolve();
    },
    async abort() {
      if (state === 'aborted' || state === 'stopped') return;
      state = 'aborted';
      commits.discard();
      // disconnect() marks kafkajs's runner stopped synchronously, before released handlers return.
      const leaving = consumer.disconnect();
      abandoned.abort();
      await leaving.catch((error: unknown) => log.warn({ err: error }, 'kafka consumer did not disconnect cleanly'));
    },
  };
}
