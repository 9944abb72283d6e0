/**
 * Our MCP server in the distributed shape: `main.ts --role gateway` with a fetcher, a parser
 * and a frontier, each its own process, on librdkafka's mock Kafka, Redis and a ClickHouse
 * server. The SDK's client calls scrape, map and a crawl (with its progress notifications)
 * over Streamable HTTP at the gateway's /mcp, and scrape over stdio (`main.ts mcp` with
 * WDS_URL on the gateway). The embedded counterpart is test/e2e/mcp.test.ts.
 */
import type { Progress, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { hasKafka } from '../helpers/kafka.js';
import { startMapSite, type MapSite } from '../helpers/map-site.js';
import { callTool, dataOf, expectProgress, mcpHttpClient, mcpStdioClient, textOf } from '../helpers/mcp.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A call takes well under a second, but one consumer-group rebalance of the mock stalls ~29 s. */
const TEST_TIMEOUT_MS = 150_000;

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/mcp distributed (production actors on Kafka)', () => {
  let site: FixtureSite;
  let mapSite: MapSite;
  let cluster: Cluster;
  let base = '';

  beforeAll(async () => {
    [site, mapSite] = await Promise.all([startFixtureSite(), startMapSite()]);
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true' } });
    const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('fetcher'), cluster.service('parser'), cluster.service('frontier')]);
    base = gateway.url as string;
    // The first answer absorbs a consumer-group rebalance still pending after start-up.
    const res = await fetch(`${base}/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cluster.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/html') }),
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
    if (res.status !== 200) throw new Error(`the warm-up scrape answered ${res.status}: ${await res.text()}`);
  }, 200_000);
  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([site?.close(), mapSite?.close()]);
  }, 60_000);

  it('answers scrape, map and a crawl with its progress over Streamable HTTP at the gateway', async () => {
    const client = await mcpHttpClient(base, cluster.apiKey);
    try {
      const scraped = dataOf(await callTool(client, 'scrape', { url: site.url('/html'), formats: ['markdown'], maxAge: 0 }));
      expect(scraped.markdown).toContain('Hello fixture');
      expect(scraped.cost).toMatchObject({ credits: 1, source: 'fresh' });
      const mapped = dataOf(await callTool(client, 'map', { url: mapSite.url('/'), limit: 10 }));
      expect(mapped.links).toHaveLength(10);
      const progress: Progress[] = [];
      const crawled = dataOf(
        (await client.callTool({ name: 'crawl', arguments: { url: mapSite.url('/'), ignoreSitemap: true, maxDepth: 1, limit: 5, waitSeconds: 120 } }, undefined, {
          timeout: TEST_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          onprogress: (p) => progress.push(p),
        })) as CallToolResult,
      );
      expect(crawled).toMatchObject({ status: 'completed', completed: 5 });
      expectProgress(progress, 5);
      const unknown = await callTool(client, 'batch_status', { job_id: 'no-such-job' });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^not_found: /);
    } finally {
      await client.close();
    }
  }, TEST_TIMEOUT_MS);

  it('answers over stdio given the gateway as WDS_URL', async () => {
    const { client, stderr } = await mcpStdioClient({ WDS_URL: base, WDS_API_KEY: cluster.apiKey });
    try {
      const scraped = dataOf(await callTool(client, 'scrape', { url: site.url('/html') }));
      expect(scraped.markdown).toContain('Hello fixture');
      expect(stderr()).toContain(`calling the service at ${base}`);
    } finally {
      await client.close();
    }
  }, TEST_TIMEOUT_MS);
});
