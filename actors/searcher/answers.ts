/**
 * What a served search answers, built from the provider's page (pipeline/clients/web-search.ts).
 *
 * POST /v1/search, `data`:
 *   {results: [{url, title, description, position, source}], provider, warning?}
 *   `source` (and `provider`) is the provider that served the search (`searxng`, `brave`,
 *   `serpapi`, `local`); `description` is its snippet.
 *
 * POST /v1/serp, `data` (SerpApi's fields, camel case):
 *   {searchParameters: {query, page, num, lang, country, location, device, tbs},
 *    searchInformation: {totalResults}, organicResults: [{position, title, link,
 *    displayedLink, snippet, date}], relatedQuestions: [{question, snippet, title, link}],
 *    relatedSearches: [{query, link}], answerBox, knowledgeGraph,
 *    pagination: {current, next}, provider, warning?}
 *   `answerBox` and `knowledgeGraph` are null when the provider gave none; `pagination.next`
 *   is the next page's number, null when the provider says there is no more (or page 10,
 *   the last a SERP request may ask for).
 *
 * `warning` says which providers failed before the one that answered, and which of the
 * request's filters the answering provider could not apply; absent when there is nothing to say.
 */
import type { SearchQuery, SerpPage } from '../../pipeline/clients/web-search.js';
import type { FailedProvider } from '../../pipeline/search/fallback.js';

/** The last page a SERP request may ask for (schemas/api/search.ts SerpBody `page`). */
export const LAST_SERP_PAGE = 10;

export function warningOf(page: SerpPage, failed: readonly FailedProvider[]): { warning?: string } {
  const parts: string[] = [];
  if (failed.length) parts.push(`${failed.map((f) => `${f.provider} failed (${f.kind})`).join(', ')}; ${page.provider} answered`);
  if (page.unapplied.length) parts.push(`${page.provider} could not apply ${page.unapplied.join(', ')}`);
  return parts.length ? { warning: `${parts.join('. ')}.` } : {};
}

export function webAnswer(page: SerpPage, failed: readonly FailedProvider[]): Record<string, unknown> {
  const results = page.organic.map((r) => ({ url: r.url, title: r.title, description: r.snippet, position: r.position, source: page.provider }));
  return { results, provider: page.provider, ...warningOf(page, failed) };
}

export function serpAnswer(query: SearchQuery, page: SerpPage, failed: readonly FailedProvider[]): Record<string, unknown> {
  return {
    searchParameters: { query: query.query, page: query.page, num: query.num, lang: query.lang, country: query.country, location: query.location, device: query.device, tbs: query.tbs },
    searchInformation: { totalResults: page.totalResults },
    organicResults: page.organic.map((r) => ({ position: r.position, title: r.title, link: r.url, displayedLink: r.displayedUrl, snippet: r.snippet, date: r.date })),
    relatedQuestions: page.relatedQuestions,
    relatedSearches: page.relatedSearches,
    answerBox: page.answerBox,
    knowledgeGraph: page.knowledgeGraph,
    pagination: { current: query.page, next: page.hasMore && query.page < LAST_SERP_PAGE ? query.page + 1 : null },
    provider: page.provider,
    ...warningOf(page, failed),
  };
}
