/**
 * The one contract of pipeline/runtime/bus/bus.ts, run over both buses: MemoryBus always, KafkaBus
 * against librdkafka's mock cluster (test/helpers/kafka.ts) when kcat is installed. Every test
 * uses fresh topic and group names; waits poll with generous limits and nothing asserts how
 * fast a delivery was.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { Bus, BusMessage, ConsumeOptions } from '../../pipeline/runtime/bus/bus.js';
import { KafkaBus } from '../../pipeline/runtime/bus/kafka.js';
import { MemoryBus } from '../../pipeline/runtime/bus/memory.js';
import { partitionOf } from '../../pipeline/runtime/bus/murmur2.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { hasKafka, startMockKafka, type MockKafka } from '../helpers/kafka.js';
import { until } from '../helpers/wait.js';
import { hold } from '../helpers/hold.js';

interface Fixture {
  bus: Bus;
  /** Partitions the suite's topics get (the mock cluster auto-creates 4). */
  partitions: number;
  /** pino lines the bus wrote. */
  logs: string[];
  /** How long a wait for deliveries may take before the test fails. */
  limitMs: number;
  close(): Promise<void>;
}

interface Body {
  id: number;
  key: string;
  seq: number;
}

const encode = (body: Body) => Buffer.from(JSON.stringify(body));
const decode = (message: BusMessage) => JSON.parse(message.value.toString('utf8')) as Body;

function captureLog(lines: string[]) {
  return createLogger('debug', { write: (line: string) => void lines.push(line) });
}

/** `count` messages over `keys` keys, seq counting per key, ids 0…count-1. */
function batch(count: number, keys: number, prefix = 'k'): Body[] {
  const seqs = new Map<string, number>();
  return Array.from({ length: count }, (_, id) => {
    const key = `${prefix}${id % keys}`;
    const seq = seqs.get(key) ?? 0;
    seqs.set(key, seq + 1);
    return { id, key, seq };
  });
}

/** The first `count` keys `p0, p1, …` that land on `partition` of `partitions` (murmur2, as both buses partition). */
function keysOn(partition: number, partitions: number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) if (partitionOf(`p${i}`, partitions) === partition) out.push(`p${i}`);
  return out;
}

async function publishAll(bus: Bus, topic: string, bodies: Body[], perCall = 25): Promise<void> {
  for (let i = 0; i < bodies.length; i += perCall) {
    await bus.publish(
      topic,
      bodies.slice(i, i + perCall).map((b) => ({ key: b.key, value: encode(b), headers: { 'x-id': String(b.id) } })),
    );
  }
}

/**
 * Runs the contract over the bus `setup` makes. `concurrent` runs the tests side by side
 * (each has its own topic, group and subscriptions), which hides Kafka's group-join waits.
 */
function busContract(name: string, setup: () => Promise<Fixture>, options: { concurrent?: boolean } = {}): void {
  (options.concurrent ? describe.concurrent : describe)(name, () => {
    let f: Fixture;
    const names = () => {
      const id = randomUUID().slice(0, 8);
      return { topic: `contract-${id}`, group: `group-${id}` };
    };
    /** `consume` for one test: whatever it opened is aborted when the test ends. */
    const consumer = (test: TestContext) => async (options: ConsumeOptions) => {
      const sub = await f.bus.consume(options);
      test.onTestFinished(() => sub.abort());
      return sub;
    };

    beforeAll(async () => {
      f = await setup();
    });
    afterAll(async () => {
      await f?.close();
    });

    it('delivers the messages of one key in publish order, on one partition, with headers', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      const seen = new Map<string, { seq: number; partition: number; offset: bigint }[]>();
      let total = 0;
      let headersOk = true;
      await consume({
        group,
        topics: [topic],
        concurrency: 4,
        handler: async (m) => {
          const body = decode(m);
          headersOk &&= m.headers['x-id'] === String(body.id) && m.key === body.key && m.topic === topic;
          await sleep(Math.random() * 3);
          const list = seen.get(body.key) ?? [];
          list.push({ seq: body.seq, partition: m.partition, offset: BigInt(m.offset) });
          seen.set(body.key, list);
          total++;
        },
      });
      const bodies = batch(360, 12);
      await publishAll(f.bus, topic, bodies, 30);
      await until('all 360 delivered', () => total >= 360, f.limitMs);
      expect(total).toBe(360);
      expect(headersOk).toBe(true);
      for (const list of seen.values()) {
        expect(list.map((x) => x.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i));
        expect(new Set(list.map((x) => x.partition)).size).toBe(1);
        expect(list.every((x, i) => i === 0 || x.offset > (list[i - 1] as { offset: bigint }).offset)).toBe(true);
      }
    });

    it('delivers every message to each of two groups', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      const got = [new Set<number>(), new Set<number>()];
      await Promise.all(
        got.map((set, g) =>
          consume({ group: `${group}-${g}`, topics: [topic], concurrency: 2, handler: async (m) => void set.add(decode(m).id) }),
        ),
      );
      await publishAll(f.bus, topic, batch(50, 10));
      await until('both groups got 50', () => got.every((s) => s.size === 50), f.limitMs);
    });

    it('shares partitions among the members of a group, each message once when nothing fails', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      const members = [
        { ids: [] as number[], partitions: new Set<number>() },
        { ids: [] as number[], partitions: new Set<number>() },
      ];
      await Promise.all(
        members.map((seen) =>
          consume({
            group,
            topics: [topic],
            concurrency: 2,
            handler: async (m) => {
              seen.ids.push(decode(m).id);
              seen.partitions.add(m.partition);
            },
          }),
        ),
      );
      await publishAll(f.bus, topic, batch(120, 40));
      const [a, b] = members as [(typeof members)[0], (typeof members)[0]];
      await until('120 delivered', () => a.ids.length + b.ids.length >= 120, f.limitMs);
      await sleep(500); // a duplicate would show up now
      expect(a.ids.length).toBeGreaterThan(0);
      expect(b.ids.length).toBeGreaterThan(0);
      expect([...a.ids, ...b.ids].sort((x, y) => x - y)).toEqual(Array.from({ length: 120 }, (_, i) => i));
      expect([...a.partitions].filter((p) => b.partitions.has(p))).toEqual([]);
    });

    it('stop() lets a running handler finish and commits it; the rest goes to the next member', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      const { promise: gate, release } = hold();
      let held: number | null = null;
      let extra = 0;
      const first = await consume({
        group,
        topics: [topic],
        concurrency: 1,
        handler: async (m) => {
          if (held !== null) {
            extra++; // a stopping member must not take another message
            return;
          }
          held = decode(m).id;
          await gate;
        },
      });
      await publishAll(f.bus, topic, batch(20, 20));
      await until('first member holds a message', () => held !== null, f.limitMs);
      let stopped = false;
      const stopping = first.stop().then(() => (stopped = true));
      await sleep(100);
      expect(stopped).toBe(false);
      release();
      await stopping;
      expect(extra).toBe(0);

      const later: number[] = [];
      await consume({ group, topics: [topic], concurrency: 4, handler: async (m) => void later.push(decode(m).id) });
      await until('next member got the other 19', () => later.length >= 19, f.limitMs);
      await sleep(500);
      expect(later).not.toContain(held);
      expect(later.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== held));
    });

    it('abort() mid-handler leaves that message to another member (at least once)', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      let stuck: number | null = null;
      const survivor = new Set<number>();
      const [doomed] = await Promise.all([
        consume({
          group,
          topics: [topic],
          concurrency: 1,
          handler: (m) => {
            stuck ??= decode(m).id;
            return new Promise<void>(() => {}); // never resolves: the member "dies" holding it
          },
        }),
        consume({ group, topics: [topic], concurrency: 4, handler: async (m) => void survivor.add(decode(m).id) }),
      ]);
      await publishAll(f.bus, topic, batch(40, 40));
      await until('the doomed member holds a message', () => stuck !== null, f.limitMs);
      await doomed.abort();
      await until('the survivor got all 40', () => survivor.size === 40, f.limitMs);
      expect(survivor.has(stuck as unknown as number)).toBe(true);
    });

    it('runs at most `concurrency` handlers at once', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      let running = 0;
      let most = 0;
      let done = 0;
      await consume({
        group,
        topics: [topic],
        concurrency: 2,
        handler: async () => {
          running++;
          most = Math.max(most, running);
          await sleep(25);
          running--;
          done++;
        },
      });
      await publishAll(f.bus, topic, batch(48, 24));
      await until('48 handled', () => done >= 48, f.limitMs);
      expect(most).toBeLessThanOrEqual(2);
      expect(most).toBe(2);
    });

    it('lets other keys of a partition pass a slow message; its own key waits for it, in order', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      const [slow, ...others] = keysOn(0, f.partitions, 5) as [string, ...string[]];
      const { promise: gate, release } = hold();
      const started: string[] = [];
      const handled: string[] = [];
      await consume({
        group,
        topics: [topic],
        concurrency: 8,
        handler: async (m) => {
          const body = decode(m);
          const label = `${body.key}#${body.seq}`;
          if (!started.includes(label)) started.push(label);
          if (body.key === slow && body.seq === 0) await gate;
          if (!handled.includes(label)) handled.push(label);
        },
      });
      const bodies: Body[] = [
        { id: 0, key: slow, seq: 0 },
        ...others.map((key, i) => ({ id: i + 1, key, seq: 0 })),
        { id: 9, key: slow, seq: 1 },
      ];
      await publishAll(f.bus, topic, bodies);
      await until('the other keys handled while the slow one runs', () => others.every((k) => handled.includes(`${k}#0`)), f.limitMs);
      await sleep(100);
      expect(handled).not.toContain(`${slow}#0`);
      expect(started).not.toContain(`${slow}#1`); // its key's next message waits
      release();
      await until('the slow key done, in order', () => handled.includes(`${slow}#1`), f.limitMs);
      expect(handled.indexOf(`${slow}#0`)).toBeLessThan(handled.indexOf(`${slow}#1`));
    });

    it('commits nothing at or above a message still running: an abort leaves it to the next member', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      const [stuck, ...others] = keysOn(0, f.partitions, 4) as [string, ...string[]];
      const byFirst: string[] = [];
      const first = await consume({
        group,
        topics: [topic],
        concurrency: 4,
        handler: async (m) => {
          const body = decode(m);
          byFirst.push(body.key);
          if (body.key === stuck) await new Promise<never>(() => undefined);
        },
      });
      await publishAll(f.bus, topic, [stuck, ...others].map((key, id) => ({ id, key, seq: 0 })));
      await until('the first member handled the others and holds the stuck one', () => byFirst.length === 4, f.limitMs);
      await sleep(200); // the others' commits go out
      await first.abort();
      const bySecond: string[] = [];
      await consume({ group, topics: [topic], concurrency: 4, handler: async (m) => void bySecond.push(decode(m).key) });
      await until('the stuck message went to the next member', () => bySecond.includes(stuck), f.limitMs);
    });

    it('carries a 10 MB message intact', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      const value = randomBytes(10 * 1024 * 1024);
      const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      let got: Buffer | null = null;
      await consume({ group, topics: [topic], concurrency: 1, handler: async (m) => void (got = m.value) });
      await f.bus.publish(topic, [{ key: 'big', value }]);
      await until('the big message arrived', () => got !== null, f.limitMs);
      const received = got as unknown as Buffer;
      expect(received.length).toBe(value.length);
      expect(digest(received)).toBe(digest(value));
    });

    it('logs a handler rejection and delivers the message again, keeping the key order', async (test) => {
      const consume = consumer(test);
      const { topic, group } = names();
      await f.bus.ensureTopics([{ name: topic, partitions: f.partitions }]);
      const attempts = new Map<number, number>();
      const handled: number[] = [];
      await consume({
        group,
        topics: [topic],
        concurrency: 2,
        handler: async (m) => {
          const body = decode(m);
          const n = (attempts.get(body.id) ?? 0) + 1;
          attempts.set(body.id, n);
          if (body.key === 'k0' && body.seq === 2 && n === 1) throw new Error('handler bug');
          if (body.key === 'k0') handled.push(body.seq);
        },
      });
      const bodies = batch(20, 4);
      const failing = bodies.find((b) => b.key === 'k0' && b.seq === 2) as Body;
      await publishAll(f.bus, topic, bodies);
      await until('all 20 handled', () => attempts.size === 20 && handled.length === 5, f.limitMs);
      expect(attempts.get(failing.id)).toBe(2);
      expect(handled).toEqual([0, 1, 2, 3, 4]);
      expect(f.logs.some((l) => l.includes('bus handler rejected') && l.includes('handler bug'))).toBe(true);
    });
  });
}

busContract('pipeline/runtime/bus (memory)', async () => {
  const logs: string[] = [];
  const bus = new MemoryBus({ defaultPartitions: 4, log: captureLog(logs), redeliveryDelayMs: 5, maxRedeliveryDelayMs: 50 });
  return { bus, partitions: 4, logs, limitMs: 10_000, close: () => bus.close() };
});

const kafkaUp = await hasKafka();

describe.skipIf(!kafkaUp)('pipeline/runtime/bus (kafka, mock cluster)', () => {
  let cluster: MockKafka | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  busContract('contract', async () => {
    cluster = await startMockKafka();
    const logs: string[] = [];
    const bus = await KafkaBus.connect({
      brokers: cluster.brokers,
      clientId: 'bus-contract',
      log: captureLog(logs),
      connectTimeoutMs: 15_000,
      sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 500,
      maxWaitTimeMs: 250,
      redeliveryDelayMs: 20,
      maxRedeliveryDelayMs: 200,
      leaderSyncDelayMs: 300,
    });
    return { bus, partitions: 4, logs, limitMs: 30_000, close: () => bus.close() };
  }, { concurrent: true });
});
