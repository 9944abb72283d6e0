/**
 * The child side of bench/lib.ts `startServer`: reports `{port, ...extra}` once listening,
 * answers `{type: 'cpu'}` and `{type: 'memory'}` (answerUsage), and stops cleanly on SIGTERM.
 */
import { readFileSync, readdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

export function serveChild(
  app: FastifyInstance,
  extra: Record<string, unknown>,
  cleanup: () => void | Promise<void> = () => undefined,
): void {
  const address = app.server.address();
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(cleanup)
      .finally(() => process.exit(0));
  });
  answerUsage();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0, ...extra });
}

/**
 * This process's CPU time by thread name (Linux: /proc/self/task/<tid>/comm, utime + stime of
 * its stat, in ms); the main thread (tid = pid) is `main`. Threads that ended are not counted.
 */
export function threadCpuMs(): Record<string, number> {
  const out: Record<string, number> = {};
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  const tick = 10; // ms per clock tick (USER_HZ 100)
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * tick;
      const name = Number(tid) === process.pid ? 'main' : readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      out[name] = (out[name] ?? 0) + ms;
    } catch {
      // the thread ended while we read
    }
  }
  return out;
}

/**
 * Answers the parent's `{type: 'cpu'}` with this process's CPU time, `{type: 'memory'}`
 * with its peak resident set (`maxRssKb`, KiB, as getrusage reports it) and its current one
 * (`rssKb`), and `{type: 'threads'}` with its CPU time by thread name (threadCpuMs).
 */
export function answerUsage(): void {
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'cpu') process.send?.(process.cpuUsage());
    if (message.type === 'memory') {
      const m = process.memoryUsage();
      const kb = (n: number) => Math.round(n / 1024);
      process.send?.({ maxRssKb: process.resourceUsage().maxRSS, rssKb: kb(m.rss), heapUsedKb: kb(m.heapUsed), heapTotalKb: kb(m.heapTotal), externalKb: kb(m.external) });
    }
    if (message.type === 'threads') process.send?.(threadCpuMs());
  });
}
