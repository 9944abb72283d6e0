/**
 * pipeline/clients/{searxng,brave-search,serpapi}.ts against their local stand-ins
 * (test/helpers/fake-search.ts) on 127.0.0.1, through the real HTTP stack (serviceFetcher,
 * which lets private addresses through): what each sends (path below a prefix, key header or
 * parameter, language, country, time range and paging mapped to the service's own), how the
 * answers are read (results, positions across pages, answer blocks, totals, hasMore), the
 * filters each cannot apply, every failure mode as a ServiceError kind (429 waits from
 * Retry-After and from Brave's X-RateLimit-Reset), no key in any message, and odd shapes
 * answered without a TypeError.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BraveSearchProvider } from '../../pipeline/clients/brave-search.js';
import { SearxngProvider } from '../../pipeline/clients/searxng.js';
import { SerpApiProvider } from '../../pipeline/clients/serpapi.js';
import { isServiceError, serviceFetcher, type ServiceError, type ServiceFailure } from '../../pipeline/clients/service-http.js';
import type { ProviderContext, SearchProvider, SearchQuery, SerpPage } from '../../pipeline/clients/web-search.js';
import { startFakeBrave, startFakeSearxng, startFakeSerpApi, type FakeSearch, type FakeSearchMode, type FakeSearchResult } from '../helpers/fake-search.js';

const BRAVE_KEY = 'BSAtestKey-7Qm2Lx9Vw4Rt8Yp1';
const SERP_KEY = 'serpTestKey-3Hn6Jk0Pd5Sg2Zc7';

function question(overrides: Partial<SearchQuery> = {}): SearchQuery {
  return { query: 'http', num: 10, page: 1, lang: null, country: null, location: null, tbs: null, timeRange: null, filter: null, device: 'desktop', ...overrides };
}

function ctx(timeoutMs = 5000): ProviderContext {
  return { tenant: 'tenant-a', timeoutMs, signal: new AbortController().signal };
}

/** The page, or the ServiceError it failed with; anything else (a TypeError) is rethrown. */
async function settle(promise: Promise<SerpPage>): Promise<SerpPage | ServiceError> {
  try {
    return await promise;
  } catch (error) {
    if (isServiceError(error)) return error;
    throw error;
  }
}

async function failure(promise: Promise<SerpPage>): Promise<ServiceError> {
  const outcome = await settle(promise);
  if (!isServiceError(outcome)) throw new Error('expected a ServiceError, got a page');
  return outcome;
}

/** 35 results that all match `widget`, dated. */
const MANY: FakeSearchResult[] = Array.from({ length: 35 }, (_, i) => ({
  url: `https://site${i}.example.org/reviews/${i}`,
  title: `Widget review ${i}`,
  snippet: `All about widget number ${i}.`,
  date: '2024-05-06T07:08:09.000Z',
}));

/** Each of `wholes`, answered with 200, is an `unreadable` failure. */
async function expectUnreadable(fake: FakeSearch, provider: SearchProvider, wholes: readonly unknown[]): Promise<void> {
  for (const json of wholes) {
    fake.setMode({ status: 200, json });
    expect((await failure(provider.search(question(), ctx()))).kind).toBe('unreadable');
  }
}

/** Every test starts on a stand-in that answers normally and has seen nothing. */
function resetFake(fake: FakeSearch): void {
  fake.setMode('ok');
  fake.requests.length = 0;
}

const urlsOf = (page: SerpPage) => page.organic.map((r) => r.url);
const positionsOf = (page: SerpPage) => page.organic.map((r) => r.position);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Each way a stand-in fails, and the kind the client must report. */
const FAILURES: readonly { mode: FakeSearchMode; kind: ServiceFailure }[] = [
  { mode: 'rate_limited', kind: 'rate_limited' },
  { mode: 'error', kind: 'unavailable' },
  { mode: 'garbage', kind: 'unreadable' },
  { mode: 'forbidden', kind: 'rejected' },
  { mode: 'bad_key', kind: 'rejected' },
  { mode: 'hang', kind: 'timeout' },
];

/** Runs the failure table against a provider; returns the errors, for further checks. */
async function expectFailures(fake: FakeSearch, provider: SearchProvider): Promise<ServiceError[]> {
  const errors: ServiceError[] = [];
  for (const { mode, kind } of FAILURES) {
    fake.setMode(mode);
    const error = await failure(provider.search(question(), ctx(mode === 'hang' ? 300 : 5000)));
    expect({ mode, kind: error.kind, service: error.service }).toEqual({ mode, kind, service: provider.name });
    errors.push(error);
  }
  return errors;
}

// ---- SearXNG ---------------------------------------------------------------------------------

describe('pipeline/clients/searxng', () => {
  let fake: FakeSearch;
  let provider: SearxngProvider;
  beforeAll(async () => {
    fake = await startFakeSearxng({ prefix: '/searx' });
    provider = new SearxngProvider({ baseUrl: `${fake.url}/`, fetcher: serviceFetcher() });
  });
  afterAll(() => fake.close());
  beforeEach(() => resetFake(fake));

  it('asks <prefix>/search for JSON with the page, language and time range, and nothing else', async () => {
    await provider.search(question({ query: 'http headers', page: 2, lang: 'pt-BR', tbs: 'qdr:w', timeRange: 'w' }), ctx());
    const [request] = fake.requests;
    expect(request?.path).toBe('/searx/search');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ q: 'http headers', format: 'json', pageno: '2', language: 'pt-BR', time_range: 'week' });
  });

  it.each([
    ['h', 'day'],
    ['d', 'day'],
    ['w', 'week'],
    ['m', 'month'],
    ['y', 'year'],
  ] as const)('maps qdr:%s to time_range=%s', async (range, expected) => {
    await provider.search(question({ tbs: `qdr:${range}`, timeRange: range }), ctx());
    expect(fake.requests[0]?.query.get('time_range')).toBe(expected);
  });

  it('maps results, suggestions and the unknown total', async () => {
    const page = await provider.search(question({ query: 'http' }), ctx());
    expect(page.provider).toBe('searxng');
    expect(page.organic[0]).toEqual({
      position: 1,
      title: 'Retry-After - HTTP | MDN',
      url: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Retry-After',
      displayedUrl: 'developer.mozilla.org › en-US › docs › Web › HTTP › Headers › Retry-After',
      snippet: 'The HTTP Retry-After response header indicates how long the user agent should wait before making a follow-up request.',
      date: '2024-03-02T10:15:00.000Z',
    });
    expect(page.organic.map((r) => r.date)).toEqual(['2024-03-02T10:15:00.000Z', null, '2022-06-01T00:00:00.000Z']);
    expect(page.relatedSearches).toEqual([
      { query: 'http tutorial', link: null },
      { query: 'http example', link: null },
    ]);
    expect(page).toMatchObject({ totalResults: null, answerBox: null, knowledgeGraph: null, hasMore: true, unapplied: [] });
  });

  it('takes num results of SearXNG page `page`, numbered (page-1)·num + i + 1', async () => {
    const paged = await startFakeSearxng({ results: MANY, pageSize: 10 });
    try {
      const client = new SearxngProvider({ baseUrl: paged.url });
      const page = await client.search(question({ query: 'widget', num: 5, page: 2 }), ctx());
      expect(paged.requests[0]?.path).toBe('/search');
      expect(urlsOf(page)).toEqual(range(10, 14).map((i) => `https://site${i}.example.org/reviews/${i}`));
      expect(positionsOf(page)).toEqual(range(6, 10));
      const last = await client.search(question({ query: 'widget', page: 5 }), ctx());
      expect(last).toMatchObject({ organic: [], hasMore: false });
    } finally {
      await paged.close();
    }
  });

  it('reads answers, the first infobox, a real total and drops repeated and non-web URLs', async () => {
    const infobox = { infobox: 'HTTP', id: 'https://en.wikipedia.org/wiki/HTTP', content: 'Application protocol', urls: [{ title: 'RFC 9110', url: 'https://www.rfc-editor.org/rfc/rfc9110' }] };
    fake.setMode({
      status: 200,
      json: {
        query: 'http',
        number_of_results: 1240000,
        results: [
          { url: 'https://a.example/x', title: 'A', content: 'first', publishedDate: '2023-11-15 09:12:03+0100' },
          { url: 'https://a.example/x', title: 'A again', content: 'duplicate' },
          { url: 'magnet:?xt=urn:btih:abc', title: 'a torrent' },
          { url: 'https://b.example/y', title: 'B', content: 'second', publishedDate: 'yesterday' },
        ],
        answers: [{ answer: 'HTTP is a protocol', url: 'https://en.wikipedia.org/wiki/HTTP', engine: 'wikipedia' }],
        infoboxes: [infobox, { infobox: 'second' }],
        suggestions: [],
        unresponsive_engines: [['bing', 'timeout']],
      },
    });
    const page = await provider.search(question(), ctx());
    expect(urlsOf(page)).toEqual(['https://a.example/x', 'https://b.example/y']);
    expect(positionsOf(page)).toEqual([1, 2]);
    expect(page.organic.map((r) => r.date)).toEqual(['2023-11-15T08:12:03.000Z', 'yesterday']);
    expect(page.answerBox).toEqual({ answers: [{ answer: 'HTTP is a protocol', url: 'https://en.wikipedia.org/wiki/HTTP', engine: 'wikipedia' }] });
    expect(page.knowledgeGraph).toEqual(infobox);
    expect(page.totalResults).toBe(1240000);
  });

  it('lists country, location, other tbs, filter and the mobile device as unapplied', async () => {
    const page = await provider.search(question({ country: 'de', location: 'Berlin, Germany', tbs: 'cdr:1,cd_min:1/1/2024', filter: 'site:example.com', device: 'mobile' }), ctx());
    expect(page.unapplied).toEqual(['country', 'location', 'tbs', 'filter', 'device']);
    expect(fake.requests[0]?.query.has('time_range')).toBe(false);
  });

  it('sorts each failure into its kind; 429 waits as Retry-After says; 403 says how to enable JSON', async () => {
    const errors = await expectFailures(fake, provider);
    expect(errors[0]?.retryAfterMs).toBe(3000);
    const forbidden = errors[3] as ServiceError;
    expect(forbidden.status).toBe(403);
    expect(forbidden.message).toContain('search.formats');
    expect(forbidden.message).toContain('settings.yml');
  });

  it('reports an empty page whose engines all failed as unavailable', async () => {
    fake.setMode({ status: 200, json: { query: 'http', number_of_results: 0, results: [], answers: [], infoboxes: [], suggestions: [], unresponsive_engines: [['google', 'CAPTCHA'], ['duckduckgo', 'timeout']] } });
    const error = await failure(provider.search(question(), ctx()));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toContain('google (CAPTCHA), duckduckgo (timeout)');
  });

  it('reports an instance that cannot be reached as unavailable', async () => {
    const gone = await startFakeSearxng();
    await gone.close();
    const error = await failure(new SearxngProvider({ baseUrl: gone.url }).search(question(), ctx()));
    expect(error.kind).toBe('unavailable');
  });

  it('reads odd shapes without a TypeError: a wrong whole is unreadable, wrong parts are skipped', async () => {
    // Results none of which has a web URL are unreadable too: the next provider is asked, not an empty page charged.
    const wholes = [null, 42, 'text', [], {}, { results: null }, { results: 'many' }, { results: {} }, { results: [null, 1, { url: 5 }, { url: 'not a url' }, { title: 'no url' }] }];
    await expectUnreadable(fake, provider, wholes);
    fake.setMode({
      status: 200,
      json: {
        results: [null, 1, 'x', [], { url: 5 }, { url: 'not a url' }, { url: 'https://ok.example/', title: 7, content: {}, publishedDate: 12 }, { url: 'https://ok2.example/', publishedDate: '2024-02-30T00:00:00' }],
        answers: 'an answer',
        infoboxes: { not: 'a list' },
        suggestions: [1, null, ' kept '],
        number_of_results: 'many',
        unresponsive_engines: [[1, 2], 'x', null],
      },
    });
    const page = await provider.search(question(), ctx());
    expect(page.organic).toEqual([
      { position: 1, title: '', url: 'https://ok.example/', displayedUrl: 'ok.example', snippet: '', date: null },
      { position: 2, title: '', url: 'https://ok2.example/', displayedUrl: 'ok2.example', snippet: '', date: '2024-02-30T00:00:00' },
    ]);
    expect(page).toMatchObject({ relatedSearches: [{ query: 'kept', link: null }], answerBox: null, knowledgeGraph: null, totalResults: null });
  });
});

// ---- Brave -----------------------------------------------------------------------------------

describe('pipeline/clients/brave-search', () => {
  let fake: FakeSearch;
  let provider: BraveSearchProvider;
  beforeAll(async () => {
    fake = await startFakeBrave({ apiKey: BRAVE_KEY });
    provider = new BraveSearchProvider({ apiKey: BRAVE_KEY, baseUrl: fake.url, fetcher: serviceFetcher() });
  });
  afterAll(() => fake.close());
  beforeEach(() => resetFake(fake));

  it('sends the token header and maps paging, country, language and freshness onto Brave parameters', async () => {
    const page = await provider.search(question({ query: 'web scraping', page: 2, country: 'de', lang: 'pt-BR', tbs: 'qdr:w', timeRange: 'w' }), ctx());
    const [request] = fake.requests;
    expect(request?.path).toBe('/res/v1/web/search');
    expect(request?.headers['x-subscription-token']).toBe(BRAVE_KEY);
    expect(request?.headers.accept).toBe('application/json');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ q: 'web scraping', count: '10', offset: '1', country: 'DE', search_lang: 'pt-br', freshness: 'pw' });
    expect(page.unapplied).toEqual([]);
  });

  it.each([
    ['h', 'pd'],
    ['d', 'pd'],
    ['w', 'pw'],
    ['m', 'pm'],
    ['y', 'py'],
  ] as const)('maps qdr:%s to freshness=%s', async (range, expected) => {
    await provider.search(question({ tbs: `qdr:${range}`, timeRange: range }), ctx());
    expect(fake.requests[0]?.query.get('freshness')).toBe(expected);
  });

  it("spells languages Brave's way and keeps countries and languages it does not know out of the request", async () => {
    await provider.search(question({ lang: 'ja' }), ctx());
    await provider.search(question({ lang: 'en-US', country: 'gb' }), ctx());
    const unknown = await provider.search(question({ lang: 'xx', country: 'zz' }), ctx());
    expect(fake.requests.map((r) => [r.query.get('search_lang'), r.query.get('country')])).toEqual([
      ['jp', null],
      ['en', 'GB'],
      [null, null],
    ]);
    expect(unknown.unapplied).toEqual(['lang', 'country']);
  });

  it('reads results as plain text: tags stripped, entities decoded, page_age as ISO, FAQ as related questions', async () => {
    const page = await provider.search(question({ query: 'brave' }), ctx());
    expect(page.organic).toEqual([
      {
        position: 1,
        title: 'Brave Search API',
        url: 'https://brave.com/search/api/',
        displayedUrl: 'brave.com › search › api',
        snippet: "Power your search & AI apps with Brave's independent web index: web search, news, images and videos.",
        date: null,
      },
    ]);
    expect(page.relatedQuestions).toEqual([{ question: 'What is brave?', snippet: "Power your search & AI apps with Brave's independent web index: web search, news, images and videos.", title: 'Brave Search API', link: 'https://brave.com/search/api/' }]);
    expect(page).toMatchObject({ totalResults: null, hasMore: false, knowledgeGraph: null });
    const dated = await provider.search(question({ query: 'scraping' }), ctx());
    expect(dated.organic[0]?.date).toBe('2024-11-20T08:00:00.000Z');
  });

  it('numbers results across offset pages and reads more_results_available', async () => {
    const paged = await startFakeBrave({ results: MANY });
    try {
      const client = new BraveSearchProvider({ apiKey: 'any', baseUrl: paged.url });
      const second = await client.search(question({ query: 'widget', page: 2 }), ctx());
      expect(positionsOf(second)).toEqual(range(11, 20));
      expect(urlsOf(second)[0]).toBe('https://site10.example.org/reviews/10');
      expect(second.hasMore).toBe(true);
      const fourth = await client.search(question({ query: 'widget', page: 4 }), ctx());
      expect(positionsOf(fourth)).toEqual(range(31, 35));
      expect(fourth.hasMore).toBe(false);
    } finally {
      await paged.close();
    }
  });

  it('asks at most 20 (saying num was not applied) and answers pages past the 10th empty without asking', async () => {
    const paged = await startFakeBrave({ results: MANY });
    try {
      const client = new BraveSearchProvider({ apiKey: 'any', baseUrl: paged.url });
      const wide = await client.search(question({ query: 'widget', num: 30 }), ctx());
      expect(paged.requests[0]?.query.get('count')).toBe('20');
      expect(positionsOf(wide)).toEqual(range(1, 20));
      expect(wide.unapplied).toEqual(['num']);
      const far = await client.search(question({ query: 'widget', page: 11 }), ctx());
      expect(far).toMatchObject({ organic: [], hasMore: false });
      expect(paged.requests).toHaveLength(1);
    } finally {
      await paged.close();
    }
  });

  it('lists location, other tbs, filter and the mobile device as unapplied', async () => {
    const page = await provider.search(question({ location: 'Berlin, Germany', tbs: 'cdr:1,cd_min:1/1/2024', filter: 'news', device: 'mobile' }), ctx());
    expect(page.unapplied).toEqual(['location', 'tbs', 'filter', 'device']);
    expect(fake.requests[0]?.query.has('freshness')).toBe(false);
  });

  it("takes an answer without `web` as empty when it is a search answer, the age text when page_age is not a date, and the infobox as given", async () => {
    const empty = await provider.search(question({ query: 'nothing-matches-this' }), ctx());
    expect(empty).toMatchObject({ organic: [], relatedQuestions: [], hasMore: false });
    const infobox = { type: 'graph', results: [{ title: 'HTTP', description: 'Application protocol', long_desc: 'The Hypertext Transfer Protocol…' }] };
    fake.setMode({ status: 200, json: { type: 'search', query: { original: 'http', more_results_available: true }, web: { type: 'search', results: [{ title: 'A &amp; B <b>x</b>', url: 'https://a.example/', description: 'one &lt;two&gt; &#8212; &#x2603; &bogus;', age: '2 days ago', page_age: 'recently' }] }, infobox } });
    const page = await provider.search(question(), ctx());
    expect(page.organic[0]).toMatchObject({ title: 'A & B x', snippet: 'one <two> — ☃ &bogus;', date: '2 days ago' });
    expect(page.knowledgeGraph).toEqual(infobox);
    expect(page.hasMore).toBe(true);
    fake.setMode({ status: 200, json: { type: 'news', results: [] } });
    expect((await failure(provider.search(question(), ctx()))).kind).toBe('unreadable');
  });

  it('sorts each failure into its kind; 429 waits as the first X-RateLimit-Reset value says; a wrong token is rejected', async () => {
    const errors = await expectFailures(fake, provider);
    expect(errors[0]?.retryAfterMs).toBe(1000);
    expect(errors[4]?.status).toBe(401);
    fake.setMode('ok');
    const wrong = await failure(new BraveSearchProvider({ apiKey: 'wrong-token', baseUrl: fake.url }).search(question(), ctx()));
    expect(wrong).toMatchObject({ kind: 'rejected', status: 401 });
  });

  it('never puts the token into a message', async () => {
    const errors = await expectFailures(fake, provider);
    fake.setMode({ status: 200, json: { type: 'ErrorResponse', echo: BRAVE_KEY } });
    errors.push(await failure(provider.search(question(), ctx())));
    for (const error of errors) expect(`${error.message} ${error.stack ?? ''}`).not.toContain(BRAVE_KEY);
  });

  it('reads odd shapes without a TypeError: a wrong whole is unreadable, wrong parts are skipped', async () => {
    const wholes = [null, 7, 'text', [], {}, { type: 'search', web: [] }, { type: 'search', web: { results: {} } }, { web: null }];
    await expectUnreadable(fake, provider, wholes);
    fake.setMode({
      status: 200,
      json: {
        type: 'search',
        query: 'not an object',
        web: { results: [null, 3, { url: {} }, { url: 'ftp://files.example/' }, { url: 'https://ok.example/p', title: ['x'], description: 5, page_age: 9, age: null }, { url: 'https://ok2.example/', page_age: '2024-02-30T10:00:00', age: 'February 30' }] },
        faq: { results: [null, { question: 4 }, { question: 'Q?', answer: {}, url: 'javascript:alert(1)' }] },
        infobox: ['not', 'an', 'object'],
      },
    });
    const page = await provider.search(question(), ctx());
    expect(page.organic).toEqual([
      { position: 1, title: '', url: 'https://ok.example/p', displayedUrl: 'ok.example › p', snippet: '', date: null },
      { position: 2, title: '', url: 'https://ok2.example/', displayedUrl: 'ok2.example', snippet: '', date: 'February 30' },
    ]);
    expect(page.relatedQuestions).toEqual([{ question: 'Q?', snippet: null, title: null, link: null }]);
    expect(page).toMatchObject({ knowledgeGraph: null, hasMore: false });
  });
});

// ---- SerpApi ---------------------------------------------------------------------------------

describe('pipeline/clients/serpapi', () => {
  let fake: FakeSearch;
  let provider: SerpApiProvider;
  beforeAll(async () => {
    fake = await startFakeSerpApi({ apiKey: SERP_KEY });
    provider = new SerpApiProvider({ apiKey: SERP_KEY, baseUrl: fake.url, fetcher: serviceFetcher() });
  });
  afterAll(() => fake.close());
  beforeEach(() => resetFake(fake));

  it("asks /search.json with Google's parameters: key, paging, hl, gl, location, tbs as given, device", async () => {
    const page = await provider.search(question({ query: 'http', page: 2, num: 10, lang: 'en', country: 'de', location: 'Berlin, Germany', tbs: 'qdr:d', timeRange: 'd', device: 'mobile' }), ctx());
    const [request] = fake.requests;
    expect(request?.path).toBe('/search.json');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ engine: 'google', q: 'http', api_key: SERP_KEY, num: '10', start: '10', hl: 'en', gl: 'de', location: 'Berlin, Germany', tbs: 'qdr:d', device: 'mobile' });
    expect(page.unapplied).toEqual([]);
  });

  it('maps organic results, related questions and searches, the total and pagination', async () => {
    const page = await provider.search(question({ query: 'http' }), ctx());
    expect(page.provider).toBe('serpapi');
    expect(page.organic[0]).toEqual({
      position: 1,
      title: 'Retry-After - HTTP | MDN',
      url: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Retry-After',
      displayedUrl: 'https://developer.mozilla.org › en-US › docs › Web › HTTP › Headers › Retry-After',
      snippet: 'The HTTP Retry-After response header indicates how long the user agent should wait before making a follow-up request.',
      date: 'Mar 2, 2024',
    });
    expect(positionsOf(page)).toEqual([1, 2, 3]);
    expect(page.relatedQuestions).toEqual([{ question: 'What is http?', snippet: page.organic[0]?.snippet, title: 'Retry-After - HTTP | MDN', link: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Retry-After' }]);
    expect(page.relatedSearches).toEqual([{ query: 'http tutorial', link: 'https://www.google.com/search?q=http%20tutorial' }]);
    expect(page).toMatchObject({ totalResults: 3, hasMore: false, answerBox: null, knowledgeGraph: null });
  });

  it("keeps SerpApi's positions across pages and reads serpapi_pagination.next", async () => {
    const paged = await startFakeSerpApi({ results: MANY });
    try {
      const client = new SerpApiProvider({ apiKey: 'any', baseUrl: paged.url });
      const second = await client.search(question({ query: 'widget', page: 2 }), ctx());
      expect(paged.requests[0]?.query.get('start')).toBe('10');
      expect(positionsOf(second)).toEqual(range(11, 20));
      expect(second.hasMore).toBe(true);
      const last = await client.search(question({ query: 'widget', page: 4 }), ctx());
      expect(positionsOf(last)).toEqual(range(31, 35));
      expect(last.hasMore).toBe(false);
    } finally {
      await paged.close();
    }
  });

  it('counts positions from start when SerpApi gives none, and reads answer_box, knowledge_graph and pagination.next', async () => {
    const answerBox = { type: 'organic_result', title: 'HTTP', snippet: 'Hypertext Transfer Protocol' };
    const knowledgeGraph = { title: 'HTTP', type: 'Protocol', description: 'An application layer protocol.' };
    fake.setMode({
      status: 200,
      json: {
        search_metadata: { status: 'Success' },
        organic_results: [{ title: 'A', link: 'https://a.example/', snippet: 'a' }, { title: 'B', link: 'https://b.example/docs/x' }],
        answer_box: answerBox,
        knowledge_graph: knowledgeGraph,
        pagination: { current: 3, next: 'https://www.google.com/search?q=http&start=30' },
      },
    });
    const page = await provider.search(question({ page: 3 }), ctx());
    expect(page.organic.map((r) => [r.position, r.displayedUrl, r.snippet, r.date])).toEqual([
      [21, 'a.example', 'a', null],
      [22, 'b.example › docs › x', '', null],
    ]);
    expect(page).toMatchObject({ answerBox, knowledgeGraph, hasMore: true, totalResults: null });
  });

  it('answers "no results" as an empty page, listing filter as unapplied', async () => {
    const page = await provider.search(question({ query: 'nothing-matches-this', filter: 'site:example.com' }), ctx());
    expect(page).toMatchObject({ provider: 'serpapi', organic: [], hasMore: false, unapplied: ['filter'] });
  });

  it('sorts each failure into its kind: 429 waits as Retry-After says; a refused key is rejected on 200 and on 401', async () => {
    const errors = await expectFailures(fake, provider);
    expect(errors[0]?.retryAfterMs).toBe(30000);
    expect(errors[4]?.status).toBe(200);
    fake.setMode('ok');
    const wrong = await failure(new SerpApiProvider({ apiKey: 'wrong-key', baseUrl: fake.url }).search(question(), ctx()));
    expect(wrong).toMatchObject({ kind: 'rejected', status: 401 });
    fake.setMode({ status: 200, json: { search_metadata: { status: 'Error' }, error: 'Your account has run out of searches.' } });
    const other = await failure(provider.search(question(), ctx()));
    expect(other.kind).toBe('unavailable');
    expect(other.message).toContain('Your account has run out of searches.');
  });

  it('never puts the key into a message, even when SerpApi quotes it', async () => {
    const errors = await expectFailures(fake, provider);
    fake.setMode({ status: 200, json: { error: `Unsupported parameter in https://serpapi.com/search.json?api_key=${SERP_KEY}&q=http` } });
    const quoted = await failure(provider.search(question(), ctx()));
    expect(quoted.message).toContain('api_key=***');
    errors.push(quoted);
    const gone = await startFakeSerpApi();
    await gone.close();
    errors.push(await failure(new SerpApiProvider({ apiKey: SERP_KEY, baseUrl: gone.url }).search(question(), ctx())));
    for (const error of errors) expect(`${error.message} ${error.stack ?? ''}`).not.toContain(SERP_KEY);
  });

  it('reads odd shapes without a TypeError: a wrong whole is unreadable, wrong parts are skipped', async () => {
    const wholes = [null, 1, 'text', [], {}, { organic_results: null }, { search_metadata: {}, organic_results: {} }, { error: 5 }];
    await expectUnreadable(fake, provider, wholes);
    fake.setMode({
      status: 200,
      json: {
        search_metadata: 'x',
        organic_results: [null, 'x', { link: 4 }, { link: 'https://ok.example/', position: -2, title: {}, displayed_link: 3, snippet: [], date: 7 }, { link: 'https://ok2.example/', position: 1.5 }],
        related_questions: [null, { question: [] }, { question: 'Why?', snippet: 3, link: 'nope' }],
        related_searches: 'x',
        answer_box: [],
        knowledge_graph: 'kg',
        search_information: { total_results: 'lots' },
        serpapi_pagination: { next: 9 },
      },
    });
    const page = await provider.search(question(), ctx());
    expect(page.organic).toEqual([
      { position: 1, title: '', url: 'https://ok.example/', displayedUrl: 'ok.example', snippet: '', date: null },
      { position: 2, title: '', url: 'https://ok2.example/', displayedUrl: 'ok2.example', snippet: '', date: null },
    ]);
    expect(page).toMatchObject({ relatedQuestions: [{ question: 'Why?', snippet: null, title: null, link: null }], relatedSearches: [], answerBox: null, knowledgeGraph: null, totalResults: null, hasMore: false });
  });
});
