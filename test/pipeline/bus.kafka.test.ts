/**
 * What only the Kafka bus has: start-up against an unreachable broker, topic creation on a
 * broker that refuses CreateTopics, kafkajs's logs in pino, and a member process that is
 * SIGKILLed mid-stream (the contract's at-least-once, with a real crash). Waits poll with
 * generous limits; nothing asserts how fast anything was.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Subscription } from '../../pipeline/runtime/bus/bus.js';
import { KafkaBus } from '../../pipeline/runtime/bus/kafka.js';
import { leaderWaits } from '../../pipeline/runtime/bus/kafka-member.js';
import { partitionOf } from '../../pipeline/runtime/bus/murmur2.js';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { hasKafka, startMockKafka, type MockKafka } from '../helpers/kafka.js';
import { spawnTs, type Spawned } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

function captureLog(lines: string[], level = 'debug') {
  return createLogger(level, { write: (line: string) => void lines.push(line) });
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('pipeline/runtime/bus/kafka (broker unreachable)', () => {
  it('logs each retry and rejects with bus_unavailable once connectTimeoutMs has passed', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const connectTimeoutMs = 1500;
    const retries = () => lines.filter((l) => new RegExp(`kafka broker unreachable at 127\\.0\\.0\\.1:${port}, retrying in \\d+ ms`).test(l));
    // The clock and the backoff's timers fake, the refused connections real: each attempt fails
    // at once in fake time, and the clock moves only by the backoff each warn line names.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      let settled = false;
      const outcome = KafkaBus.connect({
        brokers: [`127.0.0.1:${port}`],
        clientId: 'bus-fault',
        log: captureLog(lines, 'info'),
        connectTimeoutMs,
        connectRetryDelayMs: 100,
        maxConnectRetryDelayMs: 400,
        connectionTimeoutMs: 1000,
      }).then(
        () => null,
        (e: unknown) => e,
      );
      void outcome.finally(() => (settled = true));
      const waited: number[] = [];
      while (!settled) {
        if (retries().length > waited.length) {
          const delayMs = Number(/retrying in (\d+) ms/.exec(retries()[waited.length] as string)?.[1]);
          waited.push(delayMs);
          vi.advanceTimersByTime(delayMs);
        }
        await new Promise((resolve) => setImmediate(resolve)); // the next attempt's refused connection
      }
      const error = await outcome;
      expect(hasCode(error, 'bus_unavailable')).toBe(true);
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
      expect(waited.length).toBeGreaterThanOrEqual(2);
      expect(retries().every((l) => JSON.parse(l).level === 40)).toBe(true);
      // Retried until the backoffs slept added up to connectTimeoutMs (the last one cut to what
      // was left), and not one attempt after: it gave up exactly then, neither sooner nor later.
      expect(waited.reduce((sum, ms) => sum + ms, 0)).toBe(connectTimeoutMs);
    } finally {
      vi.useRealTimers();
    }
  }, 20_000);
});

describe('pipeline/runtime/bus/kafka-member leaderWaits', () => {
  const config = { cluster: {} as never, groupId: 'g', logger: {} as never };
  const inner = kafkajs.PartitionAssigners.roundRobin(config);
  const members = [
    { memberId: 'a', memberMetadata: Buffer.alloc(0) },
    { memberId: 'b', memberMetadata: Buffer.alloc(0) },
  ];

  it("keeps the round-robin assigner's name, version and protocol, so it shares a group with it", () => {
    const waiting = leaderWaits(500)(config);
    expect(waiting.name).toBe(inner.name);
    expect(waiting.version).toBe(inner.version);
    expect(waiting.protocol({ topics: ['t'] })).toEqual(inner.protocol({ topics: ['t'] }));
  });

  it('answers with the inner assignment only once its delay has passed', async () => {
    vi.useFakeTimers();
    try {
      const assigned: unknown[] = [];
      const fake = () => ({ ...inner, assign: async () => [{ memberId: 'a', memberAssignment: Buffer.from('x') }] });
      const pending = leaderWaits(500, fake)(config)
        .assign({ members, topics: ['t'] })
        .then((a) => assigned.push(a));
      await vi.advanceTimersByTimeAsync(499);
      expect(assigned).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      await pending;
      expect(assigned).toEqual([[{ memberId: 'a', memberAssignment: Buffer.from('x') }]]);
    } finally {
      vi.useRealTimers();
    }
  });
});

const kafkaUp = await hasKafka();

describe.skipIf(!kafkaUp)('pipeline/runtime/bus/kafka (mock cluster)', () => {
  let cluster: MockKafka;
  let bus: KafkaBus;
  const lines: string[] = [];
  const children: Spawned[] = [];

  beforeAll(async () => {
    cluster = await startMockKafka();
    bus = await KafkaBus.connect({
      brokers: cluster.brokers,
      clientId: 'bus-kafka-test',
      log: captureLog(lines),
      connectTimeoutMs: 15_000,
      sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 500,
      maxWaitTimeMs: 250,
      leaderSyncDelayMs: 300,
    });
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop(1000)));
    await bus?.close();
    await cluster?.stop();
  });

  it('creates topics through metadata when CreateTopics is refused, and says so', async () => {
    const topic = `ensure-${randomUUID().slice(0, 8)}`;
    await bus.ensureTopics([{ name: topic, partitions: 8 }]);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.some((l) => l.level === 40 && String(l.msg).includes('kafka refused CreateTopics'))).toBe(true);
    // The mock cluster auto-creates 4 partitions: fewer than asked, which is logged too.
    expect(logged.some((l) => l.topic === topic && l.partitions === 4 && l.wanted === 8)).toBe(true);
    await bus.ensureTopics([{ name: topic, partitions: 4 }]); // existing: no CreateTopics
  });

  it('puts a key on the partition murmur2.ts computes (kafkajs DefaultPartitioner on the wire)', async () => {
    const topic = `keys-${randomUUID().slice(0, 8)}`;
    await bus.ensureTopics([{ name: topic, partitions: 4 }]);
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}-${randomUUID()}`);
    const seen = new Map<string, number>();
    const sub = await bus.consume({ group: `g-${topic}`, topics: [topic], concurrency: 4, handler: async (m) => void seen.set(m.key, m.partition) });
    try {
      await bus.publish(topic, keys.map((key) => ({ key, value: Buffer.from(key) })));
      await until('40 keys seen', () => seen.size === 40, 30_000);
      for (const key of keys) expect(seen.get(key)).toBe(partitionOf(key, 4));
    } finally {
      await sub.stop();
    }
  });

  it('gives a SIGKILLed member’s uncommitted messages to the surviving member (none lost)', async ({ annotate }) => {
    const topic = `kill-${randomUUID().slice(0, 8)}`;
    const group = `g-${topic}`;
    await bus.ensureTopics([{ name: topic, partitions: 4 }]);

    const child = spawnTs('test/helpers/kafka-member.ts', [cluster.brokers.join(','), topic, group, '100', '6000'], {});
    children.push(child);
    await child.waitFor(/^ready$/m, 40_000);

    const survivor = new Map<number, number>(); // id → partition
    const deadPartitions = new Set<number>();
    let killedAt = 0;
    let takenOverAt = 0;
    let sub: Subscription | undefined;
    try {
      sub = await bus.consume({
        group,
        topics: [topic],
        concurrency: 2,
        handler: async (m) => {
          survivor.set((JSON.parse(m.value.toString('utf8')) as { id: number }).id, m.partition);
          if (killedAt && !takenOverAt && deadPartitions.has(m.partition)) takenOverAt = Date.now();
        },
      });
      const total = 200;
      await bus.publish(
        topic,
        Array.from({ length: total }, (_, id) => ({ key: `k${id % 50}`, value: Buffer.from(JSON.stringify({ id })) })),
      );
      const lines = (kind: 'start' | 'done') =>
        [...child.stdout().matchAll(new RegExp(`^${kind} (\\d+) (\\d+)$`, 'gm'))].map((m) => ({ id: Number(m[1]), partition: Number(m[2]) }));
      await until('the child member is mid-stream', () => lines('done').length >= 6, 30_000);
      child.child.kill('SIGKILL');
      await child.exited;
      const started = lines('start');
      for (const l of started) deadPartitions.add(l.partition);
      killedAt = Date.now();
      const done = new Set(lines('done').map((l) => l.id));
      const inFlight = started.filter((l) => !done.has(l.id)).map((l) => l.id);
      const all = Array.from({ length: total }, (_, id) => id);
      await until('every message handled by one member or the other', () => all.every((id) => done.has(id) || survivor.has(id)), 45_000);
      // What the dead member was running when killed reached the survivor: at least once.
      for (const id of inFlight) expect(survivor.has(id)).toBe(true);
      // The survivor now reads the dead member's partitions too.
      expect([...deadPartitions].every((p) => [...survivor.values()].includes(p))).toBe(true);
      await annotate(`dead member's partitions taken over ${takenOverAt - killedAt} ms after SIGKILL (session timeout 6000 ms)`);
    } finally {
      await sub?.stop();
    }
  }, 90_000);

  it('brings three members joining one group at once up with every partition owned and no consumer crash', async () => {
    const topic = `join-${randomUUID().slice(0, 8)}`;
    const group = `g-${topic}`;
    await bus.ensureTopics([{ name: topic, partitions: 4 }]);
    const seen = new Map<number, number>(); // id → partition
    const from = lines.length;
    const subs = await Promise.all(
      [0, 1, 2].map(() =>
        bus.consume({
          group,
          topics: [topic],
          concurrency: 2,
          handler: async (m) => void seen.set((JSON.parse(m.value.toString('utf8')) as { id: number }).id, m.partition),
        }),
      ),
    );
    try {
      const total = 40;
      await bus.publish(
        topic,
        Array.from({ length: total }, (_, id) => ({ key: `k${id}`, value: Buffer.from(JSON.stringify({ id })) })),
      );
      await until('every message handled', () => seen.size === total, 45_000);
      expect(new Set(seen.values()).size).toBe(4);
      const crashes = lines.slice(from).filter((l) => /kafka consumer crashed/.test(l));
      expect(crashes).toEqual([]);
    } finally {
      await Promise.all(subs.map((sub) => sub.stop()));
    }
  }, 120_000);

  it("has routed kafkajs's own log lines into pino, its INFO chatter at debug", () => {
    const fromKafkajs = lines.map((l) => JSON.parse(l) as { level: number; kafkajs?: string }).filter((l) => l.kafkajs);
    expect(fromKafkajs.length).toBeGreaterThan(0);
    expect(fromKafkajs.some((l) => l.level === 30)).toBe(false);
  });
});
