/**
 * One `api_requests` row per answered /v1 request made with a valid key (infra/clickhouse/
 * 0014_requests.sql), for the dashboard's usage panel: the key's id (never its secret), the
 * operation, the HTTP status, the error envelope's code (empty for a success;
 * `validation_failed` for a 422 with `detail`), the credits charged, the time and the request
 * id. The operation's route notes the key once admitted, its id and the credits as it serves
 * the request (gateway/routes.ts), the error answer its code (gateway/replies.ts), and the access log
 * hands every answer here (gateway/access-log.ts). The row goes to the store's batch writer
 * and is never waited on: a request costs a push onto the open batch, not an insert.
 *
 * Not recorded: a request refused before a valid key was found (401, or the 429 of an address
 * that presented too many invalid keys), which no key owns, and every route outside the
 * operations (/docs, /dashboard). A key's own rate limit (429 `rate_limited`) is recorded.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BatchWriter } from '../pipeline/runtime/store/batch-writer.js';
import type { Logger } from '../pipeline/runtime/log.js';
import { REQUESTS_TABLE, requestRow } from '../pipeline/dashboard/requests.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The id of the key admitted for this request (before its rate limit); absent before. */
    usageTenant?: string;
    /** The operation this request was routed to; absent outside the operations. */
    usageOp?: string;
    /** Credits charged (after settlement); absent is none. */
    usageCredits?: number;
    /** The error envelope's code, when the answer is an error. */
    usageCode?: string;
  }
}

/*
 * These fields are not Fastify decorators: a decorator is set on every request of every
 * route by Fastify's request constructor, in a loop whose store V8 cannot specialise (one
 * site, many names), about 300 instructions a field on each request (callgrind, the 422 of
 * bench/gateway.ts). They are written where they become known, and read as absent otherwise.
 */

/** The code an error answer carries, noted for its row. */
export function noteErrorCode(request: FastifyRequest, code: string): void {
  request.usageCode = code;
}

/** How long a request row waits for its batch to fill: a usage panel a second behind is fine. */
const ROW_DELAY_MS = 1000;

export class UsageRecorder {
  private warned = false;

  constructor(
    private readonly writer: Pick<BatchWriter, 'write'>,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  /** The row of an answered request of an operation with a key; nothing otherwise. */
  record(request: FastifyRequest, reply: FastifyReply): void {
    const op = request.usageOp;
    const tenant = request.usageTenant;
    if (op === undefined || tenant === undefined) return;
    const status = reply.statusCode;
    const code = status < 400 ? '' : (request.usageCode ?? (status === 422 ? 'validation_failed' : `http_${status}`));
    const row = requestRow({ tenant, atMs: this.now(), op, status, code, credits: request.usageCredits ?? 0, requestId: request.id });
    this.writer.write(REQUESTS_TABLE, [row], { maxDelayMs: ROW_DELAY_MS }).then(
      () => {
        this.warned = false;
      },
      (error: unknown) => {
        // One line per outage, not one per request.
        if (this.warned) return;
        this.warned = true;
        this.log.warn({ err: error }, 'could not record request rows for the dashboard');
      },
    );
  }
}
