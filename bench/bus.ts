/**
 * The pipeline runtime's overhead: events/s and latency through a three-hop pipeline, against
 * the bare bus carrying the same bytes over the same hops in the same run; and chdb rows/s
 * for batched against single-row inserts.
 *
 *   pipeline-kafka   TestPing events: Events.emit (encode, publish) → hop 1 → ActorPool
 *                    (consume, decode, handler, re-encode, publish) → hop 2 → ActorPool → hop 3
 *                    → ActorPool (decode) on KafkaBus over librdkafka's mock cluster (kcat),
 *                    against raw kafkajs producing and consuming the same encoded bytes over
 *                    three topics with the same producer settings (acks -1, one request in
 *                    flight per broker) and per-message forwarding. The baseline commits
 *                    offsets with kafkajs's autoCommit (once per fetched batch); the KafkaBus
 *                    commits after every handled message (coalesced, one request in flight).
 *                    Skipped, with the reason, when kcat is absent.
 *   pipeline-memory  the same pipeline on the MemoryBus, against the MemoryBus forwarding the
 *                    encoded bytes with no codec and no pool.
 *   chdb-insert      BENCH_BUS_CHDB_ROWS rows written one per call through a BatchWriter
 *                    (batches of BENCH_BUS_CHDB_BATCH) against BENCH_BUS_CHDB_SINGLE single-row
 *                    store.insert calls, same table, chdb in a temp dir.
 *
 * BENCH_BUS_ONLY=memory,kafka,chdb runs only the named scenarios.
 *
 * Load: BENCH_BUS_MESSAGES events per run (default 3000), BENCH_BUS_PAYLOAD_BYTES payload bytes
 * each (default 512), published in batches of 50 with at most BENCH_BUS_WINDOW (default 500)
 * in the pipeline at once, so latency measures the pipeline rather than an unbounded backlog.
 * Latency is publish → decoded at the last hop, in ms. Subject and baseline run alternately for
 * BENCH_BUS_ROUNDS rounds (default 2) after a warm-up each; medians are reported. `ratio` is
 * subject/baseline events/s (rows/s for chdb). One JSON line per measurement on stdout.
 *
 * The pools consume a pipeline topic through a bus view that renames `testPings` to the
 * hop's topics (schemas/topics.ts has one TestPing topic); the renaming is a string compare.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs from 'kafkajs';
import { TOPICS } from '../schemas/topics.js';
import type { EventValue } from '../schemas/events/index.js';
import { MemoryBlobs } from '../pipeline/runtime/blobs.js';
import type { Bus } from '../pipeline/runtime/bus/bus.js';
import { KafkaBus } from '../pipeline/runtime/bus/kafka.js';
import { MemoryBus } from '../pipeline/runtime/bus/memory.js';
import { createCodec, type EventCodec } from '../pipeline/runtime/codec/index.js';
import { Events, type Emission } from '../pipeline/runtime/events.js';
import { createLogger } from '../pipeline/runtime/log.js';
import { ActorPool } from '../pipeline/runtime/pool.js';
import { KAFKA_INLINE_LIMIT_BYTES } from '../pipeline/runtime/runtime.js';
import { ChdbStore } from '../pipeline/runtime/store/chdb.js';
import { BatchWriter } from '../pipeline/runtime/store/batch-writer.js';
import { KCAT, startMockKafka, type MockKafka } from '../test/helpers/kafka.js';
import { emit, median } from './lib.js';

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

const SETTINGS = Object.freeze({
  messages: positiveInt('BENCH_BUS_MESSAGES', 3000),
  payloadBytes: positiveInt('BENCH_BUS_PAYLOAD_BYTES', 512),
  window: positiveInt('BENCH_BUS_WINDOW', 500),
  batch: 50,
  rounds: positiveInt('BENCH_BUS_ROUNDS', 2),
  warmup: 200,
  partitions: 4, // what the mock cluster auto-creates; the memory bus gets the same
  concurrency: 4,
  chdbRows: positiveInt('BENCH_BUS_CHDB_ROWS', 10_000),
  chdbBatch: positiveInt('BENCH_BUS_CHDB_BATCH', 1000),
  chdbSingle: positiveInt('BENCH_BUS_CHDB_SINGLE', 300),
  /** A run that does not finish in this long has lost messages: fail rather than hang. */
  runLimitMs: 120_000,
});

const log = createLogger(process.env.BENCH_LOG_LEVEL || 'error', { write: (line: string) => void process.stderr.write(line) });
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

// ---- measuring one run ----------------------------------------------------------------

/** Publish times by sequence number, arrival count, and a wake-up for the driver. */
class Tracker {
  private readonly started = new Map<number, number>();
  private readonly latencies: number[] = [];
  private waiter: (() => void) | null = null;
  arrived = 0;

  sent(seq: number): void {
    this.started.set(seq, performance.now());
  }

  /** The last hop decoded `seq`. Redeliveries (at least once) are not counted twice. */
  arrive(seq: number): void {
    const start = this.started.get(seq);
    if (start === undefined) return;
    this.started.delete(seq);
    this.latencies.push(performance.now() - start);
    this.arrived++;
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  async waitUntil(count: number, deadline: number): Promise<void> {
    while (this.arrived < count) {
      if (performance.now() > deadline) throw new Error(`only ${this.arrived} of ${count} events arrived in time`);
      await Promise.race([new Promise<void>((resolve) => (this.waiter = resolve)), sleep(200)]);
    }
  }

  /** Latencies of the events that arrived after the first `skip`, sorted. */
  sortedLatencies(skip: number): Float64Array {
    return Float64Array.from(this.latencies.slice(skip)).sort();
  }
}

interface Pipeline {
  /** Publishes the events with these sequence numbers at the first hop. */
  publish(seqs: number[]): Promise<void>;
  tracker: Tracker;
  close(): Promise<void>;
}

interface RunResult {
  events_per_s: number;
  p50_ms: number;
  p99_ms: number;
}

/** Drives `count` events through with at most SETTINGS.window in flight. */
async function run(pipeline: Pipeline, first: number, count: number): Promise<RunResult> {
  const tracker = pipeline.tracker;
  const base = tracker.arrived;
  const deadline = performance.now() + SETTINGS.runLimitMs;
  const began = performance.now();
  let sent = 0;
  while (sent < count) {
    await tracker.waitUntil(base + sent - SETTINGS.window + SETTINGS.batch, deadline);
    const n = Math.min(SETTINGS.batch, count - sent);
    await pipeline.publish(Array.from({ length: n }, (_, i) => first + sent + i));
    sent += n;
  }
  await tracker.waitUntil(base + count, deadline);
  const seconds = (performance.now() - began) / 1000;
  const sorted = tracker.sortedLatencies(base);
  return { events_per_s: Math.round(count / seconds), p50_ms: round3(percentile(sorted, 50)), p99_ms: round3(percentile(sorted, 99)) };
}

/** Warm-up, then SETTINGS.rounds alternating runs of subject and baseline; medians. */
async function compare(subject: Pipeline, baseline: Pipeline) {
  let seq = 0;
  for (const p of [subject, baseline]) {
    await run(p, seq, SETTINGS.warmup);
    seq += SETTINGS.warmup;
  }
  const s: RunResult[] = [];
  const b: RunResult[] = [];
  for (let round = 0; round < SETTINGS.rounds; round++) {
    s.push(await run(subject, seq, SETTINGS.messages));
    seq += SETTINGS.messages;
    b.push(await run(baseline, seq, SETTINGS.messages));
    seq += SETTINGS.messages;
  }
  const pick = (rs: RunResult[], k: keyof RunResult) => round3(median(rs.map((r) => r[k])));
  const eps = pick(s, 'events_per_s');
  const baseEps = pick(b, 'events_per_s');
  return {
    messages: SETTINGS.messages,
    payload_bytes: SETTINGS.payloadBytes,
    hops: 3,
    window: SETTINGS.window,
    rounds: SETTINGS.rounds,
    events_per_s: eps,
    hop_events_per_s: round3(eps * 3),
    p50_ms: pick(s, 'p50_ms'),
    p99_ms: pick(s, 'p99_ms'),
    baseline_events_per_s: baseEps,
    baseline_p50_ms: pick(b, 'p50_ms'),
    baseline_p99_ms: pick(b, 'p99_ms'),
    ratio: round3(eps / baseEps),
  };
}

// ---- the pipelines ----------------------------------------------------------------------

const hopTopics = (prefix: string) => [1, 2, 3].map((n) => `${prefix}.hop${n}`) as [string, string, string];

/** `bus` seen through a pool: its `testPings` reads come from `from` and its writes go to `to`. */
function hopView(bus: Bus, from: string, to: string): Bus {
  const pings = TOPICS.testPings.name;
  return {
    kind: bus.kind,
    ensureTopics: (topics) => bus.ensureTopics(topics.map((t) => (t.name === pings ? { ...t, name: to } : t))),
    publish: (topic, messages) => bus.publish(topic === pings ? to : topic, messages),
    consume: (options) => bus.consume({ ...options, topics: options.topics.map((t) => (t === pings ? from : t)) }),
    lag: () => bus.lag(),
    close: async () => undefined,
  };
}

/** Each ping encoded for the wire, keyed by its number, counted as sent. */
async function encodedPings(codec: EventCodec, tracker: Tracker, seqs: readonly number[], payload: Buffer) {
  const messages = [];
  for (const seq of seqs) {
    tracker.sent(seq);
    messages.push({ key: `m${seq}`, value: await codec.encode('TestPing', pingOf(seq, payload)), headers: {} });
  }
  return messages;
}

function pingOf(seq: number, payload: Buffer): EventValue<'TestPing'> {
  return { id: `m${seq}`, seq, payload, sentAtMs: Date.now() };
}

/** Ours: Events + three ActorPools over `bus`. */
async function runtimePipeline(bus: Bus, codec: EventCodec, prefix: string, inlineLimitBytes: number): Promise<Pipeline> {
  const topics = hopTopics(prefix);
  await bus.ensureTopics(topics.map((name) => ({ name, partitions: SETTINGS.partitions })));
  const blobs = new MemoryBlobs();
  const tracker = new Tracker();
  const payload = Buffer.alloc(SETTINGS.payloadBytes, 7);
  const view = (from: string, to: string) => new Events(hopView(bus, from, to), codec, blobs, inlineLimitBytes);
  const pools = topics.map((from, i) => {
    const last = i === topics.length - 1;
    return new ActorPool(
      {
        name: `bench-hop${i + 1}`,
        group: `${prefix}-hop${i + 1}`,
        topics: ['testPings'],
        concurrency: SETTINGS.concurrency,
        timeoutMs: 30_000,
        handlers: {
          TestPing: async (ping) => {
            if (last) {
              tracker.arrive(ping.seq);
              return { kind: 'ack' };
            }
            return { kind: 'ack', emit: [{ topic: 'testPings', key: ping.id, value: ping }] };
          },
        },
      },
      view(from, last ? from : (topics[i + 1] as string)),
      log,
    );
  });
  await Promise.all(pools.map((p) => p.start()));
  const source = view(topics[0], topics[0]);
  return {
    tracker,
    async publish(seqs) {
      for (const seq of seqs) tracker.sent(seq);
      await source.emit(seqs.map((seq): Emission<'testPings'> => ({ topic: 'testPings', key: `m${seq}`, value: pingOf(seq, payload) })));
    },
    async close() {
      await Promise.all(pools.map((p) => p.stop()));
    },
  };
}

/** Baseline on the memory bus: the same encoded bytes forwarded by plain bus handlers. */
async function bareMemoryPipeline(bus: MemoryBus, codec: EventCodec, prefix: string): Promise<Pipeline> {
  const topics = hopTopics(prefix);
  await bus.ensureTopics(topics.map((name) => ({ name, partitions: SETTINGS.partitions })));
  const tracker = new Tracker();
  const payload = Buffer.alloc(SETTINGS.payloadBytes, 7);
  const subs = await Promise.all(
    topics.map((from, i) =>
      bus.consume({
        group: `${prefix}-hop${i + 1}`,
        topics: [from],
        concurrency: SETTINGS.concurrency,
        handler: async (m) => {
          const next = topics[i + 1];
          if (next) await bus.publish(next, [{ key: m.key, value: m.value, headers: m.headers }]);
          else tracker.arrive(Number(m.key.slice(1)));
        },
      }),
    ),
  );
  return {
    tracker,
    async publish(seqs) {
      const messages = await encodedPings(codec, tracker, seqs, payload);
      await bus.publish(topics[0], messages);
    },
    async close() {
      await Promise.all(subs.map((s) => s.stop()));
    },
  };
}

/** Baseline on Kafka: raw kafkajs, one producer, one consumer group per hop, forwarding bytes. */
async function rawKafkaPipeline(brokers: string[], codec: EventCodec, prefix: string): Promise<Pipeline> {
  const { Kafka, Partitioners, logLevel } = kafkajs;
  const topics = hopTopics(prefix);
  const kafka = new Kafka({ clientId: `${prefix}-raw`, brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: false, maxInFlightRequests: 1, allowAutoTopicCreation: true, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const tracker = new Tracker();
  const payload = Buffer.alloc(SETTINGS.payloadBytes, 7);
  const consumers = await Promise.all(
    topics.map(async (from, i) => {
      const consumer = kafka.consumer({ groupId: `${prefix}-hop${i + 1}`, maxWaitTimeInMs: 100, allowAutoTopicCreation: true });
      await consumer.connect();
      await consumer.subscribe({ topics: [from], fromBeginning: true });
      let joined: () => void = () => {};
      const ready = new Promise<void>((resolve) => (joined = resolve));
      consumer.on(consumer.events.FETCH, () => joined());
      await consumer.run({
        partitionsConsumedConcurrently: SETTINGS.concurrency,
        eachMessage: async ({ message }) => {
          const next = topics[i + 1];
          const key = message.key?.toString('utf8') ?? '';
          if (next) await producer.send({ topic: next, acks: -1, messages: [{ key, value: message.value, headers: message.headers ?? {} }] });
          else tracker.arrive(Number(key.slice(1)));
        },
      });
      await ready;
      return consumer;
    }),
  );
  return {
    tracker,
    async publish(seqs) {
      const messages = await encodedPings(codec, tracker, seqs, payload);
      await producer.send({ topic: topics[0], acks: -1, messages });
    },
    async close() {
      await Promise.allSettled(consumers.map((c) => c.disconnect()));
      await producer.disconnect();
    },
  };
}

// ---- scenarios ----------------------------------------------------------------------------

async function memoryScenario(codec: EventCodec): Promise<void> {
  const bus = new MemoryBus({ log });
  try {
    const ours = await runtimePipeline(bus, codec, 'bench.ours', Number.POSITIVE_INFINITY);
    const bare = await bareMemoryPipeline(bus, codec, 'bench.bare');
    emit({ bench: 'bus', scenario: 'pipeline-memory', baseline: 'MemoryBus forwarding bytes (no codec, no pool)', ...(await compare(ours, bare)) });
    await Promise.all([ours.close(), bare.close()]);
  } finally {
    await bus.close();
  }
}

async function kafkaScenario(codec: EventCodec): Promise<void> {
  if (!existsSync(KCAT)) {
    const reason = `kcat not found at ${KCAT} (apt-get install -y kcat): no mock Kafka cluster`;
    process.stderr.write(`bench/bus: skipping pipeline-kafka: ${reason}\n`);
    emit({ bench: 'bus', scenario: 'pipeline-kafka', skipped: reason });
    return;
  }
  let cluster: MockKafka | null = null;
  let bus: KafkaBus | null = null;
  try {
    cluster = await startMockKafka();
    bus = await KafkaBus.connect({ brokers: cluster.brokers, clientId: 'bench-bus', log, maxWaitTimeMs: 100 });
    const [ours, raw] = await Promise.all([
      runtimePipeline(bus, codec, 'bench.ours', KAFKA_INLINE_LIMIT_BYTES),
      rawKafkaPipeline(cluster.brokers, codec, 'bench.raw'),
    ]);
    emit({ bench: 'bus', scenario: 'pipeline-kafka', baseline: 'raw kafkajs forwarding bytes (no codec, no pool)', ...(await compare(ours, raw)) });
    await Promise.all([ours.close(), raw.close()]);
  } finally {
    await bus?.close();
    await cluster?.stop();
  }
}

async function chdbScenario(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bus-chdb-'));
  const store = new ChdbStore({ dataDir: dir }, log);
  try {
    await store.command(
      `CREATE TABLE IF NOT EXISTS bench_rows (id String, seq UInt32, created_at DateTime64(3, 'UTC'), body String)
       ENGINE = MergeTree ORDER BY id`,
    );
    const body = 'x'.repeat(200);
    const row = (kind: string, seq: number) => ({ id: `${kind}-${seq}`, seq, created_at: new Date(), body });
    // Warm-up: the first statements of a session pay for loading the engine's parts.
    await store.insert('bench_rows', [row('warm', 0)]);

    const writer = new BatchWriter(store, { maxRows: SETTINGS.chdbBatch, maxDelayMs: 50 }, log);
    let began = performance.now();
    await Promise.all(Array.from({ length: SETTINGS.chdbRows }, (_, i) => writer.write('bench_rows', [row('batched', i)])));
    const batchedS = (performance.now() - began) / 1000;
    await writer.close();

    began = performance.now();
    for (let i = 0; i < SETTINGS.chdbSingle; i++) await store.insert('bench_rows', [row('single', i)]);
    const singleS = (performance.now() - began) / 1000;

    const counted = await store.query<{ n: string }>("SELECT count() AS n FROM bench_rows WHERE id NOT LIKE 'warm-%'");
    const expected = SETTINGS.chdbRows + SETTINGS.chdbSingle;
    if (Number(counted[0]?.n) !== expected) throw new Error(`chdb holds ${counted[0]?.n} rows, expected ${expected}`);
    const rowsPerS = Math.round(SETTINGS.chdbRows / batchedS);
    const singlePerS = Math.round(SETTINGS.chdbSingle / singleS);
    emit({
      bench: 'bus',
      scenario: 'chdb-insert',
      rows: SETTINGS.chdbRows,
      batch_rows: SETTINGS.chdbBatch,
      rows_per_s: rowsPerS,
      baseline: 'single-row store.insert',
      baseline_rows: SETTINGS.chdbSingle,
      baseline_rows_per_s: singlePerS,
      ratio: round3(rowsPerS / singlePerS),
    });
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const codec = await createCodec();
  const only = process.env.BENCH_BUS_ONLY ? new Set(process.env.BENCH_BUS_ONLY.split(',')) : null;
  if (!only || only.has('memory')) await memoryScenario(codec);
  if (!only || only.has('kafka')) await kafkaScenario(codec);
  if (!only || only.has('chdb')) await chdbScenario();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench/bus failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
