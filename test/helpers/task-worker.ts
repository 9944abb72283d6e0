/**
 * A worker for test/pipeline/workers.test.ts: the tasks a worker pool must survive, run in a
 * thread of pipeline/runtime/workers.ts (`serveTasks('test-tasks', …)`). Each task is one
 * behaviour: answer, throw a coded error, spin the CPU, fill the heap, hold buffers, exit.
 * A worker started while TASK_WORKER_START_MS is set takes that long to load (a slow start on
 * a loaded machine) before it serves tasks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isMainThread } from 'node:worker_threads';
import { serveTasks } from '../../pipeline/runtime/workers.js';

export const TASK_WORKER = new URL(import.meta.url);
export const TASK_WORKERS = 'test-tasks';

export type Task =
  | { readonly op: 'echo'; readonly value: string; readonly bytes?: Uint8Array }
  | { readonly op: 'throw'; readonly code: string; readonly message: string }
  | { readonly op: 'spin'; readonly ms: number }
  | { readonly op: 'heap' }
  | { readonly op: 'buffers'; readonly mb: number }
  | { readonly op: 'exit' };

const held: unknown[] = [];

const startMs = Number(process.env.TASK_WORKER_START_MS ?? 0);
if (!isMainThread && startMs > 0) await sleep(startMs);

serveTasks<Task, string>(TASK_WORKERS, async (task) => {
  switch (task.op) {
    case 'echo':
      return `${task.value}${task.bytes ? `:${task.bytes.length}` : ''}`;
    case 'throw':
      throw Object.assign(new Error(task.message), { code: task.code });
    case 'spin': {
      const until = Date.now() + task.ms;
      while (Date.now() < until);
      return 'spun';
    }
    case 'heap':
      // Objects until the heap's cap ends the worker.
      for (;;) held.push({ a: Math.random(), b: [1, 2, 3], c: 'x'.repeat(64) + Math.random() });
    case 'buffers': {
      // ArrayBuffers live outside the heap: only the watchdog sees them. Touched, so they are real.
      for (let i = 0; i < task.mb; i++) {
        held.push(Buffer.alloc(1024 * 1024, 1));
        if (i % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return 'held';
    }
    case 'exit':
      process.exit(3);
  }
});
