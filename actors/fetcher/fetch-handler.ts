/**
 * The fetcher's pure handler for GET /v1/fetch: one FetchRequested in, an Outcome out. The
 * URL is fetched through the same HttpFetcher as a scrape (SSRF guard, proxies, redirects,
 * size cap; no content-type policy: any bytes) and answered straight to the request's reply
 * topic; nothing is parsed or stored. An event that says `lean` (the intel pool's JSON reads)
 * is fetched on the HTTP stack's lean path (pipeline/runtime/net/http.ts).
 *
 * - Fetched (any HTTP status, 404 and 500 included): `ack` with a Reply {ok: true, data:
 *   FetchedBytes (schemas/events/replies.ts), credits: 1, source: 'fresh'}.
 * - Failed: a retriable code (fetch_timeout, proxy_failed, upstream_error) returns `retry`
 *   while another attempt fits before the deadline; otherwise `fail`: the pool answers the
 *   failure with its code (url_blocked, dns_failed, content_too_large, proxy_unavailable, …).
 * - Past its deadline: dropped by the pool (nobody waits any more). The pool stopping: `retry`.
 */
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import { redactUrl } from '../../pipeline/runtime/net/guard.js';
import type { ProxyRoute } from '../../pipeline/runtime/net/proxies.js';
import type { EventValue } from '../../schemas/events/index.js';
import type { FetchedBytes } from '../../schemas/events/replies.js';
import { FETCH_TIMEOUT_MS } from '../../schemas/api/page-reading.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { failedAttempt } from './errors.js';
import { fetchRaw } from './raw.js';

export type FetchRequested = EventValue<'FetchRequested'>;

export interface FetchHandlerDeps {
  readonly http: HttpFetcher;
  readonly log: Logger;
  readonly now?: () => number;
  /** Attempts the pool makes at most (its retry policy's `attempts`); the last one answers. */
  readonly maxAttempts?: number;
}

const ROUTES: ReadonlySet<string> = new Set<ProxyRoute>(['none', 'datacenter', 'residential', 'mobile', 'auto']);

export async function handleFetchRequested(event: FetchRequested, deps: FetchHandlerDeps, signal: AbortSignal, attempt = 1): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ requestId: event.requestId });
  const started = now();
  const proxy = event.proxy ?? 'auto';
  if (!ROUTES.has(proxy)) return { kind: 'fail', code: 'bad_request', message: `unknown proxy route "${proxy}"` };
  const timeoutMs = Math.max(1, Math.min(FETCH_TIMEOUT_MS, event.deadlineMs - started));
  try {
    const page = await fetchRaw(deps.http, event.url, {
      proxy: proxy as ProxyRoute,
      ...(event.country ? { country: event.country } : {}),
      timeoutMs,
      signal,
      lean: event.lean,
    });
    log.info({ url: redactUrl(event.url), statusCode: page.statusCode, bytes: page.body.length, ms: now() - started }, 'bytes fetched');
    const data: FetchedBytes = {
      statusCode: page.statusCode,
      contentType: page.contentType,
      finalUrl: page.finalUrl,
      bodyBase64: page.body.toString('base64'),
    };
    return {
      kind: 'ack',
      emit: replyTo(event, { ok: true, data: JSON.stringify(data), errorCode: null, errorMessage: null, credits: PRICES.freshPage.credits, source: 'fresh' }, log),
    };
  } catch (error) {
    const context = { url: event.url, attempt, maxAttempts: deps.maxAttempts ?? 2, timeoutMs, deadlineMs: event.deadlineMs, nowMs: now(), signal, log };
    return failedAttempt(error, context, (code, message) => ({ kind: 'fail', code, message }));
  }
}
