/**
 * POST /v1/search, POST /v1/serp and POST /v1/places/search through the pipeline: the
 * gateway publishes a SearchBodyed event and awaits the searcher's Reply
 * (actors/searcher/: providers in order with fallback, or OpenStreetMap for places).
 *
 * - A query that is empty once trimmed is 422 (the schema already bounds its length, 1 to
 *   500 characters); a places question that says nowhere (no `location`, and no "… in X" /
 *   "… near X" in `query`) is 422 too.
 * - No provider answered: `provider_rate_limited` (429 with `Retry-After` from the provider's
 *   own wait, when it said one) or `provider_failed` (502). Nothing is charged.
 * - POST /v1/search with `scrapeOptions` (formats not empty) reads each result's page through
 *   the real scrape path (cache, rendering, main content, the `json` format), SEARCH_PARALLEL
 *   at a time, behind the fetcher's SSRF guard like any page; the page's document is merged
 *   into its result (`markdown`, `metadata`, …; the result's own `url`, `title`,
 *   `description`, `position` and `source` stay). A page that fails gets `error: {code,
 *   message}` on its result and costs nothing; the request still succeeds.
 * - Charging: PRICES.searchCall per search or SERP page, PRICES.placesCall per places search,
 *   plus, for `scrapeOptions`, each page as the scrape it is (rules 2 and 3). The reservation
 *   is the most it can cost: `limit` pages at their scrape price.
 */
import type { PlacesSearchBody, SearchBody, SerpBody } from '../../schemas/api/search.js';
import { PAGE_TIMEOUT_MS, type ScrapeOptions } from '../../schemas/api/scrape-options.js';
import { PRICES } from '../../schemas/api/prices.js';
import { isErrorCode } from '../../schemas/errors.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { ReplyValue, Requester } from '../../pipeline/runtime/request-reply.js';
import { scrapeRequestFields } from '../../pipeline/pages/scrape-request.js';
import { placeQueryProblem } from '../../pipeline/search/places.js';
import type { HandlerContext, HandlerResult, OperationHandler } from '../handler.js';
import { ValidationFailed } from '../replies.js';
import { askPipeline } from './ask.js';
import { checkExtractionFormats } from './format-checks.js';
import { readPages } from './pages.js';
import { scrapeEstimate, unservedScrapeOptions, type ScrapeRouting } from './scrape.js';

/** Result pages read at once for one search. */
export const SEARCH_PARALLEL = 5;

/** The search's own `timeout` default (schemas/api/search.ts). */
const SEARCH_TIMEOUT_DEFAULT_MS = 60_000;


/** The pages a search reads: its `scrapeOptions` with at least one format, else none. */
function pageOptions(body: SearchBody): ScrapeOptions | null {
  const options = body.scrapeOptions as ScrapeOptions | undefined;
  if (!options || (options.formats !== undefined && options.formats.length === 0)) return null;
  return options;
}

/** Most a search can cost: the call, and `limit` pages at their scrape price. */
export function searchEstimate(body: SearchBody, operatorModel: boolean): number {
  const options = pageOptions(body);
  return PRICES.searchCall.credits + (options ? (body.limit ?? 5) * scrapeEstimate(options, operatorModel) : 0);
}

function checkQuery(query: string): void {
  if (query.trim() === '') throw new ValidationFailed([{ loc: ['body', 'query'], msg: 'the query is empty once spaces are trimmed', type: 'string_empty' }]);
}

/** A failed search Reply as the error it is; a rate limit carries the provider's wait as Retry-After. */
function searchFailure(reply: ReplyValue): AppError {
  const code = reply.errorCode && isErrorCode(reply.errorCode) ? reply.errorCode : 'upstream_error';
  const wait = reply.data ? parseJsonObject(reply.data)?.retryAfterMs : undefined;
  const headers: Record<string, string> = code === 'provider_rate_limited' && typeof wait === 'number' ? { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) } : {};
  return new AppError(code, reply.errorMessage ?? 'the searcher reported a failure', { headers });
}

async function askSearcher(requester: Requester, ctx: HandlerContext, kind: 'web' | 'serp' | 'places', query: Record<string, unknown>, timeoutMs: number): Promise<{ data: Record<string, unknown>; credits: number }> {
  const reply = await askPipeline(requester, ctx, 'searchRequested', { kind, query: JSON.stringify(query) }, timeoutMs);
  if (!reply.ok) throw searchFailure(reply);
  return { data: reply.data ? (parseJsonObject(reply.data) ?? {}) : {}, credits: reply.credits };
}

/** One result with its page: the document's fields, then the result's own; or the page's error. */
function withPage(result: Record<string, unknown>, reply: ReplyValue): { result: Record<string, unknown>; credits: number } {
  if (!reply.ok) return { result: { ...result, error: { code: reply.errorCode ?? 'upstream_error', message: reply.errorMessage ?? 'the page could not be read' } }, credits: 0 };
  const document = reply.data ? (parseJsonObject(reply.data) ?? {}) : {};
  return { result: { ...document, ...result }, credits: reply.credits };
}

export function searchHandler(requester: Requester, requestTimeoutMs: number, routing: ScrapeRouting): OperationHandler {
  return {
    async handle(ctx): Promise<HandlerResult> {
      const { scrapeOptions: _scrape, ...body } = ctx.body as SearchBody;
      checkQuery(body.query);
      const options = pageOptions(ctx.body as SearchBody);
      if (options) {
        const unserved = unservedScrapeOptions(options, routing);
        if (unserved.length) throw new AppError('not_implemented', `this instance does not serve ${unserved.join(', ')} yet`);
        checkExtractionFormats(options.formats, ['body', 'scrapeOptions', 'formats'], routing.operatorModel ?? false);
      }
      const deadline = Date.now() + Math.min(requestTimeoutMs, body.timeout ?? SEARCH_TIMEOUT_DEFAULT_MS);
      const found = await askSearcher(requester, ctx, 'web', body, deadline - Date.now());
      const results = Array.isArray(found.data.results) ? (found.data.results as Record<string, unknown>[]) : [];
      if (!options || results.length === 0) return { data: found.data, credits: found.credits };
      const fields = scrapeRequestFields(options);
      const pageTimeout = Math.max(PAGE_TIMEOUT_MS.min, Math.min(options.timeout ?? PAGE_TIMEOUT_MS.default, deadline - Date.now()));
      const urls = results.map((r) => String(r.url));
      const replies = await readPages(requester, ctx, urls, fields, SEARCH_PARALLEL, pageTimeout);
      const read = results.map((r, i) => withPage(r, replies[i] as ReplyValue));
      ctx.log.info({ results: results.length, failed: replies.filter((r) => !r.ok).length }, 'search pages read');
      return { data: { ...found.data, results: read.map((r) => r.result) }, credits: found.credits + read.reduce((sum, r) => sum + r.credits, 0) };
    },
  };
}

export function serpHandler(requester: Requester, requestTimeoutMs: number): OperationHandler {
  return {
    async handle(ctx) {
      const body = ctx.body as SerpBody;
      checkQuery(body.query);
      return askSearcher(requester, ctx, 'serp', body, Math.min(requestTimeoutMs, SEARCH_TIMEOUT_DEFAULT_MS));
    },
  };
}

export function placesHandler(requester: Requester, requestTimeoutMs: number): OperationHandler {
  return {
    async handle(ctx) {
      const body = ctx.body as PlacesSearchBody;
      checkQuery(body.query);
      const problem = placeQueryProblem(body);
      if (problem) throw new ValidationFailed([{ loc: ['body', problem.field], msg: problem.message, type: 'place_unknown' }]);
      return askSearcher(requester, ctx, 'places', body, Math.min(requestTimeoutMs, SEARCH_TIMEOUT_DEFAULT_MS));
    },
  };
}
