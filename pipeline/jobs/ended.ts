/**
 * Whether a job has ended, as a pool working on its pages asks (the fetcher: a cancelled
 * crawl's pages already sent are not fetched, and a fetch in flight is stopped, so the site
 * is not asked again and the handler slot is free at once).
 *
 * A job has ended once its end latch (`job:{<id>}:end`, record.ts `endJob`) is taken. A process
 * reads the latch of one job at most once every `refreshMs`, however many of its pages it
 * handles (`ended`), and while any page of the job is in flight it reads it on that timer and
 * aborts every such page's signal once the latch appears (`watch`). A latch that cannot be read
 * (state unavailable) counts as not taken: the page is read as it would have been.
 */
import type { Outcome } from '../runtime/pool.js';
import type { State } from '../runtime/state/state.js';
import { jobEndKey, latchEnd, type EndedStatus } from './record.js';

export type { EndedStatus };

/** How often a process reads one job's end latch at most. */
export const JOB_END_REFRESH_MS = 1_000;

/** Jobs whose last reading is kept; past it, readings older than `refreshMs` are dropped. */
const MAX_READINGS = 10_000;

const endReason = (status: EndedStatus) => Object.assign(new Error(`the job was ${status}`), { status });

interface Reading {
  atMs: number;
  status: EndedStatus | null;
  /** The read in progress, shared by every page that asks meanwhile. */
  pending: Promise<EndedStatus | null> | null;
}

interface Watched {
  /** The controllers of the job's pages in flight, each aborted when the job ends. */
  readonly pages: Set<AbortController>;
  readonly timer: NodeJS.Timeout;
  /** The job's end status once a tick saw it. */
  status: EndedStatus | null;
}

/** A page's view of its job while it is worked on (`JobEnds.watch`). */
export interface JobWatch {
  /** Aborted with the caller's signal, or when the job ends. */
  readonly signal: AbortSignal;
  /** The job's end status once the watch saw it end; null while it runs. */
  ended(): EndedStatus | null;
  /** The page is done: the job is no longer read for it. */
  release(): void;
}

export class JobEnds {
  private readonly refreshMs: number;
  private readonly now: () => number;
  private readonly readings = new Map<string, Reading>();
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly state: Pick<State, 'get'>,
    options: { readonly refreshMs?: number; readonly now?: () => number } = {},
  ) {
    this.refreshMs = options.refreshMs ?? JOB_END_REFRESH_MS;
    this.now = options.now ?? Date.now;
  }

  /** The job's end status, or null while it runs; read again only once the last reading is `refreshMs` old. */
  ended(jobId: string): Promise<EndedStatus | null> {
    return this.reading(jobId, this.refreshMs);
  }

  /**
   * Watches the job while one of its pages is worked on: the signal given back aborts with
   * `signal` or once the job ends. Call `release` when the page is done.
   */
  watch(jobId: string, signal: AbortSignal): JobWatch {
    let entry = this.watched.get(jobId);
    if (!entry) {
      const timer = setInterval(() => void this.look(jobId), this.refreshMs);
      timer.unref();
      entry = { pages: new Set(), timer, status: null };
      this.watched.set(jobId, entry);
    }
    const watched = entry;
    // A controller of the page's own, wired by hand: AbortSignal.any costs a crawl page
    // measurably (its weak references keep the collector busy).
    const page = new AbortController();
    const onAbort = () => page.abort(signal.reason);
    if (signal.aborted) page.abort(signal.reason);
    else if (watched.status) page.abort(endReason(watched.status));
    else signal.addEventListener('abort', onAbort, { once: true });
    watched.pages.add(page);
    let released = false;
    return {
      signal: page.signal,
      ended: () => (page.signal.aborted ? watched.status : null),
      release: () => {
        if (released) return;
        released = true;
        signal.removeEventListener('abort', onAbort);
        watched.pages.delete(page);
        if (watched.pages.size > 0 || this.watched.get(jobId) !== watched) return;
        clearInterval(watched.timer);
        this.watched.delete(jobId);
      },
    };
  }

  /** Stops every watch's timer (the process is stopping). */
  close(): void {
    for (const entry of this.watched.values()) clearInterval(entry.timer);
    this.watched.clear();
  }

  /** The job's end status from a reading at most `maxAgeMs` old. */
  private reading(jobId: string, maxAgeMs: number): Promise<EndedStatus | null> {
    const now = this.now();
    const reading = this.readings.get(jobId);
    if (reading?.status) return Promise.resolve(reading.status);
    if (reading?.pending) return reading.pending;
    if (reading && now - reading.atMs < maxAgeMs) return Promise.resolve(null);
    return this.read(jobId, now);
  }

  /** A watch's tick: reads the latch (unless a page read it in the last half period) and aborts the job's pages once it is taken. */
  private async look(jobId: string): Promise<void> {
    const status = await this.reading(jobId, this.refreshMs / 2);
    const entry = this.watched.get(jobId);
    if (!status || !entry || entry.status) return;
    entry.status = status;
    clearInterval(entry.timer);
    const reason = endReason(status);
    for (const page of entry.pages) page.abort(reason);
  }

  private read(jobId: string, now: number): Promise<EndedStatus | null> {
    if (this.readings.size >= MAX_READINGS) this.prune(now);
    const reading: Reading = { atMs: now, status: null, pending: null };
    this.readings.set(jobId, reading);
    reading.pending = this.state
      .get(jobEndKey(jobId))
      .then(
        (latch) => (latch === null ? null : latchEnd(latch).status),
        () => null,
      )
      .then((status) => {
        reading.status = status;
        reading.pending = null;
        reading.atMs = this.now();
        return status;
      });
    return reading.pending;
  }

  /** Drops readings older than `refreshMs` (an ended job's too: its pages stop coming). */
  private prune(now: number): void {
    for (const [jobId, reading] of this.readings) {
      if (!reading.pending && now - reading.atMs >= this.refreshMs) this.readings.delete(jobId);
    }
  }
}

/** A job page not read because its job ended: before its work started (`stopped` false), or while it ran. */
export function jobEndedOutcome(status: EndedStatus, stopped: boolean): Outcome {
  const what = stopped ? 'its work was stopped' : 'it was not fetched';
  return { kind: 'fail', code: 'job_ended', message: `the job was ${status} before this page was read; ${what}` };
}
