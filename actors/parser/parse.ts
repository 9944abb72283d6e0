/**
 * The parser's pure handler for POST /v1/parse: one ParseRequested in, an Outcome out. The
 * uploaded file is read by the document core (`parseUpload`: PDF, DOCX, HTML, markdown,
 * text, JSON, XML) and the document is answered to the request's reply topic, 1 credit.
 * Nothing is stored: an upload is not a page of the web.
 *
 * - A file of no type the parser reads (by declared type, else extension, else first
 *   bytes): `unsupported_file_type`.
 * - A file of a type it reads that cannot be read (a damaged PDF or DOCX): `file_unreadable`.
 * - Anything else that throws is answered `internal_error` rather than retried: reading the
 *   same bytes again fails the same way, and the caller should not wait for the retries.
 * - Past its deadline: dropped by the pool (nobody waits any more).
 *
 * Failures are `fail` outcomes: the pool answers them (pipeline/runtime/pool.ts).
 */
import { errorCode, serviceCode } from '../../pipeline/runtime/errors.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { ErrorCode } from '../../schemas/errors.js';
import type { EventValue } from '../../schemas/events/index.js';
import { parseUpload, uploadKind, type DocumentOptions, type UploadedFile } from './document/index.js';

export type ParseRequested = EventValue<'ParseRequested'>;

const SUPPORTED = 'PDF, DOCX, HTML, markdown, plain text, JSON or XML';


function answer(code: ErrorCode, message: string): Outcome {
  return { kind: 'fail', code, message };
}

export async function handleParseRequested(event: ParseRequested, deps: { readonly log: Logger; readonly now?: () => number }): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ requestId: event.requestId });
  const started = now();
  const options = parseJsonObject<DocumentOptions>(event.options);
  if (!options) return answer('bad_request', 'the parse options are not a JSON object');
  const file: UploadedFile = { filename: event.filename, mimetype: event.contentType, data: event.body };
  const kind = uploadKind(file);
  if (!kind) {
    const declared = event.contentType || 'no declared type';
    return answer('unsupported_file_type', `"${event.filename}" (${declared}) is not a file type POST /v1/parse reads: ${SUPPORTED}`);
  }
  let json: string;
  try {
    json = JSON.stringify(await parseUpload(file, options));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (errorCode(error) === 'unsupported_content') return answer('file_unreadable', message);
    const code = serviceCode(error);
    log.error({ err: error, kind, bytes: file.data.length }, `parsing an upload failed: ${message}`);
    return answer(code, code === 'internal_error' ? `the ${kind} file could not be parsed` : message);
  }
  log.info({ kind, bytes: file.data.length, ms: now() - started }, 'upload parsed');
  return { kind: 'ack', emit: replyTo(event, { ok: true, data: json, errorCode: null, errorMessage: null, credits: PRICES.parsedFile.credits, source: 'parser' }, log) };
}
