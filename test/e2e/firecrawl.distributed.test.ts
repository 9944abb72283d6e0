/**
 * Firecrawl's v2 API under /firecrawl in the distributed shape (issue 32): the production
 * actors as separate processes (a gateway, a frontier, a fetcher, a parser) on the mock Kafka,
 * Redis and a ClickHouse server, driven by Firecrawl's JS SDK 4.x: a scrape, a map, a crawl
 * paged through `next` links one document at a time, a batch cancelled (the jobs' own handler
 * on the distributed records), an extract job whose answer is kept in Redis, and the key's
 * credits read from the distributed key registry (its balance, its month's charges from the
 * store's ledger); an upload parsed by the parser process; a crawl watched over the WebSocket
 * from the gateway process; and the 1.x SDK's scrape, map and crawl against the same cluster.
 */
import Firecrawl from '@mendable/firecrawl-js';
import FirecrawlApp from 'firecrawl-js-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { hasKafka } from '../helpers/kafka.js';
import { engine } from '../helpers/engines.js';
import { startFirecrawlSite, watchedCrawl, type FirecrawlSite } from '../helpers/firecrawl-site.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';

const ready = (await chdbAvailable()) && (await hasKafka()) && (await engine('redis', () => redisProbe(), REDIS_INSTALL));

describe.skipIf(!ready)('e2e/firecrawl distributed: the 4.x SDK against a cluster', () => {
  let site: FirecrawlSite;
  let cluster: Cluster;
  let base: string;
  let fc: Firecrawl;

  beforeAll(async () => {
    site = await startFirecrawlSite();
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true', REQUEST_TIMEOUT_MS: '60000' } });
    base = (await cluster.service('gateway')).url as string;
    await Promise.all([cluster.service('frontier'), cluster.service('fetcher')]);
    await cluster.service('parser');
    fc = new Firecrawl({ apiKey: cluster.apiKey, apiUrl: `${base}/firecrawl`, maxRetries: 1 });
    // The first scrape absorbs the consumer-group rebalances still pending after start-up.
    for (let i = 0; ; i++) {
      try {
        await fc.scrape(site.url('/'), { maxAge: 0, timeout: 20_000 });
        break;
      } catch (error) {
        if (i >= 5) throw error;
      }
    }
  }, 360_000);

  afterAll(async () => {
    await cluster?.stop();
    await site?.close();
  }, 60_000);

  it('scrapes and maps', async () => {
    const doc = await fc.scrape(site.url('/about'), { formats: ['markdown', 'links'], maxAge: 0 });
    expect(doc.markdown).toContain('We sell kettles since 1999');
    expect(doc.metadata).toMatchObject({ sourceURL: site.url('/about'), creditsUsed: 1 });
    const mapped = await fc.map(site.url('/'), { search: 'blog' });
    expect(mapped.links.map((l) => l.url)).toEqual(expect.arrayContaining([site.url('/blog/one'), site.url('/blog/two')]));
  }, 120_000);

  it('crawls, paging the documents through `next` links one at a time', async () => {
    const started = await fc.startCrawl(site.url('/'), { limit: 3, sitemap: 'skip', scrapeOptions: { maxAge: 0 } });
    let status = await fc.getCrawlStatus(started.id, { autoPaginate: false });
    for (let i = 0; i < 480 && status.status === 'scraping'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = await fc.getCrawlStatus(started.id, { autoPaginate: false });
    }
    expect(status).toMatchObject({ status: 'completed', total: 3, completed: 3 });
    const urls: string[] = [];
    let next: string | null = `${base}/firecrawl/v2/crawl/${started.id}?limit=1`;
    while (next) {
      expect(next.startsWith(`${base}/firecrawl/v2/crawl/`)).toBe(true);
      const res = await fetch(next, { headers: { authorization: `Bearer ${cluster.apiKey}` } });
      const body = (await res.json()) as { data: { metadata: { sourceURL: string } }[]; next?: string | null };
      expect(body.data.length).toBeLessThanOrEqual(1);
      urls.push(...body.data.map((d) => d.metadata.sourceURL));
      next = body.next ?? null;
    }
    expect(urls).toHaveLength(3);
    expect(new Set(urls).size).toBe(3);
  }, 180_000);

  it('cancels a batch and keeps an extract job in Redis', async () => {
    const batch = await fc.startBatchScrape([site.url('/'), site.url('/about'), site.url('/blog/one')], { options: { maxAge: 0 }, maxConcurrency: 1 });
    expect(await fc.cancelBatchScrape(batch.id)).toBe(true);
    expect((await fc.getBatchScrapeStatus(batch.id)).status).toBe('cancelled');

    const extracted = await fc.extract({ urls: [site.url('/product')], schema: { type: 'object', properties: { name: { type: 'string' } } }, pollInterval: 1, timeout: 120 });
    expect(extracted).toMatchObject({ status: 'completed', data: { name: 'Aurora Kettle 1.7 L' } });
  }, 180_000);

  it('reads a metered key\'s credits from the distributed registry', async () => {
    const keys = await cluster.keys();
    const { key } = await keys.create({ name: 'metered', credits: 7 });
    const metered = new Firecrawl({ apiKey: key, apiUrl: `${base}/firecrawl`, maxRetries: 1 });
    expect((await metered.getCreditUsage()).remainingCredits).toBe(7);
    await metered.scrape(site.url('/blog/two'), { maxAge: 0 });
    expect((await metered.getCreditUsage()).remainingCredits).toBe(6);
    // The month's charge, read from the store's credit ledger.
    expect((await metered.getCreditUsageHistorical()).periods).toEqual([expect.objectContaining({ creditsUsed: 1 })]);
    expect(await metered.getConcurrency()).toEqual({ concurrency: 0, maxConcurrency: 50 });
  }, 120_000);

  it('parses an upload in the parser process, and watches a crawl over the gateway\'s WebSocket', async () => {
    const doc = await fc.parse({ filename: 'note.html', contentType: 'text/html', data: Buffer.from('<html><head><title>Note</title></head><body><h1>A distributed note</h1></body></html>') });
    expect(doc.markdown).toContain('A distributed note');
    expect(await watchedCrawl(fc, site, 120)).toEqual({ status: 'completed', docs: [site.url('/blog/one'), site.url('/blog/two')] });
  }, 180_000);

  it('answers the 1.x SDK: scrapeUrl, mapUrl and a blocking crawlUrl', async () => {
    const app = new FirecrawlApp({ apiKey: cluster.apiKey, apiUrl: `${base}/firecrawl` });
    const doc = (await app.scrapeUrl(site.url('/about'), { formats: ['markdown'] })) as Record<string, any>;
    expect(doc).toMatchObject({ success: true });
    expect(doc.markdown).toContain('We sell kettles since 1999');
    const mapped = (await app.mapUrl(site.url('/'), { search: 'blog' })) as Record<string, any>;
    expect(mapped.links).toEqual(expect.arrayContaining([site.url('/blog/one')]));
    const crawled = (await app.crawlUrl(site.url('/'), { limit: 2, ignoreSitemap: true, scrapeOptions: { formats: ['markdown'] } } as never, 1)) as Record<string, any>;
    expect(crawled).toMatchObject({ success: true, status: 'completed', completed: 2 });
    expect(crawled.data).toHaveLength(2);
  }, 180_000);
});
