/**
 * The metrics endpoint: a small node:http server of its own in every process (the gateway's
 * Fastify runs in one role only), answering `GET /metrics` with the exposition text of the
 * process's `Metrics`, and 404 for anything else. It binds to METRICS_HOST (loopback by
 * default): the figures name topics, groups and tables, nothing a caller should read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import type { Metrics } from './metrics.js';

export interface MetricsServer {
  /** The address it listens on (the port chosen when 0 was asked). */
  readonly address: AddressInfo;
  close(): Promise<void>;
}

export async function serveMetrics(metrics: Metrics, options: { port: number; host: string }, log: Logger): Promise<MetricsServer> {
  metrics.collectProcessMetrics();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: the metrics are at GET /metrics\n');
      return;
    }
    metrics.text().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        log.warn({ err: error }, 'metrics could not be collected');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  log.info({ host: address.address, port: address.port }, 'metrics served at /metrics');
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
