/**
 * Failures of an HTTP fetch → the service's error codes. A failure that already carries a
 * code of schemas/errors.ts (the guard's `url_blocked` and `dns_failed`, a size or content
 * refusal) keeps it, also when got wrapped it; Node and got error codes are mapped:
 *
 * | cause | code |
 * |---|---|
 * | ENOTFOUND, EAI_AGAIN, ENODATA, EAI_FAIL | dns_failed |
 * | ECONNREFUSED (to the page's server) | connection_refused |
 * | through a proxy: ECONNREFUSED or DNS failure, a CONNECT refusal, a 407 | proxy_failed |
 * | TLS and certificate errors | tls_failed |
 * | the request's `timeout` passing, ETIMEDOUT | fetch_timeout |
 * | ECONNRESET, EPIPE, ECONNABORTED, premature close, other network errors | upstream_error |
 *
 * `isTransient` says which raw failures HttpFetcher retries at once (pipeline/runtime/retry.ts):
 * network hiccups only — resets, broken pipes, a temporary DNS failure. A page that answers
 * with any HTTP status, 5xx included, is a fetched page, not a failure.
 */
import { AppError } from '../errors.js';
import { isErrorCode } from '../../../schemas/errors.js';

const TRANSIENT = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'EAI_AGAIN', 'ERR_STREAM_PREMATURE_CLOSE']);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ENODATA', 'EAI_FAIL', 'EAI_NONAME']);
const TLS_PREFIXES = ['ERR_TLS_', 'ERR_SSL_', 'ERR_OSSL_', 'CERT_', 'UNABLE_TO_', 'DEPTH_ZERO_', 'SELF_SIGNED_', 'HOSTNAME_MISMATCH'];

interface Coded {
  code?: unknown;
  cause?: unknown;
  message?: unknown;
}

/** The error and its causes, outermost first (at most 5 deep). */
function chain(error: unknown): Coded[] {
  const out: Coded[] = [];
  let current = error;
  while (current && typeof current === 'object' && out.length < 5) {
    out.push(current as Coded);
    current = (current as Coded).cause;
  }
  return out;
}

function codes(error: unknown): string[] {
  return chain(error).map((e) => (typeof e.code === 'string' ? e.code : '')).filter(Boolean);
}

export function isTransient(error: unknown): boolean {
  return codes(error).some((c) => TRANSIENT.has(c));
}

export interface FailureContext {
  /** The proxy the request went through, to tell its failures from the page's. */
  readonly proxyUrl?: string | null;
  /** The request's timeout passed. */
  readonly timedOut?: boolean;
  readonly timeoutMs?: number;
  readonly url: string;
}

/** The AppError a failed fetch is reported as. */
export function classify(error: unknown, context: FailureContext): AppError {
  if (context.timedOut) {
    return new AppError('fetch_timeout', `${context.url} was not fetched within ${context.timeoutMs ?? '?'} ms`, { cause: error });
  }
  const links = chain(error);
  for (const link of links) {
    if (link instanceof AppError) return link;
  }
  for (const link of links) {
    const code = typeof link.code === 'string' ? link.code : '';
    const message = typeof link.message === 'string' ? link.message : String(link);
    if (isErrorCode(code)) return new AppError(code, message, { cause: error });
    // Through a proxy this process connects to the proxy only (the page's own refusal comes
    // back from the proxy as an HTTP answer): a refused or unresolvable connection is the proxy's.
    if (context.proxyUrl && (code === 'ECONNREFUSED' || DNS.has(code))) {
      return new AppError('proxy_failed', `the proxy could not be reached (${code})`, { cause: error });
    }
    if (DNS.has(code)) return new AppError('dns_failed', `could not resolve the host of ${context.url} (${code})`, { cause: error });
    if (code === 'ECONNREFUSED') return new AppError('connection_refused', `${context.url}: connection refused`, { cause: error });
    if (TLS_PREFIXES.some((p) => code.startsWith(p)) || /\b(ssl|tls)\b|certificate/i.test(message)) {
      return new AppError('tls_failed', `${context.url}: TLS failed (${code || message})`, { cause: error });
    }
    if (context.proxyUrl && /proxy/i.test(message)) {
      return new AppError('proxy_failed', `the proxy failed: ${message}`, { cause: error });
    }
    if (code === 'ETIMEDOUT') return new AppError('fetch_timeout', `${context.url}: timed out (${code})`, { cause: error });
  }
  const first = links[0];
  const detail = codes(error)[0] ?? (first && typeof first.message === 'string' ? first.message : String(error));
  return new AppError('upstream_error', `${context.url}: the fetch failed (${detail})`, { cause: error });
}

