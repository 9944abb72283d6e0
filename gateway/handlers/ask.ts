/**
 * A synchronous operation's trip through the pipeline: publish one request event for the API
 * request and await the Reply of the actor that finishes it (pipeline/runtime/request-reply.ts), then
 * turn that Reply into the handler's result or its error.
 */
import type { EventValue } from '../../schemas/events/index.js';
import { isErrorCode } from '../../schemas/errors.js';
import { HEADERS, type TopicKey } from '../../schemas/topics.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { TopicEvent } from '../../pipeline/runtime/events.js';
import type { ReplyValue, Requester } from '../../pipeline/runtime/request-reply.js';
import { tenantOf, type HandlerContext, type HandlerResult } from '../handler.js';

/** The fields every request event carries, filled in from the API request. */
type RequestFields = 'requestId' | 'tenant' | 'replyTo' | 'correlationId' | 'deadlineMs' | 'createdAtMs';

/**
 * Publishes the `topic` event made of `fields` and the request's own (id, the key as tenant,
 * where to reply, a deadline `timeoutMs` from now), keyed and tagged by the request id, and
 * resolves with its Reply (rejections: see Requester.request).
 */
export function askPipeline<K extends TopicKey>(
  requester: Requester,
  ctx: Pick<HandlerContext, 'requestId' | 'key' | 'signal'>,
  topic: K,
  fields: Omit<EventValue<TopicEvent<K>>, RequestFields>,
  timeoutMs: number,
): Promise<ReplyValue> {
  const now = Date.now();
  return requester.request(
    (correlationId, replyTo) => ({
      topic,
      key: ctx.requestId,
      headers: { [HEADERS.requestId]: ctx.requestId },
      value: {
        ...fields,
        requestId: ctx.requestId,
        tenant: tenantOf(ctx),
        replyTo,
        correlationId,
        deadlineMs: now + timeoutMs,
        createdAtMs: now,
      } as EventValue<TopicEvent<K>>,
    }),
    timeoutMs,
    ctx.signal,
  );
}

/** Time the pipeline may take beyond the page's own `timeout` (queueing, parsing). */
export const PIPELINE_SLACK_MS = 15_000;

export function replyResult(reply: ReplyValue): HandlerResult {
  if (!reply.ok) {
    const code = reply.errorCode && isErrorCode(reply.errorCode) ? reply.errorCode : 'upstream_error';
    throw new AppError(code, reply.errorMessage ?? 'the worker reported a failure');
  }
  const data = reply.data ? (JSON.parse(reply.data) as Record<string, unknown>) : {};
  const source = reply.source === 'fresh' || reply.source === 'cache' || reply.source === 'index' ? reply.source : undefined;
  return { data, credits: reply.credits, ...(source ? { source } : {}) };
}
