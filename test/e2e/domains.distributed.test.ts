/**
 * The domain operations in the distributed shape (issue 29): `main.ts --role gateway`,
 * `intel`, `fetcher` and `parser` processes on librdkafka's mock Kafka, Redis and a ClickHouse
 * server, against the local RDAP, DNS and Wayback servers (RDAP_BASE_URL, DNS_SERVERS,
 * WAYBACK_URL).
 *
 * - a lookup and a screen answered by the intel process over Kafka;
 * - backlinks the parser process wrote to the link graph in the ClickHouse server, read by
 *   the intel process;
 * - a report whose archived snapshots the intel process reads through the fetcher and parser
 *   processes (its own Requester on the replies topic), then a snapshot load answered from the
 *   store the report wrote.
 * The embedded counterpart is test/e2e/domains.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { startFakeRdap, type FakeRdap } from '../helpers/fake-rdap.js';
import { startFakeWayback, type FakeWayback } from '../helpers/fake-wayback.js';
import { hasKafka } from '../helpers/kafka.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';
import { postJson } from '../helpers/api.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A request takes well under a second, but one consumer-group rebalance of the mock stalls ~29 s. */
const TEST_TIMEOUT_MS = 90_000;
const DAY = 86_400_000;
const at = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');

const page = (title: string, text: string) => `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/domains distributed (gateway, intel, fetcher, parser on Kafka)', () => {
  let cluster: Cluster;
  let base: string;
  let rdap: FakeRdap;
  let dns: FakeDns;
  let wayback: FakeWayback;
  let site: http.Server;
  let origin: string;
  const post = (path: string, body: unknown) => postJson(base, cluster.apiKey, path, body);

  beforeAll(async () => {
    rdap = await startFakeRdap({
      domains: {
        'northwind-tea-wds-e2e.com': { registered: '2014-02-01T00:00:00Z', expires: at(30), transferred: at(-10), nameservers: ['ns1.northwind-tea-wds-e2e.com'] },
      },
    });
    dns = await startFakeDns({ zones: { 'northwind-tea-wds-e2e.com': { A: ['203.0.113.44'], MX: [{ exchange: 'mx.northwind-tea-wds-e2e.com', priority: 10 }], NS: ['ns1.northwind-tea-wds-e2e.com'] } } });
    wayback = await startFakeWayback({
      captures: {
        'northwind-tea-wds-e2e.com': [
          { timestamp: '20150301000000', html: page('Northwind Tea Company', 'Loose leaf green tea, black tea and oolong from family gardens. Tea tasting and tea subscriptions.') },
          { timestamp: '20190301000000', html: page('Northwind Tea Company', 'Loose leaf green tea, black tea and oolong, tea subscriptions and tasting notes.') },
          { timestamp: '20230301000000', html: page('Northwind Tea Company', 'Green tea, black tea, oolong and herbal tea subscriptions from family gardens.') },
        ],
      },
    });
    site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page('Tea reviews', 'We recommend <a href="https://northwind-tea-wds-e2e.com/oolong">Northwind oolong</a>.')));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    cluster = await startCluster({
      main: PRODUCTION_MAIN,
      env: { FETCH_ALLOW_PRIVATE: 'true', RDAP_BASE_URL: rdap.url, DNS_SERVERS: dns.server, WAYBACK_URL: wayback.url, DOMAIN_PAGE_TIMEOUT_MS: '10000' },
    });
    // One after the other: four processes compiling and joining at once on two busy cores miss the start timeout.
    base = (await cluster.service('gateway')).url as string;
    for (const role of ['intel', 'fetcher', 'parser']) await cluster.service(role);
    // The first answers absorb a consumer-group rebalance still pending after start-up.
    await until('a first scrape answered', async () => (await post('/v1/scrape', { url: `${origin}/review` })).status === 200, { timeoutMs: 120_000, intervalMs: 500 });
    await until('a first lookup answered', async () => (await post('/v1/domain', { domain: 'northwind-tea-wds-e2e.com', backlinks: false })).status === 200, { timeoutMs: 120_000, intervalMs: 500 });
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([rdap?.close(), dns?.close(), wayback?.close()]);
    site?.close();
  }, 60_000);

  it('looks a domain up in the intel process, with the backlinks the parser process stored in ClickHouse', async () => {
    let body: Record<string, any> = {};
    // The parser's link-graph rows land in lazy batches (about a second).
    await until('the linking page in the link graph', async () => {
      const answer = await post('/v1/domain', { domain: 'https://www.northwind-tea-wds-e2e.com/shop' });
      body = answer.body;
      return answer.status === 200 && body.data.backlinks?.totalReferringDomains === 1;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    expect(body.data).toMatchObject({ domain: 'northwind-tea-wds-e2e.com', host: 'www.northwind-tea-wds-e2e.com', registration: { found: true }, dns: { A: ['203.0.113.44'] }, errors: [] });
    expect(body.data.backlinks.referringDomains[0]).toMatchObject({ domain: '127.0.0.1', pages: 1 });
    expect(body.data.cost.credits).toBe(1);
    const intel = cluster.processes.filter((p) => p.role === 'intel');
    expect(intel.some((p) => p.logLines().some((l) => l.msg === 'domain looked up'))).toBe(true);
  }, TEST_TIMEOUT_MS);

  it('screens names in the intel process', async () => {
    const { status, body } = await post('/v1/domain/screen', { domains: ['northwind-tea-wds-e2e.com', 'southwind-tea-wds-e2e.com', 'localhost'] });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.results.map((r: { status: string }) => r.status)).toEqual(['registered', 'likely_available', 'invalid']);
    expect(body.data.cost.credits).toBe(2);
  }, TEST_TIMEOUT_MS);

  it('reports with archived snapshots read through the fetcher and parser processes, then loads from the store', async () => {
    const { status, body } = await post('/v1/domain/report', { domain: 'northwind-tea-wds-e2e.com', depth: 'buyer', verifyLinks: 5 });
    expect(status, JSON.stringify(body)).toBe(200);
    const data = body.data;
    expect(data.evidence.history.snapshots.map((s: { year: number; title: string }) => [s.year, s.title])).toEqual([
      [2023, 'Northwind Tea Company'],
      [2019, 'Northwind Tea Company'],
      [2015, 'Northwind Tea Company'],
    ]);
    expect(data.evidence.history.pending).toEqual([]);
    expect(data.evidence.links).toMatchObject({ checked: 1, linking: 1 });
    expect(data.concerns.map((c: { rule: string }) => c.rule).sort()).toEqual(['expiring_soon', 'recent_transfer']);
    expect(data.evidence.mail.mx).toEqual([{ exchange: 'mx.northwind-tea-wds-e2e.com', priority: 10 }]);
    expect(data.cost.credits).toBe(25);
    // The archived pages went through the fetcher process.
    const fetched = cluster.processes.filter((p) => p.role === 'fetcher').flatMap((p) => p.logLines().filter((l) => l.msg === 'page fetched').map((l) => String(l.url)));
    expect(fetched.some((url) => url.startsWith(`${wayback.url}/web/2015`))).toBe(true);

    const load = await post('/v1/domain/history/snapshots', { domain: 'northwind-tea-wds-e2e.com' });
    expect(load.status, JSON.stringify(load.body)).toBe(200);
    expect(load.body.data.snapshots.map((s: { charge: string }) => s.charge)).toEqual(['stored', 'stored', 'stored']);
    expect(load.body.data.cost.credits).toBe(0);
  }, TEST_TIMEOUT_MS);
});
