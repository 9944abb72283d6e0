/**
 * POST /v1/parse through the pipeline: the gateway publishes a ParseRequested event with the
 * uploaded file and awaits the parser's Reply, whose data is the scrape document. The file's
 * type is judged by the parser (actors/parser/parse.ts), not here: the gateway only moves
 * bytes. Its size was bounded by UPLOAD_LIMIT_BYTES while the multipart body was read.
 */
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import type { OperationHandler, UploadedFilePart } from '../handler.js';
import { askPipeline, replyResult } from './ask.js';

/** How long the gateway waits for the document: the parser's 120 s per attempt, and queueing. */
export const PARSE_WAIT_MS = 135_000;

export function parseHandler(requester: Requester, requestTimeoutMs: number): OperationHandler {
  return {
    async handle(ctx) {
      const { file } = ctx.body as { file: UploadedFilePart };
      const timeoutMs = Math.min(requestTimeoutMs, PARSE_WAIT_MS);
      // POST /v1/parse takes no options: the document options' defaults.
      const fields = { filename: file.filename, contentType: file.mimetype, body: file.data, options: '{}' };
      const reply = await askPipeline(requester, ctx, 'parseRequested', fields, timeoutMs);
      return replyResult(reply);
    },
  };
}
