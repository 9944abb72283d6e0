/**
 * JSON over HTTP to an outside service's API (search providers, OpenStreetMap, …): one GET
 * (`getJson`) or POST (`postJson`, `postForm`: token endpoints, XRPC procedures) through the
 * shared HTTP stack (pipeline/runtime/net/http.ts), its answer decoded and its failures
 * sorted into what a caller can act on, the same way whatever the method. A POST is sent
 * once (the stack never retries one) and its body is never quoted in a message: it may hold
 * a password.
 *
 * - The endpoint is operator configuration (`SEARXNG_URL`, `NOMINATIM_URL`, …), so it may be
 *   a private address: the client's own fetcher lets private addresses through for these
 *   requests only. URLs that come back in an answer and are then read go through the
 *   fetcher's guard like any page (the scrape path), never through this client.
 * - Requests say who they are (`User-Agent: web-data-service/<version>`), as the services'
 *   usage policies ask (Nominatim refuses library defaults); no proxy is used.
 * - Requests take the stack's lean path (node:http itself, not got-scraping: `lean` in
 *   pipeline/runtime/net/http.ts), a JSON API's call needing nothing a browser-like client adds.
 * - Failures are `ServiceError`s with a `kind`:
 *   - `rate_limited`: 429 (or what the request's `rateLimited` says is one), with `retryAfterMs` from `Retry-After` (seconds or an HTTP date)
 *     or the `X-RateLimit-Reset` family (the first, per-second, value; Bluesky's `RateLimit-Reset`);
 *   - `rejected`: 401 or 403, the credentials (or the server's settings) refuse us;
 *   - `unavailable`: 5xx (529 included), any other HTTP error, a refused or reset connection,
 *     a name that does not resolve;
 *   - `timeout`: no answer within the request's `timeoutMs`;
 *   - `unreadable`: an answer that is not JSON (or not the shape the client expects: the
 *     client throws `unreadable` itself).
 * - An HTTP failure whose JSON body names its error (`{"error": "ExpiredToken"}` of XRPC, an
 *   OAuth `invalid_grant`, the `reason` of a Google API's error) carries that name as
 *   `errorName`, for clients that act on it.
 * - Secrets travel in headers, the query or a POST body only as the service demands; messages
 *   never quote a URL's query string (it may hold `api_key`) nor a body.
 */
import { AppError, errorCode } from '../runtime/errors.js';
import { jsonDepthOver } from '../runtime/json-limits.js';
import { NetGuard } from '../runtime/net/guard.js';
import { HttpFetcher } from '../runtime/net/http.js';
import { serviceVersion } from '../runtime/version.js';

export type ServiceFailure = 'rate_limited' | 'rejected' | 'unavailable' | 'timeout' | 'unreadable';

export class ServiceError extends Error {
  constructor(
    /** The service's name as the answer reports it (`searxng`, `brave`, `nominatim`, …). */
    readonly service: string,
    readonly kind: ServiceFailure,
    message: string,
    /** For `rate_limited`: how long the service asked us to wait, when it said. */
    readonly retryAfterMs: number | null = null,
    /** The HTTP status, when there was an answer. */
    readonly status: number | null = null,
    /** The error's name the answer's JSON body gave (`error`), when it gave one as a string. */
    readonly errorName: string | null = null,
  ) {
    super(`${service}: ${message}`);
    this.name = 'ServiceError';
  }
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof ServiceError;
}

export interface ServiceRequest {
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Largest answer read (default 5 MiB). */
  readonly maxBytes?: number;
  /**
   * For services that refuse an exhausted quota with another status than 429 (GitHub's 403
   * with `x-ratelimit-remaining: 0`): whether this answer is a rate limit.
   */
  readonly rateLimited?: (status: number, headers: Readonly<Record<string, string>>, body: string) => boolean;
}

export interface ServiceAnswer {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly json: unknown;
}

export const USER_AGENT = `web-data-service/${serviceVersion()} (+https://github.com/web-data-service)`;

const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Deepest nesting of an outside service's JSON answer read (arrays and objects); deeper is
 * `unreadable`. A Reddit thread ten replies deep is about 60 levels.
 */
export const SERVICE_JSON_MAX_DEPTH = 256;

/** One fetcher for every service client of a process: endpoints are the operator's, so private ones pass. */
let shared: HttpFetcher | null = null;
export function serviceFetcher(): HttpFetcher {
  shared ??= new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }), retry: { attempts: 2, baseDelayMs: 100, maxDelayMs: 500 } });
  return shared;
}

/** `scheme://host/path` of a URL: what a message may say of it (no user info, no query). */
export function shownEndpoint(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * How long a 429 (or a 503) asks us to wait, in ms: `Retry-After` (seconds or an HTTP date),
 * else `X-RateLimit-Reset`, X's `x-rate-limit-reset` or Bluesky's `RateLimit-Reset` (seconds
 * until the reset, or an epoch time in seconds; a comma list takes its first value, as
 * Brave sends per-second then per-month), else null.
 */
export function retryAfterMs(headers: Readonly<Record<string, string>>, nowMs = Date.now()): number | null {
  const after = headers['retry-after']?.trim();
  if (after) {
    if (/^\d+(\.\d+)?$/.test(after)) return Math.round(Number(after) * 1000);
    const at = Date.parse(after);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  const reset = (headers['x-ratelimit-reset'] ?? headers['x-rate-limit-reset'] ?? headers['ratelimit-reset'])?.split(',')[0]?.trim();
  if (reset && /^\d+(\.\d+)?$/.test(reset)) {
    const value = Number(reset);
    // An epoch time (seconds) rather than a delay: some services send one.
    return Math.round(value > 1_000_000_000 ? Math.max(0, value * 1000 - nowMs) : value * 1000);
  }
  return null;
}

/** GETs `request.url` and decodes its JSON answer; failures are ServiceErrors (see above). */
export function getJson(service: string, request: ServiceRequest, fetcher: HttpFetcher = serviceFetcher()): Promise<ServiceAnswer> {
  return exchange(service, request, null, fetcher);
}

/** POSTs `body` as JSON (undefined: an empty body, for a procedure without input) and decodes the JSON answer. */
export function postJson(service: string, request: ServiceRequest & { readonly body: unknown }, fetcher: HttpFetcher = serviceFetcher()): Promise<ServiceAnswer> {
  const payload = request.body === undefined ? { body: '', contentType: null } : { body: JSON.stringify(request.body), contentType: 'application/json' };
  return exchange(service, request, payload, fetcher);
}

/** POSTs `form` as `application/x-www-form-urlencoded` (an OAuth token request) and decodes the JSON answer. */
export function postForm(service: string, request: ServiceRequest & { readonly form: Readonly<Record<string, string>> }, fetcher: HttpFetcher = serviceFetcher()): Promise<ServiceAnswer> {
  return exchange(service, request, { body: new URLSearchParams(request.form).toString(), contentType: 'application/x-www-form-urlencoded' }, fetcher);
}

/** What a POST sends. */
interface Payload {
  readonly body: string;
  readonly contentType: string | null;
}

/** One request (a GET when `payload` is null), its JSON answer or its failure sorted. */
async function exchange(service: string, request: ServiceRequest, payload: Payload | null, fetcher: HttpFetcher): Promise<ServiceAnswer> {
  const where = shownEndpoint(request.url);
  let res;
  try {
    res = await fetcher.fetch({
      url: request.url.href,
      timeoutMs: request.timeoutMs,
      userAgent: USER_AGENT,
      headers: { Accept: 'application/json', ...request.headers },
      proxy: 'none',
      content: null,
      maxBytes: request.maxBytes ?? DEFAULT_MAX_BYTES,
      lean: true,
      ...(payload ? { method: 'POST' as const, body: payload.body, ...(payload.contentType ? { contentType: payload.contentType } : {}) } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
  } catch (error) {
    if (request.signal?.aborted) throw error;
    const code = errorCode(error);
    if (code === 'fetch_timeout') throw new ServiceError(service, 'timeout', `${where} did not answer within ${request.timeoutMs} ms`);
    const detail = error instanceof AppError ? error.code : (code ?? 'network error');
    throw new ServiceError(service, 'unavailable', `${where} could not be reached (${detail})`);
  }
  const status = res.statusCode;
  if (status >= 400) {
    const body = res.text().text;
    const failure = (kind: ServiceFailure, message: string, wait: number | null = null) => new ServiceError(service, kind, message, wait, status, errorNameOf(body));
    if (status === 429 || request.rateLimited?.(status, res.headers, body)) throw failure('rate_limited', `${where} answered ${status} (rate limited)`, retryAfterMs(res.headers));
    if (status === 401 || status === 403) throw failure('rejected', `${where} answered ${status}: the credentials or the server's settings refuse the request`);
    throw failure('unavailable', `${where} answered HTTP ${status}`, status === 503 ? retryAfterMs(res.headers) : null);
  }
  // A redirect the fetcher did not follow (a POST's 307/308 to another origin).
  if (status >= 300) throw new ServiceError(service, 'unavailable', `${where} answered a redirect (${status}) that is not followed`, null, status);
  let json: unknown;
  const text = res.text().text;
  // Told before it is parsed (one pass): 4 MB of nested arrays took the thread 1.1-1.4 s an answer to parse and walk.
  if (jsonDepthOver(text, SERVICE_JSON_MAX_DEPTH)) {
    throw new ServiceError(service, 'unreadable', `${where} answered JSON nested deeper than ${SERVICE_JSON_MAX_DEPTH} levels`, null, status);
  }
  try {
    json = JSON.parse(text);
  } catch {
    throw new ServiceError(service, 'unreadable', `${where} answered something that is not JSON (${res.contentType || 'no content type'})`, null, status);
  }
  return { status, headers: res.headers, json };
}

/**
 * `error` of a JSON error body (`{"error": "ExpiredToken", "message": …}`), when it is a
 * string; for Google's APIs (`{"error": {"errors": [{"reason": "commentsDisabled"}]}}`), the
 * first error's `reason`.
 */
function errorNameOf(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    const name = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
    if (typeof name === 'string') return name.trim() !== '' ? name : null;
    const reason = (name as { errors?: { reason?: unknown }[] } | null | undefined)?.errors?.[0]?.reason;
    return typeof reason === 'string' && reason.trim() !== '' ? reason : null;
  } catch {
    return null;
  }
}
