/**
 * Admission per host for a client that asks many servers at once (RDAP registries during a
 * screen of hundreds of names): at most `concurrency` requests in flight to one host, the rest
 * waiting in arrival order, and after the host asked us to slow down (`pause`, on a 429) no
 * request to it until the pause is over.
 *
 * - A waiter gives up at its deadline (`GateClosed` `deadline`) or when its signal aborts
 *   (the signal's reason is thrown). One whose deadline falls inside a pause is refused at once
 *   (`GateClosed` `paused`, with the time left), rather than waiting for nothing.
 * - Time comes from the injected clock; the end of a pause is a timer of that length, and when
 *   it fires the pause is over (so a clock that stands still in a test cannot hold a host shut).
 * - A host's entry is dropped once nothing waits, runs or is paused there.
 */
export class GateClosed extends Error {
  constructor(
    readonly reason: 'deadline' | 'paused',
    /** For `paused`: how long the pause still lasts, in ms. */
    readonly waitMs: number,
  ) {
    super(reason === 'paused' ? `host paused for ${waitMs} ms` : 'deadline passed while waiting for the host');
    this.name = 'GateClosed';
  }
}

interface Waiter {
  readonly deadline: number;
  readonly admit: () => void;
  readonly refuse: (error: unknown) => void;
}

interface HostState {
  active: number;
  readonly queue: Waiter[];
  pausedUntil: number;
  timer: NodeJS.Timeout | null;
}

export class HostGate {
  private readonly hosts = new Map<string, HostState>();

  constructor(
    private readonly concurrency: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }

  /** Runs `fn` once `host` admits it; the slot is freed when `fn` settles. */
  async run<T>(host: string, deadline: number, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    await this.acquire(host, deadline, signal);
    try {
      return await fn();
    } finally {
      this.release(host);
    }
  }

  /** No request to `host` for `ms` from now (a longer pause already set stays). */
  pause(host: string, ms: number): void {
    const state = this.state(host);
    state.pausedUntil = Math.max(state.pausedUntil, this.now() + ms);
    if (state.timer) clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.timer = null;
      state.pausedUntil = 0;
      this.pump(host, state);
    }, Math.max(0, state.pausedUntil - this.now()));
    this.refuseInsidePause(state);
  }

  /** How long `host` is still paused, in ms (0: not paused). */
  pausedFor(host: string): number {
    const state = this.hosts.get(host);
    return state && state.timer ? Math.max(0, state.pausedUntil - this.now()) : 0;
  }

  /** Requests to `host` in flight now. */
  activeAt(host: string): number {
    return this.hosts.get(host)?.active ?? 0;
  }

  private state(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) {
      state = { active: 0, queue: [], pausedUntil: 0, timer: null };
      this.hosts.set(host, state);
    }
    return state;
  }

  private acquire(host: string, deadline: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const state = this.state(host);
    const paused = this.pausedFor(host);
    if (paused > 0 && this.now() + paused > deadline) return Promise.reject(new GateClosed('paused', paused));
    if (paused === 0 && state.active < this.concurrency && state.queue.length === 0) {
      state.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = state.queue.indexOf(waiter);
        if (at >= 0) state.queue.splice(at, 1);
      };
      const waiter: Waiter = {
        deadline,
        admit: () => {
          settle();
          resolve();
        },
        refuse: (error) => {
          settle();
          reject(error);
          this.forget(host, state);
        },
      };
      const onAbort = () => waiter.refuse(signal?.reason);
      const timer = setTimeout(() => waiter.refuse(new GateClosed('deadline', 0)), Math.max(0, deadline - this.now()));
      signal?.addEventListener('abort', onAbort, { once: true });
      state.queue.push(waiter);
    });
  }

  private release(host: string): void {
    const state = this.hosts.get(host);
    if (!state) return;
    state.active--;
    this.pump(host, state);
  }

  /** Admits waiters while there are free slots and the host is not paused. */
  private pump(host: string, state: HostState): void {
    while (state.queue.length > 0 && state.active < this.concurrency && !state.timer) {
      const next = state.queue[0] as Waiter;
      state.active++;
      next.admit();
    }
    this.forget(host, state);
  }

  /** Refuses the waiters whose deadline comes before the pause ends. */
  private refuseInsidePause(state: HostState): void {
    const left = Math.max(0, state.pausedUntil - this.now());
    for (const waiter of [...state.queue]) if (waiter.deadline < state.pausedUntil) waiter.refuse(new GateClosed('paused', left));
  }

  private forget(host: string, state: HostState): void {
    if (state.active === 0 && state.queue.length === 0 && !state.timer && this.hosts.get(host) === state) this.hosts.delete(host);
  }
}
