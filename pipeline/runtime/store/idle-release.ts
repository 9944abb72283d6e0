/**
 * Giving memory back once the embedded engine has been idle for a while (STORE_IDLE_RELEASE_MS).
 *
 * A busy spell (a crawl of 10,000 pages) leaves the process holding memory it no longer uses:
 * the engine's library code paged in again by inserts, merges and reads (~100 MB, of which
 * code-pages.ts gave the start-up share back once), and free pages inside the C heap's malloc
 * arenas that the engine's threads and Node's buffers freed (~30 MB). Neither comes back by
 * itself. When no store call has been in flight for `idleMs`, `release` runs once (the
 * embedded store passes `releaseIdleMemory`: the library's clean pages and the arenas' free
 * pages, ~50 ms); it runs again only after the store has been used again and gone idle again.
 * Pages of the library that are needed later are read back from the page cache on first use.
 *
 * A long busy spell pages the same memory in while it runs: the library's code that only
 * start-up paths, the first insert into each table or a rare merge touched, and the arenas'
 * free pages. With `busyMs` set (STORE_BUSY_RELEASE_MS), the same release also runs while
 * the store is in use, at most once every `busyMs`, without a V8 collection (`busy: true`).
 * Measured on a 10,000-page crawl (bench/README.md "What a crawl keeps paged in"): the
 * library's resident pages 113 → 79 MB mid-crawl, the arenas' 45 → 31–35 MB. The node
 * executable's clean pages go back with the library's (code-pages.ts CODE_FILES): 58.5 → 25–27
 * MB through the crawl.
 *
 * The check runs on an unref'd timer every `min(idleMs, busyMs, 1000)` ms, so it never keeps
 * the process alive; `check(at)` is the same step with the time given (tests).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '../log.js';
import { CODE_FILES, releaseCleanPages, releaseKnownCleanPages, trimMallocArenas } from './code-pages.js';

export interface IdleReleaseOptions {
  /** How long no store call may be in flight before memory is released; 0: never. */
  readonly idleMs: number;
  /** While the store is in use, release at most once every this many ms; 0 (default): only when idle. */
  readonly busyMs?: number;
  /** What releasing does (the embedded store: releaseIdleMemory); `busy` when calls are still coming. */
  readonly release: (busy: boolean) => void;
  /** Milliseconds now (default Date.now); the tests' clock. */
  readonly now?: () => number;
}

export class IdleRelease {
  private inFlight = 0;
  private lastActive: number;
  /** Nothing to give back until the store has been used (start-up released its own). */
  private released = true;
  /** When the last release while busy ran (or the first use of the spell started). */
  private lastBusyRelease = 0;
  /** Whether a call started since the last release while busy. */
  private usedSinceBusyRelease = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(private readonly options: IdleReleaseOptions) {
    this.now = options.now ?? Date.now;
    this.lastActive = this.now();
  }

  /** Starts the periodic check (no-op when idleMs and busyMs are both 0, or it already runs). */
  start(): void {
    const { idleMs } = this.options;
    if ((idleMs <= 0 && this.busyMs <= 0) || this.timer) return;
    const periods = [idleMs, this.busyMs, 1000].filter((ms) => ms > 0);
    this.timer = setInterval(() => this.check(), Math.min(...periods));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A store call starts. */
  begin(): void {
    this.inFlight += 1;
    this.lastActive = this.now();
    if (this.released) this.lastBusyRelease = this.lastActive;
    this.released = false;
    this.usedSinceBusyRelease = true;
  }

  private get busyMs(): number {
    return this.options.busyMs ?? 0;
  }

  /** A store call ended (resolved or failed). */
  end(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastActive = this.now();
  }

  /**
   * Releases once if the store has been idle for idleMs at `at`, or, while it is in use (a call
   * started since the last release while busy, or one is in flight), if busyMs passed since the
   * spell began or the last release while busy; returns whether it did.
   */
  check(at: number = this.now()): boolean {
    if (this.released) return false;
    const idle = this.inFlight === 0 && at - this.lastActive >= this.options.idleMs;
    if (this.options.idleMs > 0 && idle) {
      this.released = true;
      this.options.release(false);
      return true;
    }
    const inUse = this.usedSinceBusyRelease || this.inFlight > 0;
    if (this.busyMs > 0 && inUse && at - this.lastBusyRelease >= this.busyMs) {
      this.lastBusyRelease = at;
      this.usedSinceBusyRelease = false;
      this.options.release(true);
      return true;
    }
    return false;
  }

  /** Runs `call` counted as a store call. */
  async around<T>(call: () => Promise<T>): Promise<T> {
    this.begin();
    try {
      return await call();
    } finally {
      this.end();
    }
  }
}

/**
 * The clean pages of the embedded engine's library and of the node executable (CODE_FILES),
 * and the C heap's free pages, go back to the kernel; when
 * idle (not `busy`), V8 also collects its whole heap first, so the pages it frees are among
 * those given back. Logged at debug.
 */
export function releaseIdleMemory(log: Logger, busy = false): void {
  const started = performance.now();
  const collected = busy ? false : collectGarbage();
  const trimmed = trimMallocArenas();
  const pages = busy ? releaseKnownCleanPages(CODE_FILES) : releaseCleanPages(CODE_FILES);
  log.debug(
    { busy, collected, codeKb: pages.kb, skipped: pages.skipped, trimmed, ms: Math.round(performance.now() - started) },
    busy ? 'busy store: memory released' : 'idle store: memory released',
  );
}

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

let gc: Gc | null | undefined;

/**
 * A full V8 collection that also gives the heap's empty pages back (`--expose-gc`'s `gc()`
 * with the `last-resort` flavour: what V8 runs on a low-memory notification; a plain `gc()`
 * collects but keeps the pages committed), or false where it cannot be had. After a busy
 * spell the heap holds tens of MB of garbage and free pages that V8 would keep until it next
 * grows; an idle process would keep them resident.
 */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as Gc;
    } catch {
      gc = null;
    }
  }
  if (!gc) return false;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
