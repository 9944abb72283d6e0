/**
 * Firecrawl's v2 API under /firecrawl in the distributed shape (issue 32): the production
 * actors as separate processes (a gateway, a frontier, a fetcher, a parser) on the mock Kafka,
 * Redis and a ClickHouse server, driven by Firecrawl's JS SDK 4.x: a scrape, a map, a crawl
 * paged through `next` links one document at a time, a batch cancelled (the jobs' own handler
 * on the distributed records), an extract job whose answer is kept in Redis, and the key's
 * credits read from the distributed key registry (its balance, its month's charges from the
 * store's ledger); an upload parsed by the parser process; a crawl watched over the WebSocket
 * from the gateway process; a search answered by the searcher process (a local SearXNG
 * stand-in) with its results' pages read; a monitor created, checked at once and on demand by
 * the classifier process, read, refused an update, and deleted; and the 1.x SDK's scrape, map
 * and crawl against the same cluster.
 */
import Firecrawl from '@mendable/firecrawl-js';
import FirecrawlApp from 'firecrawl-js-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { hasKafka } from '../helpers/kafka.js';
import { engine } from '../helpers/engines.js';
import type { FakeSearch } from '../helpers/fake-search.js';
import { startFirecrawlSite, startSiteSearxng, watchedCrawl, type FirecrawlSite } from '../helpers/firecrawl-site.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';

const ready = (await chdbAvailable()) && (await hasKafka()) && (await engine('redis', () => redisProbe(), REDIS_INSTALL));

describe.skipIf(!ready)('e2e/firecrawl distributed: the 4.x SDK against a cluster', () => {
  let site: FirecrawlSite;
  let searxng: FakeSearch;
  let cluster: Cluster;
  let base: string;
  let fc: Firecrawl;

  beforeAll(async () => {
    site = await startFirecrawlSite();
    searxng = await startSiteSearxng(site);
    cluster = await startCluster({ main: PRODUCTION_MAIN, env: { FETCH_ALLOW_PRIVATE: 'true', REQUEST_TIMEOUT_MS: '60000', SEARCH_PROVIDERS: 'searxng', SEARXNG_URL: searxng.url } });
    base = (await cluster.service('gateway')).url as string;
    await Promise.all([cluster.service('frontier'), cluster.service('fetcher')]);
    await Promise.all([cluster.service('parser'), cluster.service('searcher')]);
    await cluster.service('classifier');
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
    await Promise.all([site?.close(), searxng?.close()]);
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

  it('searches in the searcher process, reading the results\' pages when asked', async () => {
    const plain = await fc.search('kettles', { limit: 2 });
    expect(plain.web?.map((r) => (r as { url: string }).url)).toEqual([site.url('/about'), site.url('/blog/one')]);
    expect(plain.web?.[0]).toMatchObject({ title: 'About the fixture shop', description: 'We sell kettles since 1999.' });
    const read = await fc.search('kettles', { limit: 1, scrapeOptions: { formats: ['markdown'], maxAge: 0 } });
    expect((read.web?.[0] as { markdown?: string }).markdown).toContain('We sell kettles since 1999');
  }, 120_000);

  it('monitors: checked at once by the frontier\'s schedule and on demand, in the classifier process; paused and resumed', async () => {
    const monitor = await fc.createMonitor({ name: 'About page', schedule: { cron: '0 */6 * * *', timezone: 'UTC' }, targets: [{ type: 'scrape', urls: [site.url('/about')] }] });
    expect(monitor).toMatchObject({ status: 'active', schedule: { cron: '0 */6 * * *', timezone: 'UTC' }, targets: [{ type: 'scrape', urls: [site.url('/about')] }] });
    expect((await fc.listMonitors()).map((m) => m.id)).toContain(monitor.id);
    let checks = await fc.listMonitorChecks(monitor.id);
    for (let i = 0; i < 600 && !(checks[0] && checks[0].status === 'completed'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      checks = await fc.listMonitorChecks(monitor.id);
    }
    expect(checks[0]).toMatchObject({ monitorId: monitor.id, trigger: 'scheduled', status: 'completed', summary: { totalPages: 1, new: 1 } });
    const run = await fc.runMonitor(monitor.id);
    let detail = await fc.getMonitorCheck(monitor.id, run.id);
    for (let i = 0; i < 600 && detail.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      detail = await fc.getMonitorCheck(monitor.id, run.id);
    }
    expect(detail).toMatchObject({ trigger: 'manual', status: 'completed' });
    expect(detail.pages).toEqual([expect.objectContaining({ url: site.url('/about'), status: 'same' })]);
    // Paused through the gateway process, a run is Firecrawl's 409 until it is resumed.
    expect(await fc.updateMonitor(monitor.id, { status: 'paused' })).toMatchObject({ status: 'paused', nextRunAt: null });
    await expect(fc.runMonitor(monitor.id)).rejects.toMatchObject({ status: 409, code: 'MONITOR_PAUSED' });
    expect((await fc.updateMonitor(monitor.id, { status: 'active' })).status).toBe('active');
    expect(await fc.deleteMonitor(monitor.id)).toBe(true);
  }, 240_000);

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
