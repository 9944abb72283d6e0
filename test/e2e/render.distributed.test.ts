/**
 * Browser scrapes in the distributed shape: `main.ts --role gateway`, `--role renderer` and
 * `--role parser` as separate processes on librdkafka's mock Kafka, Redis and a ClickHouse
 * server (chdb's HTTP interface in its own process), reading a local site. The renderer is
 * its own pool: the gateway routes a `waitFor`/`actions`/`screenshot` scrape to
 * `renderRequested`, the renderer process renders it in Chromium and emits PageFetched v3,
 * the parser process answers. The embedded counterpart is test/e2e/render.test.ts.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICES } from '../../schemas/api/prices.js';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { CHROMIUM, engine } from '../helpers/engines.js';
import { hasKafka } from '../helpers/kafka.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { startRenderSite, type RenderSite } from '../helpers/render-site.js';

const BROWSER_PAGE_CREDITS = PRICES.browserPage.credits;

const hasChromium = await engine('chromium', () => existsSync(CHROMIUM.path), CHROMIUM.install);
const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A render takes about a second, but one consumer-group rebalance of the mock stalls ~29 s. */
const TEST_TIMEOUT_MS = 90_000;

async function post(base: string, key: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${base}/v1/scrape`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe.skipIf(!hasChromium || !hasChdb || !kafkaUp || !redisUp)('e2e/render distributed (renderer process on Kafka)', () => {
  let site: RenderSite;
  let cluster: Cluster;
  let base: string;

  beforeAll(async () => {
    site = await startRenderSite();
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true', RENDER_CHROMIUM_PATH: CHROMIUM.path } });
    const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('renderer'), cluster.service('parser')]);
    base = gateway.url as string;
  }, 150_000);
  afterAll(async () => {
    await cluster?.stop();
    await site?.close();
  }, 60_000);

  it(
    'renders a scrape with actions and a screenshot in the renderer process and charges a browser page',
    async () => {
      const answer = await post(base, cluster.apiKey, {
        url: site.url('/reveal'),
        formats: ['markdown', 'screenshot'],
        actions: [{ type: 'click', selector: '#show' }, { type: 'executeJavascript', script: 'return location.pathname' }],
      });
      expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200);
      expect(answer.body.data.markdown).toContain('The revealed paragraph');
      expect(answer.body.data.actions.javascriptReturns).toEqual([{ type: 'string', value: '/reveal' }]);
      expect(answer.body.data.screenshot).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
      expect(answer.body.data.cost).toMatchObject({ credits: BROWSER_PAGE_CREDITS, source: 'fresh' });
    },
    TEST_TIMEOUT_MS * 2,
  );
});
