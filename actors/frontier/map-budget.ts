/**
 * A map's time budget (map.ts): one signal that stops everything discovery started (the
 * budget spent, enough URLs found, the pool stopping, the map finished), and fetches whose
 * timeout is bounded by what is left of the budget.
 *
 * The budget's own timer can fire a millisecond before the clock says the budget is spent:
 * it marks the map out of time itself. Anything else that stops discovery marks it out of
 * time only when the clock says the budget is spent.
 *
 * A fetch whose own timeout would end with the budget is left to the budget: its timeout is
 * set past the budget's end (`BUDGET_LEAD_MS`), so the budget's timer, which marks the map
 * out of time, always fires first. Two timers due at the same moment would race, and a
 * fetch timing out a millisecond before the budget would end discovery "in time".
 */
import { setMaxListeners } from 'node:events';
import { mediaType } from '../../pipeline/runtime/net/content.js';
import type { FetchResult, HttpFetcher } from '../../pipeline/runtime/net/http.js';

export interface MapBudget {
  /** Aborts when discovery stops; every fetch of the sitemaps, the walk and robots.txt listens. */
  readonly signal: AbortSignal;
  /** Milliseconds left by the clock (negative once spent). */
  remaining(): number;
  /** The budget ended before discovery did. */
  readonly outOfTime: boolean;
  /** Stops discovery, unless it has stopped already. */
  stop(reason: Error): void;
  /** Abandons whatever still runs, clears the timer, stops listening to the pool's signal. */
  end(): void;
}

/** Starts the budget's timer now; `signal` (the pool stopping) stops discovery too. */
export function startBudget(untilMs: number, now: () => number, signal: AbortSignal): MapBudget {
  const remaining = () => untilMs - now();
  const stop = new AbortController();
  // Every fetch in flight listens to it: a few sitemaps and walked pages, the robots.txt.
  setMaxListeners(0, stop.signal);
  let outOfTime = false;
  const timer = setTimeout(() => {
    outOfTime = true;
    stop.abort(new Error('map time budget spent'));
  }, Math.max(0, remaining()));
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  stop.signal.addEventListener('abort', () => (outOfTime ||= remaining() <= 0), { once: true });
  return {
    signal: stop.signal,
    remaining,
    get outOfTime() {
      return outOfTime;
    },
    stop(reason) {
      if (!stop.signal.aborted) stop.abort(reason);
    },
    end() {
      // Whatever still runs (robots.txt of a seed that failed, a sitemap) is abandoned.
      if (!stop.signal.aborted) stop.abort(new Error('map finished'));
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

export interface FetchExtra {
  readonly maxBytes?: number;
  /** Walked pages: HTML and text only, refused at the headers otherwise; the rest: any bytes. */
  readonly html?: boolean;
}

/** A fetch within the budget: its timeout at most what is left, stopped with discovery. */
export type BudgetFetch = (url: string, timeoutMs: number, extra?: FetchExtra) => Promise<FetchResult>;

/** How far past the budget's end a fetch bounded by the budget has its own timeout. */
export const BUDGET_LEAD_MS = 1_000;

/** The timeout a fetch asking for `timeoutMs` gets with `left` ms of the budget left. */
export function timeoutWithin(timeoutMs: number, left: number): number {
  return timeoutMs + BUDGET_LEAD_MS < left ? timeoutMs : Math.max(0, left) + BUDGET_LEAD_MS;
}

export function fetchWithin(http: HttpFetcher, budget: MapBudget): BudgetFetch {
  return (url, timeoutMs, extra = {}) =>
    http.fetch({
      url,
      timeoutMs: timeoutWithin(timeoutMs, budget.remaining()),
      proxy: 'auto',
      content: extra.html ? { pdf: false } : null,
      ...(extra.maxBytes !== undefined ? { maxBytes: extra.maxBytes } : {}),
      signal: budget.signal,
    });
}

export function isHtml(contentType: string): boolean {
  const type = mediaType(contentType);
  return type === 'text/html' || type === 'application/xhtml+xml';
}
