/**
 * Extraction in the distributed shape (issue 15): `main.ts --role gateway`, `fetcher`,
 * `parser` and `extractor` processes on librdkafka's mock Kafka, Redis and a ClickHouse server,
 * with a local fake OpenAI as the operator's model (MODEL_PROVIDER=openai, OPENAI_BASE_URL) and
 * a fake Anthropic for a caller's own key (ANTHROPIC_BASE_URL). The extractor is its own process
 * on its own topic; change tracking reads and writes the ClickHouse server; and a caller's key
 * crosses the topics only sealed: every message of every topic is read back afterwards and
 * none holds it. The embedded counterpart is test/e2e/extract.test.ts.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBus } from '../../pipeline/runtime/bus/index.js';
import type { BusMessage } from '../../pipeline/runtime/bus/bus.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { TOPICS } from '../../schemas/topics.js';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeModel } from '../helpers/fake-models.js';
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
const CALLER_KEY = 'sk-ant-distributed-caller-9d8c7b6a';

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/extract distributed (gateway, fetcher, parser, extractor on Kafka)', () => {
  let cluster: Cluster;
  let base: string;
  let store: Store;
  let openai: FakeModel;
  let anthropic: FakeModel;
  let site: http.Server;
  let origin: string;
  let changing = '<html><body><h1>Menu</h1><p>Soup of the day: lentil.</p></body></html>';

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (path === '/changing') return void res.writeHead(200, { 'content-type': 'text/html' }).end(changing);
      try {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(join(FIXTURES, `${path.slice(1)}.html`)));
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    openai = await startFakeOpenAI({ answer: { section: 'City', tags: ['cycling'] } });
    anthropic = await startFakeAnthropic({ apiKey: CALLER_KEY, answer: { sku: 'TR-2' } });
    cluster = await startCluster({
      main: PRODUCTION_MAIN,
      env: { FETCH_ALLOW_PRIVATE: 'true', MODEL_PROVIDER: 'openai', MODEL_API_KEY: 'sk-operator-distributed-1', OPENAI_BASE_URL: openai.url, ANTHROPIC_BASE_URL: anthropic.url, WEBHOOK_SECRET: 'a-shared-server-secret-for-the-whole-cluster' },
    });
    const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('fetcher'), cluster.service('parser'), cluster.service('extractor')]);
    base = gateway.url as string;
    store = cluster.store();
    // The first answer absorbs a consumer-group rebalance still pending after start-up (both pools').
    await until('a first extraction answered', async () => (await postJson(base, cluster.apiKey, '/v1/scrape', { url: `${origin}/article-plain`, formats: [{ type: 'json', template: 'article' }] })).status === 200, { timeoutMs: 120_000, intervalMs: 500 });
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
    await openai?.close();
    await anthropic?.close();
    site?.close();
  }, 60_000);

  it('fills what the markup left with the operator\'s model in the extractor process, charging its price', async () => {
    const { status, body } = await postJson(base, cluster.apiKey, '/v1/scrape', { url: `${origin}/article-plain`, formats: [{ type: 'json', template: 'article' }] });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.json).toMatchObject({ title: 'City council approves new bike lanes', section: 'City', tags: ['cycling'] });
    expect(body.data.metadata.jsonSources).toMatchObject({ title: 'page', section: 'model' });
    expect(body.data.cost.credits).toBe(5);
    const extractor = cluster.processes.find((p) => p.role === 'extractor');
    expect(extractor?.logLines().some((l) => l.msg.includes('model') && l.provider === 'openai')).toBe(true);
  }, TEST_TIMEOUT_MS);

  it('answers POST /v1/extract with a caller\'s own model, at no credit cost for it', async () => {
    const { status, body } = await postJson(base, cluster.apiKey, '/v1/extract', {
      urls: [`${origin}/product-microdata`, `${origin}/product-jsonld`],
      template: 'product',
      model: { provider: 'anthropic', apiKey: CALLER_KEY },
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.results[0].data).toMatchObject({ name: 'Trail Runner 2', sku: 'TR-2' });
    expect(body.data.results[1].data).toMatchObject({ name: 'Aurora Kettle 1.7 L', sku: 'AK-17' });
    expect(body.data.cost.credits).toBe(2);
  }, TEST_TIMEOUT_MS);

  it('tracks changes in the ClickHouse server', async () => {
    const track = () => postJson(base, cluster.apiKey, '/v1/scrape', { url: `${origin}/changing`, formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'] }] });
    expect((await track()).body.data.changeTracking.changeStatus).toBe('new');
    changing = '<html><body><h1>Menu</h1><p>Soup of the day: tomato.</p></body></html>';
    const changed = await track();
    expect(changed.body.data.changeTracking.changeStatus).toBe('changed');
    expect(changed.body.data.changeTracking.diff.text).toContain('+Soup of the day: tomato.');
    const rows = await store.query<{ n: string }>('SELECT count() AS n FROM page_changes WHERE url = {url:String}', { url: `${origin}/changing` });
    expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(1);
  }, TEST_TIMEOUT_MS);

  it('never puts the caller\'s key on a topic, in a log line or in a table', async () => {
    const kafka = cluster.kafka;
    if (!kafka) throw new Error('no Kafka');
    const bus = await createBus({ kind: 'kafka', brokers: kafka.brokers, clientId: 'key-audit', log: createLogger('silent') });
    const seen: BusMessage[] = [];
    const topics = Object.values(TOPICS).map((t) => t.name);
    try {
      await bus.consume({ group: `key-audit-${Date.now()}`, topics, concurrency: 8, fromBeginning: true, handler: async (m) => void seen.push(m) });
      await until('the extract and reply topics read back', () => seen.some((m) => m.topic === TOPICS.extractRequested.name) && seen.some((m) => m.topic === TOPICS.replies.name), { timeoutMs: 60_000, intervalMs: 250 });
    } finally {
      await bus.close();
    }
    for (const m of seen) expect(`${m.value.toString('latin1')}${JSON.stringify(m.headers)}`.includes(CALLER_KEY), m.topic).toBe(false);
    for (const p of cluster.processes) expect(`${p.stdout()}${p.stderr()}`.includes(CALLER_KEY), `${p.role}'s log`).toBe(false);
    const tables = await store.query<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase()');
    for (const { name } of tables) expect(JSON.stringify(await store.query(`SELECT * FROM ${name}`)).includes(CALLER_KEY), name).toBe(false);
  }, TEST_TIMEOUT_MS);
});
