/**
 * A closed-loop load driver for bench/scrape.ts: `concurrency` workers take the next item
 * as soon as their previous one finished, each call timed on its own. Used by the parent to
 * drive the service and by the plain-script child for its own pages, so both sides are
 * driven the same way.
 */

export interface DriveResult {
  /** Latency of every call that succeeded, in milliseconds, in completion order. */
  readonly latenciesMs: number[];
  /** From the first call to the last answer. */
  readonly elapsedMs: number;
  readonly errors: number;
  /** The first failure's message, when there was one. */
  readonly firstError: string | null;
}

export async function drive<T>(items: readonly T[], concurrency: number, call: (item: T) => Promise<void>): Promise<DriveResult> {
  const latenciesMs: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      const t0 = performance.now();
      try {
        await call(item);
        latenciesMs.push(performance.now() - t0);
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return { latenciesMs, elapsedMs: performance.now() - start, errors, firstError };
}
