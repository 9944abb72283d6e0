/**
 * One access-log line per request, written when the response is done: method, path (without
 * the query string, which may hold a caller's target URL), status and time. Fastify's default
 * is two lines per request with full request serialization, most of a small request's cost.
 * Headers and bodies are never logged.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { RequestLog } from './request-log.js';

export class AccessLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'reqId' });
  }

  override incomingRequest(): void {
    // One line per request, at completion.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const path = request.url.split('?', 1)[0];
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const log = reply.log;
    // Without a child made for this request, the line goes through the parent with the id
    // first: the bytes the child would write (gateway/request-log.ts).
    const parent = log instanceof RequestLog ? log.withoutChild() : undefined;
    if (parent) {
      if (error) parent.error({ reqId: request.id, method: request.method, path, status: reply.statusCode, ms, err: error }, 'request errored');
      else parent.info({ reqId: request.id, method: request.method, path, status: reply.statusCode, ms }, 'request');
      return;
    }
    const fields = { method: request.method, path, status: reply.statusCode, ms };
    if (error) log.error({ ...fields, err: error }, 'request errored');
    else log.info(fields, 'request');
  }
}
