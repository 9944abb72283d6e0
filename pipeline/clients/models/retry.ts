/**
 * Attempts of one model request: the first, then at most MODEL_MAX_RETRIES more for failures
 * worth another (errors.ts: 429, 5xx, 529, a failed connection), all within the call's deadline
 * (MODEL_TIMEOUT_MS).
 *
 * The wait before a retry is the provider's advice when it gave one (`retry-after-ms`,
 * `retry-after`), else the runtime's backoff (pipeline/runtime/retry.ts: exponential from 500 ms,
 * capped at 8 s, full jitter). A wait that would end past the deadline is not waited: the call
 * fails at once with what the provider last said (a 429 stays `model_rate_limited` rather than
 * turning into a timeout). The SDK's own retries are off (`maxRetries: 0`): they honour
 * `retry-after` too, but retry OpenAI's `insufficient_quota` 429, start at a fixed 2 s without
 * jitter, and know nothing of the deadline.
 */
import { backoffDelay, sleep as realSleep } from '../../runtime/retry.js';
import { readFailure } from './errors.js';
import type { ModelChoice } from './config.js';

export interface Backoff {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const MODEL_BACKOFF: Backoff = { baseDelayMs: 500, maxDelayMs: 8000 };

export interface AttemptPlan {
  readonly model: ModelChoice;
  readonly maxRetries: number;
  readonly backoff: Backoff;
  readonly signal: AbortSignal;
  /** `Date.now()` past which no attempt starts and no wait ends. */
  readonly deadline: number;
  /** Called once per attempt made (for the call's log line). */
  readonly onAttempt: () => void;
}

export async function withRetries<T>(work: () => Promise<T>, plan: AttemptPlan): Promise<T> {
  for (let retry = 0; ; retry++) {
    plan.onAttempt();
    try {
      return await work();
    } catch (error) {
      const failure = readFailure(error, plan.model);
      if (failure === null || !failure.retriable || retry >= plan.maxRetries || plan.signal.aborted) throw error;
      const delay = failure.retryAfterMs ?? backoffDelay(retry + 1, plan.backoff);
      if (Date.now() + delay >= plan.deadline) throw error;
      await (plan.backoff.sleep ?? realSleep)(delay, plan.signal);
    }
  }
}
