/**
 * The gateway's counts in the process's metrics (pipeline/runtime/metrics/): every answer
 * by operation and status (`wds_http_requests_total`) and its time by operation
 * (`wds_http_request_duration_seconds`). Recorded where the access line is written
 * (gateway/access-log.ts), which every answer passes, so no hook is added per request.
 *
 * The operations' own routes name their operation id when they answer; any other answer
 * (an error handler's, a Firecrawl or reference route's) is looked up once from its route:
 * the operation id of its method and path, else the route's path pattern, else `unmatched`
 * (no route: a 404), so the label's values are bounded by the routes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Children, type CounterChild, type HistogramChild, type Metrics } from '../pipeline/runtime/metrics/metrics.js';
import { OPERATIONS, routerPath } from '../schemas/api/operations.js';

interface OperationChildren {
  readonly seconds: HistogramChild;
  readonly statuses: Children<CounterChild, number>;
}

export class HttpMeter {
  private readonly operations: Children<OperationChildren>;
  private readonly byRoute = new Map<string, string>();

  constructor(metrics: Metrics) {
    this.operations = new Children((operation) => ({
      seconds: metrics.httpSeconds.labels(operation),
      statuses: new Children<CounterChild, number>((status) => metrics.httpRequests.labels(operation, String(status))),
    }));
    for (const op of OPERATIONS) {
      const path = routerPath(op.path);
      this.byRoute.set(`${op.method} ${path}`, op.id);
      if (op.method === 'GET') this.byRoute.set(`HEAD ${path}`, op.id);
    }
  }

  /** Counts one answer; `operation` when the caller knows it, else it is found from the route. */
  record(request: FastifyRequest, reply: FastifyReply, elapsedMs: number, operation?: string): void {
    const children = this.operations.of(operation ?? this.operationOf(request));
    children.seconds.observe(elapsedMs / 1000);
    children.statuses.of(reply.statusCode).inc();
  }

  private operationOf(request: FastifyRequest): string {
    const route = request.routeOptions;
    if (!route.url) return 'unmatched';
    return this.byRoute.get(`${request.method} ${route.url}`) ?? route.url;
  }
}
