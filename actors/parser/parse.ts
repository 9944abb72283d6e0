/**
 * The parser's pure handler for POST /v1/parse: one ParseRequested in, an Outcome out. The
 * uploaded file is read by the document core (`parseUpload`: PDF, DOCX, HTML, markdown,
 * text, JSON, XML) in the parser's document workers (`documents`, document/pool.ts: never on
 * the service's own thread) and the document is answered to the request's reply topic, 1
 * credit. Nothing is stored: an upload is not a page of the web.
 *
 * - The file is read as the type its bytes are when they are a PDF or DOCX, whatever it was
 *   sent as (and as the text it is when sent as a PDF or DOCX); the document's `warning`
 *   says so. Otherwise by declared type, else extension, else first bytes.
 * - A file of no type the parser reads: `unsupported_file_type`.
 * - A file of a type it reads that cannot be read (a damaged PDF or DOCX): `file_unreadable`.
 * - A file past the document limits before anything useful was read (a zip or Flate bomb,
 *   the worker's memory or time): `file_too_complex`. A PDF past its page or read-time limit
 *   answers the pages read, with a `warning`.
 * - Anything else that throws is answered `internal_error` rather than retried: reading the
 *   same bytes again fails the same way, and the caller should not wait for the retries.
 *   Only a parser that is stopping (`service_unavailable`) hands the upload on to be retried.
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
import { judgeUpload, parseUpload, type DocumentOptions, type DocumentReader, type UploadedFile } from './document/index.js';

export type ParseRequested = EventValue<'ParseRequested'>;

const SUPPORTED = 'PDF, DOCX, HTML, markdown, plain text, JSON or XML';


function answer(code: ErrorCode, message: string): Outcome {
  return { kind: 'fail', code, message };
}

export interface ParseDeps {
  readonly log: Logger;
  readonly now?: () => number;
  /** Who reads the file: the parser's document pool (default: the caller's thread). */
  readonly documents?: DocumentReader;
  /** The attempt's signal: a file still waiting for a worker, or being read, is given up with it. */
  readonly signal?: AbortSignal;
}

export async function handleParseRequested(event: ParseRequested, deps: ParseDeps): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ requestId: event.requestId });
  const started = now();
  const options = parseJsonObject<DocumentOptions>(event.options);
  if (!options) return answer('bad_request', 'the parse options are not a JSON object');
  const file: UploadedFile = { filename: event.filename, mimetype: event.contentType, data: event.body };
  const { kind } = judgeUpload(file);
  if (!kind) {
    const declared = event.contentType || 'no declared type';
    return answer('unsupported_file_type', `"${event.filename}" (${declared}) is not a file type POST /v1/parse reads: ${SUPPORTED}`);
  }
  let json: string;
  try {
    json = JSON.stringify(await parseUpload(file, options, deps.documents, deps.signal));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // A damaged file reads as unsupported content, and HTML nested too deep for a page is too complex a file.
    const read = errorCode(error);
    const code = read === 'unsupported_content' ? 'file_unreadable' : read === 'page_too_complex' ? 'file_too_complex' : serviceCode(error);
    if (code === 'file_unreadable' || code === 'file_too_complex') {
      log.info({ kind, bytes: file.data.length, ms: now() - started, code }, `an upload was not read: ${message}`);
      return answer(code, message);
    }
    if (code === 'service_unavailable') return { kind: 'retry', code, message };
    log.error({ err: error, kind, bytes: file.data.length }, `parsing an upload failed: ${message}`);
    return answer(code, code === 'internal_error' ? `the ${kind} file could not be parsed` : message);
  }
  log.info({ kind, bytes: file.data.length, ms: now() - started }, 'upload parsed');
  return { kind: 'ack', emit: replyTo(event, { ok: true, data: json, errorCode: null, errorMessage: null, credits: PRICES.parsedFile.credits, source: 'parser' }, log) };
}
