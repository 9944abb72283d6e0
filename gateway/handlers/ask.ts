/**
 * A synchronous operation's trip through the pipeline: publish one request event for the API
 * request and await the Reply of the actor that finishes it (pipeline/runtime/request-reply.ts), then
 * turn that Reply into the handler's result or its error.
 */
import { isErrorCode } from '../../schemas/errors.js';
import type { TopicKey } from '../../schemas/topics.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { ask, type AskFields, type ReplyValue, type Requester } from '../../pipeline/runtime/request-reply.js';
import { tenantOf, type HandlerContext, type HandlerResult } from '../handler.js';

/**
 * Asks the pipeline for the API request `ctx` (its id, its key as the tenant, its signal):
 * `ask`.
 */
export function askPipeline<K extends TopicKey>(
  requester: Requester,
  ctx: Pick<HandlerContext, 'requestId' | 'key' | 'signal'>,
  topic: K,
  fields: AskFields<K>,
  timeoutMs: number,
): Promise<ReplyValue> {
  return ask(requester, { requestId: ctx.requestId, tenant: tenantOf(ctx), signal: ctx.signal }, topic, fields, timeoutMs);
}

/**
 * The handler's result of a Reply: its error, or its data as the bytes the actor wrote (an
 * object's JSON), which the envelope is written around without parsing them (routes.ts
 * `envelope`), with the credits and the page's source beside.
 */
export function replyResult(reply: ReplyValue): HandlerResult {
  if (!reply.ok) {
    const code = reply.errorCode && isErrorCode(reply.errorCode) ? reply.errorCode : 'upstream_error';
    throw new AppError(code, reply.errorMessage ?? 'the worker reported a failure');
  }
  const source = reply.source === 'fresh' || reply.source === 'cache' || reply.source === 'index' ? reply.source : undefined;
  const data = reply.data?.trimStart().startsWith('{') ? { dataJson: reply.data } : { data: reply.data ? (JSON.parse(reply.data) as Record<string, unknown>) : {} };
  return { ...data, credits: reply.credits, ...(source ? { source } : {}) };
}
