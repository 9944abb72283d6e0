/**
 * Local stand-ins for the web-search APIs (/work/shared/design/reference-shapes-wave2.md §3),
 * each a node:http server on 127.0.0.1 (a free port) speaking the real paths, parameters,
 * headers and JSON: `startFakeSearxng()` (`GET <prefix>/search?q&format=json&pageno…`),
 * `startFakeBrave()` (`GET /res/v1/web/search`, `X-Subscription-Token`) and
 * `startFakeSerpApi()` (`GET /search.json?engine=google&api_key…`). Point a client (or
 * SEARXNG_URL / BRAVE_SEARCH_URL / SERP_API_URL) at `fake.url`; production code is unchanged.
 *
 * Modes (`setMode`, or `mode` at start):
 * - `ok`: results from `options.results` (default: a small built-in set) that have any of the
 *   query's words in their title or snippet, paged as the service pages them (SearXNG
 *   `pageno` over `pageSize` a page; Brave `offset` pages of `count` ≤ 20, `offset` ≤ 9,
 *   else 422; SerpApi `start`/`num`), with the services' other fields around them. Nothing
 *   matched: SearXNG an empty `results`, Brave a search answer without `web`, SerpApi 200
 *   with `error: "Google hasn't returned any results for this query."`.
 * - `rate_limited`: 429; `Retry-After: 3` (SearXNG), `Retry-After: 30` (SerpApi), Brave's
 *   `X-RateLimit-Limit: 1, 2000`, `X-RateLimit-Remaining: 0, 1990`, `X-RateLimit-Reset: 1, 2419200`.
 * - `error`: 500. `garbage`: 200 with an HTML page. `hang`: no answer until the client gives
 *   up or `close()`. `forbidden`: 403 (SearXNG's answer when JSON output is off).
 * - `bad_key`: Brave 401 `SUBSCRIPTION_TOKEN_INVALID`; SerpApi 200 with `error: "Invalid API
 *   key…"` (its older habit; a wrong key in `ok` mode gets its 401); SearXNG, which has no
 *   keys, answers as `forbidden`.
 * - `{status, json, headers?}`: exactly that answer, for odd shapes and fixed blocks.
 * Keys: with `apiKey` set, Brave answers any other `X-Subscription-Token` 401 and SerpApi any
 * other `api_key` 401 `{error: "Invalid API key…"}`. Every request is recorded.
 */
import type http from 'node:http';
import { startStandIn, type StandInAnswer, type StandInReply } from './stand-in.js';

export interface FakeSearchResult {
  readonly url: string;
  readonly title: string;
  readonly snippet: string;
  /** ISO 8601; each fake writes it its service's way. */
  readonly date?: string;
}

export interface FakeFixedAnswer {
  readonly status: number;
  readonly json: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type FakeSearchMode = 'ok' | 'rate_limited' | 'error' | 'hang' | 'garbage' | 'forbidden' | 'bad_key' | FakeFixedAnswer;

export interface FakeSearchRequest {
  /** The path without its query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
}

export interface FakeSearchOptions {
  /** What `ok` answers from (default DEFAULT_SEARCH_RESULTS). */
  readonly results?: readonly FakeSearchResult[];
  readonly mode?: FakeSearchMode;
}

export interface FakeSearxngOptions extends FakeSearchOptions {
  /** A path prefix the instance is served under (`/searx`); `url` includes it. */
  readonly prefix?: string;
  /** Results a page (default 10). */
  readonly pageSize?: number;
}

export interface FakeKeyedSearchOptions extends FakeSearchOptions {
  /** The one key accepted; unset: any non-empty key. */
  readonly apiKey?: string;
}

export interface FakeSearch {
  /** The base URL: SEARXNG_URL / BRAVE_SEARCH_URL / SERP_API_URL. */
  readonly url: string;
  readonly requests: FakeSearchRequest[];
  setMode(mode: FakeSearchMode): void;
  /** Stops the server, ending hung requests. */
  close(): Promise<void>;
}

export const DEFAULT_SEARCH_RESULTS: readonly FakeSearchResult[] = [
  { url: 'https://en.wikipedia.org/wiki/Web_scraping', title: 'Web scraping - Wikipedia', snippet: "Web scraping is data scraping used for extracting data from websites. It's done with software that simulates human web surfing.", date: '2024-11-20T08:00:00.000Z' },
  { url: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Retry-After', title: 'Retry-After - HTTP | MDN', snippet: 'The HTTP Retry-After response header indicates how long the user agent should wait before making a follow-up request.', date: '2024-03-02T10:15:00.000Z' },
  { url: 'https://nodejs.org/api/http.html', title: 'HTTP | Node.js Documentation', snippet: 'To use the HTTP server and client one must require node:http. The HTTP interfaces in Node.js support many features of the protocol.' },
  { url: 'https://www.rfc-editor.org/rfc/rfc9110', title: 'RFC 9110: HTTP Semantics', snippet: 'The Hypertext Transfer Protocol (HTTP) is a stateless application-level protocol for distributed, collaborative, hypertext information systems.', date: '2022-06-01T00:00:00.000Z' },
  { url: 'https://docs.searxng.org/dev/search_api.html', title: 'Search API — SearXNG Documentation', snippet: 'The search supports both GET and POST: q, categories, engines, language, pageno, time_range, format & safesearch.' },
  { url: 'https://brave.com/search/api/', title: 'Brave Search API', snippet: "Power your search & AI apps with Brave's independent web index: web search, news, images and videos." },
  { url: 'https://serpapi.com/search-api', title: 'Google Search Engine Results API - SerpApi', snippet: 'Scrape Google and other search engines: organic results, answer box, knowledge graph and more, as JSON.' },
  { url: 'https://clickhouse.com/docs/en/intro', title: 'What is ClickHouse? | ClickHouse Docs', snippet: 'ClickHouse is a high-performance, column-oriented SQL database management system for online analytical processing (OLAP).', date: '2025-01-10T12:00:00.000Z' },
  { url: 'https://kafka.apache.org/documentation/', title: 'Apache Kafka Documentation', snippet: 'Apache Kafka is an open-source distributed event streaming platform for high-performance data pipelines and streaming analytics.' },
  { url: 'https://www.openstreetmap.org/about', title: 'About OpenStreetMap', snippet: 'OpenStreetMap is built by a community of mappers that contribute and maintain data about roads, trails, cafés, railway stations and more.' },
  { url: 'https://example.com/', title: 'Example Domain', snippet: 'This domain is for use in illustrative examples in documents. You may use this domain in literature without prior coordination.' },
];

export function startFakeSearxng(options: FakeSearxngOptions = {}): Promise<FakeSearch> {
  const prefix = trimSlashes(options.prefix ?? '');
  return startFake(options, prefix, (request, mode) => searxngReply(request, mode, options, prefix));
}

export function startFakeBrave(options: FakeKeyedSearchOptions = {}): Promise<FakeSearch> {
  return startFake(options, '', (request, mode) => braveReply(request, mode, options));
}

export function startFakeSerpApi(options: FakeKeyedSearchOptions = {}): Promise<FakeSearch> {
  return startFake(options, '', (request, mode, base) => serpApiReply(request, mode, options, base));
}

// ---- the server ---------------------------------------------------------------------------

type Answer = StandInAnswer;
type Reply = StandInReply;
type Route = (request: FakeSearchRequest, mode: FakeSearchMode, base: string) => Reply;

async function startFake(options: FakeSearchOptions, prefix: string, route: Route): Promise<FakeSearch> {
  const read = (req: http.IncomingMessage, url: URL): FakeSearchRequest => ({ path: url.pathname, query: url.searchParams, headers: req.headers });
  const { base, ...server } = await startStandIn<FakeSearchMode, FakeSearchRequest>(options.mode ?? 'ok', read, route);
  return { url: `${base}${prefix}`, ...server };
}

const json = (status: number, value: unknown, headers: Record<string, string> = {}): Answer => ({ status, body: JSON.stringify(value), headers });
const html = (status: number, body: string, headers: Record<string, string> = {}): Answer => ({ status, body, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });

const GARBAGE_PAGE = '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><h1>Checking your browser before accessing the site.</h1></body></html>';

/** The answer of a mode every fake gives the same way; null for the ones each shapes itself. */
function commonReply(mode: FakeSearchMode): Reply | null {
  if (typeof mode === 'object') return json(mode.status, mode.json, { ...mode.headers });
  if (mode === 'hang') return 'hang';
  if (mode === 'garbage') return html(200, GARBAGE_PAGE);
  return null;
}

function trimSlashes(path: string): string {
  let out = path;
  while (out.endsWith('/')) out = out.slice(0, -1);
  return out === '' || out.startsWith('/') ? out : `/${out}`;
}

/** The results with any of the query's words in their title or snippet, in order. */
function matching(results: readonly FakeSearchResult[], q: string): FakeSearchResult[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  return results.filter((r) => {
    const haystack = `${r.title} ${r.snippet}`.toLowerCase();
    return words.some((w) => haystack.includes(w));
  });
}

const positiveInt = (raw: string | null, fallback: number): number | null => {
  if (raw === null) return fallback;
  return /^\d{1,6}$/.test(raw) ? Number(raw) : null;
};

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `2024-03-02T10:15:00` (Python's isoformat of a naive datetime, as SearXNG and Brave write). */
const naiveIso = (iso: string) => new Date(iso).toISOString().slice(0, 19);
/** `March 2, 2024` (Brave's `age`) or `Mar 2, 2024` (Google's, via SerpApi). */
function spelledDate(iso: string, short: boolean): string {
  const d = new Date(iso);
  const month = MONTHS[d.getUTCMonth()] as string;
  return `${short ? month.slice(0, 3) : month} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

function hostAndPath(url: string): { scheme: string; netloc: string; hostname: string; path: string } {
  const u = new URL(url);
  return { scheme: u.protocol.slice(0, -1), netloc: u.host, hostname: u.hostname, path: u.pathname };
}

// ---- SearXNG -------------------------------------------------------------------------------

const SEARXNG_TIME_RANGES = ['day', 'week', 'month', 'year'];
const SEARXNG_403 = '<!doctype html><html lang=en><title>403 Forbidden</title><h1>Forbidden</h1><p>You don\'t have the permission to access the requested resource. It is either read-protected or not readable by the server.</p>';

function searxngReply(request: FakeSearchRequest, mode: FakeSearchMode, options: FakeSearxngOptions, prefix: string): Reply {
  if (request.path !== `${prefix}/search` && request.path !== `${prefix}/`) return html(404, '<h1>Not Found</h1>');
  const common = commonReply(mode);
  if (common) return common;
  if (mode === 'rate_limited') return html(429, '<h1>Too Many Requests</h1>', { 'retry-after': '3' });
  if (mode === 'error') return html(500, '<h1>Internal Server Error</h1>');
  if (mode === 'forbidden' || mode === 'bad_key') return html(403, SEARXNG_403);
  const q = request.query.get('q') ?? '';
  const pageno = positiveInt(request.query.get('pageno'), 1);
  const timeRange = request.query.get('time_range');
  if (!q || !pageno || (timeRange !== null && timeRange !== '' && !SEARXNG_TIME_RANGES.includes(timeRange))) return html(400, '<h1>Bad Request</h1>');
  if (request.query.get('format') !== 'json') return html(200, `<!DOCTYPE html><html><head><title>${escapeHtml(q)} - SearXNG</title></head><body></body></html>`);
  const size = options.pageSize ?? 10;
  const page = matching(options.results ?? DEFAULT_SEARCH_RESULTS, q).slice((pageno - 1) * size, pageno * size);
  return json(200, {
    query: q,
    number_of_results: 0,
    results: page.map((r, i) => searxngResult(r, i)),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: page.length ? [`${q} tutorial`, `${q} example`] : [],
    unresponsive_engines: [],
  });
}

function searxngResult(r: FakeSearchResult, i: number): Record<string, unknown> {
  const u = hostAndPath(r.url);
  return {
    url: r.url,
    title: r.title,
    content: r.snippet,
    engine: 'duckduckgo',
    engines: ['duckduckgo', 'brave'],
    positions: [i + 1, i + 2],
    score: Math.round((4 / (i + 1)) * 1000) / 1000,
    category: 'general',
    publishedDate: r.date ? naiveIso(r.date) : null,
    thumbnail: '',
    img_src: '',
    parsed_url: [u.scheme, u.netloc, u.path, '', '', ''],
    template: 'default.html',
    priority: '',
  };
}

const escapeHtml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#x27;');

// ---- Brave ---------------------------------------------------------------------------------

const BRAVE_PATH = '/res/v1/web/search';
const BRAVE_FRESHNESS = /^(pd|pw|pm|py|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$/;
const BRAVE_LIMIT_HEADERS = { 'x-ratelimit-limit': '1, 2000', 'x-ratelimit-policy': '1;w=1, 2000;w=2592000' };

function braveError(status: number, code: string, detail: string, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'ErrorResponse', error: { id: `fake-${status}-${code.toLowerCase()}`, status, code, detail, meta }, time: Math.floor(Date.now() / 1000) };
}

function braveReply(request: FakeSearchRequest, mode: FakeSearchMode, options: FakeKeyedSearchOptions): Reply {
  if (request.path !== BRAVE_PATH) return json(404, braveError(404, 'RESOURCE_NOT_FOUND', 'Resource not found.'));
  const common = commonReply(mode);
  if (common) return common;
  if (mode === 'rate_limited') {
    const body = braveError(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.', { plan: 'Free', rate_limit: 1, rate_current: 2, quota_limit: 2000, quota_current: 10, component: 'rate_limiter' });
    return json(429, body, { ...BRAVE_LIMIT_HEADERS, 'x-ratelimit-remaining': '0, 1990', 'x-ratelimit-reset': '1, 2419200' });
  }
  if (mode === 'error') return json(500, braveError(500, 'INTERNAL_ERROR', 'An internal error occurred.'));
  if (mode === 'forbidden') return json(403, braveError(403, 'OPTION_NOT_IN_PLAN', 'The requested option is not available for your plan.', { component: 'authorization' }));
  const token = headerOf(request.headers['x-subscription-token']);
  if (mode === 'bad_key' || !token || (options.apiKey !== undefined && token !== options.apiKey)) {
    return json(401, braveError(401, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.', { component: 'authentication' }));
  }
  const invalid = braveInvalid(request.query);
  if (invalid) return json(422, braveError(422, 'VALIDATION', 'Unable to validate request parameter(s)', { errors: [{ loc: ['query', invalid], msg: `invalid ${invalid}`, type: 'value_error' }] }));
  return braveSearch(request.query, options.results ?? DEFAULT_SEARCH_RESULTS);
}

/** The first parameter Brave would refuse (422), or null. */
function braveInvalid(query: URLSearchParams): string | null {
  const q = query.get('q') ?? '';
  const count = positiveInt(query.get('count'), 20);
  const offset = positiveInt(query.get('offset'), 0);
  const country = query.get('country');
  const lang = query.get('search_lang');
  const freshness = query.get('freshness');
  if (!q.trim() || q.length > 400) return 'q';
  if (count === null || count < 1 || count > 20) return 'count';
  if (offset === null || offset > 9) return 'offset';
  if (country !== null && !/^([A-Z]{2}|ALL)$/.test(country)) return 'country';
  if (lang !== null && !/^[a-z]{2}(-[a-z]{2,4})?$/.test(lang)) return 'search_lang';
  if (freshness !== null && !BRAVE_FRESHNESS.test(freshness)) return 'freshness';
  return null;
}

function braveSearch(query: URLSearchParams, results: readonly FakeSearchResult[]): Answer {
  const q = query.get('q') ?? '';
  const count = positiveInt(query.get('count'), 20) ?? 20;
  const offset = positiveInt(query.get('offset'), 0) ?? 0;
  const matched = matching(results, q);
  const page = matched.slice(offset * count, (offset + 1) * count);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const body: Record<string, unknown> = {
    type: 'search',
    query: { original: q, show_strict_warning: false, is_navigational: false, is_news_breaking: false, spellcheck_off: true, country: (query.get('country') ?? 'us').toLowerCase(), bad_results: false, should_fallback: false, postal_code: '', city: '', header_country: '', more_results_available: matched.length > (offset + 1) * count, state: '' },
    mixed: { type: 'mixed', main: page.map((_, index) => ({ type: 'web', index, all: false })), top: [], side: [] },
  };
  if (page.length) {
    body.web = { type: 'search', results: page.map((r) => braveResult(r, words)), family_friendly: true };
    const first = page[0] as FakeSearchResult;
    body.faq = { type: 'faq', results: [{ question: `What is ${q}?`, answer: highlighted(first.snippet, words), title: escapeHtml(first.title), url: first.url, meta_url: braveMetaUrl(first.url) }] };
  }
  return json(200, body, { ...BRAVE_LIMIT_HEADERS, 'x-ratelimit-remaining': '0, 1999', 'x-ratelimit-reset': '1, 2419200' });
}

function braveResult(r: FakeSearchResult, words: readonly string[]): Record<string, unknown> {
  const u = new URL(r.url);
  return {
    title: escapeHtml(r.title),
    url: r.url,
    is_source_local: false,
    is_source_both: false,
    description: highlighted(r.snippet, words),
    ...(r.date ? { page_age: naiveIso(r.date), age: spelledDate(r.date, false) } : {}),
    profile: { name: u.hostname, url: r.url, long_name: u.hostname, img: `https://imgs.search.brave.com/fake/${u.hostname}.png` },
    language: 'en',
    family_friendly: true,
    type: 'search_result',
    subtype: 'generic',
    meta_url: braveMetaUrl(r.url),
  };
}

function braveMetaUrl(url: string): Record<string, unknown> {
  const u = hostAndPath(url);
  return { ...u, favicon: `https://imgs.search.brave.com/fake/${u.hostname}/favicon.ico`, path: u.path.split('/').filter(Boolean).map((p) => ` › ${p}`).join('') };
}

/** Brave's description: HTML-escaped, the query's words in `<strong>`. */
function highlighted(snippet: string, words: readonly string[]): string {
  return snippet
    .split(' ')
    .map((token) => (words.includes(token.toLowerCase().replace(/[^\p{L}\p{N}-]/gu, '')) ? `<strong>${escapeHtml(token)}</strong>` : escapeHtml(token)))
    .join(' ');
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

// ---- SerpApi -------------------------------------------------------------------------------

const SERPAPI_BAD_KEY = 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key';

function serpApiReply(request: FakeSearchRequest, mode: FakeSearchMode, options: FakeKeyedSearchOptions, base: string): Reply {
  if (request.path !== '/search.json') return json(404, { error: 'Not found.' });
  const common = commonReply(mode);
  if (common) return common;
  if (mode === 'rate_limited') return json(429, { error: 'Your searches for the past hour have exceeded the hourly throughput limit of your plan.' }, { 'retry-after': '30' });
  if (mode === 'error') return json(500, { error: 'Something went wrong on our side. Please try again later.' });
  if (mode === 'forbidden') return json(403, { error: 'This account is not allowed to use this API.' });
  if (mode === 'bad_key') return json(200, { error: SERPAPI_BAD_KEY });
  const query = request.query;
  const key = query.get('api_key');
  if (!key || (options.apiKey !== undefined && key !== options.apiKey)) return json(401, { error: SERPAPI_BAD_KEY });
  const engine = query.get('engine') ?? '';
  if (engine !== 'google') return json(400, { error: `Unsupported \`${engine}\` search engine.` });
  const q = query.get('q') ?? '';
  const num = positiveInt(query.get('num'), 10);
  const start = positiveInt(query.get('start'), 0);
  if (!q.trim()) return json(400, { error: 'Missing query `q` parameter.' });
  if (!num || num > 100 || start === null) return json(400, { error: 'Invalid `num` or `start` parameter.' });
  return serpApiSearch(query, q, num, start, options.results ?? DEFAULT_SEARCH_RESULTS, base);
}

function serpApiSearch(query: URLSearchParams, q: string, num: number, start: number, results: readonly FakeSearchResult[], base: string): Answer {
  const matched = matching(results, q);
  const page = matched.slice(start, start + num);
  const google = (s: number) => `https://www.google.com/search?q=${encodeURIComponent(q)}&start=${s}`;
  const head = {
    search_metadata: { id: 'fake0000000000000000', status: 'Success', json_endpoint: `${base}/searches/fake/fake.json`, created_at: '2025-01-01 00:00:00 UTC', processed_at: '2025-01-01 00:00:00 UTC', google_url: google(start), raw_html_file: `${base}/searches/fake/fake.html`, total_time_taken: 1.02 },
    search_parameters: { engine: 'google', q, google_domain: 'google.com', hl: query.get('hl') ?? undefined, gl: query.get('gl') ?? undefined, device: query.get('device') ?? 'desktop', num: String(num), start: String(start) },
  };
  if (!page.length) return json(200, { ...head, search_information: { organic_results_state: 'Fully empty', query_displayed: q }, error: "Google hasn't returned any results for this query." });
  const next = start + num < matched.length ? start + num : null;
  const first = page[0] as FakeSearchResult;
  return json(200, {
    ...head,
    search_information: { organic_results_state: 'Results for exact spelling', query_displayed: q, total_results: matched.length, time_taken_displayed: 0.31 },
    organic_results: page.map((r, i) => serpApiResult(r, start + i + 1, q)),
    related_questions: [{ question: `What is ${q}?`, snippet: first.snippet, title: first.title, link: first.url }],
    related_searches: [{ block_position: 1, query: `${q} tutorial`, link: `https://www.google.com/search?q=${encodeURIComponent(`${q} tutorial`)}` }],
    pagination: { current: start / num + 1, ...(next !== null ? { next: google(next) } : {}), other_pages: {} },
    serpapi_pagination: { current: start / num + 1, ...(next !== null ? { next_link: `${base}/search.json?engine=google&q=${encodeURIComponent(q)}&start=${next}`, next: `${base}/search.json?engine=google&q=${encodeURIComponent(q)}&start=${next}` } : {}), other_pages: {} },
  });
}

function serpApiResult(r: FakeSearchResult, position: number, q: string): Record<string, unknown> {
  const u = new URL(r.url);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  return {
    position,
    title: r.title,
    link: r.url,
    redirect_link: `https://www.google.com/url?sa=t&url=${encodeURIComponent(r.url)}`,
    displayed_link: [`${u.protocol}//${u.host}`, ...u.pathname.split('/').filter(Boolean)].join(' › '),
    favicon: `https://serpapi.com/searches/fake/images/${u.hostname}.png`,
    ...(r.date ? { date: spelledDate(r.date, true) } : {}),
    snippet: r.snippet,
    snippet_highlighted_words: r.snippet.split(' ').filter((t) => words.includes(t.toLowerCase())),
    source: u.hostname,
  };
}
