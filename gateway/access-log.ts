/**
 * One access-log line per request, written when the response is done: method, path (without
 * the query string, which may hold a caller's target URL), status and time. Fastify's default
 * is two lines per request with full request serialization, most of a small request's cost.
 * Headers and bodies are never logged.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class AccessLog extends LogController {
  override incomingRequest(): void {
    // One line per request, at completion.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const path = request.url.split('?', 1)[0];
    const fields = { method: request.method, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request');
  }
}
