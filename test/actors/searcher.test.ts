/**
 * The searcher's handler (actors/searcher/) with the real provider clients against the local
 * stand-ins of SearXNG, Brave and SerpApi (test/helpers/fake-search.ts): the provider order
 * of SEARCH_PROVIDERS, fallback on each kind of failure with a warning that says so, the
 * failure answers when nothing answers (never an empty success), the web and SERP answers'
 * shapes, and what each search is charged.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { askInOrder, handleSearchRequested, providerOrder, ProvidersFailed, type SearcherDeps } from '../../actors/searcher/index.js';
import { BraveSearchProvider } from '../../pipeline/clients/brave-search.js';
import { NominatimClient } from '../../pipeline/clients/nominatim.js';
import { OverpassClient } from '../../pipeline/clients/overpass.js';
import { SearxngProvider } from '../../pipeline/clients/searxng.js';
import { SerpApiProvider } from '../../pipeline/clients/serpapi.js';
import type { ReplyValue } from '../../pipeline/runtime/request-reply.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { timeRangeOf, type SearchQuery } from '../../pipeline/clients/web-search.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { searchRequested } from '../helpers/events.js';
import { startFakeBrave, startFakeSearxng, startFakeSerpApi, type FakeSearch } from '../helpers/fake-search.js';

const log = createLogger('silent');
const BRAVE_KEY = 'brave-test-key-123456';
const SERP_KEY = 'serp-test-key-abcdef';

function replyOf(outcome: Outcome): ReplyValue {
  if (outcome.kind !== 'ack' || !outcome.emit?.length) throw new Error(`no reply: ${JSON.stringify(outcome)}`);
  return outcome.emit[0]?.value as ReplyValue;
}

const data = (reply: ReplyValue) => JSON.parse(reply.data ?? 'null') as Record<string, any>;

const query = (q: string, extra: Partial<SearchQuery> = {}): SearchQuery => ({
  query: q,
  num: 5,
  page: 1,
  lang: null,
  country: null,
  location: null,
  tbs: null,
  timeRange: null,
  filter: null,
  device: 'desktop',
  ...extra,
});

describe('searcher', () => {
  let searxng: FakeSearch;
  let brave: FakeSearch;
  let serpapi: FakeSearch;
  let deps: SearcherDeps;

  beforeAll(async () => {
    [searxng, brave, serpapi] = await Promise.all([startFakeSearxng(), startFakeBrave({ apiKey: BRAVE_KEY }), startFakeSerpApi({ apiKey: SERP_KEY })]);
    const state = new MemoryState();
    deps = {
      providers: [new SearxngProvider({ baseUrl: searxng.url }), new BraveSearchProvider({ apiKey: BRAVE_KEY, baseUrl: brave.url }), new SerpApiProvider({ apiKey: SERP_KEY, baseUrl: serpapi.url })],
      perProviderMs: 2_000,
      places: { nominatim: new NominatimClient({ baseUrl: 'http://127.0.0.1:9', state }), overpass: new OverpassClient({ url: 'http://127.0.0.1:9/api/interpreter' }), state },
      log,
    };
  });
  afterAll(async () => {
    await Promise.all([searxng?.close(), brave?.close(), serpapi?.close()]);
  });
  beforeEach(() => {
    for (const fake of [searxng, brave, serpapi]) {
      fake.setMode('ok');
      fake.requests.length = 0;
    }
  });

  it('orders providers as SEARCH_PROVIDERS says, or every configured one with the local index last', () => {
    const none = { searchProviders: null, searxngUrl: null, braveSearchApiKey: null, braveSearchUrl: 'https://api.search.brave.com', serpApiKey: null, serpApiUrl: 'https://serpapi.com' };
    expect(providerOrder(none)).toEqual(['local']);
    expect(providerOrder({ ...none, searxngUrl: 'http://127.0.0.1:8888', serpApiKey: 'k' })).toEqual(['searxng', 'serpapi', 'local']);
    expect(providerOrder({ ...none, serpApiKey: 'k', braveSearchApiKey: 'b', searchProviders: ' Local , serpapi,brave' })).toEqual(['local', 'serpapi', 'brave']);
    expect(() => providerOrder({ ...none, searchProviders: 'google' })).toThrow(/SEARCH_PROVIDERS: unknown provider "google"/);
    expect(() => providerOrder({ ...none, searchProviders: 'brave' })).toThrow(/BRAVE_SEARCH_API_KEY is not set/);
    expect(() => providerOrder({ ...none, searchProviders: 'local,local' })).toThrow(/named twice/);
  });

  it('reads `tbs` time ranges', () => {
    expect(timeRangeOf('qdr:w')).toBe('w');
    expect(timeRangeOf('cdr:1,cd_min:1/1/2024')).toBeNull();
    expect(timeRangeOf(null)).toBeNull();
  });

  it('answers a web search from the first provider, charged one search', async () => {
    const reply = replyOf(await handleSearchRequested(searchRequested('web', { query: 'HTTP protocol', limit: 3 }), deps, new AbortController().signal));
    expect(reply.ok).toBe(true);
    expect(reply.credits).toBe(PRICES.searchCall.credits);
    const answer = data(reply);
    expect(answer.provider).toBe('searxng');
    expect(answer.results.length).toBeGreaterThan(0);
    expect(answer.results.length).toBeLessThanOrEqual(3);
    expect(answer.results[0]).toEqual({ url: expect.stringMatching(/^https:\/\//), title: expect.any(String), description: expect.any(String), position: 1, source: 'searxng' });
    expect(answer.warning).toBeUndefined();
    expect(brave.requests).toHaveLength(0);
    // An API client says who it is, and does not pose as a browser.
    const headers = searxng.requests[0]?.headers ?? {};
    expect(headers['user-agent']).toMatch(/^web-data-service\/\d+\.\d+\.\d+ /);
    expect(Object.keys(headers).filter((h) => h.startsWith('sec-'))).toEqual([]);
  });

  it.each([
    ['a 500', 'error'],
    ['a 429', 'rate_limited'],
    ['an HTML page', 'garbage'],
    ['a 403 (JSON output off)', 'forbidden'],
    ['no answer in time', 'hang'],
  ] as const)('falls back to the next provider on %s, and says so', async (_label, mode) => {
    searxng.setMode(mode);
    const reply = replyOf(await handleSearchRequested(searchRequested('web', { query: 'HTTP protocol' }), deps, new AbortController().signal));
    expect(reply.ok, reply.errorMessage ?? '').toBe(true);
    const answer = data(reply);
    expect(answer.provider).toBe('brave');
    expect(answer.results.every((r: { source: string }) => r.source === 'brave')).toBe(true);
    expect(answer.warning).toMatch(/^searxng failed \((unavailable|rate_limited|unreadable|rejected|timeout)\); brave answered/);
  });

  it('answers provider_failed, charging nothing, when no provider can answer, naming each and why', async () => {
    searxng.setMode('error');
    brave.setMode('bad_key');
    serpapi.setMode('garbage');
    const reply = replyOf(await handleSearchRequested(searchRequested('web', { query: 'HTTP' }), deps, new AbortController().signal));
    expect(reply).toMatchObject({ ok: false, errorCode: 'provider_failed', credits: 0 });
    expect(reply.errorMessage).toMatch(/searxng: unavailable .*; brave: rejected .*; serpapi: unreadable/);
    expect(reply.errorMessage).not.toContain(BRAVE_KEY);
    expect(reply.errorMessage).not.toContain(SERP_KEY);
  });

  it('answers provider_rate_limited with the shortest wait when every provider was rate limited', async () => {
    for (const fake of [searxng, brave, serpapi]) fake.setMode('rate_limited');
    const reply = replyOf(await handleSearchRequested(searchRequested('web', { query: 'HTTP' }), deps, new AbortController().signal));
    expect(reply).toMatchObject({ ok: false, errorCode: 'provider_rate_limited', credits: 0 });
    // SearXNG's Retry-After: 3, Brave's X-RateLimit-Reset: 1 (per second), SerpApi's Retry-After: 30.
    expect(data(reply)).toEqual({ retryAfterMs: 1_000 });
  });

  it('does not start a provider with no time left before the deadline', async () => {
    searxng.setMode('hang');
    const started = Date.now();
    await expect(askInOrder(deps.providers, query('HTTP'), { tenant: 't', deadlineMs: started + 600, perProviderMs: 10_000, signal: new AbortController().signal })).rejects.toBeInstanceOf(ProvidersFailed);
    expect(brave.requests).toHaveLength(0);
  });

  it('answers a SERP page in SerpApi\'s fields, with paging', async () => {
    searxng.setMode('error');
    brave.setMode('error');
    const reply = replyOf(await handleSearchRequested(searchRequested('serp', { query: 'HTTP', num: 2, page: 2 }), deps, new AbortController().signal));
    expect(reply.ok, reply.errorMessage ?? '').toBe(true);
    const answer = data(reply);
    expect(answer.provider).toBe('serpapi');
    expect(answer.searchParameters).toMatchObject({ query: 'HTTP', page: 2, num: 2, device: 'desktop' });
    expect(answer.organicResults[0]).toEqual({ position: 3, title: expect.any(String), link: expect.any(String), displayedLink: expect.any(String), snippet: expect.any(String), date: expect.toSatisfy((d: unknown) => d === null || typeof d === 'string') });
    expect(answer).toHaveProperty('relatedQuestions');
    expect(answer).toHaveProperty('relatedSearches');
    expect(answer).toHaveProperty('answerBox');
    expect(answer).toHaveProperty('knowledgeGraph');
    expect(answer.pagination.current).toBe(2);
    const start = serpapi.requests.at(-1)?.query;
    expect(start?.get('start')).toBe('2');
    expect(start?.get('num')).toBe('2');
  });

  it('refuses a question it cannot read', async () => {
    const outcome = await handleSearchRequested({ ...searchRequested('web', {}), query: 'not json' }, deps, new AbortController().signal);
    expect(outcome).toMatchObject({ kind: 'fail', code: 'bad_request' });
  });
});
