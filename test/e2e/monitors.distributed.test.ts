/**
 * Monitors in the distributed shape (issue 17): `main.ts --role gateway`, `fetcher`,
 * `parser`, `classifier`, `notifier` and two `frontier` processes on librdkafka's mock Kafka,
 * Redis and a ClickHouse server.
 *
 * - twelve monitors created at once with two frontiers popping the same schedule in Redis:
 *   each gets exactly one first check (no due time is started twice), run by the classifier
 *   process through the fetcher and parser processes, its webhook delivered by the notifier;
 * - a frontier SIGKILLed: the other keeps starting checks (a new monitor's first check runs),
 *   and a third frontier started afterwards rebuilds the schedules from the store without
 *   starting any check again, and keeps a monitor paused before it started paused (its run
 *   refused until it is resumed).
 * The embedded counterpart is test/e2e/monitors.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster, type ServiceProcess } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { hasKafka } from '../helpers/kafka.js';
import { page, startHookReceiver, startMonitorSite, type HookReceiver, type MonitorSite } from '../helpers/monitor-site.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A check takes well under a second, but one consumer-group rebalance of the mock stalls ~29 s. */
const WAIT = { timeoutMs: 120_000, intervalMs: 250 };

type Body = Record<string, any>;

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/monitors distributed (two frontiers, a classifier, a notifier on Kafka)', () => {
  let cluster: Cluster;
  let base: string;
  let site: MonitorSite;
  let hooks: HookReceiver;
  let frontiers: ServiceProcess[];

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${cluster.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(WAIT.timeoutMs),
    });
    return { status: res.status, body: (await res.json()) as Body };
  }

  const checksOf = async (id: string) => (await call('GET', `/v1/monitor/${id}/checks`)).body.data.checks as Body[];

  beforeAll(async () => {
    site = await startMonitorSite();
    hooks = await startHookReceiver();
    for (let i = 0; i < 13; i++) site.set(`/p${i}`, { html: page(`Page ${i}`, `<p>Content of page ${i}.</p>`) });
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true', WEBHOOK_SECRET: 'distributed-monitors-webhook-secret-0123456789' } });
    const started = await Promise.all([
      cluster.service('gateway'),
      cluster.service('fetcher'),
      cluster.service('parser'),
      cluster.service('classifier'),
      cluster.service('notifier'),
      cluster.service('frontier'),
      cluster.service('frontier'),
    ]);
    base = started[0].url as string;
    frontiers = [started[5], started[6]];
    // The first answer absorbs a consumer-group rebalance still pending after start-up.
    await until('a first scrape answered', async () => (await call('POST', '/v1/scrape', { url: `${site.origin}/p0` })).status === 200, { timeoutMs: 120_000, intervalMs: 500 });
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await site?.close();
    await hooks?.close();
  }, 60_000);

  it('starts each monitor\'s first check once with two frontiers, through the classifier process', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const created = await call('POST', '/v1/monitor', { name: `m${i}`, url: `${site.origin}/p${i}`, intervalMinutes: 60, ...(i === 0 ? { webhook: `${hooks.origin}/hook` } : {}) });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      ids.push(created.body.data.id);
    }
    for (const id of ids) {
      const checks = await until(`the first check of ${id}`, async () => {
        const list = await checksOf(id);
        return list[0]?.status === 'completed' ? list : null;
      }, WAIT);
      expect(checks).toHaveLength(1);
      expect(checks[0]).toMatchObject({ trigger: 'scheduled', summary: { new: 1 } });
    }
    const delivered = await until('the webhook delivered by the notifier process', () => hooks.received.find((h) => h.body.monitor?.id === ids[0]), WAIT);
    expect(delivered.body.type).toBe('monitor.check.completed');
    expect(cluster.processes.filter((p) => p.role === 'classifier')).toHaveLength(1);
  }, 240_000);

  it('keeps scheduling when a frontier dies, and a new frontier rebuilds without starting checks again', async () => {
    const [victim] = frontiers as [ServiceProcess, ServiceProcess];
    victim.child.kill('SIGKILL');
    await victim.exited;
    const created = await call('POST', '/v1/monitor', { name: 'after the kill', url: `${site.origin}/p12`, intervalMinutes: 60 });
    const id = created.body.data.id as string;
    await until('the new monitor checked by the surviving frontier', async () => (await checksOf(id))[0]?.status === 'completed', WAIT);

    // Paused before the new frontier rebuilds from the store: it stays paused, and a run is refused.
    const paused = await call('PATCH', `/v1/monitor/${id}`, { status: 'paused' });
    expect(paused.body.data).toMatchObject({ status: 'paused', nextCheckAt: null });
    await cluster.service('frontier');
    const refused = await call('POST', `/v1/monitor/${id}/run`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('monitor_paused');
    expect((await call('GET', `/v1/monitor/${id}`)).body.data).toMatchObject({ status: 'paused', nextCheckAt: null });
    const resumed = await call('PATCH', `/v1/monitor/${id}`, { status: 'active' });
    expect(resumed.body.data.status).toBe('active');
    // A manual run through the new topology proves it is live; every monitor still has one scheduled check.
    const run = await call('POST', `/v1/monitor/${id}/run`);
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const monitors = (await call('GET', '/v1/monitor')).body.data.monitors as Body[];
    expect(monitors).toHaveLength(13);
    for (const m of monitors) {
      const scheduled = (await checksOf(m.id)).filter((c) => c.trigger === 'scheduled');
      expect(scheduled, m.name).toHaveLength(1);
      expect(Date.parse(m.nextCheckAt)).toBeGreaterThan(Date.now() + 50 * 60_000);
    }
  }, 240_000);
});
