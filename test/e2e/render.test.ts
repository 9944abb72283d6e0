/**
 * POST /v1/scrape through the renderer in embedded mode: the gateway routes browser scrapes
 * (waitFor, actions, screenshot, network) to `renderRequested`, the renderer renders them in
 * Debian's Chromium, the parser reads the DOM and merges what the render produced; plain
 * scrapes still go to the fetcher. Against a local site (test/helpers/render-site.ts).
 *
 * chdb admits one data directory per process: the services run one after the other.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTORS } from '../../main.js';
import { openKeyRegistry } from '../../pipeline/keys/index.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { PRICES } from '../../schemas/api/prices.js';
import { serviceForBlock, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { CHROMIUM, engine } from '../helpers/engines.js';
import { startRenderSite, type RenderSite } from '../helpers/render-site.js';
import { scrape } from '../helpers/scrape.js';

const BROWSER_PAGE_CREDITS = PRICES.browserPage.credits;

const hasChromium = await engine('chromium', () => existsSync(CHROMIUM.path), CHROMIUM.install);

const API_KEY = 'e2e-render-key-0123456789';

interface Started extends Embedded {
  /** A key with 3 credits: less than a browser page. */
  poorKey: string;
  /** A key with 20 credits. */
  countedKey: string;
}

async function start(env: Record<string, string>, actors = ACTORS): Promise<Started> {
  const keys: { poorKey?: string; countedKey?: string } = {};
  const running = await startEmbedded({
    apiKey: API_KEY,
    actors,
    env: { RENDER_CHROMIUM_PATH: CHROMIUM.path, RENDER_CONCURRENCY: '2', ...env },
    async before(config) {
      const registry = await openKeyRegistry(config, createLogger('silent'));
      keys.poorKey = (await registry.create({ name: 'e2e-render-poor', credits: 3 })).key;
      keys.countedKey = (await registry.create({ name: 'e2e-render-counted', credits: 20 })).key;
      registry.close();
    },
  });
  return Object.assign(running, { poorKey: keys.poorKey as string, countedKey: keys.countedKey as string });
}

function pngSize(dataUrl: string): { width: number; height: number } {
  const bytes = Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64');
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

let site: RenderSite;
beforeAll(async () => {
  site = await startRenderSite();
});
afterAll(async () => {
  await site?.close();
});

describe.skipIf(!hasChromium)('e2e/render (embedded, production actors)', () => {
  let open: Started;
  beforeAll(async () => {
    open = await start({ FETCH_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await open?.stop();
  });

  it('renders a waitFor scrape in the browser and charges a browser page', async () => {
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/js'), waitFor: 800 });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).toContain('Added by script after load');
    expect(body.data.metadata).toMatchObject({ title: 'JS', statusCode: 200 });
    expect(body.data.cost).toEqual({ credits: BROWSER_PAGE_CREDITS, remaining: null, source: 'fresh' });
  });

  it('returns action results, the screenshot and the network log in data', async () => {
    const { status, body } = await scrape(open.base, API_KEY, {
      url: site.url('/reveal'),
      formats: ['markdown', 'screenshot', 'network'],
      actions: [{ type: 'click', selector: '#show' }, { type: 'executeJavascript', script: 'return document.querySelector("#secret").hidden' }, { type: 'scrape' }, { type: 'screenshot', viewport: { width: 500, height: 400 } }],
    });
    expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
    expect(body.data.markdown).toContain('The revealed paragraph');
    expect(body.data.actions.javascriptReturns).toEqual([{ type: 'boolean', value: false }]);
    expect(body.data.actions.scrapes[0].html).toContain('The revealed paragraph');
    expect(pngSize(body.data.actions.screenshots[0])).toEqual({ width: 500, height: 400 });
    // The format's screenshot is taken after the actions, in the viewport they left.
    expect(pngSize(body.data.screenshot)).toEqual({ width: 500, height: 400 });
    expect(body.data.network.find((e: { url: string }) => e.url === site.url('/reveal'))).toMatchObject({ method: 'GET', resourceType: 'document', status: 200 });
  });

  it('still fetches plain scrapes over HTTP for one credit', async () => {
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/js') });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).not.toContain('Added by script after load');
    expect(body.data.cost).toEqual({ credits: 1, remaining: null, source: 'fresh' });
    // No challenge on it: not sent to the browser (a render would report what it did in data).
    expect(body.data.captcha).toBeUndefined();
  });

  it('renders a challenge met on a plain fetch, clears it, and charges a fetched page', async () => {
    const before = site.paths().length;
    // The key holds 3 credits, fewer than a browser page: the gateway reserved a fetched page.
    const { status, body } = await scrape(open.base, open.poorKey, { url: site.url('/challenge') });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).toContain('Challenge passed');
    expect(body.data.captcha).toEqual({ clicked: true, solved: true });
    expect(body.data.cost).toEqual({ credits: 1, remaining: 2, source: 'fresh' });
    // Fetched once over HTTP, then loaded in the browser with its frame.
    expect(site.paths().slice(before).filter((p) => p === '/challenge')).toHaveLength(2);
    expect(site.paths().slice(before)).toContain('/challenge/frame');
  });

  it('reads the challenge page as fetched with captchaHandling off', async () => {
    const before = site.paths().length;
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/challenge'), captchaHandling: 'off' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).not.toContain('Challenge passed');
    expect(body.data.captcha).toBeUndefined();
    expect(site.paths().slice(before)).toEqual(['/challenge']);
  });

  it('answers a failing action with 400 action_failed naming it, and does not charge it', async () => {
    const { status, body } = await scrape(open.base, open.countedKey, { url: site.url('/reveal'), timeout: 3000, actions: [{ type: 'click', selector: '#nothing-here' }] });
    expect(status).toBe(400);
    expect(body.error.code).toBe('action_failed');
    expect(body.error.message).toMatch(/action 0 \(click\)/);
    const rendered = await scrape(open.base, open.countedKey, { url: site.url('/reveal'), actions: [{ type: 'click', selector: '#show' }] });
    expect(rendered.body.data.cost).toEqual({ credits: BROWSER_PAGE_CREDITS, remaining: 20 - BROWSER_PAGE_CREDITS, source: 'fresh' });
  });

  it('reserves a browser page: a key with fewer credits gets 402 before anything is rendered', async () => {
    const before = site.requests.length;
    const { status, body } = await scrape(open.base, open.poorKey, { url: site.url('/js'), waitFor: 100 });
    expect(status).toBe(402);
    expect(body.error.code).toBe('insufficient_credits');
    expect(site.requests.length).toBe(before);
    const plain = await scrape(open.base, open.poorKey, { url: site.url('/js') });
    expect(plain.status).toBe(200);
    expect(plain.body.data.cost.credits).toBe(1);
  });
});

describe.skipIf(!hasChromium)('e2e/render with private addresses not allowed (the default)', () => {
  const closed = serviceForBlock(() => start({}));

  it('refuses a loopback URL with 403 url_blocked and never reaches it', async () => {
    const before = site.requests.length;
    const { status, body } = await scrape(closed().base, API_KEY, { url: site.url('/js'), waitFor: 100, formats: ['screenshot'] });
    expect(status).toBe(403);
    expect(body.error.code).toBe('url_blocked');
    expect(site.requests.length).toBe(before);
  });
});

describe('e2e/render: a build without a renderer', () => {
  let plain: Started;
  beforeAll(async () => {
    plain = await start({ FETCH_ALLOW_PRIVATE: 'true' }, ACTORS.filter((a) => a.role !== 'renderer'));
  });
  afterAll(async () => {
    await plain?.stop();
  });

  it('keeps the fetched challenge page as it is', async () => {
    const before = site.paths().length;
    const { status, body } = await scrape(plain.base, API_KEY, { url: site.url('/challenge') });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).toContain('Checking your browser');
    expect(body.data.markdown).not.toContain('Challenge passed');
    expect(body.data.captcha).toBeUndefined();
    expect(body.data.cost).toEqual({ credits: 1, remaining: null, source: 'fresh' });
    expect(site.paths().slice(before)).toEqual(['/challenge']);
  });
});
