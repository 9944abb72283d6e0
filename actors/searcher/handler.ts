/**
 * The searcher's pure handler: one SearchRequested in, an Outcome out.
 *
 * - `web` (POST /v1/search) and `serp` (POST /v1/serp): the providers are asked in order
 *   (fallback.ts); the first answer is the Reply's data (answers.ts), charged
 *   PRICES.searchCall. Page content for `scrapeOptions` is read afterwards by the gateway,
 *   through the scrape path, for each result.
 * - `places` (POST /v1/places/search): OpenStreetMap through Nominatim and Overpass
 *   (pipeline/search/places.ts), charged PRICES.placesCall; the ODbL attribution is in every
 *   answer.
 * - None answered: the Reply fails with `provider_rate_limited` (its data `{retryAfterMs}`
 *   when a provider said how long to wait, for the gateway's Retry-After) or
 *   `provider_failed`; nothing is charged.
 * - A question that cannot be read (the gateway validated it; this guards the event
 *   contract): `bad_request`. Past its deadline: dropped by the pool. The pool stopping: `retry`.
 */
import { isServiceError } from '../../pipeline/clients/service-http.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import { serviceCode } from '../../pipeline/runtime/errors.js';
import { PlacesInputError, searchPlaces, type PlacesDeps } from '../../pipeline/search/places.js';
import type { SearchProvider } from '../../pipeline/clients/web-search.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';
import { serpAnswer, webAnswer } from './answers.js';
import { askInOrder, ProvidersFailed } from '../../pipeline/search/fallback.js';
import { serpQueryOf, webQueryOf } from './queries.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';

export type SearchRequested = EventValue<'SearchRequested'>;

/** Time kept between the providers' end and the request's deadline, for the answer to travel. */
export const REPLY_MARGIN_MS = 500;

export interface SearcherDeps {
  readonly providers: readonly SearchProvider[];
  /** SEARCH_TIMEOUT_MS. */
  readonly perProviderMs: number;
  /** Places search's clients and the coordination state its limiter and cache live in. */
  readonly places: Omit<PlacesDeps, 'timeoutMs' | 'signal'>;
  readonly log: Logger;
  readonly now?: () => number;
}

function answer(event: SearchRequested, data: Record<string, unknown>, credits: number, log: Logger): Outcome {
  return { kind: 'ack', emit: replyTo(event, { ok: true, data: JSON.stringify(data), errorCode: null, errorMessage: null, credits, source: null }, log) };
}

function failed(event: SearchRequested, error: ProvidersFailed, log: Logger): Outcome {
  log.warn({ code: error.code, providers: error.failed.map((f) => `${f.provider}:${f.kind}`) }, 'no search provider answered');
  const data = error.retryAfterMs !== null ? JSON.stringify({ retryAfterMs: error.retryAfterMs }) : null;
  return { kind: 'ack', emit: replyTo(event, { ok: false, data, errorCode: error.code, errorMessage: error.message, credits: 0, source: null }, log) };
}

async function webOrSerp(event: SearchRequested, deps: SearcherDeps, signal: AbortSignal, log: Logger): Promise<Outcome> {
  const query = event.kind === 'web' ? webQueryOf(event.query) : serpQueryOf(event.query);
  if (!query) return { kind: 'fail', code: 'bad_request', message: 'the search question is not a JSON object with a `query`' };
  const now = deps.now ?? Date.now;
  try {
    const served = await askInOrder(deps.providers, query, {
      tenant: event.tenant,
      deadlineMs: event.deadlineMs - REPLY_MARGIN_MS,
      perProviderMs: deps.perProviderMs,
      signal,
      now,
    });
    log.info({ kind: event.kind, provider: served.page.provider, results: served.page.organic.length, failed: served.failed.length }, 'search answered');
    const data = event.kind === 'web' ? webAnswer(served.page, served.failed) : serpAnswer(query, served.page, served.failed);
    return answer(event, data, PRICES.searchCall.credits, log);
  } catch (error) {
    if (error instanceof ProvidersFailed) return failed(event, error, log);
    throw error;
  }
}

async function places(event: SearchRequested, deps: SearcherDeps, signal: AbortSignal, log: Logger): Promise<Outcome> {
  const request = parseJsonObject(event.query);
  if (!request) return { kind: 'fail', code: 'bad_request', message: 'the places question is not a JSON object' };
  const now = deps.now ?? Date.now;
  try {
    const data = await searchPlaces(request, { ...deps.places, timeoutMs: Math.max(1, event.deadlineMs - REPLY_MARGIN_MS - now()), signal });
    log.info({ places: data.places.length }, 'places answered');
    return answer(event, { ...data, provider: 'openstreetmap' }, PRICES.placesCall.credits, log);
  } catch (error) {
    if (error instanceof PlacesInputError) return { kind: 'fail', code: 'bad_request', message: error.message };
    if (!isServiceError(error)) throw error;
    const failure = { provider: error.service, kind: error.kind, message: error.message, retryAfterMs: error.retryAfterMs };
    return failed(event, new ProvidersFailed([failure], error.retryAfterMs), log);
  }
}

export async function handleSearchRequested(event: SearchRequested, deps: SearcherDeps, signal: AbortSignal): Promise<Outcome> {
  const log = deps.log.child({ requestId: event.requestId });
  try {
    return event.kind === 'places' ? await places(event, deps, signal, log) : await webOrSerp(event, deps, signal, log);
  } catch (error) {
    if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the search was interrupted' };
    const code = serviceCode(error);
    const message = error instanceof Error ? error.message : String(error);
    log.warn({ code }, `search failed: ${message}`);
    return { kind: 'fail', code, message };
  }
}
