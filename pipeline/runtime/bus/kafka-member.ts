/**
 * One member of a Kafka consumer group: a kafkajs consumer per `consume()` call.
 *
 * - kafkajs hands over each partition's batches (`eachBatch`); the member starts their
 *   messages as handler slots free, at most `concurrency` at once across its partitions, one
 *   key at a time per partition and other keys side by side (kafka-delivery.ts,
 *   kafka-window.ts), so a slow message holds back its key, not its partition.
 * - Offsets are committed by this file, never by kafkajs (`autoCommit: false`): a partition's
 *   commit is its lowest message not yet handled (kafka-commits.ts). A handler that rejects is
 *   logged and retried in place (deliver.ts), keeping its key's order.
 * - While a handler runs, the member keeps heartbeating, so a slow handler does not cost the
 *   member its partitions; a member that dies stops heartbeating and the group coordinator
 *   hands its partitions to the others after `sessionTimeoutMs`.
 * - `stop()` pauses fetching, waits for running handlers, commits what they finished, then
 *   leaves the group. `abort()` leaves at once and commits nothing more: the messages of
 *   running handlers go to the next owner.
 * - `consume()` resolves after the member joined and its first fetch ran, so its starting
 *   offsets (committed, or earliest/latest for a new group) are fixed by then.
 *
 * The steps: the consumer and its assigner (kafka-assigner.ts), the assignment kept in step
 * with the commits, the restarts after a crash (kafka-restart.ts), each message's delivery
 * (kafka-delivery.ts), the start, and `stop()`/`abort()`.
 */
import type { Consumer, ConsumerRunConfig, Kafka } from 'kafkajs';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ConsumeOptions, Subscription } from './bus.js';
import { leaderWaits } from './kafka-assigner.js';
import { OffsetCommits } from './kafka-commits.js';
import { eachBatchOf, MemberRun } from './kafka-delivery.js';
import { restartOnCrash } from './kafka-restart.js';
import { within } from '../within.js';

export { leaderWaits } from './kafka-assigner.js';

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

export async function joinGroup(kafka: Kafka, options: ConsumeOptions, settings: MemberSettings, parentLog: Logger): Promise<Subscription> {
  const log = parentLog.child({ group: options.group });
  const consumer = createConsumer(kafka, options.group, settings);
  const member = new MemberRun(options.concurrency);
  const commits = new OffsetCommits((offsets) => consumer.commitOffsets(offsets), log);
  trackAssignment(consumer, member, commits, log);
  const ready = firstFetch(consumer);
  const runConfig: ConsumerRunConfig = {
    autoCommit: false,
    partitionsConsumedConcurrently: options.concurrency,
    eachBatchAutoResolve: false,
    eachBatch: eachBatchOf({ member, commits, handler: options.handler, settings, log }),
  };
  restartOnCrash(consumer, runConfig, () => member.current() === 'running', log);
  await startConsuming(consumer, runConfig, ready, options, settings.readyTimeoutMs, member);
  return subscriptionOf(consumer, member, commits, options.topics, log);
}

function createConsumer(kafka: Kafka, group: string, settings: MemberSettings): Consumer {
  return kafka.consumer({
    groupId: group,
    sessionTimeout: settings.sessionTimeoutMs,
    rebalanceTimeout: settings.rebalanceTimeoutMs,
    heartbeatInterval: settings.heartbeatIntervalMs,
    maxWaitTimeInMs: settings.maxWaitTimeMs,
    maxBytesPerPartition: settings.maxMessageBytes,
    maxBytes: settings.maxMessageBytes * 2,
    allowAutoTopicCreation: true,
    ...(settings.leaderSyncDelayMs > 0 ? { partitionAssigners: [leaderWaits(settings.leaderSyncDelayMs)] } : {}),
  });
}

const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/**
 * On each join, offsets waiting to be committed for partitions no longer owned are dropped, and
 * those partitions' windows retired (what their running messages do later commits nothing).
 */
function trackAssignment(consumer: Consumer, member: MemberRun, commits: OffsetCommits, log: Logger): void {
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    const owned = new Set(Object.entries(payload.memberAssignment).flatMap(([t, ps]) => ps.map((p) => partitionKey(t, p))));
    const isOwned = (topic: string, partition: number) => owned.has(partitionKey(topic, partition));
    commits.retain(isOwned);
    member.windows.retain(isOwned);
    log.debug({ assignment: payload.memberAssignment, durationMs: payload.duration }, 'kafka member joined its group');
  });
}

/** Resolves at the consumer's first fetch: it joined and its starting offsets are fixed. */
function firstFetch(consumer: Consumer): Promise<void> {
  return new Promise<void>((resolve) => {
    consumer.on(consumer.events.FETCH, () => resolve());
  });
}

/** Connects, subscribes, runs, and waits for the first fetch; failing that, `bus_unavailable`. */
async function startConsuming(
  consumer: Consumer,
  runConfig: ConsumerRunConfig,
  ready: Promise<void>,
  options: ConsumeOptions,
  readyTimeoutMs: number,
  member: MemberRun,
): Promise<void> {
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...options.topics], fromBeginning: options.fromBeginning ?? true });
    await consumer.run(runConfig);
    await within(ready, { ms: readyTimeoutMs, timeout: (ms) => new Error(`no assignment within ${ms} ms`) });
  } catch (error) {
    member.enter('stopped');
    await consumer.disconnect().catch(() => undefined);
    throw new AppError('bus_unavailable', `kafka consumer for group ${options.group} could not start: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

function subscriptionOf(consumer: Consumer, member: MemberRun, commits: OffsetCommits, topics: readonly string[], log: Logger): Subscription {
  let stopping: Promise<void> | null = null;
  return {
    stop() {
      if (!stopping && member.current() === 'running') stopping = stopMember(consumer, member, commits, topics, log);
      return stopping ?? Promise.resolve();
    },
    async abort() {
      if (member.current() === 'aborted' || member.current() === 'stopped') return;
      member.enter('aborted');
      commits.discard();
      // disconnect() marks kafkajs's runner stopped synchronously, before released handlers return.
      const leaving = consumer.disconnect();
      member.abandoned.abort();
      await leaving.catch((error: unknown) => log.warn({ err: error }, 'kafka consumer did not disconnect cleanly'));
    },
  };
}

/** Pauses fetching, waits for running handlers, commits what they finished, leaves the group. */
async function stopMember(consumer: Consumer, member: MemberRun, commits: OffsetCommits, topics: readonly string[], log: Logger): Promise<void> {
  member.enter('stopping');
  try {
    consumer.pause(topics.map((topic) => ({ topic })));
  } catch {
    // Not running (crashed and restarting): nothing is being fetched anyway.
  }
  await Promise.allSettled([...member.running]);
  await commits.flush();
  await consumer.disconnect().catch((error: unknown) => log.warn({ err: error }, 'kafka consumer did not disconnect cleanly'));
  if (member.current() === 'stopping') member.enter('stopped');
}
