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
 * The check runs on an unref'd timer every `min(idleMs, 1000)` ms, so it never keeps the
 * process alive; `check(at)` is the same step with the time given (tests).
 */
import type { Logger } from '../log.js';
import { ENGINE_LIBRARY, releaseCleanPages, trimMallocArenas } from './code-pages.js';

export interface IdleReleaseOptions {
  /** How long no store call may be in flight before memory is released; 0: never. */
  readonly idleMs: number;
  /** What releasing does (the embedded store: releaseIdleMemory). */
  readonly release: () => void;
  /** Milliseconds now (default Date.now); the tests' clock. */
  readonly now?: () => number;
}

export class IdleRelease {
  private inFlight = 0;
  private lastActive: number;
  /** Nothing to give back until the store has been used (start-up released its own). */
  private released = true;
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(private readonly options: IdleReleaseOptions) {
    this.now = options.now ?? Date.now;
    this.lastActive = this.now();
  }

  /** Starts the periodic check (no-op when idleMs is 0 or it already runs). */
  start(): void {
    if (this.options.idleMs <= 0 || this.timer) return;
    this.timer = setInterval(() => this.check(), Math.min(this.options.idleMs, 1000));
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
    this.released = false;
  }

  /** A store call ended (resolved or failed). */
  end(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastActive = this.now();
  }

  /** Releases once if the store has been idle for idleMs at `at`; returns whether it did. */
  check(at: number = this.now()): boolean {
    if (this.options.idleMs <= 0 || this.released || this.inFlight > 0 || at - this.lastActive < this.options.idleMs) return false;
    this.released = true;
    this.options.release();
    return true;
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

/** The embedded engine's library pages and the C heap's free pages go back to the kernel; logged at debug. */
export function releaseIdleMemory(log: Logger): void {
  const started = performance.now();
  const trimmed = trimMallocArenas();
  const pages = releaseCleanPages(ENGINE_LIBRARY);
  log.debug(
    { libraryKb: pages.kb, skipped: pages.skipped, trimmed, ms: Math.round(performance.now() - started) },
    'idle store: memory released',
  );
}
