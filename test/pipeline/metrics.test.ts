/**
 * pipeline/runtime/metrics/: what each hook counts, without a service. The metered bus's
 * consumed and produced counts and its groups' lag (on both buses: the memory bus's queue
 * depth, Kafka's committed offsets against the high watermarks); an actor pool's handler
 * histogram, retries, dead letters and in-flight count; the batch writer's inserts, counted
 * and timed, failures apart; the metrics server's address (loopback unless METRICS_HOST
 * says) and its answers. Every Metrics is its own registry: two never share a count.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventValue } from '../../schemas/events/index.js';
import { TOPICS } from '../../schemas/topics.js';
import { MemoryBlobs } from '../../pipeline/runtime/blobs.js';
import type { Bus } from '../../pipeline/runtime/bus/bus.js';
import { MemoryBus } from '../../pipeline/runtime/bus/memory.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import { Events, type Emission } from '../../pipeline/runtime/events.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { meteredBus, meteredInserts } from '../../pipeline/runtime/metrics/metered.js';
import { Metrics } from '../../pipeline/runtime/metrics/metrics.js';
import { serveMetrics } from '../../pipeline/runtime/metrics/server.js';
import { ActorPool, type Outcome } from '../../pipeline/runtime/pool.js';
import { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { onBothBuses } from '../helpers/kafka.js';
import { parseExposition, sample, scrapeMetrics } from '../helpers/metrics.js';
import { until } from '../helpers/wait.js';
import { hold } from '../helpers/hold.js';

const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

const samplesOf = async (metrics: Metrics) => parseExposition(await metrics.text());

interface Rig {
  bus: Bus;
  limitMs: number;
  close(): Promise<void>;
}

function lagSuite(name: string, setup: () => Promise<Rig>, options: { concurrent?: boolean; testTimeoutMs?: number } = {}): void {
  describe(name, () => {
    let r: Rig;
    beforeAll(async () => {
      r = await setup();
    });
    afterAll(async () => {
      await r?.close();
    });

    it('counts what is published and consumed per topic, and reports the group\'s lag until it has committed', { timeout: options.testTimeoutMs ?? 30_000 }, async () => {
      const metrics = new Metrics();
      const bus = meteredBus(r.bus, metrics);
      const topic = `metrics-test-${randomUUID().slice(0, 8)}`;
      const group = `metrics-group-${randomUUID().slice(0, 8)}`;
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => (open = resolve));
      const subscription = await bus.consume({ group, topics: [topic], concurrency: 2, fromBeginning: true, handler: () => gate });
      try {
        await bus.publish(topic, Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: Buffer.from(`m${i}`) })));
        // At most one handler per partition runs; nothing is committed while they wait.
        await until('a message handed over', async () => (sample(await samplesOf(metrics), 'wds_events_consumed_total', { topic, group }) ?? 0) >= 1, r.limitMs);
        const lagged = await samplesOf(metrics);
        expect(sample(lagged, 'wds_events_produced_total', { topic })).toBe(6);
        expect(sample(lagged, 'wds_events_consumed_total', { topic, group })).toBeLessThanOrEqual(2);
        expect(sample(lagged, 'wds_consumer_lag', { group, topic })).toBe(6);
      } finally {
        open();
      }
      await until('the lag drained', async () => sample(await samplesOf(metrics), 'wds_consumer_lag', { group, topic }) === 0, r.limitMs);
      expect(sample(await samplesOf(metrics), 'wds_events_consumed_total', { topic, group })).toBe(6);
      await subscription.stop();
    });
  });
}

await onBothBuses<Rig>('metered bus', 'metrics-test', log, lagSuite, async (bus, limitMs, close) => ({ bus, limitMs, close }));

describe('an actor pool\'s counts', () => {
  it('times each attempt per event, counts retries and dead letters by code, and reports its messages in flight', async () => {
    const metrics = new Metrics();
    const memory = new MemoryBus({ log });
    const bus = meteredBus(memory, metrics);
    const events = new Events(bus, await createCodec(), new MemoryBlobs(), Number.POSITIVE_INFINITY);
    await events.ensureTopics();
    const attempts = new Map<string, number>();
    const { promise: held, release } = hold();
    const pool = new ActorPool(
      {
        name: 'metrics-test',
        group: 'metrics-test-pool',
        topics: ['testPings'],
        concurrency: 4,
        timeoutMs: 10_000,
        handlers: {
          TestPing: async (ping: EventValue<'TestPing'>): Promise<Outcome> => {
            const n = (attempts.get(ping.id) ?? 0) + 1;
            attempts.set(ping.id, n);
            if (ping.id === 'flaky') return n < 3 ? { kind: 'retry', code: 'upstream_timeout', message: 'not yet' } : { kind: 'ack' };
            if (ping.id === 'poison') return { kind: 'dead', code: 'bad_request', message: 'never' };
            await held;
            return { kind: 'ack' };
          },
        },
      },
      events,
      log,
      { attempts: 4, baseDelayMs: 5, maxDelayMs: 10 },
      metrics,
    );
    await pool.start();
    const ping = (id: string): Emission<'testPings'> => ({ topic: 'testPings', key: id, value: { id, seq: 0, payload: Buffer.from(id), sentAtMs: 0 } });
    await events.emit([ping('flaky'), ping('poison')]);
    let last = '';
    await until(() => `the flaky ping acked and the poison dead-lettered: ${last}`, async () => {
      const s = await samplesOf(metrics);
      last = s.filter((x) => !x.name.includes('bucket')).map((x) => `${x.name}${JSON.stringify(x.labels)} ${x.value}`).join('; ');
      return sample(s, 'wds_dead_letters_total', { actor: 'metrics-test' }) === 1 && sample(s, 'wds_handler_duration_seconds_count', { actor: 'metrics-test', event: 'TestPing' }) === 4;
    });
    const s = await samplesOf(metrics);
    expect(sample(s, 'wds_handler_retries_total', { actor: 'metrics-test', code: 'upstream_timeout' })).toBe(2);
    expect(sample(s, 'wds_dead_letters_total', { actor: 'metrics-test', code: 'bad_request' })).toBe(1);
    expect(sample(s, 'wds_events_produced_total', { topic: TOPICS.deadLetters.name })).toBe(1);
    expect(sample(s, 'wds_handlers_in_flight', { actor: 'metrics-test' })).toBe(0);
    await events.emit([ping('held')]);
    await until('the held ping in flight', async () => sample(await samplesOf(metrics), 'wds_handlers_in_flight', { actor: 'metrics-test' }) === 1);
    release();
    await until('nothing in flight', async () => sample(await samplesOf(metrics), 'wds_handlers_in_flight', { actor: 'metrics-test' }) === 0);
    expect(sample(await samplesOf(new Metrics()), 'wds_handler_retries_total', {})).toBeUndefined();
    await pool.stop();
    await memory.close();
  });
});

describe('the counters and histograms', () => {
  it('expose cumulative buckets (a value on a bound counts in it), +Inf, sum and count, and escape label values', async () => {
    const metrics = new Metrics();
    const seconds = metrics.storeSeconds.labels('pages');
    for (const value of [0.003, 0.005, 0.02, 100]) seconds.observe(value);
    metrics.eventsProduced.labels('a "quoted" topic').inc(2);
    const text = await metrics.text();
    expect(text).toContain('# TYPE wds_store_insert_duration_seconds histogram');
    expect(text).toContain('# TYPE wds_events_produced_total counter');
    expect(text).toContain('wds_events_produced_total{topic="a \\"quoted\\" topic"} 2');
    const s = parseExposition(text);
    const bucket = (le: string) => sample(s, 'wds_store_insert_duration_seconds_bucket', { table: 'pages', le });
    expect([bucket('0.0025'), bucket('0.005'), bucket('0.01'), bucket('0.025'), bucket('10'), bucket('+Inf')]).toEqual([0, 2, 2, 3, 3, 4]);
    expect(sample(s, 'wds_store_insert_duration_seconds_count', { table: 'pages' })).toBe(4);
    expect(sample(s, 'wds_store_insert_duration_seconds_sum', { table: 'pages' })).toBeCloseTo(100.028, 6);
    expect(() => metrics.storeSeconds.labels('pages', 'extra')).toThrow(RangeError);
  });
});

describe('the batch writer\'s inserts', () => {
  it('counts batches and rows per table, times them, and counts a failed batch apart', async () => {
    const metrics = new Metrics();
    let fail = false;
    const store = {
      insert: async () => {
        if (fail) throw new Error('the store is down');
      },
    };
    const writer = new BatchWriter(meteredInserts(store, metrics), { maxRows: 100, maxDelayMs: 1 }, log);
    await Promise.all([writer.write('pages', [{ a: 1 }, { a: 2 }]), writer.write('pages', [{ a: 3 }])]);
    fail = true;
    await expect(writer.write('pages', [{ a: 4 }])).rejects.toThrow('the store is down');
    const s = await samplesOf(metrics);
    expect(sample(s, 'wds_store_insert_batches_total', { table: 'pages', result: 'ok' })).toBe(1);
    expect(sample(s, 'wds_store_insert_batches_total', { table: 'pages', result: 'failed' })).toBe(1);
    expect(sample(s, 'wds_store_insert_rows_total', { table: 'pages' })).toBe(3);
    expect(sample(s, 'wds_store_insert_duration_seconds_count', { table: 'pages' })).toBe(1);
    await writer.close();
  });
});

describe('the metrics server', () => {
  it('is off unless METRICS_PORT is set, and on loopback unless METRICS_HOST says otherwise', () => {
    const unset = loadConfig({});
    expect(unset.metricsPort).toBeNull();
    expect(unset.metricsHost).toBe('127.0.0.1');
    const set = loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });
    expect(set.metricsPort).toBe(9464);
    expect(set.metricsHost).toBe('0.0.0.0');
    expect(() => loadConfig({ METRICS_PORT: 'ninety' })).toThrow(/METRICS_PORT/);
  });

  it('listens on the host it is given, answers GET /metrics in the text format and 404 elsewhere', async () => {
    const metrics = new Metrics();
    metrics.eventsProduced.labels('wds.test.pings').inc(3);
    const server = await serveMetrics(metrics, { port: 0, host: '127.0.0.2' }, log);
    try {
      expect(server.address.address).toBe('127.0.0.2');
      const base = `http://127.0.0.2:${server.address.port}`;
      const s = await scrapeMetrics(base);
      expect(sample(s, 'wds_events_produced_total', { topic: 'wds.test.pings' })).toBe(3);
      expect(sample(s, 'wds_process_resident_memory_bytes', {})).toBeGreaterThan(0);
      const other = await fetch(`${base}/`);
      expect(other.status).toBe(404);
      await other.text();
      const post = await fetch(`${base}/metrics`, { method: 'POST' });
      expect(post.status).toBe(404);
      await post.text();
    } finally {
      await server.close();
    }
  });
});
