/**
 * The Brave Search API as a web-search provider (BRAVE_SEARCH_API_KEY, BRAVE_SEARCH_URL):
 * `GET <base>/res/v1/web/search?q=…&count=…&offset=…[&country=…][&search_lang=…][&freshness=…]`
 * with `X-Subscription-Token: <key>` and `Accept: application/json`.
 *
 * - Paging: `count` is at most 20 and `offset` counts pages of `count` (at most 9). More than
 *   20 wanted → 20 given and `num` listed in `unapplied`; a page past the 10th is an empty
 *   page with nothing more, asked of nobody. Positions count `count` per page.
 * - `country` and `search_lang` take Brave's own lists (a value outside them is answered 422):
 *   a country or language Brave does not know is not sent and is listed in `unapplied`.
 *   Languages are matched as Brave spells them (`pt-br`, `zh-hans`, `jp` for Japanese).
 * - Time ranges: `freshness=pd|pw|pm|py`; Brave has no past hour, so `qdr:h` asks for the past
 *   day, the closest it has. Other `tbs` filters, `location`, `filter` (Brave's
 *   `result_filter` picks answer blocks, not results) and the mobile device are not applied.
 * - Titles, descriptions and FAQ answers may hold markup (`<strong>` around the query's
 *   words) and entities: both are turned into plain text. The date is `page_age` (ISO 8601)
 *   when it reads as one, else the `age` text (`November 15, 2023`, `2 days ago`).
 * - `faq.results` are the related questions, `infobox` the knowledge panel (as given);
 *   `query.more_results_available` says whether there is more.
 * - An answer without `web` is an empty page when it is a search answer (`type: "search"`,
 *   Brave's answer when nothing matched); any other shape is `unreadable`.
 * - Rate limits: every answer carries `X-RateLimit-Limit` (`1, 2000`), `X-RateLimit-Policy`
 *   (`1;w=1, 2000;w=2592000`), `X-RateLimit-Remaining` (`0, 1990`) and `X-RateLimit-Reset`
 *   (`1, 2419200`), each a per-second then a per-month value. Over a limit Brave answers 429;
 *   the wait (`retryAfterMs`) is the first `X-RateLimit-Reset` value, as service-http.ts reads it.
 *   A refused token is 401 (`rejected`). The token travels in its header only and is never
 *   put into a message.
 */
import type { HttpFetcher } from '../runtime/net/http.js';
import { displayedUrlOf, emptyPage, type OrganicResult, type ProviderContext, type RelatedQuestion, type SearchProvider, type SearchQuery, type SerpPage, type TimeRange } from './web-search.js';
import { below, httpUrl, isoDate, list, record, text, type JsonObject } from './json-shapes.js';
import { getJson, serviceFetcher, ServiceError, shownEndpoint } from './service-http.js';

export interface BraveSearchOptions {
  /** BRAVE_SEARCH_API_KEY, sent as `X-Subscription-Token`. */
  readonly apiKey: string;
  /** BRAVE_SEARCH_URL (default https://api.search.brave.com). */
  readonly baseUrl?: string;
  readonly fetcher?: HttpFetcher;
}

export const BRAVE_SEARCH_URL = 'https://api.search.brave.com';

const SERVICE = 'brave';
const MAX_COUNT = 20;
/** `offset` is at most 9: ten pages. */
const MAX_PAGE = 10;

/** Brave's `freshness`; the past hour becomes the past day (it has nothing shorter). */
const FRESHNESS: Readonly<Record<TimeRange, string>> = { h: 'pd', d: 'pd', w: 'pw', m: 'pm', y: 'py' };

/** The countries `country` takes. */
const COUNTRIES = new Set('AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA ES SE CH TW TR GB US'.split(' '));

/** The languages `search_lang` takes, and the common codes Brave spells otherwise. */
const LANGUAGES = new Set(
  'ar eu bn bg ca zh-hans zh-hant hr cs da nl en en-gb et fi fr gl de gu he hi hu is it jp kn ko lv lt ms ml mr nb pl pt-br pt-pt pa ro ru sr sk sl es sv ta te th tr uk vi'.split(' '),
);
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = { ja: 'jp', zh: 'zh-hans', 'zh-cn': 'zh-hans', 'zh-sg': 'zh-hans', 'zh-tw': 'zh-hant', 'zh-hk': 'zh-hant', pt: 'pt-pt', no: 'nb', nn: 'nb', 'en-uk': 'en-gb' };

export class BraveSearchProvider implements SearchProvider {
  readonly name = 'brave' as const;
  private readonly apiKey: string;
  private readonly base: URL;
  private readonly fetcher: HttpFetcher;

  constructor(options: BraveSearchOptions) {
    this.apiKey = options.apiKey;
    this.base = new URL(options.baseUrl ?? BRAVE_SEARCH_URL);
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async search(query: SearchQuery, ctx: ProviderContext): Promise<SerpPage> {
    const count = Math.min(query.num, MAX_COUNT);
    const unapplied = unappliedOf(query);
    if (query.page > MAX_PAGE) return { ...emptyPage(SERVICE), unapplied };
    const url = searchUrl(this.base, query, count);
    const headers = { 'X-Subscription-Token': this.apiKey, Accept: 'application/json' };
    const answer = await getJson(SERVICE, { url, headers, timeoutMs: ctx.timeoutMs, signal: ctx.signal }, this.fetcher);
    return { ...pageOf(answer.json, query, count, url, answer.status), unapplied };
  }
}

function searchUrl(base: URL, query: SearchQuery, count: number): URL {
  const url = below(base, '/res/v1/web/search');
  const params = url.searchParams;
  params.set('q', query.query);
  params.set('count', String(count));
  params.set('offset', String(query.page - 1));
  const country = countryOf(query.country);
  if (country) params.set('country', country);
  const lang = languageOf(query.lang);
  if (lang) params.set('search_lang', lang);
  if (query.timeRange) params.set('freshness', FRESHNESS[query.timeRange]);
  return url;
}

function countryOf(country: string | null): string | null {
  const upper = country?.toUpperCase() ?? null;
  return upper && COUNTRIES.has(upper) ? upper : null;
}

/** Brave's spelling of a language code (`pt-BR` → `pt-br`, `en-US` → `en`, `ja` → `jp`), or null. */
function languageOf(lang: string | null): string | null {
  if (!lang) return null;
  const lower = lang.toLowerCase().replace('_', '-');
  const base = lower.split('-')[0] ?? lower;
  for (const candidate of [lower, LANGUAGE_ALIASES[lower], base, LANGUAGE_ALIASES[base]]) {
    if (candidate && LANGUAGES.has(candidate)) return candidate;
  }
  return null;
}

/** The filters of `query` Brave cannot apply. */
function unappliedOf(query: SearchQuery): string[] {
  const out: string[] = [];
  if (query.num > MAX_COUNT) out.push('num');
  if (query.lang && !languageOf(query.lang)) out.push('lang');
  if (query.country && !countryOf(query.country)) out.push('country');
  if (query.location) out.push('location');
  if (query.tbs && !query.timeRange) out.push('tbs');
  if (query.filter) out.push('filter');
  if (query.device === 'mobile') out.push('device');
  return out;
}

function pageOf(json: unknown, query: SearchQuery, count: number, url: URL, status: number): SerpPage {
  const body = record(json);
  const web = body?.web;
  const hasWeb = web !== undefined && web !== null;
  const results = record(web)?.results;
  if (!body || (hasWeb ? !Array.isArray(results) : body.type !== 'search')) {
    throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON that is not a web search answer`, null, status);
  }
  return {
    ...emptyPage(SERVICE),
    organic: organicOf(list(results), query, count),
    relatedQuestions: list(record(body.faq)?.results).map(questionOf).filter((q): q is RelatedQuestion => q !== null),
    knowledgeGraph: record(body.infobox),
    hasMore: record(body.query)?.more_results_available === true && query.page < MAX_PAGE,
  };
}

function organicOf(raw: readonly unknown[], query: SearchQuery, count: number): OrganicResult[] {
  const out: OrganicResult[] = [];
  for (const item of raw) {
    if (out.length >= count) break;
    const result = record(item);
    const url = httpUrl(result?.url);
    if (!result || !url) continue;
    out.push({
      position: (query.page - 1) * count + out.length + 1,
      title: plainText(result.title) ?? '',
      url,
      displayedUrl: displayedUrlOf(url),
      snippet: plainText(result.description) ?? '',
      date: isoDate(result.page_age) ?? plainText(result.age),
    });
  }
  return out;
}

function questionOf(item: unknown): RelatedQuestion | null {
  const faq = record(item);
  const question = plainText(faq?.question);
  if (!faq || !question) return null;
  return { question, snippet: plainText(faq.answer), title: plainText(faq.title), link: httpUrl(faq.url) };
}

/** Tags: `<strong>`, `</strong>`, `<br/>`. `[^<>]` keeps each try to the next bracket: linear. */
const TAG = /<\/?[a-z][^<>]*>/gi;
const ENTITY = /&(#\d{1,7}|#x[\da-f]{1,6}|[a-z]{2,6});/gi;
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of a markup fragment: tags dropped, then entities decoded; null when empty. */
function plainText(v: unknown): string | null {
  const raw = text(v);
  return raw ? text(raw.replace(TAG, '').replace(ENTITY, decodeEntity)) : null;
}

function decodeEntity(entity: string, name: string): string {
  if (!name.startsWith('#')) return NAMED[name.toLowerCase()] ?? entity;
  const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
}
