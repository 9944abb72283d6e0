/**
 * Every failure the gateway answers goes through `sendError`: application errors as the
 * envelope `{success: false, error: {code, message, retriable, requestId}}`, validation
 * failures as 422 `{detail: [...]}`, and the framework's own errors (bad JSON, wrong content
 * type, oversize body) mapped onto codes of the one table. Nothing unexpected leaks: any other
 * error is logged and answered as 500 `internal_error`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, type ErrorCode } from '../schemas/errors.js';
import { AppError } from '../pipeline/runtime/errors.js';
import type { Logger } from '../pipeline/runtime/log.js';
import { jsonString, locJson } from './json.js';
import type { ValidationDetail } from './validation.js';
import { noteErrorCode } from './usage.js';

export class ValidationFailed extends Error {
  readonly code = 'validation_failed';
  constructor(readonly detail: ValidationDetail[]) {
    super(`validation failed: ${detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ')}`);
  }
}

const FRAMEWORK_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_FILES_LIMIT: 'payload_too_large',
  FST_PARTS_LIMIT: 'payload_too_large',
  FST_FIELDS_LIMIT: 'payload_too_large',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
};

function frameworkCode(error: { code?: unknown; statusCode?: unknown }): ErrorCode | undefined {
  if (typeof error.code === 'string' && FRAMEWORK_CODES[error.code]) return FRAMEWORK_CODES[error.code];
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    const match = Object.entries(ERRORS).find(([, spec]) => spec.status === error.statusCode);
    return (match?.[0] as ErrorCode | undefined) ?? 'bad_request';
  }
  return undefined;
}

/** The content type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The 422 body `{detail: [...]}` as JSON text, the bytes JSON.stringify writes: each detail
 * has exactly `loc`, `msg` and `type`, in that order (gateway/validation.ts makes them so).
 */
export function validationBody(details: readonly ValidationDetail[]): string {
  let text = '{"detail":[';
  for (let i = 0; i < details.length; i += 1) {
    const d = details[i] as ValidationDetail;
    text += `${i ? ',' : ''}{"loc":${locJson(d.loc)},"msg":${jsonString(d.msg)},"type":${jsonString(d.type)}}`;
  }
  return `${text}]}`;
}

/**
 * Sends a 422 with its request id: the body as text with its content type, so Fastify skips
 * its serializer; the headers come out as they would for the object (id, type, length).
 */
export function sendValidationFailed(request: FastifyRequest, reply: FastifyReply, details: readonly ValidationDetail[]): FastifyReply {
  return reply.code(422).header('x-request-id', request.id).header('content-type', JSON_TYPE).send(validationBody(details));
}

/**
 * A 422 written straight to Node's response, for an operation that fails validation before
 * anything set a header (gateway/routes.ts): the reply is hijacked and the status line and its
 * three headers go to `writeHead` as one flat list, skipping Fastify's send path (its header
 * object, each name lowercased, the length measured again, the serializer check), which a
 * constant answer pays too, so the gateway's 422 can cost no more than bare Fastify's
 * (bench/gateway.ts). The bytes on the wire are the same as `sendValidationFailed`'s.
 */
export function writeValidationFailed(request: FastifyRequest, reply: FastifyReply, details: readonly ValidationDetail[]): FastifyReply {
  const body = validationBody(details);
  reply.hijack();
  reply.raw.writeHead(422, ['content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body)), 'x-request-id', request.id]);
  reply.raw.end(body);
  return reply;
}

export function errorBody(code: ErrorCode, message: string, requestId: string) {
  return { success: false as const, error: { code, message, retriable: ERRORS[code].retriable, requestId } };
}

/** The 404 of a path no route serves. */
export function noRoute(request: FastifyRequest): AppError {
  return new AppError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`);
}

/** A request's failure as its code, message and (a 422's) details; null for an error that is not a client's (a 500). */
export function clientFailure(error: unknown): { code: ErrorCode; message: string; detail?: readonly ValidationDetail[] } | null {
  if (error instanceof ValidationFailed) return { code: error.code, message: error.message, detail: error.detail };
  if (error instanceof AppError) return error.status < 500 ? { code: error.code, message: error.message } : null;
  const e = (error ?? {}) as { code?: unknown; statusCode?: unknown; message?: unknown };
  const code = frameworkCode(e);
  return code ? { code, message: typeof e.message === 'string' && e.message ? e.message : ERRORS[code].description } : null;
}

/** Answers `error`; `log` is the service's logger, whose child for this request gets any line. */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, log: Logger): FastifyReply {
  // Errors are answered outside the operations' own answer path (gateway/routes.ts `answer`).
  if (error instanceof ValidationFailed) return sendValidationFailed(request, reply, error.detail);
  reply.header('x-request-id', request.id);
  if (error instanceof AppError) {
    noteErrorCode(request, error.code);
    if (error.status >= 500 && error.code !== 'not_implemented') log.child({ reqId: request.id }).warn({ code: error.code, err: error }, error.message);
    return reply.code(error.status).headers(error.headers).send(errorBody(error.code, error.message, request.id));
  }
  const e = (error ?? {}) as { code?: unknown; statusCode?: unknown; message?: unknown };
  const code = frameworkCode(e);
  if (code) {
    noteErrorCode(request, code);
    const message = typeof e.message === 'string' && e.message ? e.message : ERRORS[code].description;
    return reply.code(ERRORS[code].status).send(errorBody(code, message, request.id));
  }
  noteErrorCode(request, 'internal_error');
  log.child({ reqId: request.id }).error({ err: error }, 'unhandled error');
  return reply.code(500).send(errorBody('internal_error', 'internal error; the request id is in the log', request.id));
}
