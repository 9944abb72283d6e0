/**
 * Firecrawl's v1 API under /firecrawl (issue 32), driven by Firecrawl's JS SDK 1.x
 * (`firecrawl-js-v1`, an alias of `@mendable/firecrawl-js@1.29.3`, a pinned dev dependency)
 * given `apiUrl: <service>/firecrawl`, against the service in embedded mode with the
 * production actors, a local site and a local SearXNG stand-in: scrape (plain strings,
 * `screenshot@fullPage`, `json` with `jsonOptions`, the legacy `extract` format,
 * `changeTracking` with `changeTrackingOptions`), crawl (the blocking crawl following `next`,
 * status, errors, cancel), batch scrape (blocking, status, errors), map (v1's string links),
 * search (v1's flat list), extract (blocking, async + status), and the error answers the SDK
 * turns into FirecrawlError.
 */
import FirecrawlApp from 'firecrawl-js-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFakeSearxng, type FakeSearch } from '../helpers/fake-search.js';
import { startFirecrawlSite, type FirecrawlSite } from '../helpers/firecrawl-site.js';

const API_KEY = 'e2e-firecrawl-v1-key-0123456789';

let site: FirecrawlSite;
let searxng: FakeSearch;
let svc: Embedded;
let app: FirecrawlApp;

type Any = Record<string, any>;

beforeAll(async () => {
  site = await startFirecrawlSite();
  searxng = await startFakeSearxng({ results: [{ url: site.url('/about'), title: 'About the fixture shop', snippet: 'We sell kettles since 1999.' }] });
  svc = await startEmbedded({ apiKey: API_KEY, env: { FETCH_ALLOW_PRIVATE: 'true', SEARCH_PROVIDERS: 'searxng', SEARXNG_URL: searxng.url } });
  app = new FirecrawlApp({ apiKey: API_KEY, apiUrl: `${svc.base}/firecrawl` });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await Promise.all([site?.close(), searxng?.close()]);
});

describe('e2e/firecrawl v1 through the 1.x SDK', () => {
  it('scrapes with v1 formats and options', async () => {
    const doc = (await app.scrapeUrl(site.url('/'), { formats: ['markdown', 'html', 'links'], onlyMainContent: true })) as Any;
    expect(doc.success).toBe(true);
    expect(doc.markdown).toContain('Welcome to the fixture shop');
    expect(doc.links).toContain(site.url('/about'));
    expect(doc.metadata).toMatchObject({ title: 'Home', statusCode: 200, sourceURL: site.url('/') });

    const structured = (await app.scrapeUrl(site.url('/product'), { formats: ['json', 'extract'], jsonOptions: { schema: { type: 'object', properties: { name: { type: 'string' } } } }, extract: { schema: { type: 'object', properties: { name: { type: 'string' } } } } } as never)) as Any;
    expect(structured.json).toMatchObject({ name: 'Aurora Kettle 1.7 L' });

    const legacy = (await app.scrapeUrl(site.url('/product'), { formats: ['extract'], extract: { schema: { type: 'object', properties: { name: { type: 'string' } } } } } as never)) as Any;
    expect(legacy.extract).toMatchObject({ name: 'Aurora Kettle 1.7 L' });
    expect(legacy.json).toBeUndefined();

    site.setChanging('Version one.');
    const first = (await app.scrapeUrl(site.url('/changing'), { formats: ['markdown', 'changeTracking'], changeTrackingOptions: { modes: ['git-diff'], tag: 'v1' } } as never)) as Any;
    expect(first.changeTracking).toMatchObject({ changeStatus: 'new' });
    const same = (await app.scrapeUrl(site.url('/changing'), { formats: ['markdown', 'changeTracking'], changeTrackingOptions: { tag: 'v1' } } as never)) as Any;
    expect(same.changeTracking).toMatchObject({ changeStatus: 'same' });
  }, 90_000);

  it('takes a full-page screenshot with screenshot@fullPage', async () => {
    const doc = (await app.scrapeUrl(site.url('/about'), { formats: ['screenshot@fullPage'] })) as Any;
    expect(doc.screenshot).toMatch(/^data:image\/png;base64,/);
  }, 120_000);

  it('crawls to completion following `next`, reads status and errors, and cancels', async () => {
    const done = (await app.crawlUrl(site.url('/'), { limit: 10, maxDepth: 2, ignoreSitemap: true }, 1)) as Any;
    expect(done.success).toBe(true);
    expect(done.status).toBe('completed');
    expect(done.data.map((d: Any) => d.metadata.sourceURL).sort()).toEqual(['/', '/about', '/blog/one', '/blog/two', '/product'].map((p) => site.url(p)).sort());

    const started = (await app.asyncCrawlUrl(site.url('/'), { limit: 3 })) as Any;
    expect(started).toMatchObject({ success: true, id: expect.any(String), url: `${svc.base}/firecrawl/v1/crawl/${started.id}` });
    let status = (await app.checkCrawlStatus(started.id)) as Any;
    for (let i = 0; i < 240 && status.status === 'scraping'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await app.checkCrawlStatus(started.id)) as Any;
    }
    expect(status).toMatchObject({ success: true, status: 'completed', total: 3, completed: 3 });
    const all = (await app.checkCrawlStatus(started.id, true)) as Any;
    expect(all.data).toHaveLength(3);
    expect(await app.checkCrawlErrors(started.id)).toMatchObject({ success: true, errors: [], robotsBlocked: [] });

    const slow = (await app.asyncCrawlUrl(site.url('/'), { limit: 50, delay: 2000 })) as Any;
    expect(await app.cancelCrawl(slow.id)).toMatchObject({ success: true, status: 'cancelled' });
  }, 180_000);

  it('batch scrapes to completion and reads status and errors', async () => {
    const done = (await app.batchScrapeUrls([site.url('/about'), site.url('/blog/one')], { formats: ['markdown'] }, 1)) as Any;
    expect(done.status).toBe('completed');
    expect(done.data.map((d: Any) => d.markdown).join(' ')).toContain('We sell kettles');
    const started = (await app.asyncBatchScrapeUrls([site.url('/blog/two')], { formats: ['markdown'] })) as Any;
    expect(started.id).toBeTruthy();
    let status = (await app.checkBatchScrapeStatus(started.id)) as Any;
    for (let i = 0; i < 240 && status.status === 'scraping'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await app.checkBatchScrapeStatus(started.id)) as Any;
    }
    expect(status).toMatchObject({ success: true, status: 'completed', total: 1 });
    expect(await app.checkBatchScrapeErrors(started.id)).toMatchObject({ success: true, errors: [] });
  }, 120_000);

  it('maps to a list of URL strings and searches to a flat list', async () => {
    const mapped = (await app.mapUrl(site.url('/'), { search: 'blog' })) as Any;
    expect(mapped.success).toBe(true);
    expect(mapped.links).toEqual(expect.arrayContaining([site.url('/blog/one'), site.url('/blog/two')]));
    for (const link of mapped.links) expect(typeof link).toBe('string');
    const found = (await app.search('kettles', { limit: 1, scrapeOptions: { formats: ['markdown'] } })) as Any;
    expect(found.success).toBe(true);
    expect(found.data[0]).toMatchObject({ url: site.url('/about'), title: 'About the fixture shop' });
    expect(found.data[0].markdown).toContain('We sell kettles');
  }, 60_000);

  it('extracts, blocking and async with status', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string' } } };
    const done = (await app.extract([site.url('/product')], { schema })) as Any;
    expect(done).toMatchObject({ success: true, data: { name: 'Aurora Kettle 1.7 L' } });
    const started = (await app.asyncExtract([site.url('/product')], { schema })) as Any;
    let status = (await app.getExtractStatus(started.id)) as Any;
    for (let i = 0; i < 240 && status.status === 'processing'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await app.getExtractStatus(started.id)) as Any;
    }
    expect(status).toMatchObject({ success: true, status: 'completed', data: { name: 'Aurora Kettle 1.7 L' } });
  }, 60_000);

  it('answers v1\'s credit usage for a metered key (the 1.x SDK has no method for it)', async () => {
    const { key } = await meteredKey(svc.dataDir, 12);
    const res = await fetch(`${svc.base}/firecrawl/v1/team/credit-usage`, { headers: { authorization: `Bearer ${key}` } });
    expect(await res.json()).toEqual({ success: true, data: { remaining_credits: 12, unlimited: false } });
    const unlimited = await fetch(`${svc.base}/firecrawl/v1/team/credit-usage`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(await unlimited.json()).toEqual({ success: true, data: { remaining_credits: null, unlimited: true } });
    const none = await fetch(`${svc.base}/firecrawl/v1/team/credit-usage`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ success: false, code: 'MISSING_API_KEY' });
  });

  it('turns our failures into the errors the SDK throws', async () => {
    const bad = new FirecrawlApp({ apiKey: 'not-a-key-0000000000', apiUrl: `${svc.base}/firecrawl` });
    await expect(bad.scrapeUrl(site.url('/'))).rejects.toMatchObject({ statusCode: 401 });
    await expect(app.scrapeUrl(site.url('/'), { timeout: 10 })).rejects.toMatchObject({ statusCode: 400 });
    await expect(app.crawlUrl(site.url('/'), { allowSubdomains: true } as never)).rejects.toThrow(/allowSubdomains/);
    const deep = await fetch(`${svc.base}/firecrawl/v1/deep-research`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: '{}' });
    expect(deep.status).toBe(404);
    expect(await deep.json()).toMatchObject({ success: false, error: expect.stringContaining('deep research') });
  }, 60_000);
});
