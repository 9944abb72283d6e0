/**
 * Firecrawl's crawl params preview (`POST /firecrawl/v2/crawl/params-preview`) through the 4.x
 * SDK's `crawlParamsPreview`, on a service with the operator's model (a local OpenAI-compatible
 * fake): the start page is read and given to the model by our POST /v1/extract with the crawl
 * options' schema, and what the model writes is kept only where POST /v1/crawl takes it (RE2
 * path patterns, figures in range). Without a model it is refused in Firecrawl's error shape
 * (firecrawl-v2.test.ts). The charge is the extract's own: the page and the model's reading.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { reply, startFakeOpenAI, type FakeModel } from '../helpers/fake-models.js';
import { startFirecrawlSite, type FirecrawlSite } from '../helpers/firecrawl-site.js';

const API_KEY = 'e2e-firecrawl-preview-key-0123456789';
const OPERATOR_KEY = 'sk-operator-preview-0123456789';

let svc: Embedded;
let site: FirecrawlSite;
let model: FakeModel;

beforeAll(async () => {
  site = await startFirecrawlSite();
  model = await startFakeOpenAI({ apiKey: OPERATOR_KEY });
  svc = await startEmbedded({
    apiKey: API_KEY,
    env: { FETCH_ALLOW_PRIVATE: 'true', MODEL_PROVIDER: 'openai', MODEL_API_KEY: OPERATOR_KEY, OPENAI_BASE_URL: model.url, MODEL_MAX_RETRIES: '0', MODEL_TIMEOUT_MS: '5000' },
  });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await model?.close();
  await site?.close();
});

describe('e2e/firecrawl crawl params preview (the operator\'s model)', () => {
  it('writes crawl options from a prompt and the start page, keeping only what a crawl takes, charged as an extract', async () => {
    const { key, balance } = await meteredKey(svc.dataDir, 50);
    const fc = new Firecrawl({ apiKey: key, apiUrl: `${svc.base}/firecrawl`, maxRetries: 1 });
    const before = model.requests.length;
    model.respondWith(
      reply.object({
        // A lookahead RE2 cannot run is left out; a depth past POST /v1/crawl's 20 too.
        includePaths: ['^/blog/', '(?=x)'],
        excludePaths: null,
        limit: 50,
        maxDiscoveryDepth: 99,
        crawlEntireDomain: false,
        allowExternalLinks: null,
      }),
    );
    const params = await fc.crawlParamsPreview(site.url('/'), 'only the blog posts, at most fifty pages');
    expect(params).toEqual({ url: site.url('/'), includePaths: ['^/blog/'], limit: 50, crawlEntireDomain: false });
    // One model call, with the user's words, the crawl options' schema and the page.
    expect(model.requests.length - before).toBe(1);
    const request = model.requests[model.requests.length - 1];
    const sent = JSON.stringify(request?.body.messages);
    expect(sent).toContain('only the blog posts, at most fifty pages');
    expect(sent).toContain('Blog one');
    expect(sent).toContain('maxDiscoveryDepth');
    // What POST /v1/extract charges for one page read by the operator's model.
    expect(await balance()).toBeLessThan(50);
    // The options are ones a crawl takes as they are.
    const { url: _url, ...options } = params;
    const started = await fc.startCrawl(site.url('/'), { ...options, scrapeOptions: { formats: ['markdown'], maxAge: 0 } } as never);
    expect(started.id).toBeTruthy();
  }, 90_000);

  it('refuses a preview without a prompt in Firecrawl\'s error shape', async () => {
    const res = await fetch(`${svc.base}/firecrawl/v2/crawl/params-preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/') }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ success: false, code: 'BAD_REQUEST', error: expect.stringMatching(/`url` and `prompt` are required/) });
  });
});
