/**
 * The web connector (pipeline/mentions/web.ts) over the real SearXNG, Brave and SerpApi
 * clients against their local stand-ins (test/helpers/fake-search.ts): one quoted search a
 * term with the time filter that covers `since`, results as posts (URL normalized as the id,
 * snippet as text, the provider's date or the collection time), dated results older than
 * `since` dropped, the fallback named in the warnings, a hung provider cut at its share of the
 * time, and the failure when no provider answers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BraveSearchProvider } from '../../pipeline/clients/brave-search.js';
import { SearxngProvider } from '../../pipeline/clients/searxng.js';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { SerpApiProvider } from '../../pipeline/clients/serpapi.js';
import type { CollectQuery } from '../../pipeline/clients/social/types.js';
import { resultPost, resultTime, timeRangeFor, WebConnector } from '../../pipeline/mentions/web.js';
import { startFakeBrave, startFakeSearxng, startFakeSerpApi, type FakeSearch } from '../helpers/fake-search.js';

const NOW = Date.UTC(2026, 10, 26, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BRAVE_KEY = 'brave-test-key-123456';
const SERP_KEY = 'serp-test-key-abcdef';
/** Python's isoformat of a naive UTC datetime, as SearXNG writes `publishedDate`. */
const naive = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** A SearXNG JSON answer (the fake answers it whatever the query: the quoted phrase is checked on the request). */
const SEARXNG_ANSWER = {
  query: '"acme"',
  number_of_results: 0,
  results: [
    { url: 'https://blog.example/acme-review#comments', title: 'Acme review', content: 'We reviewed the Acme scraper.', engine: 'duckduckgo', publishedDate: naive(NOW - 2 * HOUR) },
    { url: 'https://news.example/acme', title: 'Acme raises', content: 'Acme funding news', engine: 'bing', publishedDate: null },
    { url: 'https://old.example/acme', title: 'Acme in 2019', content: 'old', engine: 'bing', publishedDate: naive(NOW - 30 * DAY) },
    { url: 'magnet:?xt=urn:btih:abc', title: 'not a page', content: '', engine: 'x' },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: [],
  unresponsive_engines: [],
};

const BRAVE_ANSWER = {
  type: 'search',
  query: { original: '"acme"', more_results_available: false },
  web: {
    type: 'search',
    results: [
      { title: '<strong>Acme</strong> on Brave', url: 'https://brave-found.example/a', description: 'The <strong>Acme</strong> tool &amp; more', age: 'November 25, 2026' },
      { title: 'Acme hours ago', url: 'https://brave-found.example/b', description: 'fresh', age: '3 hours ago' },
    ],
  },
};

describe('pipeline/mentions/web', () => {
  let searxng: FakeSearch;
  let brave: FakeSearch;
  let serpapi: FakeSearch;
  let connector: WebConnector;
  const query = (extra: Partial<CollectQuery> = {}): CollectQuery => ({ terms: ['acme'], sinceMs: NOW - 3 * DAY, limit: 50, timeoutMs: 5000, ...extra });

  beforeAll(async () => {
    [searxng, brave, serpapi] = await Promise.all([startFakeSearxng(), startFakeBrave({ apiKey: BRAVE_KEY }), startFakeSerpApi({ apiKey: SERP_KEY })]);
    connector = new WebConnector({
      providers: [new SearxngProvider({ baseUrl: searxng.url }), new BraveSearchProvider({ apiKey: BRAVE_KEY, baseUrl: brave.url })],
      perProviderMs: 400,
      now: () => NOW,
    });
  });
  afterAll(async () => {
    await Promise.all([searxng?.close(), brave?.close(), serpapi?.close()]);
  });
  beforeEach(() => {
    searxng.setMode({ status: 200, json: SEARXNG_ANSWER });
    brave.setMode({ status: 200, json: BRAVE_ANSWER });
    serpapi.setMode('ok');
    for (const fake of [searxng, brave, serpapi]) fake.requests.length = 0;
  });

  it('asks the first provider one quoted phrase a term with the past week, and maps its results', async () => {
    const { posts, source, warnings } = await connector.collect(query());
    expect(source).toBe('searxng');
    expect(warnings).toEqual([]);
    expect(searxng.requests).toHaveLength(1);
    expect(searxng.requests[0]?.query.get('q')).toBe('"acme"');
    expect(searxng.requests[0]?.query.get('time_range')).toBe('week');
    expect(brave.requests).toHaveLength(0);
    expect(posts).toEqual([
      // Undated: the collection time; newest first.
      { platform: 'web', externalId: 'https://news.example/acme', url: 'https://news.example/acme', author: null, title: 'Acme raises', text: 'Acme funding news', publishedAtMs: NOW, lang: null },
      {
        platform: 'web',
        externalId: 'https://blog.example/acme-review',
        url: 'https://blog.example/acme-review#comments',
        author: null,
        title: 'Acme review',
        text: 'We reviewed the Acme scraper.',
        publishedAtMs: NOW - 2 * HOUR,
        lang: null,
      },
    ]);
  });

  it('merges the terms’ answers, each URL once, at most `limit`; quotes inside a term do not break the phrase', async () => {
    const { posts } = await connector.collect(query({ terms: ['acme', 'say "acme"'], limit: 5 }));
    expect(searxng.requests.map((r) => r.query.get('q'))).toEqual(['"acme"', '"say  acme"']);
    expect(posts.map((p) => p.externalId)).toEqual(['https://news.example/acme', 'https://blog.example/acme-review']);
    const one = await connector.collect(query({ limit: 1 }));
    expect(one.posts).toHaveLength(1);
  });

  it('asks for the past month or year when `since` is further back, and for no range past a year', async () => {
    await connector.collect(query({ sinceMs: NOW - 20 * DAY }));
    await connector.collect(query({ sinceMs: NOW - 200 * DAY }));
    await connector.collect(query({ sinceMs: NOW - 400 * DAY }));
    expect(searxng.requests.map((r) => r.query.get('time_range'))).toEqual(['month', 'year', null]);
    // The older dated result now passes `since`.
    const { posts } = await connector.collect(query({ sinceMs: NOW - 400 * DAY }));
    expect(posts.map((p) => p.externalId)).toContain('https://old.example/acme');
  });

  it('falls back when the first provider fails, and names both in the warning', async () => {
    searxng.setMode('error');
    const { posts, source, warnings } = await connector.collect(query());
    expect(source).toBe('brave');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^searxng failed \(unavailable: searxng: http:\/\/127\.0\.0\.1:\d+\/search answered HTTP 500\); brave answered instead\.$/);
    expect(brave.requests[0]?.query.get('freshness')).toBe('pw');
    expect(brave.requests[0]?.query.get('q')).toBe('"acme"');
    expect(posts).toEqual([
      { platform: 'web', externalId: 'https://brave-found.example/b', url: 'https://brave-found.example/b', author: null, title: 'Acme hours ago', text: 'fresh', publishedAtMs: NOW - 3 * HOUR, lang: null },
      { platform: 'web', externalId: 'https://brave-found.example/a', url: 'https://brave-found.example/a', author: null, title: 'Acme on Brave', text: 'The Acme tool & more', publishedAtMs: Date.UTC(2026, 10, 25), lang: null },
    ]);
  });

  it('gives a hung provider its share of the time only, then asks the next', async () => {
    searxng.setMode('hang');
    const { source, warnings } = await connector.collect(query());
    expect(source).toBe('brave');
    expect(warnings[0]).toMatch(/^searxng failed \(timeout: /);
  });

  it('fails when no provider answers: rate limited with the shortest wait when all were, else unavailable', async () => {
    searxng.setMode('rate_limited');
    brave.setMode('rate_limited');
    const limited = await connector.collect(query()).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ServiceError);
    expect(limited).toMatchObject({ service: 'web', kind: 'rate_limited', retryAfterMs: 1000 });
    brave.setMode('error');
    const down = await connector.collect(query({ terms: ['acme', 'other'] })).catch((e: unknown) => e);
    expect(down).toMatchObject({ service: 'web', kind: 'unavailable', retryAfterMs: null });
    expect((down as Error).message).toContain('no search provider answered');
  });

  it('reads SerpApi’s spelled and relative dates', async () => {
    serpapi.setMode({
      status: 200,
      json: {
        search_metadata: { status: 'Success' },
        organic_results: [
          { position: 1, title: 'Acme week', link: 'https://serp.example/1', snippet: 'acme', date: '2 days ago' },
          { position: 2, title: 'Acme spelled', link: 'https://serp.example/2', snippet: 'acme', date: 'Nov 20, 2026' },
        ],
      },
    });
    const serp = new WebConnector({ providers: [new SerpApiProvider({ apiKey: SERP_KEY, baseUrl: serpapi.url })], now: () => NOW });
    const { posts, source } = await serp.collect(query({ sinceMs: NOW - 10 * DAY }));
    expect(source).toBe('serpapi');
    expect(serpapi.requests[0]?.query.get('tbs')).toBe('qdr:m');
    expect(posts.map((p) => [p.externalId, p.publishedAtMs])).toEqual([
      ['https://serp.example/1', NOW - 2 * DAY],
      ['https://serp.example/2', Date.UTC(2026, 10, 20)],
    ]);
  });

  it('says it is not configured without providers', () => {
    expect(new WebConnector({ providers: [] }).notConfigured).toBe('no search provider is configured');
    expect(connector.notConfigured).toBeNull();
    expect(connector.platform).toBe('web');
  });

  it('reads dates, picks ranges, maps results (units)', () => {
    expect(resultTime('2026-11-20T10:00:00', NOW)).toBe(Date.UTC(2026, 10, 20, 10));
    expect(resultTime('March 2, 2024', NOW)).toBe(Date.UTC(2024, 2, 2));
    expect(resultTime('Mar. 2, 2024', NOW)).toBe(Date.UTC(2024, 2, 2));
    expect(resultTime('1 week ago', NOW)).toBe(NOW - 7 * DAY);
    expect(resultTime('in 3 days', NOW)).toBeNull();
    expect(resultTime('2027-01-01', NOW)).toBeNull();
    expect(resultTime(null, NOW)).toBeNull();
    expect([timeRangeFor(NOW - DAY, NOW), timeRangeFor(NOW - 7 * DAY, NOW), timeRangeFor(NOW - 8 * DAY, NOW), timeRangeFor(NOW - 100 * DAY, NOW), timeRangeFor(NOW - 367 * DAY, NOW)]).toEqual(['w', 'w', 'm', 'y', null]);
    expect(resultPost({ position: 1, title: ' ', url: 'HTTPS://Example.COM:443/a/../b#x', displayedUrl: '', snippet: 's', date: null }, NOW)).toMatchObject({ externalId: 'https://example.com/b', title: null, publishedAtMs: NOW });
  });
});
