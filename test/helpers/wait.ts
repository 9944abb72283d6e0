/**
 * Waiting in tests for something that happens in the background (a message consumed, a
 * process gone, a job done): `until` asks `check` every `intervalMs` until it returns a
 * truthy value, and resolves with that value; past `timeoutMs` it throws
 * `Error('<what>: not within <timeoutMs> ms')`.
 *
 *   await until('the consumer got 3 messages', () => seen.length === 3, 5000);
 *   const row = await until('the job row', async () => (await store.job(id)) ?? false);
 *
 * `check` may be async (a request to the service); a check that throws fails the wait at
 * once. `what` may be a function, read when the wait gives up, to name the last state seen.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export type Falsy = false | null | undefined | 0 | '';

export interface UntilOptions {
  /** How long to wait before giving up (default 10 s). */
  readonly timeoutMs?: number;
  /** How long to sleep between checks (default 20 ms). */
  readonly intervalMs?: number;
}

export const UNTIL_TIMEOUT_MS = 10_000;
export const UNTIL_INTERVAL_MS = 20;

/** Resolves with `check`'s first truthy value; throws `<what>: not within <timeoutMs> ms` when none came in time. */
export async function until<T>(
  what: string | (() => string),
  check: () => T | Falsy | Promise<T | Falsy>,
  timeout: number | UntilOptions = {},
): Promise<T> {
  const { timeoutMs = UNTIL_TIMEOUT_MS, intervalMs = UNTIL_INTERVAL_MS } = typeof timeout === 'number' ? { timeoutMs: timeout } : timeout;
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > giveUpAt) throw new Error(`${typeof what === 'function' ? what() : what}: not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/** What `promise` rejects with; throws when it resolves instead. */
export async function rejection<E = unknown>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    return error as E;
  }
  throw new Error('expected a rejection');
}

/** How `promise` has settled so far, read at any moment without waiting for it (`error` once it rejected). */
export function track(promise: Promise<unknown>): { readonly settled: boolean; readonly error: unknown } {
  const state = { settled: false, error: undefined as unknown };
  promise.then(
    () => (state.settled = true),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}
