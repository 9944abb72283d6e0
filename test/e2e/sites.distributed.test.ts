/**
 * Company, products and posts in the distributed shape (issue 30): `main.ts --role gateway`,
 * `fetcher` and two `intel` processes on librdkafka's mock Kafka, Redis and a ClickHouse
 * server.
 *
 * - the intel processes read each site through the fetcher process (FetchRequested over
 *   Kafka; a products.json page of 250 products with real descriptions, ~700 KB, is more than
 *   an inline Kafka message may carry, KAFKA_INLINE_LIMIT_BYTES, and its Reply travels by
 *   reference through the blob store, as every large payload does);
 * - a company answer kept by one intel process (in the ClickHouse server) answers the same
 *   company asked again, whichever intel process takes it.
 * The embedded counterpart is test/e2e/sites.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { hasKafka } from '../helpers/kafka.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';
import { postJson } from '../helpers/api.js';
import { KAFKA_INLINE_LIMIT_BYTES } from '../../pipeline/runtime/runtime.js';
import { blogPosts, wordpressBlog } from '../helpers/fake-sites/blogs.js';
import { germanImprint } from '../helpers/fake-sites/company.js';
import { startFakeSite, type FakeSite } from '../helpers/fake-sites/server.js';
import { products, shopifyStore } from '../helpers/fake-sites/stores.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A request takes a second or two, but one consumer-group rebalance of the mock stalls ~29 s. */
const TEST_TIMEOUT_MS = 90_000;

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/sites distributed (gateway, fetcher, two intel processes on Kafka)', () => {
  let cluster: Cluster;
  let base: string;
  const company = germanImprint();
  const shopTruth = products(600);
  let companySite: FakeSite;
  let shop: FakeSite;
  let blog: FakeSite;

  beforeAll(async () => {
    [companySite, shop, blog] = await Promise.all([startFakeSite(company.routes), startFakeSite(shopifyStore(shopTruth, { descriptionChars: 2_500 })), startFakeSite(wordpressBlog(blogPosts(30)))]);
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true', SITE_PAGE_TIMEOUT_MS: '10000' } });
    const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('fetcher'), cluster.service('intel'), cluster.service('intel')]);
    base = gateway.url as string;
    // The first answer absorbs a consumer-group rebalance still pending after start-up.
    await until('a first posts listing answered', async () => (await postJson(base, cluster.apiKey, '/v1/posts', { url: blog.origin, limit: 5 })).status === 200, { timeoutMs: 120_000, intervalMs: 500 });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([companySite?.close(), shop?.close(), blog?.close()]);
  }, 60_000);

  it('reads a company through the fetcher process and answers it again from the ClickHouse server', async () => {
    const first = await postJson(base, cluster.apiKey, '/v1/company', { url: companySite.origin });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ name: company.truth.name, cached: false });
    expect(first.body.data.contacts.emails.map((e: { email: string }) => e.email).sort()).toEqual([...company.truth.emails].sort());
    expect(first.body.data.cost.credits).toBe(4);
    const fetcher = cluster.processes.find((p) => p.role === 'fetcher');
    expect(fetcher?.logLines().some((l) => l.msg === 'bytes fetched' && String(l.url).startsWith(companySite.origin))).toBe(true);
    for (let i = 0; i < 3; i += 1) {
      const again = await postJson(base, cluster.apiKey, '/v1/company', { url: `${companySite.origin}/kontakt` });
      expect(again.body.data).toMatchObject({ cached: true, readAt: first.body.data.readAt, cost: { credits: 0 } });
    }
  }, TEST_TIMEOUT_MS);

  it('lists a Shopify store whose pages travel by reference between the processes', async () => {
    const page = await fetch(`${shop.origin}/products.json?limit=250&page=1`);
    expect((await page.arrayBuffer()).byteLength * (4 / 3)).toBeGreaterThan(KAFKA_INLINE_LIMIT_BYTES);
    const { status, body } = await postJson(base, cluster.apiKey, '/v1/products', { url: shop.origin, limit: 10_000 });
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    expect(body.data.products).toHaveLength(600);
    expect(body.data.products.at(-1)).toMatchObject({ title: shopTruth.at(-1)?.title, price: shopTruth.at(-1)?.prices[0], currency: 'EUR' });
    const intel = cluster.processes.filter((p) => p.role === 'intel' && p.logLines().some((l) => l.msg === 'products listed'));
    expect(intel).toHaveLength(1);
  }, TEST_TIMEOUT_MS);
});
