/**
 * What every web-search provider speaks (pipeline/clients/searxng.ts, brave-search.ts,
 * serpapi.ts, and the local index, pipeline/search/index/): one question, one results page.
 * The searcher actor (actors/searcher/) asks them in the configured order and falls back on
 * a failure; POST /v1/search and POST /v1/serp answer from the page the first one gives.
 *
 * It lives among the clients, whose only other imports are the runtime, so that the clients
 * that speak it and the search rules that ask them (pipeline/search/providers.ts,
 * fallback.ts) both import it without a two-way pair between the folders.
 *
 * Field names follow SerpApi's (the de-facto SERP shape: `organic_results[{position, title,
 * link, displayed_link, snippet, date}]`), in camel case as the rest of this API.
 */

/** The providers, as SEARCH_PROVIDERS names them and as an answer's `provider` reports them. */
export const PROVIDER_NAMES = ['searxng', 'brave', 'serpapi', 'local'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Google's `tbs` time filters that every provider can honour: past hour, day, week, month, year. */
export const TIME_RANGES = ['h', 'd', 'w', 'm', 'y'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

export interface SearchQuery {
  readonly query: string;
  /** Results wanted on this page (1–100). */
  readonly num: number;
  /** 1-based result page. */
  readonly page: number;
  /** Language code (`en`, `pt-BR`), or null. */
  readonly lang: string | null;
  /** Two-letter country code, lower case, or null. */
  readonly country: string | null;
  /** A place the search is made from (`Berlin, Germany`), or null. */
  readonly location: string | null;
  /** `tbs` as the caller gave it (`qdr:d`), or null. */
  readonly tbs: string | null;
  /** The time range read from `tbs` (`qdr:<h|d|w|m|y>`), or null when there is none or it is not one of those. */
  readonly timeRange: TimeRange | null;
  /** Extra provider filter expression, passed on to providers that take one; or null. */
  readonly filter: string | null;
  readonly device: 'desktop' | 'mobile';
}

export interface OrganicResult {
  /** 1-based, across pages (page 2 of 10 starts at 11). */
  readonly position: number;
  readonly title: string;
  /** The result's URL (SerpApi's `link`). */
  readonly url: string;
  /** The URL as the engine shows it (`example.com › docs`); the host and path when the provider gives none. */
  readonly displayedUrl: string;
  /** The engine's snippet ('' when none). */
  readonly snippet: string;
  /** When the result was published or crawled, as the provider says it (ISO 8601 when it can be read), or null. */
  readonly date: string | null;
}

export interface RelatedQuestion {
  readonly question: string;
  readonly snippet: string | null;
  readonly title: string | null;
  readonly link: string | null;
}

export interface RelatedSearch {
  readonly query: string;
  readonly link: string | null;
}

/** One page of results as a provider reports it. */
export interface SerpPage {
  readonly provider: ProviderName;
  readonly organic: readonly OrganicResult[];
  readonly relatedQuestions: readonly RelatedQuestion[];
  readonly relatedSearches: readonly RelatedSearch[];
  /** The provider's answer box (SerpApi `answer_box`, SearXNG `answers`), as it gave it; null when none. */
  readonly answerBox: Readonly<Record<string, unknown>> | null;
  /** The provider's knowledge panel (SerpApi `knowledge_graph`, SearXNG `infoboxes[0]`, Brave `infobox`); null when none. */
  readonly knowledgeGraph: Readonly<Record<string, unknown>> | null;
  /** The engine's estimate of all results, when it gives one (SearXNG often says 0: then null). */
  readonly totalResults: number | null;
  /** Whether a next page is likely to hold more results. */
  readonly hasMore: boolean;
  /** Filters of the query this provider could not apply (`country`, `location`, …), for the answer's warning. */
  readonly unapplied: readonly string[];
}

/** What a provider is given besides the question. */
export interface ProviderContext {
  /** The API key the search is for: the local index shows it its own pages and the shared ones. */
  readonly tenant: string;
  /** Time this provider may take. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

export interface SearchProvider {
  readonly name: ProviderName;
  /** One page of results; failures are pipeline/clients/service-http.ts ServiceErrors. */
  search(query: SearchQuery, ctx: ProviderContext): Promise<SerpPage>;
}

/** The time range of a `tbs` value (`qdr:d` → `d`); null for none or any other filter. */
export function timeRangeOf(tbs: string | null | undefined): TimeRange | null {
  const match = /^qdr:([hdwmy])$/.exec(tbs?.trim() ?? '');
  return match ? (match[1] as TimeRange) : null;
}

/** `example.com › docs › page`: how engines show a URL, for providers that give no displayed link. */
export function displayedUrlOf(url: string): string {
  try {
    const u = new URL(url);
    const parts = u.pathname.split('/').filter(Boolean).map((p) => decodeURIComponentSafe(p));
    return [u.host, ...parts].join(' › ');
  } catch {
    return url;
  }
}

function decodeURIComponentSafe(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** An empty page from `provider`, to build on. */
export function emptyPage(provider: ProviderName): SerpPage {
  return { provider, organic: [], relatedQuestions: [], relatedSearches: [], answerBox: null, knowledgeGraph: null, totalResults: null, hasMore: false, unapplied: [] };
}
