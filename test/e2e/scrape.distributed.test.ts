/**
 * POST /v1/scrape through the production actors in the distributed shape: `main.ts --role
 * gateway`, two `--role fetcher`, one `--role parser` and one `--role frontier` (POST /v1/map)
 * processes on librdkafka's mock Kafka,
 * Redis and a ClickHouse server (chdb's HTTP interface in its own process), reading a local
 * fixture site. The embedded counterpart is test/e2e/scrape.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { hasKafka } from '../helpers/kafka.js';
import { SITEMAP_PAGES, startMapSite, type MapSite } from '../helpers/map-site.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A request takes well under a second, but one consumer-group rebalance of the mock stalls ~29 s. */
const TEST_TIMEOUT_MS = 90_000;

interface Answer {
  status: number;
  requestId: string;
  body: Record<string, any>;
}

async function post(base: string, key: string, body: Record<string, unknown>, path = '/v1/scrape'): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
  });
  return { status: res.status, requestId: res.headers.get('x-request-id') ?? '', body: (await res.json()) as Record<string, any> };
}

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/scrape distributed (production actors on Kafka)', () => {
  let site: FixtureSite;
  let mapSite: MapSite;
  let cluster: Cluster;
  let base: string;
  let store: Store;

  beforeAll(async () => {
    site = await startFixtureSite();
    mapSite = await startMapSite();
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true' } });
    const [gateway] = await Promise.all([
      cluster.service('gateway'),
      cluster.service('fetcher'),
      cluster.service('fetcher'),
      cluster.service('parser'),
      cluster.service('frontier'),
    ]);
    base = gateway.url as string;
    store = cluster.store();
    // The first answer absorbs a consumer-group rebalance still pending after start-up.
    const first = await post(base, cluster.apiKey, { url: site.url('/html') });
    if (first.status !== 200) throw new Error(`the warm-up scrape answered ${first.status}: ${JSON.stringify(first.body)}`);
    const firstMap = await post(base, cluster.apiKey, { url: mapSite.url('/'), limit: 1 }, '/v1/map');
    if (firstMap.status !== 200) throw new Error(`the warm-up map answered ${firstMap.status}: ${JSON.stringify(firstMap.body)}`);
  }, 150_000);
  afterAll(async () => {
    await cluster?.stop();
    await site?.close();
    await mapSite?.close();
  }, 60_000);

  it('returns the page as markdown with its metadata, charged one fresh credit, and stores it', async () => {
    const answer = await post(base, cluster.apiKey, { url: site.url('/html'), formats: ['markdown', 'links'], maxAge: 0 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.markdown).toContain('Hello fixture');
    expect(Array.isArray(answer.body.data.links)).toBe(true);
    expect(answer.body.data.metadata).toMatchObject({ title: 'Fixture', statusCode: 200, sourceURL: site.url('/html') });
    expect(answer.body.data.cost).toMatchObject({ credits: 1, source: 'fresh' });
    const rows = await store.query<{ title: string; status_code: number }>(
      'SELECT title, status_code FROM pages FINAL WHERE request_id = {id:String}',
      { id: answer.requestId },
    );
    expect(rows).toEqual([{ title: 'Fixture', status_code: 200 }]);
  }, TEST_TIMEOUT_MS);

  it('decodes a non-UTF-8 page and follows redirects across the processes', async () => {
    const [cyrillic, redirected] = await Promise.all([
      post(base, cluster.apiKey, { url: site.url('/cp1251'), maxAge: 0 }),
      post(base, cluster.apiKey, { url: site.url('/redirect/chain'), maxAge: 0 }),
    ]);
    expect(cyrillic.status, JSON.stringify(cyrillic.body)).toBe(200);
    expect(cyrillic.body.data.markdown).toContain('Привет, мир!');
    expect(redirected.status, JSON.stringify(redirected.body)).toBe(200);
    expect(redirected.body.data.metadata.url).toBe(site.url('/html'));
  }, TEST_TIMEOUT_MS);

  it('serves a copy stored by one fetcher process to the next request from the cache, free', async () => {
    const url = site.url('/html?cache=distributed');
    const first = await post(base, cluster.apiKey, { url, maxAge: 0 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const hits = site.requests.length;
    // The parser's batch writer lands the copy within a flush interval; a miss fetches fresh.
    let again: Answer | undefined;
    for (let i = 0; i < 20 && again?.body.data?.cost?.source !== 'cache'; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      again = await post(base, cluster.apiKey, { url, maxAge: 600_000, formats: ['links'] });
    }
    expect(again?.status, JSON.stringify(again?.body)).toBe(200);
    expect(again?.body.data.cost).toMatchObject({ credits: 0, source: 'cache' });
    expect(Array.isArray(again?.body.data.links)).toBe(true);
    expect(again?.body.data.markdown).toBeUndefined();
    // Every miss before the copy landed was one fetch; the hit was none.
    const misses = site.requests.slice(hits).filter((r) => r.path.includes('cache=distributed')).length;
    expect(misses).toBeLessThan(20);
    const last = site.requests.length;
    const third = await post(base, cluster.apiKey, { url, maxAge: 600_000 });
    expect(third.body.data.cost).toMatchObject({ credits: 0, source: 'cache' });
    expect(site.requests.length).toBe(last);
  }, TEST_TIMEOUT_MS);

  it('reads an upstream 404 as a successful scrape and answers a redirect loop with its code, uncharged', async () => {
    const [missing, loop] = await Promise.all([
      post(base, cluster.apiKey, { url: site.url('/status/404'), maxAge: 0 }),
      post(base, cluster.apiKey, { url: site.url('/redirect/loop-a'), maxAge: 0 }),
    ]);
    expect(missing.status, JSON.stringify(missing.body)).toBe(200);
    expect(missing.body.data.metadata.statusCode).toBe(404);
    expect(loop.status, JSON.stringify(loop.body)).toBe(502);
    expect(loop.body.error.code).toBe('too_many_redirects');
    const charged = await store.query<{ request_id: string }>(
      "SELECT request_id FROM credit_ledger FINAL WHERE reason = 'charge' AND request_id IN {ids:Array(String)}",
      { ids: [missing.requestId, loop.requestId] },
    );
    expect(charged.map((r) => r.request_id)).toEqual([missing.requestId]);
  }, TEST_TIMEOUT_MS);

  it('maps a site through the frontier process: every sitemap URL, the walk, one credit', async () => {
    const answer = await post(base, cluster.apiKey, { url: mapSite.url('/') }, '/v1/map');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const urls = (answer.body.data.links as { url: string }[]).map((l) => l.url);
    expect(urls[0]).toBe(mapSite.url('/'));
    for (let n = 1; n <= SITEMAP_PAGES; n++) expect(urls, `/page/${n}`).toContain(mapSite.url(`/page/${n}`));
    expect(urls).toContain(mapSite.url('/hidden/0/0'));
    expect(mapSite.requests).not.toContain('/private/area');
    expect(answer.body.data.cost).toMatchObject({ credits: 1 });
  }, TEST_TIMEOUT_MS);
});
