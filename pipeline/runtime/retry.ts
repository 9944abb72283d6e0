/**
 * The one retry module: exponential backoff with full jitter. When the attempts run out it
 * throws a RetriesExhausted whose `cause` is the last failure. Tests inject fast settings
 * and a fake sleep.
 */
export interface RetryOptions {
  /** Total attempts including the first (>= 1). */
  attempts: number;
  /** Backoff before the second attempt, in ms; doubles each time. */
  baseDelayMs: number;
  /** Upper bound of any one backoff, in ms. */
  maxDelayMs: number;
  /** Whether a failure is worth another attempt (default: every failure). */
  retriable?: (error: unknown) => boolean;
  /** Called before each backoff with the attempt that failed (1-based) and the delay. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  signal?: AbortSignal;
}

export class RetriesExhausted extends Error {
  constructor(readonly attempts: number, cause: unknown) {
    super(`gave up after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RetriesExhausted';
  }
}

/** Delay before attempt `attempt + 1`: random in [0, min(max, base * 2^(attempt-1))]. */
export function backoffDelay(attempt: number, options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling * (options.random ?? Math.random)());
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export async function retry<T>(work: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const wait = options.sleep ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      const retriable = options.retriable?.(error) ?? true;
      if (!retriable) throw error;
      if (attempt >= options.attempts || options.signal?.aborted) throw new RetriesExhausted(attempt, error);
      const delay = backoffDelay(attempt, options);
      options.onRetry?.(error, attempt, delay);
      await wait(delay, options.signal);
    }
  }
}
