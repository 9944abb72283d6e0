/**
 * What only the memory bus has (the shared contract is bus.contract.test.ts): Kafka's
 * partitioner, topic creation, retention, `fromBeginning`, rebalancing on join and leave, a
 * partition that changes owner mid-handler, publish that never waits for consumers, and
 * messages of different keys in one partition running side by side (one key in order).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { MAX_PARTITION_WINDOW, type BusMessage, type Subscription } from '../../pipeline/runtime/bus/bus.js';
import { MemoryBus } from '../../pipeline/runtime/bus/memory.js';
import { murmur2, partitionOf } from '../../pipeline/runtime/bus/murmur2.js';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { until } from '../helpers/wait.js';
import { hold } from '../helpers/hold.js';

const quiet = () => createLogger('silent');
/** The memory bus delivers at once: wait in small steps. */
const WAIT = { timeoutMs: 5000, intervalMs: 5 };

const text = (m: BusMessage) => m.value.toString('utf8');
const messages = (key: string, values: string[]) => values.map((v) => ({ key, value: Buffer.from(v) }));
/** The first `count` keys `k0, k1, …` that land on `partition` of `partitions`. */
function keysOn(partition: number, partitions: number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) if (partitionOf(`k${i}`, partitions) === partition) out.push(`k${i}`);
  return out;
}

describe('pipeline/runtime/bus/murmur2', () => {
  it("matches the Java client's Utils.murmur2 test vectors", () => {
    const vectors: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [input, hash] of vectors) expect(murmur2(Buffer.from(input))).toBe(hash);
  });

  it("picks the partition kafkajs's DefaultPartitioner picks", () => {
    const partitioner = kafkajs.Partitioners.DefaultPartitioner();
    for (const partitions of [1, 3, 4, 12]) {
      const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 1, replicas: [1], isr: [1] }));
      for (let i = 0; i < 500; i++) {
        const key = i % 7 === 0 ? `ключ-${i}-🙂` : `${i}-${'x'.repeat(i % 9)}`;
        const expected = partitioner({ topic: 't', partitionMetadata, message: { key, value: null } });
        expect(partitionOf(key, partitions)).toBe(expected);
      }
    }
  });
});

describe('pipeline/runtime/bus/memory', () => {
  it('creates a topic on first use with the default partition count; ensureTopics never resizes', async () => {
    const bus = new MemoryBus({ defaultPartitions: 3, log: quiet() });
    await bus.publish('auto', messages('a', ['1']));
    await bus.ensureTopics([{ name: 'made', partitions: 12 }, { name: 'auto', partitions: 6 }]);
    expect(bus.stats().auto?.partitions).toBe(3);
    expect(bus.stats().made?.partitions).toBe(12);
    expect(() => new MemoryBus({ defaultPartitions: 0 })).toThrow(RangeError);
    await bus.close();
  });

  it('publish returns while handlers hang: consumption, not publishing, is backpressured', async () => {
    const bus = new MemoryBus({ log: quiet() });
    const sub = await bus.consume({ group: 'g', topics: ['t'], concurrency: 2, handler: () => new Promise(() => {}) });
    for (let i = 0; i < 20; i++) await bus.publish('t', messages(`k${i}`, Array.from({ length: 50 }, String)));
    expect(bus.stats().t?.retainedMessages).toBe(1000);
    await sub.abort();
  });

  it('copies a value at publish, so later changes to the caller’s buffer do not travel', async () => {
    const bus = new MemoryBus({ log: quiet() });
    const value = Buffer.from('before');
    await bus.publish('t', [{ key: 'k', value }]);
    value.write('AFTER!');
    let got = '';
    const sub = await bus.consume({ group: 'g', topics: ['t'], concurrency: 1, handler: async (m) => void (got = text(m)) });
    await until('delivered', () => got !== '', WAIT);
    expect(got).toBe('before');
    await sub.stop();
  });

  it('drops what every reading group committed; keeps what a slow group has not; keeps all with retention "all"', async () => {
    const bus = new MemoryBus({ defaultPartitions: 2, log: quiet() });
    await bus.publish('t', messages('k', ['a', 'b', 'c']));
    expect(bus.stats().t?.retainedMessages).toBe(3); // nobody reads it yet: kept
    let fast = 0;
    const { promise: gate, release } = hold();
    const a = await bus.consume({ group: 'fast', topics: ['t'], concurrency: 1, handler: async () => void fast++ });
    const b = await bus.consume({ group: 'slow', topics: ['t'], concurrency: 1, handler: () => gate });
    await until('fast group done', () => fast === 3, WAIT);
    expect(bus.stats().t?.retainedMessages).toBe(3);
    release();
    await until('trimmed', () => bus.stats().t?.retainedMessages === 0, WAIT);
    expect(bus.stats().t).toMatchObject({ published: 3, retainedBytes: 0 });
    await Promise.all([a.stop(), b.stop()]);

    const keeper = new MemoryBus({ retention: 'all', log: quiet() });
    let n = 0;
    const c = await keeper.consume({ group: 'g', topics: ['t'], concurrency: 1, handler: async () => void n++ });
    await keeper.publish('t', messages('k', ['a', 'b']));
    await until('handled', () => n === 2, WAIT);
    expect(keeper.stats().t?.retainedMessages).toBe(2);
    await c.stop();
  });

  it('starts a new group at the end of the log with fromBeginning: false, at the start by default', async () => {
    const bus = new MemoryBus({ retention: 'all', log: quiet() });
    await bus.publish('t', messages('k', ['old']));
    const late: string[] = [];
    const early: string[] = [];
    await bus.consume({ group: 'late', topics: ['t'], concurrency: 1, fromBeginning: false, handler: async (m) => void late.push(text(m)) });
    await bus.consume({ group: 'early', topics: ['t'], concurrency: 1, handler: async (m) => void early.push(text(m)) });
    await bus.publish('t', messages('k', ['new']));
    await until('both got the new one', () => late.includes('new') && early.includes('new'), WAIT);
    expect(late).toEqual(['new']);
    expect(early).toEqual(['old', 'new']);
    await bus.close();
  });

  it('rebalances when a member joins and when one leaves', async () => {
    const bus = new MemoryBus({ defaultPartitions: 4, log: quiet() });
    const seen = [new Set<number>(), new Set<number>()];
    const join = (i: 0 | 1) =>
      bus.consume({ group: 'g', topics: ['t'], concurrency: 4, handler: async (m) => void seen[i]?.add(m.partition) });
    const keys = [0, 1, 2, 3].map((p) => keysOn(p, 4, 1)[0] as string);
    const round = async () => {
      seen.forEach((s) => s.clear());
      for (const key of keys) await bus.publish('t', messages(key, ['x']));
      await until('a round delivered', () => (seen[0]?.size ?? 0) + (seen[1]?.size ?? 0) === 4, WAIT);
    };
    const a = await join(0);
    await round();
    expect(seen[0]?.size).toBe(4);
    const b = await join(1);
    await round();
    expect([seen[0]?.size, seen[1]?.size]).toEqual([2, 2]);
    await b.stop();
    await round();
    expect(seen[0]?.size).toBe(4);
    await a.stop();
  });

  it('hands a partition to its new owner only after the old owner’s running handler settled', async () => {
    const bus = new MemoryBus({ defaultPartitions: 2, log: quiet() });
    const [key] = keysOn(1, 2, 1) as [string];
    const { promise: gate, release } = hold();
    const byA: string[] = [];
    const byB: string[] = [];
    const a: Subscription = await bus.consume({
      group: 'g',
      topics: ['t'],
      concurrency: 2,
      handler: async (m) => {
        byA.push(text(m));
        await gate;
      },
    });
    await bus.publish('t', messages(key, ['m0', 'm1', 'm2']));
    await until('A holds m0', () => byA.length === 1, WAIT);
    const b = await bus.consume({ group: 'g', topics: ['t'], concurrency: 2, handler: async (m) => void byB.push(text(m)) });
    await sleep(50);
    expect(byB).toEqual([]); // partition 1 is B's now, but m0 is still running at A
    release();
    await until('B got the rest', () => byB.length === 2, WAIT);
    expect(byA).toEqual(['m0']);
    expect(byB).toEqual(['m1', 'm2']);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('refuses work once closed, with bus_unavailable', async () => {
    const bus = new MemoryBus({ log: quiet() });
    await bus.close();
    const refused = await bus.publish('t', messages('k', ['x'])).then(
      () => null,
      (e: unknown) => e,
    );
    expect(hasCode(refused, 'bus_unavailable')).toBe(true);
    await expect(bus.consume({ group: 'g', topics: ['t'], concurrency: 1, handler: async () => {} })).rejects.toMatchObject({
      code: 'bus_unavailable',
    });
  });

  it('runs 16 handlers at once without a MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const bus = new MemoryBus({ log: quiet() });
    try {
      await bus.ensureTopics([{ name: 't', partitions: 32 }]);
      let running = 0;
      let peak = 0;
      let done = 0;
      const sub = await bus.consume({
        group: 'g',
        topics: ['t'],
        concurrency: 16,
        handler: async () => {
          peak = Math.max(peak, ++running);
          await sleep(20);
          running -= 1;
          done += 1;
        },
      });
      await bus.publish('t', Array.from({ length: 64 }, (_, i) => ({ key: `k${i}`, value: Buffer.from('x') })));
      await until('64 messages handled', () => done === 64, WAIT);
      await sub.stop();
      await sleep(0);
      expect(peak).toBeGreaterThan(10);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await bus.close();
    }
  });

  describe('within a partition: one key at a time, other keys side by side', () => {
    it('lets the messages behind a slow one in its partition run when their keys differ', async () => {
      const bus = new MemoryBus({ defaultPartitions: 2, log: quiet() });
      const [slow, ...others] = keysOn(0, 2, 4) as [string, ...string[]];
      const { promise: gate, release } = hold();
      const handled: string[] = [];
      const sub = await bus.consume({
        group: 'g',
        topics: ['t'],
        concurrency: 8,
        handler: async (m) => {
          if (m.key === slow) await gate;
          handled.push(m.key);
        },
      });
      await bus.publish('t', [...messages(slow, ['s']), ...others.flatMap((k) => messages(k, ['o']))]);
      await until('the others handled while the first waits', () => handled.length === others.length, WAIT);
      expect(handled).toEqual(others);
      // The commit stays below the running message: the backlog still counts it, retention keeps it.
      expect((await bus.lag()).find((l) => l.partition === 0)).toMatchObject({ group: 'g', lag: 4 });
      expect(bus.stats().t?.retainedMessages).toBe(4);
      release();
      await until('all handled', () => handled.length === 4, WAIT);
      await until('committed past all four', async () => (await bus.lag()).every((l) => l.lag === 0), WAIT);
      expect(bus.stats().t?.retainedMessages).toBe(0);
      await sub.stop();
    });

    it('keeps one key in publish order while other keys pass it', async () => {
      const bus = new MemoryBus({ defaultPartitions: 1, log: quiet() });
      const { promise: gate, release } = hold();
      const started: string[] = [];
      const sub = await bus.consume({
        group: 'g',
        topics: ['t'],
        concurrency: 8,
        handler: async (m) => {
          started.push(`${m.key}:${text(m)}`);
          if (text(m) === 'a1') await gate;
        },
      });
      await bus.publish('t', [...messages('a', ['a1']), ...messages('b', ['b1']), ...messages('a', ['a2']), ...messages('c', ['c1'])]);
      await until('b1 ran beside a1', () => started.includes('b:b1'), WAIT);
      await sleep(30);
      // a2 waits for a1; c1, behind a2 in the partition, waits with it.
      expect(started).toEqual(['a:a1', 'b:b1']);
      release();
      await until('the rest ran', () => started.length === 4, WAIT);
      expect(started.slice(2)).toEqual(['a:a2', 'c:c1']);
      await sub.stop();
    });

    it('after an abort, gives the next member the running message again, not what was handled above it', async () => {
      const bus = new MemoryBus({ defaultPartitions: 1, log: quiet() });
      const byA: string[] = [];
      const a = await bus.consume({
        group: 'g',
        topics: ['t'],
        concurrency: 4,
        handler: async (m) => {
          byA.push(text(m));
          if (text(m) === 'x1') await new Promise<never>(() => undefined);
        },
      });
      await bus.publish('t', [...messages('x', ['x1']), ...messages('y', ['y1']), ...messages('z', ['z1'])]);
      await until('A handled y1 and z1 and holds x1', () => byA.length === 3, WAIT);
      await a.abort();
      const byB: string[] = [];
      const b = await bus.consume({ group: 'g', topics: ['t'], concurrency: 4, handler: async (m) => void byB.push(text(m)) });
      await until('B got x1', () => byB.length === 1, WAIT);
      await sleep(30);
      expect(byB).toEqual(['x1']);
      await until('all committed', async () => (await bus.lag()).every((l) => l.lag === 0), WAIT);
      await b.stop();
    });

    it(`delivers at most ${MAX_PARTITION_WINDOW} past the lowest running message of a partition`, async () => {
      const bus = new MemoryBus({ defaultPartitions: 1, log: quiet() });
      const { promise: gate, release } = hold();
      let handled = 0;
      const sub = await bus.consume({
        group: 'g',
        topics: ['t'],
        concurrency: 16,
        handler: async (m) => {
          if (m.key === 'first') await gate;
          handled++;
        },
      });
      const total = MAX_PARTITION_WINDOW + 50;
      await bus.publish('t', [...messages('first', ['f']), ...Array.from({ length: total - 1 }, (_, i) => ({ key: `k${i}`, value: Buffer.from('x') }))]);
      await until('the window filled', () => handled === MAX_PARTITION_WINDOW - 1, { timeoutMs: 20_000, intervalMs: 10 });
      await sleep(30);
      expect(handled).toBe(MAX_PARTITION_WINDOW - 1);
      release();
      await until('everything handled', () => handled === total, { timeoutMs: 20_000, intervalMs: 10 });
      await sub.stop();
    });
  });
});
