/**
 * POST /v1/scrape through the pipeline: the gateway publishes a ScrapeRequested event and
 * awaits the Reply of the actor that finishes the page. The reply carries the document, the
 * credits to charge and where the page came from (fresh, cache, index).
 */
import type { ScrapeBody } from '../../schemas/api/page-reading.js';
import { isErrorCode } from '../../schemas/errors.js';
import { HEADERS } from '../../schemas/topics.js';
import { AppError } from '../../pipeline/errors.js';
import type { ReplyValue, Requester } from '../../pipeline/request-reply.js';
import type { HandlerResult, OperationHandler } from '../handler.js';

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

/**
 * Formats the page-reading actors produce today (the parser's PARSER_FORMATS; a test keeps
 * the two lists equal). `json`, `summary`, `screenshot`, `network` and `changeTracking` need
 * the extraction, rendering and change-tracking actors.
 */
export const SERVED_FORMATS: readonly string[] = ['markdown', 'html', 'rawHtml', 'links', 'media'];

/** What of a valid scrape this build cannot do yet: 501 before anything is fetched or charged. */
export function unservedScrapeOptions(options: Omit<ScrapeBody, 'url'>): string[] {
  const unserved: string[] = [];
  for (const format of options.formats ?? []) {
    const name = typeof format === 'string' ? format : format.type;
    if (!SERVED_FORMATS.includes(name)) unserved.push(`the "${name}" format`);
  }
  if ((options.waitFor ?? 0) > 0) unserved.push('waitFor (rendering in a browser)');
  if ((options.actions ?? []).length > 0) unserved.push('actions (rendering in a browser)');
  return [...new Set(unserved)];
}

export function scrapeHandler(requester: Requester, requestTimeoutMs: number): OperationHandler {
  return {
    estimate: () => 1,
    async handle(ctx) {
      const { url, ...options } = ctx.body as ScrapeBody;
      const unserved = unservedScrapeOptions(options);
      if (unserved.length) {
        throw new AppError('not_implemented', `this instance does not serve ${unserved.join(', ')} yet`);
      }
      const now = Date.now();
      const pageTimeout = options.timeout ?? 90_000;
      const timeoutMs = Math.min(requestTimeoutMs, pageTimeout + PIPELINE_SLACK_MS);
      const reply = await requester.request(
        (correlationId, replyTo) => ({
          topic: 'scrapeRequested',
          key: ctx.requestId,
          headers: { [HEADERS.requestId]: ctx.requestId },
          value: {
            requestId: ctx.requestId,
            tenant: ctx.key?.id ?? '',
            jobId: null,
            url,
            options: JSON.stringify(options),
            replyTo,
            correlationId,
            deadlineMs: now + timeoutMs,
            createdAtMs: now,
          },
        }),
        timeoutMs,
        ctx.signal,
      );
      return replyResult(reply);
    },
  };
}
