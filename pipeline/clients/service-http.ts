/**
 * JSON over HTTP to an outside service's API (search providers, OpenStreetMap, …): one GET
 * through the shared HTTP stack (pipeline/runtime/net/http.ts), its answer decoded and its
 * failures sorted into what a caller can act on.
 *
 * - The endpoint is operator configuration (`SEARXNG_URL`, `NOMINATIM_URL`, …), so it may be
 *   a private address: the client's own fetcher lets private addresses through for these
 *   requests only. URLs that come back in an answer and are then read go through the
 *   fetcher's guard like any page (the scrape path), never through this client.
 * - Requests say who they are (`User-Agent: web-data-service/<version>`), as the services'
 *   usage policies ask (Nominatim refuses library defaults); no proxy is used.
 * - Failures are `ServiceError`s with a `kind`:
 *   - `rate_limited`: 429 (or what the request's `rateLimited` says is one), with `retryAfterMs` from `Retry-After` (seconds or an HTTP date)
 *     or the `X-RateLimit-Reset` family (the first, per-second, value);
 *   - `rejected`: 401 or 403, the credentials (or the server's settings) refuse us;
 *   - `unavailable`: 5xx (529 included), any other HTTP error, a refused or reset connection,
 *     a name that does not resolve;
 *   - `timeout`: no answer within the request's `timeoutMs`;
 *   - `unreadable`: an answer that is not JSON (or not the shape the client expects: the
 *     client throws `unreadable` itself).
 * - Secrets travel in headers or the query only as the service demands; messages never quote
 *   a URL's query string (it may hold `api_key`).
 */
import { AppError, errorCode } from '../runtime/errors.js';
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
 * else `X-RateLimit-Reset` or X's `x-rate-limit-reset` (seconds until the reset, or an epoch
 * time in seconds; a comma list takes its first value, as
 * Brave sends per-second then per-month), else null.
 */
export function retryAfterMs(headers: Readonly<Record<string, string>>, nowMs = Date.now()): number | null {
  const after = headers['retry-after']?.trim();
  if (after) {
    if (/^\d+(\.\d+)?$/.test(after)) return Math.round(Number(after) * 1000);
    const at = Date.parse(after);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  const reset = (headers['x-ratelimit-reset'] ?? headers['x-rate-limit-reset'])?.split(',')[0]?.trim();
  if (reset && /^\d+(\.\d+)?$/.test(reset)) {
    const value = Number(reset);
    // An epoch time (seconds) rather than a delay: some services send one.
    return Math.round(value > 1_000_000_000 ? Math.max(0, value * 1000 - nowMs) : value * 1000);
  }
  return null;
}

/** GETs `request.url` and decodes its JSON answer; failures are ServiceErrors (see above). */
export async function getJson(service: string, request: ServiceRequest, fetcher: HttpFetcher = serviceFetcher()): Promise<ServiceAnswer> {
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
  if (status === 429 || (status >= 400 && request.rateLimited?.(status, res.headers, res.text().text))) {
    throw new ServiceError(service, 'rate_limited', `${where} answered ${status} (rate limited)`, retryAfterMs(res.headers), status);
  }
  if (status === 401 || status === 403) throw new ServiceError(service, 'rejected', `${where} answered ${status}: the credentials or the server's settings refuse the request`, null, status);
  if (status >= 400) throw new ServiceError(service, 'unavailable', `${where} answered HTTP ${status}`, status === 503 ? retryAfterMs(res.headers) : null, status);
  let json: unknown;
  try {
    json = JSON.parse(res.text().text);
  } catch {
    throw new ServiceError(service, 'unreadable', `${where} answered something that is not JSON (${res.contentType || 'no content type'})`, null, status);
  }
  return { status, headers: res.headers, json };
}
