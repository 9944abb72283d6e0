/**
 * Firecrawl's crawl params preview (`POST /firecrawl/v2/crawl/params-preview`) through the 4.x
 * SDK's `crawlParamsPreview`, on a service with the operator's model (a local OpenAI-compatible
 * fake): the start page is read and given to the model by our POST /v1/extract with the crawl
 * options' schema, and what the model writes is kept only where POST /v1/crawl takes it (RE2
 * path patterns, figures in range). Without a model it is refused in Firecrawl's error shape
 * (firecrawl-v2.test.ts). The charge is the extract's own: the page and the model's reading.
 * The tokens the model's answer reported are the key's, read back by Firecrawl's token-usage
 * reads (v2 through the SDK, v1 as its shape).
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyPrefix } from '../../pipeline/keys/secret.js';
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

    // The tokens the model reported for its answer (the fake counts a token per 4 characters of
    // the messages sent and of the answer, as OpenAI's `usage`) are this key's, and only its.
    const answered = model.requests.slice(before);
    const used = answered.reduce((sum, r) => sum + Math.max(1, Math.ceil(JSON.stringify(r.body.messages ?? []).length / 4)), 0);
    const out = Math.max(1, Math.ceil(JSON.stringify({ includePaths: ['^/blog/', '(?=x)'], excludePaths: null, limit: 50, maxDiscoveryDepth: 99, crawlEntireDomain: false, allowExternalLinks: null }).length / 4));
    const usage = await fc.getTokenUsage();
    expect(usage).toMatchObject({ remainingTokens: 0, billingPeriodStart: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00.000Z$/) });
    const v2 = (await (await fetch(`${svc.base}/firecrawl/v2/team/token-usage`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: Record<string, unknown> };
    expect(v2.data).toMatchObject({ remainingTokens: null, planTokens: null, tokensUsed: used + out, inputTokens: used, outputTokens: out });
    const v1 = (await (await fetch(`${svc.base}/firecrawl/v1/team/token-usage`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: Record<string, unknown> };
    expect(v1).toEqual({ success: true, data: { remaining_tokens: null, plan_tokens: null, billing_period_start: v2.data.billingPeriodStart, billing_period_end: v2.data.billingPeriodEnd, tokens_used: used + out, input_tokens: used, output_tokens: out } });
    const history = await fc.getTokenUsageHistorical(true);
    expect(history.periods).toEqual([{ startDate: v2.data.billingPeriodStart, endDate: v2.data.billingPeriodEnd, apiKey: keyPrefix(key), tokensUsed: used + out, inputTokens: used, outputTokens: out }]);
    // Another key (the operator's API_KEY, which asked no model) used none.
    const other = new Firecrawl({ apiKey: API_KEY, apiUrl: `${svc.base}/firecrawl`, maxRetries: 1 });
    expect((await other.getTokenUsageHistorical()).periods).toEqual([]);
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
