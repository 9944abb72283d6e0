/**
 * GET /v1/fetch through the pipeline: the gateway publishes a FetchRequested event and awaits
 * the fetcher's Reply, whose data is the upstream response (schemas/events/replies.ts). The
 * answer is those bytes with the upstream content type, not an envelope; the upstream status
 * and final URL go in headers (schemas/api/operations.ts RAW_RESPONSE_HEADERS), and so does
 * the cost (gateway/routes.ts). A failure is the usual error envelope.
 */
import { FETCH_TIMEOUT_MS, type FetchQuery } from '../../schemas/api/page-reading.js';
import { RAW_RESPONSE_HEADERS } from '../../schemas/api/operations.js';
import { readFetchedBytes } from '../../schemas/events/replies.js';
import type { Static } from '@sinclair/typebox';
import { AppError } from '../../pipeline/runtime/errors.js';
import { PIPELINE_SLACK_MS, type Requester } from '../../pipeline/runtime/request-reply.js';
import type { OperationHandler } from '../handler.js';
import { askPipeline, replyResult } from './ask.js';

export function fetchHandler(requester: Requester, requestTimeoutMs: number): OperationHandler {
  return {
    async handle(ctx) {
      const query = ctx.query as Static<typeof FetchQuery>;
      const timeoutMs = Math.min(requestTimeoutMs, FETCH_TIMEOUT_MS + PIPELINE_SLACK_MS);
      const fields = { url: query.url, proxy: query.proxy ?? null, country: query.country ?? null, lean: false };
      const reply = await askPipeline(requester, ctx, 'fetchRequested', fields, timeoutMs);
      // A failure reply throws its code (and nothing is charged).
      if (!reply.ok) return replyResult(reply);
      const fetched = reply.data === null ? null : readFetchedBytes(reply.data);
      if (!fetched) throw new AppError('upstream_error', 'the fetcher answered without the fetched bytes');
      return {
        raw: {
          body: Buffer.from(fetched.bodyBase64, 'base64'),
          contentType: fetched.contentType,
          headers: {
            [RAW_RESPONSE_HEADERS.upstreamStatus.name]: String(fetched.statusCode),
            [RAW_RESPONSE_HEADERS.finalUrl.name]: fetched.finalUrl,
          },
        },
        credits: reply.credits,
      };
    },
  };
}
