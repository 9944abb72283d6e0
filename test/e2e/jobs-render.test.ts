/**
 * Browser pages in crawl and batch jobs, embedded mode: a job whose `scrapeOptions` need a
 * browser (`waitFor`, `actions`, `screenshot`, `network`) sends its pages to the renderer
 * instead of the fetcher, and each is charged as a browser page (schemas/api/prices.ts
 * PRICES.browserPage); a page the browser cannot render is listed in the job's errors and
 * the job still ends. Against the local render site (test/helpers/render-site.ts).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICES } from '../../schemas/api/prices.js';
import { meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { CHROMIUM, engine } from '../helpers/engines.js';
import { startRenderSite, type RenderSite } from '../helpers/render-site.js';
import { until } from '../helpers/wait.js';

const BROWSER_PAGE_CREDITS = PRICES.browserPage.credits;

const hasChromium = await engine('chromium', () => existsSync(CHROMIUM.path), CHROMIUM.install);

const API_KEY = 'e2e-jobs-render-key-0123456789';
const ENDED = ['completed', 'failed', 'cancelled'];

type Body = Record<string, any>;

describe.skipIf(!hasChromium)('e2e/jobs with browser pages (embedded)', () => {
  let site: RenderSite;
  let service: Embedded;
  let countedKey = '';
  let balance: () => Promise<number | null>;

  async function call(method: string, path: string, body?: unknown, key = API_KEY): Promise<{ status: number; body: Body }> {
    const res = await fetch(`${service.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Body };
  }

  async function finished(path: string, key = API_KEY): Promise<Body> {
    let last: Body | undefined;
    return until(
      () => `${path} to end (last: ${JSON.stringify({ ...last, data: undefined })})`,
      async () => {
        const res = await call('GET', path, undefined, key);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        last = res.body.data;
        return ENDED.includes(res.body.data.status) && res.body.data;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
  }

  beforeAll(async () => {
    site = await startRenderSite();
    service = await startEmbedded({
      apiKey: API_KEY,
      env: { RENDER_CHROMIUM_PATH: CHROMIUM.path, RENDER_CONCURRENCY: '2', FETCH_ALLOW_PRIVATE: 'true' },
    });
    const metered = await meteredKey(service.dataDir, 100);
    countedKey = metered.key;
    balance = metered.balance;
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await site?.close();
  });

  it('renders a batch whose options need a browser, charging each page as a browser page', async () => {
    const before = await balance();
    const started = await call(
      'POST',
      '/v1/batch/scrape',
      { urls: [site.url('/js'), site.url('/reveal')], scrapeOptions: { formats: ['markdown', 'screenshot'], waitFor: 600 } },
      countedKey,
    );
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const job = await finished(`/v1/batch/${started.body.data.id}`, countedKey);
    expect(job).toMatchObject({ status: 'completed', total: 2, completed: 2, failed: 0, creditsUsed: 2 * BROWSER_PAGE_CREDITS });
    const docs = job.data as Body[];
    expect(docs).toHaveLength(2);
    for (const doc of docs) expect(doc.screenshot).toMatch(/^data:image\/png;base64,/);
    const bySource = Object.fromEntries(docs.map((d) => [new URL(d.metadata.sourceURL).pathname, d.markdown as string]));
    expect(bySource['/js']).toContain('Added by script after load');
    expect(bySource['/reveal']).toContain('Reveal');
    expect(await balance()).toBe((before as number) - 2 * BROWSER_PAGE_CREDITS);
  }, 120_000);

  it('lists a page the browser could not render and still ends the job, charging nothing for it', async () => {
    const before = await balance();
    const started = await call('POST', '/v1/crawl', { url: site.url('/hang'), maxDepth: 0, scrapeOptions: { waitFor: 100, timeout: 3000 } }, countedKey);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.id as string;
    const job = await finished(`/v1/crawl/${id}`, countedKey);
    expect(job).toMatchObject({ status: 'completed', total: 1, completed: 0, failed: 1, creditsUsed: 0 });
    const errors = await call('GET', `/v1/crawl/${id}/errors`, undefined, countedKey);
    expect(errors.status).toBe(200);
    expect(errors.body.data.errors).toMatchObject([{ url: site.url('/hang'), code: expect.any(String) }]);
    expect(await balance()).toBe(before);
  }, 120_000);
});
