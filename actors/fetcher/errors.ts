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
 * `isTransient` says which raw failures the fetcher retries at once (pipeline/retry.ts):
 * network hiccups only — resets, broken pipes, a temporary DNS failure. A page that answers
 * with any HTTP status, 5xx included, is a fetched page, not a failure.
 */
import { AppError } from '../../pipeline/errors.js';
import type { Logger } from '../../pipeline/log.js';
import { redactUrl } from '../../pipeline/net/guard.js';
import type { Outcome } from '../../pipeline/pool.js';
import { ERRORS, isErrorCode, type ErrorCode } from '../../schemas/errors.js';

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

/** What a fetch attempt that threw needs to decide between another attempt and an answer. */
export interface AttemptContext {
  readonly url: string;
  readonly attempt: number;
  /** Attempts the pool makes at most; the last one answers. */
  readonly maxAttempts: number;
  /** Time one attempt may take, and the request's deadline (epoch ms). */
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly nowMs: number;
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/**
 * The outcome of a fetch that threw, for the scrape and the fetch handlers alike: the pool
 * stopping hands the message back; a retriable code (per schemas/errors.ts) asks for another
 * attempt while one fits before the deadline; anything else is answered through `answer`.
 */
export function failedAttempt(error: unknown, ctx: AttemptContext, answer: (code: ErrorCode, message: string) => Outcome): Outcome {
  if (ctx.signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the fetch was interrupted' };
  const raw = (error as { code?: unknown })?.code;
  const code: ErrorCode = typeof raw === 'string' && isErrorCode(raw) ? raw : 'internal_error';
  const message = error instanceof Error ? error.message : String(error);
  const another = ctx.attempt < ctx.maxAttempts && ctx.nowMs + ctx.timeoutMs < ctx.deadlineMs;
  const fields = { url: redactUrl(ctx.url), code, attempt: ctx.attempt };
  if (ERRORS[code].retriable && another) {
    ctx.log.warn(fields, `fetch failed, asking for a retry: ${message}`);
    return { kind: 'retry', code, message };
  }
  ctx.log.warn(fields, `fetch failed: ${message}`);
  return answer(code, message);
}
