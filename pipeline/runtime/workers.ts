/**
 * A pool of `worker_threads` workers for work that must not run on the service's own thread
 * unbounded (parsing an outside document): each task runs in a worker of its own heap, under
 * three limits, and a worker past one is terminated and replaced while the service goes on.
 *
 * - Memory: the worker's V8 heap is capped (`resourceLimits.maxOldGenerationSizeMb`: past it
 *   the worker dies with ERR_WORKER_OUT_OF_MEMORY), and, because buffers (ArrayBuffers) live
 *   outside that heap, a watchdog reads the busy worker's heap statistics every
 *   `watchIntervalMs` and terminates it once heap and buffers together pass `memoryMb`
 *   (`worker.getHeapStatistics`, Node 22.16 and later; without it only the heap is capped,
 *   and the pool says so in its log).
 * - Time: a task that runs longer than `timeoutMs` terminates its worker. The time counts from
 *   when the worker is ready (its module loaded and `serveTasks` listening), so a new worker's
 *   start-up, slow on a loaded machine, is not charged to the task it starts with; a worker that
 *   is not ready within `startMs` (default 30 s) fails its task as `time` all the same.
 * - A worker that exits or throws outside a task fails the task it was running.
 * Each such failure rejects the task with a `WorkerStoppedError` naming the reason; the caller
 * maps it to its own error code (this module knows no product rule). An error the task
 * itself throws crosses back as plain data (`code` and `message`) and is rebuilt as a
 * `WorkerTaskError` carrying the same code.
 *
 * Workers start on the first task (a process that never gets one starts none), at most
 * `size` at once; tasks beyond wait in order. A worker lost at a limit is replaced by a new
 * one for the next task. A worker idle for `idleMs` exits, giving its memory back (a parse
 * leaves pdf.js's heap behind); an idle worker does not keep the process alive. `signal`
 * withdraws a waiting task, or terminates the worker of a running one.
 *
 * The worker's module (`entry`) answers with `serveTasks(name, …)`. Run from the TypeScript sources
 * (tsx, vitest) the entry is a `.ts` file and the worker loads it through tsx's loader; run
 * from `dist/` it is the compiled `.js` beside the caller's.
 */
import { isMainThread, parentPort, Worker, workerData, type TransferListItem } from 'node:worker_threads';
import type { Logger } from './log.js';

const MIB = 1024 * 1024;

/** Why a task was stopped: its worker passed the time or memory limit, died, or the pool was closed. */
export type WorkerStop = 'time' | 'memory' | 'exit' | 'closed';

/** A task the pool stopped; its worker, if it had one, was terminated and will be replaced. */
export class WorkerStoppedError extends Error {
  readonly code = 'worker_stopped';
  constructor(
    readonly reason: WorkerStop,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerStoppedError';
  }
}

/** An error a task threw inside its worker, rebuilt with its `code` (when it had one). */
export class WorkerTaskError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'WorkerTaskError';
  }
}

export interface WorkerPoolOptions {
  /** The worker's module (its `.ts` source or compiled `.js`), which calls `serveTasks`. */
  readonly entry: URL;
  /** Workers at most, each running one task at a time. */
  readonly size: number;
  /** Wall-clock time one task may run before its worker is terminated. */
  readonly timeoutMs: number;
  /** Memory one worker may use: its V8 heap, and its heap plus buffers as the watchdog reads them. */
  readonly memoryMb: number;
  /** How often the watchdog reads a busy worker's memory (default 100 ms). */
  readonly watchIntervalMs?: number;
  /** How long a new worker may take to be ready, before its first task's time starts (default 30 s). */
  readonly startMs?: number;
  /** How long a worker may stay idle before it exits (default 30 s). */
  readonly idleMs?: number;
  readonly log: Logger;
  /** The pool's name in logs and thread names. */
  readonly name: string;
}

export interface RunOptions {
  readonly transfer?: readonly TransferListItem[];
  readonly signal?: AbortSignal;
}

/** How a pool has fared since it started, for logs and tests. */
export interface WorkerPoolStats {
  readonly started: number;
  /** Workers lost, by why: terminated at a limit, or died on their own. */
  readonly terminated: Readonly<Record<Exclude<WorkerStop, 'closed'>, number>>;
  readonly busy: number;
  readonly idle: number;
  readonly waiting: number;
}

interface Waiting {
  readonly task: unknown;
  readonly transfer: readonly TransferListItem[];
  readonly signal: AbortSignal | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
}

interface Running extends Waiting {
  readonly id: number;
  timer: NodeJS.Timeout;
  readonly watch: NodeJS.Timeout;
}

interface Slot {
  readonly worker: Worker;
  running: Running | null;
  /** Set once the pool stopped the worker itself: its exit fails nothing more. */
  ending: boolean;
  /** While idle: when it retires. */
  idle: NodeJS.Timeout | null;
  /** Set once the worker said it is ready: from then on a task's time counts from its hand-over. */
  ready: boolean;
}

/** What the worker posts once, when it is listening for tasks. */
const READY = 'wds-worker-ready';

type Reply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly message: string; readonly code?: string };

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('the task was withdrawn');
}

export class WorkerPool<In, Out> {
  private readonly slots = new Set<Slot>();
  private readonly queue: Waiting[] = [];
  private readonly log: Logger;
  private nextId = 1;
  private closed = false;
  private started = 0;
  /** Set once the missing memory watchdog has been logged. */
  private unwatched = false;
  private readonly terminated: Record<Exclude<WorkerStop, 'closed'>, number> = { time: 0, memory: 0, exit: 0 };

  constructor(private readonly options: WorkerPoolOptions) {
    this.log = options.log.child({ workers: options.name });
  }

  /** Runs one task in a worker; rejects with WorkerStoppedError, WorkerTaskError or the signal's reason. */
  run(task: In, options: RunOptions = {}): Promise<Out> {
    if (this.closed) return Promise.reject(new WorkerStoppedError('closed', `the ${this.options.name} workers are closed`));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<Out>((resolve, reject) => {
      const waiting: Waiting = {
        task,
        transfer: options.transfer ?? [],
        signal,
        resolve: resolve as (value: unknown) => void,
        reject,
        onAbort: () => this.withdraw(waiting),
      };
      signal?.addEventListener('abort', waiting.onAbort, { once: true });
      this.queue.push(waiting);
      this.dispatch();
    });
  }

  stats(): WorkerPoolStats {
    const slots = [...this.slots];
    return {
      started: this.started,
      terminated: { ...this.terminated },
      busy: slots.filter((s) => s.running).length,
      idle: slots.filter((s) => !s.running).length,
      waiting: this.queue.length,
    };
  }

  /** Terminates every worker; waiting and running tasks fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.queue.splice(0)) this.settle(waiting, () => waiting.reject(new WorkerStoppedError('closed', `the ${this.options.name} workers were closed`)));
    await Promise.all([...this.slots].map((slot) => this.stop(slot, null, 'closed')));
  }

  private withdraw(task: Waiting): void {
    const at = this.queue.indexOf(task);
    if (at >= 0) {
      this.queue.splice(at, 1);
      task.reject(abortError(task.signal as AbortSignal));
      return;
    }
    const slot = [...this.slots].find((s) => s.running?.resolve === task.resolve);
    if (slot?.running) {
      const running = slot.running;
      void this.stop(slot, () => running.reject(abortError(running.signal as AbortSignal)), 'withdrawn');
    }
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((s) => !s.running && !s.ending) ?? null;
      if (!slot && this.slots.size < this.options.size) {
        try {
          slot = this.spawn();
        } catch (error) {
          const next = this.queue.shift() as Waiting;
          this.settle(next, () => next.reject(error));
          continue;
        }
      }
      if (!slot) return;
      const next = this.queue.shift() as Waiting;
      this.start(slot, next);
    }
  }

  private spawn(): Slot {
    const { entry, memoryMb } = this.options;
    const fromSource = entry.pathname.endsWith('.ts');
    const worker = new Worker(entry, {
      name: this.options.name,
      workerData: { pool: this.options.name },
      // Sources run through tsx's loader; compiled code needs none of the parent's flags.
      execArgv: fromSource ? ['--import', 'tsx'] : [],
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(memoryMb / 8))), stackSizeMb: 4 },
    });
    worker.unref();
    if (typeof worker.getHeapStatistics !== 'function' && !this.unwatched) {
      this.unwatched = true;
      this.log.warn('this Node has no worker.getHeapStatistics (22.16 and later have it): the workers\' buffers are not watched, only their heap is capped');
    }
    const slot: Slot = { worker, running: null, ending: false, idle: null, ready: false };
    this.slots.add(slot);
    this.started++;
    worker.on('message', (reply: Reply | typeof READY) => (reply === READY ? this.ready(slot) : this.answered(slot, reply)));
    worker.on('error', (error: Error & { code?: string }) => {
      const limit: 'memory' | 'exit' = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'exit';
      this.failed(slot, limit, limit === 'memory' ? `the task passed the worker's memory limit of ${memoryMb} MB` : `the worker failed: ${error.message}`);
    });
    worker.on('exit', (code) => this.failed(slot, 'exit', `the worker exited (code ${code})`));
    return slot;
  }

  private start(slot: Slot, task: Waiting): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = null;
    const id = this.nextId++;
    const timer = this.timeLimit(slot, task, slot.ready ? this.options.timeoutMs : (this.options.startMs ?? 30_000) + this.options.timeoutMs);
    const watch = setInterval(() => void this.watchMemory(slot, id), this.options.watchIntervalMs ?? 100);
    slot.running = { ...task, id, timer, watch };
    slot.worker.ref();
    try {
      slot.worker.postMessage({ id, task: task.task }, [...task.transfer]);
    } catch (error) {
      this.finish(slot);
      this.settle(task, () => task.reject(error));
      this.dispatch();
    }
  }

  /** The timer that stops `task` after `ms`. */
  private timeLimit(slot: Slot, task: Waiting, ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      this.terminated.time++;
      const message = slot.ready ? `the task passed its time limit of ${this.options.timeoutMs} ms` : `the worker was not ready within ${this.options.startMs ?? 30_000} ms`;
      void this.stop(slot, () => task.reject(new WorkerStoppedError('time', message)), 'time');
    }, ms);
  }

  /** The worker is listening: a task handed over before counts its time from now. */
  private ready(slot: Slot): void {
    if (slot.ready) return;
    slot.ready = true;
    const task = slot.running;
    if (!task || slot.ending) return;
    clearTimeout(task.timer);
    task.timer = this.timeLimit(slot, task, this.options.timeoutMs);
  }

  private async watchMemory(slot: Slot, id: number): Promise<void> {
    if (slot.running?.id !== id || slot.ending) return;
    const limit = this.options.memoryMb * MIB;
    let used: number;
    try {
      const stats = await slot.worker.getHeapStatistics();
      used = stats.used_heap_size + stats.external_memory;
    } catch {
      return; // the worker is ending
    }
    if (used <= limit || slot.running?.id !== id) return;
    const task = slot.running;
    this.terminated.memory++;
    await this.stop(slot, () => task.reject(new WorkerStoppedError('memory', `the task passed the worker's memory limit of ${this.options.memoryMb} MB (${Math.round(used / MIB)} MB in use)`)), 'memory');
  }

  private answered(slot: Slot, reply: Reply): void {
    const task = slot.running;
    if (!task || task.id !== reply.id) return;
    this.finish(slot);
    this.settle(task, () => (reply.ok ? task.resolve(reply.value) : task.reject(new WorkerTaskError(reply.message, reply.code))));
    this.dispatch();
  }

  /** The worker died on its own (out of memory, a crash, an exit): its task fails and it is replaced. */
  private failed(slot: Slot, limit: 'memory' | 'exit', message: string): void {
    if (slot.ending || !this.slots.has(slot)) return;
    slot.ending = true;
    if (slot.idle) clearTimeout(slot.idle);
    this.slots.delete(slot);
    this.terminated[limit]++;
    const task = slot.running;
    this.finish(slot);
    this.log.warn({ limit, busy: task !== null }, `a worker was lost: ${message}`);
    if (task) this.settle(task, () => task.reject(new WorkerStoppedError(limit, message)));
    if (!this.closed) this.dispatch();
  }

  /** Terminates a worker the pool gives up on; `fail` rejects its task. The next task gets a new worker. */
  private async stop(slot: Slot, fail: (() => void) | null, why: string): Promise<void> {
    if (slot.ending) return;
    slot.ending = true;
    if (slot.idle) clearTimeout(slot.idle);
    this.slots.delete(slot);
    const task = slot.running;
    this.finish(slot);
    if (task && fail) this.settle(task, fail);
    else if (task) this.settle(task, () => task.reject(new WorkerStoppedError(why === 'closed' ? 'closed' : 'exit', `the worker was stopped (${why})`)));
    if (why !== 'closed') this.log.warn({ why }, 'a worker was terminated and will be replaced');
    if (!this.closed) this.dispatch();
    await slot.worker.terminate().catch(() => undefined);
  }

  private finish(slot: Slot): void {
    const task = slot.running;
    if (!task) return;
    clearTimeout(task.timer);
    clearInterval(task.watch);
    slot.running = null;
    if (slot.ending) return;
    slot.worker.unref();
    slot.idle = setTimeout(() => this.retire(slot), this.options.idleMs ?? 30_000);
    slot.idle.unref();
  }

  /** An idle worker exits: nothing failed, the next task starts a new one. */
  private retire(slot: Slot): void {
    if (slot.running || slot.ending) return;
    slot.ending = true;
    this.slots.delete(slot);
    void slot.worker.terminate().catch(() => undefined);
  }

  private settle(task: Waiting, settle: () => void): void {
    task.signal?.removeEventListener('abort', task.onAbort);
    settle();
  }
}

/**
 * The worker's side: in a worker that the pool named `name` started, answers each task the
 * pool posts with `handle`'s value, or its error's message and code, and returns true.
 * Anywhere else (the main thread importing the worker's module for its URL) it does nothing
 * and returns false.
 */
export function serveTasks<In, Out>(name: string, handle: (task: In) => Promise<Out>): boolean {
  if (isMainThread || !parentPort || (workerData as { pool?: unknown } | null)?.pool !== name) return false;
  const port = parentPort;
  port.postMessage(READY);
  port.on('message', (message: { id: number; task: In }) => {
    void (async () => {
      try {
        const value = await handle(message.task);
        port.postMessage({ id: message.id, ok: true, value } satisfies Reply);
      } catch (error) {
        const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : undefined;
        const reply: Reply = { id: message.id, ok: false, message: error instanceof Error ? error.message : String(error), ...(code ? { code } : {}) };
        port.postMessage(reply);
      }
    })();
  });
  return true;
}
