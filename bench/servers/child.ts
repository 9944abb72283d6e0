/**
 * The child side of bench/lib.ts `startServer`: reports `{port, ...extra}` once listening,
 * answers `{type: 'cpu'}` and `{type: 'memory'}` (answerUsage), and stops cleanly on SIGTERM.
 */
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
 * Answers the parent's `{type: 'cpu'}` with this process's CPU time and `{type: 'memory'}`
 * with its peak resident set (`maxRssKb`, KiB, as getrusage reports it).
 */
export function answerUsage(): void {
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'cpu') process.send?.(process.cpuUsage());
    if (message.type === 'memory') process.send?.({ maxRssKb: process.resourceUsage().maxRSS });
  });
}
