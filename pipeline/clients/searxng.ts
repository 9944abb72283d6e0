/**
 * SearXNG, the self-hostable metasearch engine, as a web-search provider (SEARXNG_URL):
 * `GET <base>/search?q=…&format=json&pageno=<page>[&language=…][&time_range=…]`.
 *
 * - The base URL may carry a path prefix (`http://host:8888/searx`): `/search` goes below it.
 * - JSON output must be switched on under `search.formats` in the instance's settings.yml;
 *   without it SearXNG answers 403, reported as `rejected` saying so.
 * - There is no key, no count parameter and no safe-search choice of ours (`safesearch` is
 *   left to the instance). A page holds what SearXNG's page `pageno` holds, at most `num` of
 *   it, with duplicate URLs dropped; positions count `num` per page ((page-1)·num + i + 1).
 * - Time ranges: `day`, `week`, `month`, `year`; SearXNG has no past hour, so `qdr:h` asks for
 *   the past day, the closest it has. Other `tbs` filters, `country`, `location`, `filter`
 *   and the mobile device are not applied and are listed in `unapplied`.
 * - `answers` become the answer box (`{answers: […]}`), `infoboxes[0]` the knowledge panel,
 *   `suggestions` the related searches; `number_of_results` 0 (SearXNG's "unknown") is null.
 * - SearXNG gives no total, so `hasMore` is "this page had results". An empty page whose
 *   engines all failed (`unresponsive_engines`: CAPTCHAs, timeouts) is `unavailable`, not an
 *   answer, so the next provider is asked.
 * - Every field of the answer is checked before use; an answer that is not an object with a
 *   `results` array, or whose results hold no web URL, is `unreadable`.
 */
import type { HttpFetcher } from '../runtime/net/http.js';
import { displayedUrlOf, emptyPage, type OrganicResult, type ProviderContext, type SearchProvider, type SearchQuery, type SerpPage, type TimeRange } from './web-search.js';
import { below, httpUrl, isoDate, list, record, text, type JsonObject } from './json-shapes.js';
import { getJson, isServiceError, serviceFetcher, ServiceError, shownEndpoint } from './service-http.js';

export interface SearxngOptions {
  /** SEARXNG_URL: the instance's base URL, with its path prefix if any. */
  readonly baseUrl: string;
  readonly fetcher?: HttpFetcher;
}

const SERVICE = 'searxng';

/** SearXNG's `time_range` values; the past hour becomes the past day (it has nothing shorter). */
const TIME_RANGE: Readonly<Record<TimeRange, string>> = { h: 'day', d: 'day', w: 'week', m: 'month', y: 'year' };

const MAX_REASON_CHARS = 200;

export class SearxngProvider implements SearchProvider {
  readonly name = 'searxng' as const;
  private readonly base: URL;
  private readonly fetcher: HttpFetcher;

  constructor(options: SearxngOptions) {
    this.base = new URL(options.baseUrl);
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async search(query: SearchQuery, ctx: ProviderContext): Promise<SerpPage> {
    const url = searchUrl(this.base, query);
    let answer;
    try {
      answer = await getJson(SERVICE, { url, timeoutMs: ctx.timeoutMs, signal: ctx.signal }, this.fetcher);
    } catch (error) {
      throw isServiceError(error) && error.status === 403 ? jsonDisabled(url) : error;
    }
    return pageOf(answer.json, query, url, answer.status);
  }
}

function searchUrl(base: URL, query: SearchQuery): URL {
  const url = below(base, '/search');
  const params = url.searchParams;
  params.set('q', query.query);
  params.set('format', 'json');
  params.set('pageno', String(query.page));
  if (query.lang) params.set('language', query.lang);
  if (query.timeRange) params.set('time_range', TIME_RANGE[query.timeRange]);
  return url;
}

function jsonDisabled(url: URL): ServiceError {
  return new ServiceError(SERVICE, 'rejected', `${shownEndpoint(url)} answered 403: JSON output is disabled on this instance; enable \`json\` under \`search.formats\` in its settings.yml`, null, 403);
}

/** The filters of `query` SearXNG cannot apply. */
function unappliedOf(query: SearchQuery): string[] {
  const out: string[] = [];
  if (query.country) out.push('country');
  if (query.location) out.push('location');
  if (query.tbs && !query.timeRange) out.push('tbs');
  if (query.filter) out.push('filter');
  if (query.device === 'mobile') out.push('device');
  return out;
}

function pageOf(json: unknown, query: SearchQuery, url: URL, status: number): SerpPage {
  const body = record(json);
  if (!body || !Array.isArray(body.results)) {
    throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON without a \`results\` list`, null, status);
  }
  const raw = body.results;
  const failedEngines = list(body.unresponsive_engines).map(engineFailure).filter((e): e is string => e !== null);
  if (raw.length === 0 && failedEngines.length > 0) {
    throw new ServiceError(SERVICE, 'unavailable', `every engine failed: ${failedEngines.join(', ').slice(0, MAX_REASON_CHARS)}`, null, status);
  }
  const organic = organicOf(raw, query);
  // Results none of which is one (no web URL in any): a broken answer, not an empty page, so
  // the next provider is asked (an empty success, charged, hid the failure).
  if (raw.length > 0 && organic.length === 0) {
    throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered ${raw.length} results, none with a web URL`, null, status);
  }
  const answers = list(body.answers);
  const total = body.number_of_results;
  return {
    ...emptyPage(SERVICE),
    organic,
    relatedSearches: list(body.suggestions).map(text).filter((q): q is string => q !== null).map((q) => ({ query: q, link: null })),
    answerBox: answers.length > 0 ? { answers } : null,
    knowledgeGraph: record(list(body.infoboxes)[0]),
    totalResults: typeof total === 'number' && Number.isFinite(total) && total > 0 ? total : null,
    hasMore: raw.length > 0,
    unapplied: unappliedOf(query),
  };
}

/** The first `num` results with a web URL, each URL once, numbered across pages. */
function organicOf(raw: readonly unknown[], query: SearchQuery): OrganicResult[] {
  const seen = new Set<string>();
  const out: OrganicResult[] = [];
  for (const item of raw) {
    if (out.length >= query.num) break;
    const result = record(item);
    const url = httpUrl(result?.url);
    if (!result || !url || seen.has(url)) continue;
    seen.add(url);
    out.push({
      position: (query.page - 1) * query.num + out.length + 1,
      title: text(result.title) ?? '',
      url,
      displayedUrl: displayedUrlOf(url),
      snippet: text(result.content) ?? '',
      date: dateOf(result.publishedDate),
    });
  }
  return out;
}

/** `google (CAPTCHA)` from SearXNG's `[engine, reason]` pair. */
function engineFailure(entry: unknown): string | null {
  const [engine, reason] = list(entry);
  const name = text(engine);
  if (!name) return null;
  return text(reason) ? `${name} (${text(reason)})` : name;
}

/** The date as ISO 8601 when it reads as one, else as SearXNG gave it; null when none. */
function dateOf(v: unknown): string | null {
  const raw = text(v);
  return raw ? (isoDate(raw) ?? raw) : null;
}
