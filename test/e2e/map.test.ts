/**
 * POST /v1/map through the production actors (gateway → MapRequested → frontier → Reply) in
 * embedded mode, against a generated local site (test/helpers/map-site.ts): every sitemap
 * URL (a sitemap index, one sitemap gzipped), the pages only links reach, robots.txt
 * Disallow honoured by the walk, search, includeSubdomains, limit, the flat charge, and the
 * SSRF guard when private addresses are not allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICES } from '../../schemas/api/prices.js';
import { meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { HIDDEN_PER_SECTION, NEWS_PAGE, NEWS_TITLE, SECTIONS, SITEMAP_PAGES, startMapSite, type MapSite } from '../helpers/map-site.js';

const MAP_CREDITS = PRICES.map.credits;

const API_KEY = 'e2e-map-key-0123456789';

type Running = Embedded;

const start = (env: Record<string, string>): Promise<Running> => startEmbedded({ apiKey: API_KEY, env });
const stop = (running: Running | undefined): Promise<void> => running?.stop() ?? Promise.resolve();

async function map(base: string, body: Record<string, unknown>, key = API_KEY) {
  const res = await fetch(`${base}/v1/map`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** URLs the request schema takes that do not parse as URLs: a scrape answers each 403 url_blocked (the SSRF guard's parse). */
const UNPARSEABLE = ['http://example.com:99999/', 'http://[invalid/', 'http://user:pass@[::1]:99999/', 'http://\u0000x.com/'];

/** Each unparseable URL is refused as a scrape refuses it (403 url_blocked), not answered 500, and charges nothing. */
async function expectUnparseableRefused(running: Running): Promise<void> {
  const metered = await meteredKey(running.dataDir, 3);
  for (const url of UNPARSEABLE) {
    const { status, body } = await map(running.base, { url }, metered.key);
    expect(status, JSON.stringify(url)).toBe(403);
    expect(body.success).toBe(false);
    expect(body.error).toMatchObject({ code: 'url_blocked', message: 'refused to fetch a URL that does not parse', retriable: false });
  }
  expect(await metered.balance()).toBe(3);
}

const urlsOf = (body: Record<string, any>): string[] => (body.data.links as { url: string }[]).map((l) => l.url);

let site: MapSite;
beforeAll(async () => {
  site = await startMapSite();
});
afterAll(async () => {
  await site?.close();
});

// chdb admits one data directory per process: the two services run one after the other.
describe('e2e/map (embedded, production actors)', () => {
  let open: Running;
  beforeAll(async () => {
    open = await start({ FETCH_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await stop(open);
  });

  it('lists every sitemap URL and the pages only links reach, walks no disallowed page, and charges one credit', async () => {
    site.requests.length = 0;
    const { status, body } = await map(open.base, { url: site.url('/') });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data.cost).toEqual({ credits: MAP_CREDITS, remaining: null });
    const urls = urlsOf(body);
    expect(urls[0]).toBe(site.url('/'));
    expect(new Set(urls).size).toBe(urls.length);
    const missing: string[] = [];
    for (let n = 1; n <= SITEMAP_PAGES; n++) if (!urls.includes(site.url(`/page/${n}`))) missing.push(`/page/${n}`);
    for (let k = 0; k < SECTIONS; k++) {
      for (let j = 0; j < HIDDEN_PER_SECTION; j++) if (!urls.includes(site.url(`/hidden/${k}/${j}`))) missing.push(`/hidden/${k}/${j}`);
    }
    expect(missing).toEqual([]);
    expect(urls).not.toContain(site.url('/secret/1'));
    expect(site.requests).toContain('/robots.txt');
    expect(site.requests).toContain('/sitemap_index.xml');
    expect(site.requests).toContain('/sitemaps/pages-2.xml.gz');
    expect(site.requests).not.toContain('/private/area');
    expect(urls.every((u) => u.startsWith(site.origin) && !u.includes('utm_'))).toBe(true);
    const page = (body.data.links as { url: string; title?: string }[]).find((l) => l.url === site.url(`/page/${NEWS_PAGE}`));
    expect(page?.title).toBe(NEWS_TITLE);
  });

  it('filters with search, adds subdomains when asked, and stops at limit', async () => {
    const search = await map(open.base, { url: site.url('/'), search: 'zebra' });
    expect(search.status).toBe(200);
    expect(urlsOf(search.body)).toEqual([site.url('/animals/zebra-facts'), site.url(`/page/${NEWS_PAGE}`)]);

    const withSubdomains = await map(open.base, { url: site.url('/'), includeSubdomains: true });
    expect(urlsOf(withSubdomains.body)).toContain(`http://docs.localhost:${site.port}/guide`);
    expect(urlsOf(withSubdomains.body)).toContain(`http://blog.localhost:${site.port}/post/1`);
    const without = await map(open.base, { url: site.url('/') });
    expect(urlsOf(without.body).some((u) => u.includes('docs.localhost') || u.includes('blog.localhost'))).toBe(false);

    const limited = await map(open.base, { url: site.url('/'), limit: 25 });
    expect(urlsOf(limited.body)).toHaveLength(25);
    expect(urlsOf(limited.body)[0]).toBe(site.url('/'));
  });

  it('charges the flat price against a metered balance, the same as it reserves', async () => {
    const metered = await meteredKey(open.dataDir, 2);
    const first = await map(open.base, { url: site.url('/'), limit: 30000 }, metered.key);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.cost).toEqual({ credits: MAP_CREDITS, remaining: 2 - MAP_CREDITS });
    expect(await metered.balance()).toBe(2 - MAP_CREDITS);
  });

  it('refuses a URL that does not parse with 403 url_blocked, as a scrape does, with private addresses allowed', async () => {
    await expectUnparseableRefused(open);
  });

  it('validates the body: limit above 30000 and unknown fields are 422', async () => {
    const over = await map(open.base, { url: site.url('/'), limit: 30001 });
    expect(over.status).toBe(422);
    const unknown = await map(open.base, { url: site.url('/'), maxDepth: 2 });
    expect(unknown.status).toBe(422);
  });
});

describe('e2e/map with private addresses not allowed (the default)', () => {
  let closed: Running;
  beforeAll(async () => {
    closed = await start({});
  });
  afterAll(async () => {
    await stop(closed);
  });

  it('refuses a loopback site with 403 url_blocked, never reaches it and charges nothing', async () => {
    const metered = await meteredKey(closed.dataDir, 3);
    const before = site.requests.length;
    for (const url of [site.url('/'), `http://127.0.0.1:${site.port}/`, `http://[::1]:${site.port}/`]) {
      const { status, body } = await map(closed.base, { url }, metered.key);
      expect(status, url).toBe(403);
      expect(body.error.code).toBe('url_blocked');
    }
    expect(site.requests.length).toBe(before);
    expect(await metered.balance()).toBe(3);
  });

  it('refuses a URL that does not parse with 403 url_blocked, as a scrape does', async () => {
    await expectUnparseableRefused(closed);
  });
});
