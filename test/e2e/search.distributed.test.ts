/**
 * Search in the distributed shape (issue 16): `main.ts --role gateway`, `fetcher`, `parser`
 * and two `searcher` processes on librdkafka's mock Kafka, Redis and a ClickHouse server.
 *
 * - the local index lives in the ClickHouse server: a page the parser process stores is
 *   found by a search the searcher process answers;
 * - a provider (SEARXNG_URL at a local stand-in) answers, and the results' pages are read by
 *   the fetcher and parser processes (`scrapeOptions`);
 * - places: Nominatim's one-request-a-second limit holds across both searcher processes (the
 *   limiter is in Redis): the stand-in sees their requests at least ~1 s apart.
 * The embedded counterpart is test/e2e/search.test.ts.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { startFakeSearxng, type FakeSearch } from '../helpers/fake-search.js';
import { startFakeNominatim, startFakeOverpass, type FakeNominatim, type FakeOverpass } from '../helpers/fake-osm.js';
import { hasKafka } from '../helpers/kafka.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';
import { postJson } from '../helpers/api.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A request takes well under a second, but one consumer-group rebalance of the mock stalls ~29 s. */
const TEST_TIMEOUT_MS = 90_000;
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'extract', 'site');

/** The extraction fixture pages, served from 127.0.0.1. */
async function startSite(): Promise<{ site: http.Server; origin: string }> {
  const site = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    try {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(join(FIXTURES, `${path.slice(1)}.html`)));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return { site, origin: `http://127.0.0.1:${(site.address() as AddressInfo).port}` };
}

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/search distributed (gateway, fetcher, parser, two searchers on Kafka)', () => {
  let cluster: Cluster;
  let base: string;
  let site: http.Server;
  let origin: string;
  let searxng: FakeSearch;
  let nominatim: FakeNominatim;
  let overpass: FakeOverpass;

  beforeAll(async () => {
    ({ site, origin } = await startSite());
    [searxng, nominatim, overpass] = await Promise.all([
      startFakeSearxng({ results: [{ url: `${origin}/recipe`, title: 'Lentil soup', snippet: 'A warming lentil soup.' }] }),
      startFakeNominatim(),
      startFakeOverpass(),
    ]);
    cluster = await startCluster({
      main: PRODUCTION_MAIN,
      env: { FETCH_ALLOW_PRIVATE: 'true', SEARCH_PROVIDERS: 'local', NOMINATIM_URL: nominatim.url, OVERPASS_URL: overpass.interpreterUrl },
    });
    const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('fetcher'), cluster.service('parser'), cluster.service('searcher'), cluster.service('searcher')]);
    base = gateway.url as string;
    // The first answers absorb a consumer-group rebalance still pending after start-up.
    await until('a first scrape answered', async () => (await postJson(base, cluster.apiKey, '/v1/scrape', { url: `${origin}/article-plain` })).status === 200, { timeoutMs: 120_000, intervalMs: 500 });
    await until('a first search answered', async () => (await postJson(base, cluster.apiKey, '/v1/search', { query: 'warmup' })).status === 200, { timeoutMs: 120_000, intervalMs: 500 });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([searxng?.close(), nominatim?.close(), overpass?.close()]);
    site?.close();
  }, 60_000);

  it('finds a page the parser process stored, from the ClickHouse server, in a searcher process', async () => {
    // The parser's index rows land within a second of the page (SEARCH_WRITE_DELAY_MS); another
    // process's search sees them once they have.
    const { status, body } = await until(
      'the stored page in the local index',
      async () => {
        const answer = await postJson(base, cluster.apiKey, '/v1/search', { query: 'bike lanes council' });
        return answer.status !== 200 || answer.body.data.results.length > 0 ? answer : null;
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.provider).toBe('local');
    expect(body.data.results[0]).toMatchObject({ url: `${origin}/article-plain`, position: 1, source: 'local' });
    const searchers = cluster.processes.filter((p) => p.role === 'searcher');
    expect(searchers.some((p) => p.logLines().some((l) => l.msg === 'search answered' && l.provider === 'local'))).toBe(true);
  }, TEST_TIMEOUT_MS);

  it('keeps Nominatim to one request a second across both searcher processes', async () => {
    const places = ['Austin, TX', 'Berlin', 'Marfa, Texas', 'Austin, Minnesota'];
    const answers = await Promise.all(places.map((location) => postJson(base, cluster.apiKey, '/v1/places/search', { query: 'cafes', location })));
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data.attribution.license).toBe('ODbL-1.0');
    }
    const times = nominatim.requests.map((r) => r.atMs).sort((a, b) => a - b);
    expect(times.length).toBeGreaterThanOrEqual(places.length);
    // A protocol property of the limiter, not a speed: consecutive requests ≥ 1 s apart (a timer's slack allowed).
    for (let i = 1; i < times.length; i++) expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(900);
    const served = cluster.processes.filter((p) => p.role === 'searcher' && p.logLines().some((l) => l.msg === 'places answered'));
    expect(served.length).toBeGreaterThanOrEqual(1);
  }, TEST_TIMEOUT_MS);
});

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/search distributed with a provider, reading result pages', () => {
  let cluster: Cluster;
  let base: string;
  let site: http.Server;
  let origin: string;
  let searxng: FakeSearch;

  beforeAll(async () => {
    ({ site, origin } = await startSite());
    searxng = await startFakeSearxng({ results: [{ url: `${origin}/recipe`, title: 'Lentil soup', snippet: 'A warming lentil soup.' }] });
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true', SEARXNG_URL: searxng.url } });
    const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('fetcher'), cluster.service('parser'), cluster.service('searcher')]);
    base = gateway.url as string;
    await until('a first search answered', async () => (await postJson(base, cluster.apiKey, '/v1/search', { query: 'lentil' })).status === 200, { timeoutMs: 120_000, intervalMs: 500 });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    await searxng?.close();
    site?.close();
  }, 60_000);

  it('answers from SearXNG and reads each result through the fetcher and parser processes', async () => {
    const { status, body } = await postJson(base, cluster.apiKey, '/v1/search', { query: 'lentil soup', scrapeOptions: { formats: ['markdown'] } });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.provider).toBe('searxng');
    expect(body.data.results[0]).toMatchObject({ url: `${origin}/recipe`, source: 'searxng' });
    expect(body.data.results[0].markdown).toMatch(/lentil/i);
    expect(body.data.cost.credits).toBe(2);
    expect(searxng.requests.at(-1)?.query.get('format')).toBe('json');
  }, TEST_TIMEOUT_MS);
});
