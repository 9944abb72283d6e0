/**
 * `within`: waits for work, but not for ever. The one bound the runtime and the actors put on a
 * call that may never answer (a hung browser, a Kafka group that never assigns, an outside
 * source that stops talking).
 */
export interface WithinOptions<T> {
  /** Milliseconds before the wait gives up; null or absent: no time bound. */
  readonly ms?: number | null;
  /** The error the wait rejects with when `ms` passes (default: "no answer within N ms"). */
  readonly timeout?: (ms: number) => Error;
  /** The caller's signal: the wait rejects as soon as it aborts. */
  readonly signal?: AbortSignal | null;
  /** The error the wait rejects with when `signal` aborts (default: the signal's reason). */
  readonly aborted?: (reason: unknown) => Error;
  /** Handed a value that arrives after the wait gave up, so that it can be released (a browser context nobody will use is closed). */
  readonly late?: (value: T) => unknown;
}

/**
 * `work`'s value, unless `options.ms` passes first or `options.signal` aborts. Work given as a
 * function is handed a signal that aborts when the wait gives up, so that it can stop too.
 */
export async function within<T>(work: Promise<T> | ((signal: AbortSignal) => Promise<T>), options: WithinOptions<T>): Promise<T> {
  const { ms = null, signal = null } = options;
  const own = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    const giveUp = (error: Error) => {
      own.abort(error);
      reject(error);
    };
    if (ms !== null) timer = setTimeout(() => giveUp(options.timeout?.(ms) ?? new Error(`no answer within ${ms} ms`)), ms);
    if (!signal) return;
    onAbort = () => giveUp(options.aborted?.(signal.reason) ?? asError(signal.reason));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  let promise = typeof work === 'function' ? undefined : work;
  try {
    if (own.signal.aborted) return await gaveUp;
    promise ??= (work as (signal: AbortSignal) => Promise<T>)(own.signal);
    return await Promise.race([promise, gaveUp]);
  } catch (error) {
    if (options.late && own.signal.aborted) promise?.then(options.late, () => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason ?? 'aborted'));
}
