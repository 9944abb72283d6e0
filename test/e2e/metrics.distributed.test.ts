/**
 * The operators' metrics in the distributed shape: `main.ts --role gateway`, `--role fetcher`
 * and `--role parser` processes on librdkafka's mock Kafka, Redis and a ClickHouse server,
 * each with METRICS_PORT=0, so each serves its own /metrics on loopback (the port it logs).
 * After a few scrapes each process counts its own part: the gateway its answers and the
 * requests it published, the fetcher and the parser what their groups consumed and their
 * handlers' times, and each pool its group's lag read from Kafka, per partition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPICS } from '../../schemas/topics.js';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster, type ServiceProcess } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { hasKafka } from '../helpers/kafka.js';
import { sample, scrapeMetrics } from '../helpers/metrics.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

const TEST_TIMEOUT_MS = 90_000;
const SCRAPES = 3;

/** Where a process serves its metrics: the address of its 'metrics served' log line. */
async function metricsBase(process: ServiceProcess): Promise<{ base: string; host: string }> {
  const line = await until(`${process.role}'s metrics address`, () => process.logLines().find((l) => l.msg === 'metrics served at /metrics'), 30_000);
  return { base: `http://127.0.0.1:${String(line.port)}`, host: String(line.host) };
}

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/metrics distributed (one /metrics per process)', () => {
  let site: FixtureSite;
  let cluster: Cluster;
  let processes: Record<'gateway' | 'fetcher' | 'parser', ServiceProcess>;

  beforeAll(async () => {
    site = await startFixtureSite();
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true', METRICS_PORT: '0' } });
    const [gateway, fetcher, parser] = await Promise.all([cluster.service('gateway'), cluster.service('fetcher'), cluster.service('parser')]);
    processes = { gateway, fetcher, parser };
    for (let i = 0; i < SCRAPES; i++) {
      const res = await fetch(`${gateway.url}/v1/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cluster.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: site.url('/html'), maxAge: 0 }),
        signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
      });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`scrape ${i} answered ${res.status}: ${body}`);
    }
  }, 200_000);

  afterAll(async () => {
    await cluster?.stop();
    await site?.close();
  }, 60_000);

  it('each process serves its own metrics on loopback', async () => {
    for (const process of Object.values(processes)) expect((await metricsBase(process)).host, process.role).toBe('127.0.0.1');
  });

  it('the gateway counts its answers by operation and status, and the requests it published', async () => {
    const s = await scrapeMetrics((await metricsBase(processes.gateway)).base);
    expect(sample(s, 'wds_http_requests_total', { operation: 'scrape', status: '200' })).toBe(SCRAPES);
    expect(sample(s, 'wds_http_request_duration_seconds_count', { operation: 'scrape' })).toBe(SCRAPES);
    expect(sample(s, 'wds_events_produced_total', { topic: TOPICS.scrapeRequested.name })).toBe(SCRAPES);
  });

  it('each pool counts what its group consumed and its handlers\' times, and reads its group\'s lag from Kafka', { timeout: TEST_TIMEOUT_MS }, async () => {
    const pools = [
      { process: processes.fetcher, group: 'fetcher', topic: TOPICS.scrapeRequested.name, event: 'ScrapeRequested' },
      { process: processes.parser, group: 'parser', topic: TOPICS.pageFetched.name, event: 'PageFetched' },
    ];
    for (const { process, group, topic, event } of pools) {
      const { base } = await metricsBase(process);
      // Offsets are committed just after the handlers finish: the lag reaches 0 soon after.
      const s = await until(`${group}'s lag drained`, async () => {
        const now = await scrapeMetrics(base);
        return sample(now, 'wds_consumer_lag', { group, topic }) === 0 ? now : null;
      }, 30_000);
      expect(sample(s, 'wds_events_consumed_total', { topic, group }), group).toBeGreaterThanOrEqual(SCRAPES);
      expect(sample(s, 'wds_handler_duration_seconds_count', { actor: group, event }), group).toBeGreaterThanOrEqual(SCRAPES);
      const partitions = s.filter((x) => x.name === 'wds_consumer_lag' && x.labels.group === group && x.labels.topic === topic);
      // Every partition of the topic, as the brokers have it (the mock cluster makes its topics with its own default count).
      const numbers = partitions.map((x) => Number(x.labels.partition)).sort((a, b) => a - b);
      expect(numbers.length, group).toBeGreaterThan(0);
      expect(numbers, group).toEqual(numbers.map((_, i) => i));
      expect(sample(s, 'wds_handlers_in_flight', { actor: group }), group).toBe(0);
    }
  });
});
