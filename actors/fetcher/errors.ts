/**
 * The fetcher's decision after a fetch that threw: another attempt or an answer. The failure
 * itself was classified by the HTTP stack (pipeline/runtime/net/failures.ts: Node and got error codes
 * → the service's codes), re-exported here.
 */
import { serviceCode } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { redactUrl } from '../../pipeline/runtime/net/guard.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { ERRORS, type ErrorCode } from '../../schemas/errors.js';

export { classify, isTransient, type FailureContext } from '../../pipeline/runtime/net/failures.js';

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
  const code = serviceCode(error);
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
