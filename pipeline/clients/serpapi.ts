/**
 * A SERP API in SerpApi's shape as a web-search provider (SERP_API_KEY, SERP_API_URL):
 * `GET <base>/search.json?engine=google&q=…&api_key=…&num=…&start=…&device=…`
 * `[&hl=<lang>][&gl=<country>][&location=…][&tbs=…]`.
 *
 * - The key travels in the query string, as SerpApi's protocol demands: no message quotes a
 *   URL's query (service-http.ts shows `scheme://host/path` only), a message SerpApi wrote is
 *   quoted with the key blanked, and a refused key is reported without quoting anything.
 * - Google's own filters pass as given: `tbs` as the caller wrote it (`qdr:d`, `cdr:1,…`),
 *   `location`, `device`. Only `filter` has no SerpApi counterpart: it is listed in `unapplied`.
 * - SerpApi reports errors as `{"error": "…"}`, with an HTTP error status or with 200:
 *   `Invalid API key…` is `rejected`; `Google hasn't returned any results for this query.` is
 *   an empty page (an answer, not a failure); any other is `unavailable`. HTTP statuses are
 *   sorted by service-http.ts (401 `rejected`, 429 `rate_limited` with its Retry-After, …).
 * - Results: `organic_results` (SerpApi's `position` when it gives one, else counted from
 *   `start`; at most `num`), `related_questions`, `related_searches`, `answer_box` and
 *   `knowledge_graph` as given, `search_information.total_results`; `hasMore` when
 *   `serpapi_pagination.next` or `pagination.next` names a next page.
 * - Every field is checked before use. An answer without `organic_results` is an empty page
 *   only when it is a SerpApi answer (it has `search_metadata`); a non-object, or
 *   `organic_results` that is not a list, is `unreadable`.
 */
import type { HttpFetcher } from '../runtime/net/http.js';
import { displayedUrlOf, emptyPage, type OrganicResult, type ProviderContext, type RelatedQuestion, type RelatedSearch, type SearchProvider, type SearchQuery, type SerpPage } from './web-search.js';
import { below, httpUrl, list, record, text, type JsonObject } from './json-shapes.js';
import { getJson, serviceFetcher, ServiceError, shownEndpoint } from './service-http.js';

export interface SerpApiOptions {
  /** SERP_API_KEY, sent as the `api_key` query parameter. */
  readonly apiKey: string;
  /** SERP_API_URL (default https://serpapi.com). */
  readonly baseUrl?: string;
  readonly fetcher?: HttpFetcher;
}

export const SERPAPI_URL = 'https://serpapi.com';

const SERVICE = 'serpapi';
const MAX_MESSAGE_CHARS = 200;

export class SerpApiProvider implements SearchProvider {
  readonly name = 'serpapi' as const;
  private readonly apiKey: string;
  private readonly base: URL;
  private readonly fetcher: HttpFetcher;

  constructor(options: SerpApiOptions) {
    this.apiKey = options.apiKey;
    this.base = new URL(options.baseUrl ?? SERPAPI_URL);
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async search(query: SearchQuery, ctx: ProviderContext): Promise<SerpPage> {
    const url = searchUrl(this.base, query, this.apiKey);
    const answer = await getJson(SERVICE, { url, timeoutMs: ctx.timeoutMs, signal: ctx.signal }, this.fetcher);
    const body = record(answer.json);
    const error = text(body?.error);
    if (error !== null) return emptyOrFailure(error, query, url, answer.status, this.apiKey);
    return { ...pageOf(body, query, url, answer.status), unapplied: unappliedOf(query) };
  }
}

function searchUrl(base: URL, query: SearchQuery, apiKey: string): URL {
  const url = below(base, '/search.json');
  const params = url.searchParams;
  params.set('engine', 'google');
  params.set('q', query.query);
  params.set('api_key', apiKey);
  params.set('num', String(query.num));
  params.set('start', String((query.page - 1) * query.num));
  if (query.lang) params.set('hl', query.lang);
  if (query.country) params.set('gl', query.country);
  if (query.location) params.set('location', query.location);
  if (query.tbs) params.set('tbs', query.tbs);
  params.set('device', query.device);
  return url;
}

function unappliedOf(query: SearchQuery): string[] {
  return query.filter ? ['filter'] : [];
}

/** SerpApi's `{error}` answer: no results is an empty page; a refused key or anything else fails. */
function emptyOrFailure(error: string, query: SearchQuery, url: URL, status: number, apiKey: string): SerpPage {
  const lower = error.toLowerCase();
  if (lower.includes("hasn't returned any results") || lower.includes('has not returned any results')) {
    return { ...emptyPage(SERVICE), unapplied: unappliedOf(query) };
  }
  const where = shownEndpoint(url);
  if (lower.includes('invalid api key')) throw new ServiceError(SERVICE, 'rejected', `${where} refused the API key`, null, status);
  throw new ServiceError(SERVICE, 'unavailable', `${where} answered an error: ${blanked(error, apiKey).slice(0, MAX_MESSAGE_CHARS)}`, null, status);
}

/** `message` with every occurrence of the key replaced by `***`. */
function blanked(message: string, apiKey: string): string {
  return apiKey ? message.split(apiKey).join('***') : message;
}

function pageOf(body: JsonObject | null, query: SearchQuery, url: URL, status: number): SerpPage {
  const organic = body?.organic_results;
  if (!body || (organic === undefined ? record(body.search_metadata) === null : !Array.isArray(organic))) {
    throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON that is not a SerpApi search answer`, null, status);
  }
  const total = record(body.search_information)?.total_results;
  return {
    ...emptyPage(SERVICE),
    organic: organicOf(list(organic), query),
    relatedQuestions: list(body.related_questions).map(questionOf).filter((q): q is RelatedQuestion => q !== null),
    relatedSearches: list(body.related_searches).map(relatedSearchOf).filter((s): s is RelatedSearch => s !== null),
    answerBox: record(body.answer_box),
    knowledgeGraph: record(body.knowledge_graph),
    totalResults: typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : null,
    hasMore: text(record(body.serpapi_pagination)?.next) !== null || text(record(body.pagination)?.next) !== null,
  };
}

function organicOf(raw: readonly unknown[], query: SearchQuery): OrganicResult[] {
  const first = (query.page - 1) * query.num + 1;
  const out: OrganicResult[] = [];
  for (const item of raw) {
    if (out.length >= query.num) break;
    const result = record(item);
    const url = httpUrl(result?.link);
    if (!result || !url) continue;
    const position = result.position;
    out.push({
      position: typeof position === 'number' && Number.isInteger(position) && position > 0 ? position : first + out.length,
      title: text(result.title) ?? '',
      url,
      displayedUrl: text(result.displayed_link) ?? displayedUrlOf(url),
      snippet: text(result.snippet) ?? '',
      date: text(result.date),
    });
  }
  return out;
}

function questionOf(item: unknown): RelatedQuestion | null {
  const entry = record(item);
  const question = text(entry?.question);
  if (!entry || !question) return null;
  return { question, snippet: text(entry.snippet), title: text(entry.title), link: httpUrl(entry.link) };
}

function relatedSearchOf(item: unknown): RelatedSearch | null {
  const entry = record(item);
  const query = text(entry?.query);
  if (!entry || !query) return null;
  return { query, link: httpUrl(entry.link) };
}
