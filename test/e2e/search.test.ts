/**
 * Search end to end (issue 16), embedded mode with the production actors:
 *
 * - a fresh install with no provider: POST /v1/search answers from the local index of the
 *   pages this instance has read, per key (another key never sees a page read with its own
 *   headers; shared copies are seen), SERP pages from it too;
 * - with SearXNG, Brave and a SERP API configured (SEARXNG_URL, BRAVE_SEARCH_API_KEY /
 *   BRAVE_SEARCH_URL, SERP_API_KEY / SERP_API_URL) pointed at local stand-ins speaking their
 *   real APIs (test/helpers/fake-search.ts): the order, the fallback and its warning, the
 *   failures when nothing answers (429 with Retry-After, 502), nothing charged for them;
 * - `scrapeOptions`: each result read through the scrape path (markdown, the `json` format),
 *   a result whose page fails marked on it without failing the request, charged per page;
 * - places from the local Nominatim and Overpass stand-ins (NOMINATIM_URL, OVERPASS_URL),
 *   the ODbL attribution in the answer;
 * - bad input: empty and oversized queries, a places question naming no place: 422s.
 */
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embeddedWithSecondKey, meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFakeBrave, startFakeSearxng, startFakeSerpApi, type FakeSearch } from '../helpers/fake-search.js';
import { startFakeNominatim, startFakeOverpass, type FakeNominatim, type FakeOverpass } from '../helpers/fake-osm.js';
import { scrape } from '../helpers/scrape.js';
import { postJson } from '../helpers/api.js';

const API_KEY = 'e2e-search-key-0123456789';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'extract', 'site');
const BRAVE_KEY = 'brave-e2e-key-778899';
const SERP_KEY = 'serp-e2e-key-445566';

interface Site {
  readonly origin: string;
  url(path: string): string;
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const pages = new Map(readdirSync(FIXTURES).map((f) => [`/${f.replace(/\.html$/, '')}`, readFileSync(join(FIXTURES, f))]));
  const server = http.createServer((req, res) => {
    const page = pages.get((req.url ?? '/').split('?')[0] ?? '/');
    if (!page) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, url: (path) => `${origin}${path}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(async () => {
  await site?.close();
});

// chdb admits one data directory per process: the services of this file run one after the other.
describe('e2e/search with no provider configured: the local index', () => {
  let svc: Embedded;
  let otherKey = '';
  beforeAll(async () => {
    ({ svc, otherKey } = await embeddedWithSecondKey(API_KEY, { FETCH_ALLOW_PRIVATE: 'true' }));
    // Pages this instance reads are indexed as they are stored; one is read with the caller's
    // own headers, so it stays out of the shared index.
    for (const path of ['/article-plain', '/article-jsonld', '/recipe', '/jobposting']) {
      const read = await scrape(svc.base, API_KEY, { url: site.url(path) });
      expect(read.status, JSON.stringify(read.body)).toBe(200);
    }
    const own = await scrape(svc.base, API_KEY, { url: site.url('/product-jsonld'), headers: { 'x-session': 'mine' } });
    expect(own.status).toBe(200);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('finds what it has read, best match first, charged one search', async () => {
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/search', { query: 'bike lanes council' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.provider).toBe('local');
    expect(body.data.results[0]).toMatchObject({ url: site.url('/article-plain'), title: expect.stringContaining('bike lanes'), position: 1, source: 'local' });
    expect(body.data.results[0].description).toEqual(expect.any(String));
    expect(body.data.cost.credits).toBe(1);
  });

  it('shows another key the shared pages but never one read with the caller\'s own headers', async () => {
    const mine = await postJson(svc.base, API_KEY, '/v1/search', { query: 'Aurora kettle' });
    expect(mine.body.data.results.map((r: { url: string }) => r.url)).toContain(site.url('/product-jsonld'));
    const theirs = await postJson(svc.base, otherKey, '/v1/search', { query: 'Aurora kettle' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.results.map((r: { url: string }) => r.url)).not.toContain(site.url('/product-jsonld'));
    const shared = await postJson(svc.base, otherKey, '/v1/search', { query: 'lentil soup' });
    expect(shared.body.data.results.map((r: { url: string }) => r.url)).toContain(site.url('/recipe'));
  });

  it('answers a SERP page from the local index', async () => {
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/serp', { query: 'soil', num: 5 });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.provider).toBe('local');
    expect(body.data.organicResults[0]).toMatchObject({ position: 1, link: site.url('/article-jsonld'), displayedLink: expect.stringContaining('127.0.0.1') });
    expect(body.data.pagination.current).toBe(1);
  });

  it('answers an empty list, not an error, for words it has never seen', async () => {
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/search', { query: 'zyzzyva quokka' });
    expect(status).toBe(200);
    expect(body.data.results).toEqual([]);
  });

  it('refuses empty and oversized queries with 422 detail, charging nothing', async () => {
    for (const query of ['   ', 'x'.repeat(501)]) {
      const { status, body } = await postJson(svc.base, API_KEY, '/v1/search', { query });
      expect(status, JSON.stringify(body)).toBe(422);
      expect(body.detail[0].loc).toEqual(['body', 'query']);
    }
    expect((await postJson(svc.base, API_KEY, '/v1/serp', { query: '' })).status).toBe(422);
    expect((await postJson(svc.base, API_KEY, '/v1/search', { query: 'x', limit: 101 })).status).toBe(422);
  });
});

describe('e2e/search with providers configured', () => {
  let svc: Embedded;
  let searxng: FakeSearch;
  let brave: FakeSearch;
  let serpapi: FakeSearch;
  let nominatim: FakeNominatim;
  let overpass: FakeOverpass;
  beforeAll(async () => {
    const results = [
      { url: site.url('/article-plain'), title: 'City council approves new bike lanes', snippet: 'The council voted for new bike lanes on Main Street.' },
      { url: site.url('/gone'), title: 'A page that is gone', snippet: 'Bike lanes, once.' },
      { url: 'http://127.0.0.1:1/closed', title: 'Nobody answers here', snippet: 'Bike lanes nowhere.' },
    ];
    [searxng, brave, serpapi, nominatim, overpass] = await Promise.all([
      startFakeSearxng({ results }),
      startFakeBrave({ apiKey: BRAVE_KEY, results }),
      startFakeSerpApi({ apiKey: SERP_KEY, results }),
      startFakeNominatim(),
      startFakeOverpass(),
    ]);
    svc = await startEmbedded({
      apiKey: API_KEY,
      env: {
        FETCH_ALLOW_PRIVATE: 'true',
        SEARCH_PROVIDERS: 'searxng,brave,serpapi',
        SEARXNG_URL: searxng.url,
        BRAVE_SEARCH_API_KEY: BRAVE_KEY,
        BRAVE_SEARCH_URL: brave.url,
        SERP_API_KEY: SERP_KEY,
        SERP_API_URL: serpapi.url,
        SEARCH_TIMEOUT_MS: '2000',
        NOMINATIM_URL: nominatim.url,
        OVERPASS_URL: overpass.interpreterUrl,
      },
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await Promise.all([searxng?.close(), brave?.close(), serpapi?.close(), nominatim?.close(), overpass?.close()]);
  });
  beforeEach(() => {
    for (const fake of [searxng, brave, serpapi]) fake.setMode('ok');
  });

  it('asks the providers in order, and falls back with a warning when one fails', async () => {
    const first = await postJson(svc.base, API_KEY, '/v1/search', { query: 'bike lanes', limit: 3 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.provider).toBe('searxng');
    expect(first.body.data.results).toHaveLength(3);
    searxng.setMode('error');
    const next = await postJson(svc.base, API_KEY, '/v1/search', { query: 'bike lanes', limit: 3 });
    expect(next.body.data.provider).toBe('brave');
    expect(next.body.data.warning).toMatch(/searxng failed \(unavailable\); brave answered/);
  });

  it('answers 429 with Retry-After when every provider is rate limited, and 502 when they fail, charging nothing', async () => {
    const { key, balance } = await meteredKey(svc.dataDir, 10);
    for (const fake of [searxng, brave, serpapi]) fake.setMode('rate_limited');
    const limited = await postJson(svc.base, key, '/v1/search', { query: 'bike lanes' });
    expect(limited.status, JSON.stringify(limited.body)).toBe(429);
    expect(limited.body.error.code).toBe('provider_rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const fake of [searxng, brave, serpapi]) fake.setMode('error');
    const failed = await postJson(svc.base, key, '/v1/serp', { query: 'bike lanes' });
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('provider_failed');
    expect(failed.body.error.message).toMatch(/searxng: .*brave: .*serpapi: /);
    expect(JSON.stringify(failed.body)).not.toContain(SERP_KEY);
    expect(await balance()).toBe(10);
  });

  it('reads each result\'s page with scrapeOptions, marks a failed one, and charges the search plus the pages read', async () => {
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/search', { query: 'bike lanes', limit: 3, scrapeOptions: { formats: ['markdown', { type: 'json', template: 'article' }] } });
    expect(status, JSON.stringify(body)).toBe(200);
    const [article, gone, closed] = body.data.results;
    expect(article).toMatchObject({ url: site.url('/article-plain'), position: 1, source: 'searxng' });
    expect(article.markdown).toContain('bike lanes');
    expect(article.json).toMatchObject({ title: 'City council approves new bike lanes' });
    expect(gone.metadata.statusCode).toBe(404);
    expect(closed.error).toMatchObject({ code: 'connection_refused' });
    expect(closed.markdown).toBeUndefined();
    // The search, and the two pages read (a 404 is a page read); the failed one costs nothing.
    expect(body.data.cost.credits).toBe(3);
  });

  it('reads nothing when scrapeOptions ask for no format', async () => {
    const { body } = await postJson(svc.base, API_KEY, '/v1/search', { query: 'bike lanes', limit: 2, scrapeOptions: { formats: [] } });
    expect(body.data.results[0].markdown).toBeUndefined();
    expect(body.data.cost.credits).toBe(1);
  });

  it('answers a SERP page with what the SERP API gives', async () => {
    searxng.setMode('error');
    brave.setMode('error');
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/serp', { query: 'bike lanes', num: 2 });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.provider).toBe('serpapi');
    expect(body.data.organicResults).toHaveLength(2);
    expect(body.data.organicResults[0]).toMatchObject({ position: 1, link: site.url('/article-plain'), title: 'City council approves new bike lanes' });
    expect(body.data.pagination).toEqual({ current: 1, next: 2 });
  });
  it('lists places of a kind in an area from OpenStreetMap, with the ODbL attribution, charged one call', async () => {
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/places/search', { query: 'coffee shops', location: 'Austin, TX', limit: 10 });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.provider).toBe('openstreetmap');
    expect(body.data.attribution).toMatchObject({ text: '© OpenStreetMap contributors', license: 'ODbL-1.0', url: 'https://www.openstreetmap.org/copyright' });
    const names = body.data.places.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['Bennu Coffee', 'Houndstooth Coffee']));
    expect(names).not.toContain('Cafe Einstein');
    const bennu = body.data.places.find((p: { name: string }) => p.name === 'Bennu Coffee');
    expect(bennu).toMatchObject({ category: 'cafe', phone: '+1 512-478-4700', website: 'https://www.bennucoffee.com/', openingHours: '24/7', osm: { type: 'node' }, osmUrl: expect.stringMatching(/^https:\/\/www\.openstreetmap\.org\/node\/\d+$/) });
    expect(bennu.coordinates).toEqual({ lat: expect.any(Number), lon: expect.any(Number) });
    expect(bennu.address).toMatchObject({ city: 'Austin', postcode: '78702' });
    expect(body.data.cost.credits).toBe(1);
    // Nominatim was asked with our User-Agent, not a library's or a browser's.
    expect(nominatim.requests.at(-1)?.userAgent).toMatch(/^web-data-service\//);
    // The same question again is answered from the cache: neither service is asked.
    const asked = nominatim.requests.length + overpass.requests.length;
    expect((await postJson(svc.base, API_KEY, '/v1/places/search', { query: 'coffee shops', location: 'Austin, TX', limit: 10 })).status).toBe(200);
    expect(nominatim.requests.length + overpass.requests.length).toBe(asked);
  });

  it('refuses a places question that names no place, and answers 429 when Overpass has no slot', async () => {
    const nowhere = await postJson(svc.base, API_KEY, '/v1/places/search', { query: 'dentists' });
    expect(nowhere.status, JSON.stringify(nowhere.body)).toBe(422);
    expect(nowhere.body.detail[0].loc[0]).toBe('body');
    overpass.setMode('rate_limited');
    try {
      const busy = await postJson(svc.base, API_KEY, '/v1/places/search', { query: 'pharmacies in Austin, TX' });
      expect(busy.status, JSON.stringify(busy.body)).toBe(429);
      expect(busy.body.error.code).toBe('provider_rate_limited');
    } finally {
      overpass.setMode('ok');
    }
  });
});
