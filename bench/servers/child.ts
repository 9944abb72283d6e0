/**
 * The child side of bench/lib.ts `startServer`: reports `{port, ...extra}` once listening,
 * answers `{type: 'cpu'}` with this process's CPU time, and stops cleanly on SIGTERM.
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
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'cpu') process.send?.(process.cpuUsage());
  });
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0, ...extra });
}
