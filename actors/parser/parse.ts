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
 * - Past its deadline: dropped (nobody waits any more).
 */
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import { PRICES } from '../../schemas/api/prices.js';
import { isErrorCode, type ErrorCode } from '../../schemas/errors.js';
import type { EventValue } from '../../schemas/events/index.js';
import { parseUpload, uploadKind, type DocumentOptions, type UploadedFile } from './document/index.js';

export type ParseRequested = EventValue<'ParseRequested'>;

const SUPPORTED = 'PDF, DOCX, HTML, markdown, plain text, JSON or XML';


function answer(event: ParseRequested, code: ErrorCode, message: string, log: Logger): Outcome {
  return { kind: 'ack', emit: replyTo(event, { ok: false, data: null, errorCode: code, errorMessage: message, credits: 0, source: 'parser' }, log) };
}

export async function handleParseRequested(event: ParseRequested, deps: { readonly log: Logger; readonly now?: () => number }): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ requestId: event.requestId });
  const started = now();
  if (started > event.deadlineMs) {
    log.warn({ bytes: event.body.length }, 'parse request past its deadline; dropped');
    return { kind: 'ack' };
  }
  const options = parseJsonObject<DocumentOptions>(event.options);
  if (!options) return answer(event, 'bad_request', 'the parse options are not a JSON object', log);
  const file: UploadedFile = { filename: event.filename, mimetype: event.contentType, data: event.body };
  const kind = uploadKind(file);
  if (!kind) {
    const declared = event.contentType || 'no declared type';
    return answer(event, 'unsupported_file_type', `"${event.filename}" (${declared}) is not a file type POST /v1/parse reads: ${SUPPORTED}`, log);
  }
  let json: string;
  try {
    json = JSON.stringify(await parseUpload(file, options));
  } catch (error) {
    const raw = (error as { code?: unknown })?.code;
    const message = error instanceof Error ? error.message : String(error);
    if (raw === 'unsupported_content') return answer(event, 'file_unreadable', message, log);
    const code: ErrorCode = typeof raw === 'string' && isErrorCode(raw) ? raw : 'internal_error';
    log.error({ err: error, kind, bytes: file.data.length }, `parsing an upload failed: ${message}`);
    return answer(event, code, code === 'internal_error' ? `the ${kind} file could not be parsed` : message, log);
  }
  log.info({ kind, bytes: file.data.length, ms: now() - started }, 'upload parsed');
  return { kind: 'ack', emit: replyTo(event, { ok: true, data: json, errorCode: null, errorMessage: null, credits: PRICES.parsedFile.credits, source: 'parser' }, log) };
}
