/**
 * pipeline/runtime/workers.ts with a real worker thread (test/helpers/task-worker.ts, loaded
 * from its TypeScript source through tsx as the service's own workers are under vitest): tasks
 * answered and their coded errors carried back; the time limit, the heap cap and the buffer
 * watchdog each terminate the worker with the reason; a worker that exits fails its task;
 * every lost worker is replaced for the next task; waiting and running tasks are withdrawn by
 * their signal; at most `size` workers run; an idle worker exits; and while a worker spins, the
 * main thread's timers keep running (each due during the task runs while the task still does).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../pipeline/runtime/log.js';
import { WorkerPool, WorkerStoppedError, WorkerTaskError, type WorkerPoolOptions } from '../../pipeline/runtime/workers.js';
import { TASK_WORKER, TASK_WORKERS, type Task } from '../helpers/task-worker.js';
import { rejection, until } from '../helpers/wait.js';

const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
let pools: WorkerPool<Task, string>[] = [];

function pool(options: Partial<WorkerPoolOptions> = {}): WorkerPool<Task, string> {
  const made = new WorkerPool<Task, string>({ entry: TASK_WORKER, name: TASK_WORKERS, size: 1, timeoutMs: 20_000, memoryMb: 128, log, ...options });
  pools.push(made);
  return made;
}


afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});

describe('pipeline/runtime/workers', () => {
  it('answers tasks in a worker, moves transferred bytes, and carries a task\'s coded error back', async () => {
    const workers = pool();
    const bytes = new Uint8Array(1000);
    expect(await workers.run({ op: 'echo', value: 'hi', bytes }, { transfer: [bytes.buffer] })).toBe('hi:1000');
    expect(bytes.byteLength).toBe(0); // moved, not copied
    const error = await rejection<Error>(workers.run({ op: 'throw', code: 'unsupported_content', message: 'broken' }));
    expect(error).toBeInstanceOf(WorkerTaskError);
    expect(error).toMatchObject({ code: 'unsupported_content', message: 'broken' });
    expect(workers.stats()).toMatchObject({ started: 1, busy: 0, idle: 1, terminated: { time: 0, memory: 0, exit: 0 } });
  });

  it('terminates a task past its time limit, keeps the main thread free meanwhile, and replaces the worker', async () => {
    const workers = pool({ timeoutMs: 1500 });
    expect(await workers.run({ op: 'echo', value: 'warm' })).toBe('warm'); // the worker has started
    // Main-thread timers due every 100 ms of the task's 1.5 s, set before it: Node runs due
    // timers in the order they fall due, so all of them fire before its time limit's (set
    // after them, due after them) however late the machine runs them. Each notes whether the
    // task was still running then: a main thread held by the task could run none before it ended.
    let running = true;
    const seen: boolean[] = [];
    const ticks = Array.from({ length: 14 }, (_, i) => setTimeout(() => seen.push(running), (i + 1) * 100));
    const spinning = workers.run({ op: 'spin', ms: 60_000 });
    spinning.catch(() => (running = false));
    const error = await rejection<Error>(spinning);
    for (const tick of ticks) clearTimeout(tick);
    expect(error).toBeInstanceOf(WorkerStoppedError);
    expect((error as WorkerStoppedError).reason).toBe('time');
    expect(seen).toEqual(Array.from({ length: 14 }, () => true));
    expect(await workers.run({ op: 'echo', value: 'after' })).toBe('after');
    expect(workers.stats()).toMatchObject({ started: 2, terminated: { time: 1 } });
  });

  it('counts a task\'s time from when its worker is ready, and fails a task whose worker is not ready within startMs', async () => {
    process.env.TASK_WORKER_START_MS = '1500';
    try {
      // A new worker's 1.5 s start is not the task's: its 800 ms limit starts once the worker is ready.
      const slow = pool({ timeoutMs: 800, startMs: 20_000 });
      expect(await slow.run({ op: 'echo', value: 'late' })).toBe('late');
      expect(slow.stats().terminated.time).toBe(0);
      // A worker that never gets ready within startMs does not hold its task for ever.
      const stuck = pool({ timeoutMs: 100, startMs: 200 });
      const error = await rejection<WorkerStoppedError>(stuck.run({ op: 'echo', value: 'never' }));
      expect(error).toBeInstanceOf(WorkerStoppedError);
      expect(error.reason).toBe('time');
      expect(error.message).toMatch(/not ready within 200 ms/);
    } finally {
      delete process.env.TASK_WORKER_START_MS;
    }
    // Once ready, a worker's tasks have their whole limit again.
    const ready = pool({ timeoutMs: 300 });
    await ready.run({ op: 'echo', value: 'warm' });
    expect((await rejection<WorkerStoppedError>(ready.run({ op: 'spin', ms: 5_000 }))).reason).toBe('time');
  });

  it('ends a worker whose heap passes its cap, and one whose buffers pass the memory limit', async () => {
    const workers = pool({ memoryMb: 64, watchIntervalMs: 50 });
    const heap = await rejection<Error>(workers.run({ op: 'heap' }));
    expect(heap).toMatchObject({ reason: 'memory' });
    const buffers = await rejection<Error>(workers.run({ op: 'buffers', mb: 400 }));
    expect(buffers).toMatchObject({ reason: 'memory' });
    expect(buffers.message).toMatch(/memory limit of 64 MB/);
    expect(await workers.run({ op: 'echo', value: 'still here' })).toBe('still here');
    expect(workers.stats().terminated.memory).toBe(2);
  });

  it('fails the task of a worker that exits, and starts another for the next', async () => {
    const workers = pool();
    expect(await rejection<Error>(workers.run({ op: 'exit' }))).toMatchObject({ reason: 'exit' });
    expect(await workers.run({ op: 'echo', value: 'next' })).toBe('next');
    expect(workers.stats()).toMatchObject({ started: 2, terminated: { exit: 1 } });
  });

  it('runs at most `size` tasks at once; the others wait their turn, and a signal withdraws one waiting or running', async () => {
    const workers = pool({ size: 2 });
    const first = workers.run({ op: 'spin', ms: 1500 });
    const second = workers.run({ op: 'spin', ms: 1500 });
    const waiting = new AbortController();
    const third = workers.run({ op: 'echo', value: 'third' }, { signal: waiting.signal });
    const fourth = workers.run({ op: 'echo', value: 'fourth' });
    await until('two workers busy', () => workers.stats().busy === 2);
    expect(workers.stats()).toMatchObject({ busy: 2, waiting: 2 });
    waiting.abort(new Error('gave up'));
    expect((await rejection<Error>(third)).message).toBe('gave up');
    expect(await Promise.all([first, second, fourth])).toEqual(['spun', 'spun', 'fourth']);
    expect(workers.stats().started).toBe(2);

    const running = new AbortController();
    const long = workers.run({ op: 'spin', ms: 60_000 }, { signal: running.signal });
    await until('the long task runs', () => workers.stats().busy === 1);
    running.abort(new Error('not any more'));
    expect((await rejection<Error>(long)).message).toBe('not any more');
    expect(await workers.run({ op: 'echo', value: 'fresh' })).toBe('fresh');
  });

  it('lets an idle worker exit, and starts one again for the next task', async () => {
    const workers = pool({ idleMs: 200 });
    expect(await workers.run({ op: 'echo', value: 'a' })).toBe('a');
    await until('the idle worker exited', () => workers.stats().idle === 0, { timeoutMs: 5000 });
    expect(await workers.run({ op: 'echo', value: 'b' })).toBe('b');
    expect(workers.stats()).toMatchObject({ started: 2, terminated: { time: 0, memory: 0, exit: 0 } });
  });

  it('fails waiting and running tasks when closed, and refuses new ones', async () => {
    const workers = pool();
    const running = rejection(workers.run({ op: 'spin', ms: 60_000 }));
    const waiting = rejection(workers.run({ op: 'echo', value: 'never' }));
    await until('the task runs', () => workers.stats().busy === 1);
    await workers.close();
    expect(await running).toMatchObject({ reason: 'closed' });
    expect(await waiting).toMatchObject({ reason: 'closed' });
    expect(await rejection<Error>(workers.run({ op: 'echo', value: 'late' }))).toMatchObject({ reason: 'closed' });
  });
});
