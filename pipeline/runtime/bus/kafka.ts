/**
 * The bus of distributed mode, on Kafka through kafkajs (the only files that import kafkajs
 * are in this folder).
 *
 * - `KafkaBus.connect()` first waits for a broker (kafka-connect.ts: backoff, one warn line
 *   per attempt, `bus_unavailable` after `connectTimeoutMs`), then connects a producer and an
 *   admin client.
 * - Producer: `acks: -1` (every in-sync replica), not idempotent (librdkafka's mock cluster
 *   refuses InitProducerId, so tests could not run it), and therefore one request in flight
 *   per broker, so a retried request cannot overtake a later one and per-key order holds.
 *   Batches of at least `compressAboveBytes` are gzip-compressed. Partitioning is kafkajs's
 *   DefaultPartitioner (Java-compatible murmur2, like the memory bus's murmur2.ts).
 * - Large messages: the consumer fetches up to `maxMessageBytes` per partition. A real
 *   broker also needs `message.max.bytes` (and the topic's `max.message.bytes`) raised to
 *   carry messages over ~1 MB; the runtime sends large payloads by reference instead.
 * - Consumers: one kafkajs consumer per `consume()` (kafka-member.ts).
 * - Failures to publish reject with AppError `bus_unavailable` (cause: the kafkajs error),
 *   after kafkajs's own retries.
 * - kafkajs 2.2.4's request queues each wake the process every millisecond while open; the
 *   fix (kafka-idle.ts) is applied when this module loads.
 */
import kafkajs, { type Admin, type Kafka, type Producer } from 'kafkajs';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { liveSubscription, type Bus, type ConsumeOptions, type ConsumerLag, type OutgoingMessage, type Subscription } from './bus.js';
import { kafkaLag } from './kafka-lag.js';
import { reachBroker } from './kafka-connect.js';
import { kafkaLogCreator, kafkaLogLevel } from './kafka-log.js';
import { joinGroup, type MemberSettings } from './kafka-member.js';
import { ensureKafkaTopics } from './kafka-topics.js';
import { kafkaIdlePatch } from './kafka-idle.js';

const { Kafka: KafkaClient, CompressionTypes, Partitioners } = kafkajs;
const idlePatch = kafkaIdlePatch();

export interface KafkaBusOptions {
  brokers: readonly string[];
  clientId: string;
  log: Logger;
  /** How long start-up keeps trying to reach a broker before `bus_unavailable` (default 30000). */
  connectTimeoutMs?: number;
  /** First backoff between those attempts, in ms; doubles up to `maxConnectRetryDelayMs` (defaults 250, 5000). */
  connectRetryDelayMs?: number;
  maxConnectRetryDelayMs?: number;
  /** One TCP connection attempt (default 3000). */
  connectionTimeoutMs?: number;
  /** One Kafka request (default 30000). */
  requestTimeoutMs?: number;
  /** A member that has not heartbeated for this long loses its partitions (default 30000). */
  sessionTimeoutMs?: number;
  /** default 3000; keep it well under `sessionTimeoutMs`. */
  heartbeatIntervalMs?: number;
  /** How long a rebalance waits for members to rejoin (default 60000). */
  rebalanceTimeoutMs?: number;
  /** Longest a fetch waits for new messages (default 1000). */
  maxWaitTimeMs?: number;
  /** Largest message a consumer can read (default 16 MiB). */
  maxMessageBytes?: number;
  /** Publish batches of at least this many value bytes are gzip-compressed (default 65536). */
  compressAboveBytes?: number;
  /** Backoff before a rejected message is handed to its handler again (defaults 200, 10000). */
  redeliveryDelayMs?: number;
  maxRedeliveryDelayMs?: number;
  /** How long `consume()` waits for the member's first assignment (default 90000). */
  readyTimeoutMs?: number;
  /** How long a group's leader waits before sending its assignment (default 0; kafka-member.ts `leaderWaits`). */
  leaderSyncDelayMs?: number;
}

export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  private readonly live = new Set<Subscription>();
  /** The groups this bus's members joined, and their topics: whose lag `lag()` reads. */
  private readonly groups = new Map<string, Set<string>>();
  private closed = false;

  private constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly admin: Admin,
    private readonly members: MemberSettings,
    private readonly compressAboveBytes: number,
    private readonly log: Logger,
  ) {}

  /** Reaches a broker (bounded, see kafka-connect.ts) and connects; rejects with `bus_unavailable`. */
  static async connect(options: KafkaBusOptions): Promise<KafkaBus> {
    const log = options.log.child({ component: 'bus', bus: 'kafka' });
    const connectionTimeoutMs = options.connectionTimeoutMs ?? 3000;
    await reachBroker({
      brokers: options.brokers,
      clientId: options.clientId,
      log,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      connectRetryDelayMs: options.connectRetryDelayMs ?? 250,
      maxConnectRetryDelayMs: options.maxConnectRetryDelayMs ?? 5000,
      connectionTimeoutMs,
    });
    const kafka = new KafkaClient({
      clientId: options.clientId,
      brokers: [...options.brokers],
      connectionTimeout: connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      logLevel: kafkaLogLevel(log),
      logCreator: kafkaLogCreator(log),
    });
    const producer = kafka.producer({
      idempotent: false,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: true,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    const admin = kafka.admin();
    try {
      await producer.connect();
      await admin.connect();
    } catch (error) {
      await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
      throw new AppError('bus_unavailable', `kafka at ${options.brokers.join(',')} did not accept a connection`, { cause: error });
    }
    const maxMessageBytes = options.maxMessageBytes ?? 16 * 1024 * 1024;
    const members: MemberSettings = {
      sessionTimeoutMs: options.sessionTimeoutMs ?? 30_000,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3000,
      rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 60_000,
      maxWaitTimeMs: options.maxWaitTimeMs ?? 1000,
      maxMessageBytes,
      redeliveryDelayMs: options.redeliveryDelayMs ?? 200,
      maxRedeliveryDelayMs: options.maxRedeliveryDelayMs ?? 10_000,
      readyTimeoutMs: options.readyTimeoutMs ?? 90_000,
      leaderSyncDelayMs: options.leaderSyncDelayMs ?? 0,
    };
    log.info({ brokers: options.brokers, requestQueueFix: idlePatch }, 'kafka bus connected');
    return new KafkaBus(kafka, producer, admin, members, options.compressAboveBytes ?? 64 * 1024, log);
  }

  async ensureTopics(topics: readonly { name: string; partitions: number }[]): Promise<void> {
    this.assertOpen();
    await ensureKafkaTopics(this.admin, topics, this.log);
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.assertOpen();
    if (messages.length === 0) return;
    const bytes = messages.reduce((n, m) => n + m.value.length, 0);
    try {
      await this.producer.send({
        topic,
        acks: -1,
        compression: bytes >= this.compressAboveBytes ? CompressionTypes.GZIP : CompressionTypes.None,
        messages: messages.map((m) => ({ key: m.key, value: m.value, headers: { ...m.headers } })),
      });
    } catch (error) {
      throw new AppError('bus_unavailable', `kafka did not accept ${messages.length} message(s) for ${topic}`, { cause: error });
    }
  }

  async consume(options: ConsumeOptions): Promise<Subscription> {
    this.assertOpen();
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError('concurrency must be a positive integer');
    }
    const subscription = liveSubscription(this.live, await joinGroup(this.kafka, options, this.members, this.log));
    const topics = this.groups.get(options.group) ?? new Set<string>();
    for (const topic of options.topics) topics.add(topic);
    this.groups.set(options.group, topics);
    return subscription;
  }

  /** The joined groups' lag, read from the brokers now (kafka-lag.ts). */
  lag(): Promise<readonly ConsumerLag[]> {
    this.assertOpen();
    return kafkaLag(this.admin, this.groups);
  }

  /** Stops every subscription (waiting for running handlers), then disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.live].map((s) => s.stop()));
    await Promise.allSettled([this.producer.disconnect(), this.admin.disconnect()]);
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError('bus_unavailable', 'the kafka bus is closed');
  }
}
