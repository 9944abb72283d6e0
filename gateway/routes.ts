/**
 * One route per operation of schemas/api/operations.ts. For each request, in this order:
 * key (401; repeated unknown keys from one address: 429) → rate limit (429) → body parsing
 * (400/413/415) → the body's depth and the text of body and query (422 `too_deep`,
 * `string_invalid`, before anything walks them) → validation of path, query and body (422)
 * → not built yet (501) → the handler's own checks (its tables: 404, 422) → credit
 * reservation (402) → the handler → settlement and the success envelope with `cost` (or, for a
 * `rawResponse` operation, the handler's bytes with the cost in headers). A handler that throws releases its reservation: a failed request is
 * never charged. Each answer of a request whose key was admitted is a row for the dashboard
 * (gateway/usage.ts: the operation and key noted here, handed over by the access log).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ValidateFunction } from 'ajv';
import { Type, type TSchema } from '@sinclair/typebox';
import { AppError } from '../pipeline/runtime/errors.js';
import type { KeyRecord, KeyRegistry } from '../pipeline/keys/registry.js';
import type { Logger } from '../pipeline/runtime/log.js';
import { OPERATIONS, PATH_PARAMS, RAW_RESPONSE_HEADERS, pathParamNames, routerPath, type Operation } from '../schemas/api/operations.js';
import type { Credits } from '../pipeline/keys/credits.js';
import type { HandlerContext, HandlerResult, Handlers, OperationHandler, RawBody, UploadedFilePart } from './handler.js';
import type { AccessLog } from './access-log.js';
import type { InvalidKeyLimiter, RateLimiter } from './rate-limit.js';
import { JSON_TYPE, writeValidationFailed } from './replies.js';
import { compile, inputProblems, toDetails, type Part, type ValidationDetail } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The admitted key; absent before it is admitted, and on routes without one (not a decorator: gateway/usage.ts). */
    apiKey?: KeyRecord;
  }
}

export interface RouteDeps {
  keys: KeyRegistry;
  credits: Credits;
  limiter: RateLimiter;
  /** Invalid keys per client address (INVALID_KEYS_PER_MINUTE). */
  invalidKeys: InvalidKeyLimiter;
  handlers: Handlers;
  /** Largest file an upload operation accepts. */
  uploadLimitBytes: number;
  /** Deepest nesting of objects and arrays a JSON body may have (BODY_MAX_DEPTH). */
  bodyMaxDepth: number;
  /** Where each answer's line goes; these routes write it themselves (no onSend hook). */
  accessLog: AccessLog;
  /** The service's logger: a request's lines go to its child bound to the request id. */
  log: Logger;
}

interface Validators {
  path?: ValidateFunction;
  query?: ValidateFunction;
  body?: ValidateFunction;
}

function compileValidators(op: Operation): Validators {
  const params = pathParamNames(op.path);
  const pathSchema: TSchema | undefined = params.length
    ? Type.Object(Object.fromEntries(params.map((n) => [n, PATH_PARAMS[n] as TSchema])))
    : undefined;
  return {
    ...(pathSchema ? { path: compile('path', pathSchema) } : {}),
    ...(op.query ? { query: compile('query', op.query) } : {}),
    ...(op.body ? { body: compile('body', op.body) } : {}),
  };
}

function check(validate: ValidateFunction | undefined, part: Part, value: unknown, out: ValidationDetail[]): void {
  if (validate && !validate(value)) for (const detail of toDetails(validate.errors, part, value)) out.push(detail);
}

/** The request's path parameters and query, each checked against its schema into `details`. */
function pathAndQuery(request: FastifyRequest, validators: Validators, details: ValidationDetail[], maxDepth: number) {
  const params = request.params as Record<string, string>;
  const query = request.query as Record<string, unknown>;
  const pathProblems = inputProblems(params, 'path', maxDepth);
  const queryProblems = inputProblems(query, 'query', maxDepth);
  if (pathProblems.length || queryProblems.length) {
    details.push(...pathProblems, ...queryProblems);
    return { params, query };
  }
  check(validators.path, 'path', params, details);
  check(validators.query, 'query', query, details);
  return { params, query };
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The secret of each Authorization header that named a key this process knows, so a known
 * key's header is one map lookup instead of a regular expression match and a substring; the
 * secret kept is the string first handed to the registry, which its own memo holds, so its
 * lookup matches by identity rather than comparing characters. Only headers whose key was
 * found are kept, and at most MAX_REMEMBERED_HEADERS of them.
 */
const secretsByHeader = new Map<string, string>();
const MAX_REMEMBERED_HEADERS = 1024;

/**
 * The last header found in `secretsByHeader`, and its secret. Each request's header is a new
 * string, so a map lookup hashes all its characters (about 650 instructions for a key's
 * header); comparing it with the last one seen is a fraction of that, and a client sends one
 * key on request after request.
 */
let lastHeader = '';
let lastSecret = '';

function remember(header: string, secret: string): void {
  if (secretsByHeader.size >= MAX_REMEMBERED_HEADERS) secretsByHeader.clear();
  secretsByHeader.set(header, secret);
}

/** The secret `header` was remembered with, or undefined. */
function rememberedSecret(header: string): string | undefined {
  if (header === lastHeader) return lastSecret;
  const secret = secretsByHeader.get(header);
  if (secret !== undefined) {
    lastHeader = header;
    lastSecret = secret;
  }
  return secret;
}

/**
 * The onRequest hook of an operation that needs a key: the key (401), then the rate limit
 * (429). Written with callbacks rather than as an async function, and a key this process has
 * seen is taken without waiting (`known`): the awaits of an async hook, its helper and the
 * limiter cost a small request (a 422) more than the key lookup.
 */
function authorize(request: FastifyRequest, deps: RouteDeps, done: (error?: Error) => void): void {
  const header = request.headers.authorization;
  if (!header) return done(new AppError('missing_api_key', 'send the key as `Authorization: Bearer <key>`'));
  const remembered = rememberedSecret(header);
  let secret = remembered;
  if (secret === undefined) {
    const match = BEARER.exec(header);
    if (!match) return done(new AppError('missing_api_key', 'the Authorization header must be `Bearer <key>`'));
    secret = match[1] as string;
  }
  const known = deps.keys.known?.(secret);
  if (known) {
    if (remembered === undefined) remember(header, secret);
    return admit(request, known, deps, done);
  }
  const presented = secret;
  const lookUp = () =>
    deps.keys.authenticate(presented).then((key) => {
      // This very string is the registry's memo key now: handed back, it matches by identity.
      if (key) remember(header, presented);
      admit(request, key, deps, done);
    }, done);
  // An address that presented too many invalid keys is refused before the registry is asked.
  if (!deps.invalidKeys.enabled) return void lookUp();
  deps.invalidKeys.admit(request.ip).then(lookUp, done);
}

/**
 * The same key and rate-limit checks as an operation's (401, 429), for a route outside the
 * operation table that reads the caller's own records (gateway/firecrawl/): resolves with the
 * key, or rejects with the AppError an operation would answer.
 */
export function authenticate(request: FastifyRequest, deps: Pick<RouteDeps, 'keys' | 'limiter' | 'invalidKeys'>): Promise<KeyRecord> {
  return new Promise((resolve, reject) => {
    authorize(request, deps as RouteDeps, (error) => (error ? reject(error) : resolve(request.apiKey as KeyRecord)));
  });
}

function admit(request: FastifyRequest, key: KeyRecord | null, deps: RouteDeps, done: (error?: Error) => void): void {
  if (!key || key.revoked) {
    const invalid = new AppError('invalid_api_key', 'the key is unknown or has been revoked');
    if (!deps.invalidKeys.enabled) return done(invalid);
    return void deps.invalidKeys.failed(request.ip).then(() => done(invalid), done);
  }
  // The key owns the request from here, a 429 of its rate limit included (gateway/usage.ts).
  request.usageTenant = key.id;
  if (!deps.limiter.enabled) {
    request.apiKey = key;
    return done();
  }
  deps.limiter.take(key.id).then(() => {
    request.apiKey = key;
    done();
  }, done);
}

/** Reads the multipart body of an upload operation: each named file field is required. */
async function readUploads(op: Operation, request: FastifyRequest, details: ValidationDetail[]): Promise<Record<string, UploadedFilePart>> {
  if (!request.isMultipart()) {
    throw new AppError('unsupported_media_type', 'this operation takes multipart/form-data');
  }
  const files: Record<string, UploadedFilePart> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file' && op.multipartFiles?.includes(part.fieldname) && !files[part.fieldname]) {
        files[part.fieldname] = { filename: part.filename, mimetype: part.mimetype, data: await part.toBuffer() };
      } else if (part.type === 'file') {
        part.file.resume();
      }
    }
  } catch (error) {
    // Limits come with a code and status of their own; anything else is a broken body.
    if ((error as { statusCode?: unknown }).statusCode) throw error;
    throw new AppError('bad_request', `the multipart body is malformed: ${(error as Error).message}`, { cause: error });
  }
  for (const name of op.multipartFiles ?? []) {
    if (!files[name]) details.push({ loc: ['body', name], msg: 'file required', type: 'missing' });
  }
  return files;
}

function route(app: FastifyInstance, op: Operation, deps: RouteDeps): void {
  const validators = compileValidators(op);
  const handler = deps.handlers[op.id];
  app.route({
    method: op.method,
    url: routerPath(op.path),
    // A HEAD twin would do (and charge for) the work of a priced GET such as /v1/fetch.
    exposeHeadRoute: op.pricing === 'free',
    onRequest: op.auth
      ? (request, _reply, done) => {
          request.usageOp = op.id;
          authorize(request, deps, done);
        }
      : undefined,
    // Not an async function: a request that fails validation (the common failure) is answered
    // at once, without the promise and the ticks of an async handler.
    handler: (request: FastifyRequest, reply: FastifyReply) => {
      if (op.multipartFiles) return uploaded(op, request, reply, validators, handler, deps);
      const details: ValidationDetail[] = [];
      const { params, query } = pathAndQuery(request, validators, details, deps.bodyMaxDepth);
      if (op.body) {
        // Depth and text first: Ajv, and every walk after it, may then recurse safely.
        const problems = inputProblems(request.body, 'body', deps.bodyMaxDepth);
        if (problems.length) details.push(...problems);
        else check(validators.body, 'body', request.body, details);
      }
      if (details.length) {
        rejected(request, reply, details, deps, op);
        return undefined;
      }
      return serve(op, request, reply, { body: request.body, query, params }, handler, deps);
    },
  });
}

/** An upload operation: its multipart files are read before the path and query are checked. */
async function uploaded(
  op: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  validators: Validators,
  handler: OperationHandler | undefined,
  deps: RouteDeps,
): Promise<FastifyReply> {
  const details: ValidationDetail[] = [];
  const { params, query } = pathAndQuery(request, validators, details, deps.bodyMaxDepth);
  const body = await readUploads(op, request, details);
  if (details.length) return rejected(request, reply, details, deps, op);
  return serve(op, request, reply, { body, query, params }, handler, deps);
}

/** A valid request: not built yet (501), credits reserved (402), the handler, settlement, the envelope. */
async function serve(
  op: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { body: unknown; query: Record<string, unknown>; params: Record<string, string> },
  handler: OperationHandler | undefined,
  deps: RouteDeps,
): Promise<FastifyReply> {
  if (!handler) {
    throw new AppError('not_implemented', `${op.method} ${op.path} is not served by this instance yet`);
  }
  let signal: AbortSignal | undefined;
  let log: Logger | undefined;
  const ctx: HandlerContext = {
    op,
    ...input,
    key: request.apiKey ?? null,
    requestId: request.id,
    get log() {
      log ??= deps.log.child({ reqId: request.id });
      return log;
    },
    get signal() {
      signal ??= abortSignalOf(reply);
      return signal;
    },
  };
  // What only the handler's tables can tell (a social endpoint's inputs): a 404 or 422 before any 402.
  handler.check?.(ctx);
  const reservation = ctx.key ? await deps.credits.reserve(ctx.key, handler.estimate?.(ctx) ?? 0) : null;
  let result: HandlerResult;
  try {
    result = await handler.handle(ctx);
  } catch (error) {
    if (reservation) await deps.credits.release(reservation);
    throw error;
  }
  const wanted = op.pricing === 'free' ? 0 : (result.credits ?? 0);
  const settled = reservation
    ? await deps.credits.settle(reservation, wanted, { requestId: request.id, op: op.id })
    : { charged: 0, remaining: null };
  request.usageCredits = settled.charged;
  if (settled.charged < wanted) {
    ctx.log.warn({ op: op.id, wanted, charged: settled.charged }, 'cost above the reservation; charged the reservation');
  }
  if (result.raw) return answer(request, withRawHeaders(reply, result.raw, settled), result.raw.body, deps, op);
  const cost = { credits: settled.charged, remaining: settled.remaining, ...(result.source ? { source: result.source } : {}) };
  return answer(request, reply.type(JSON_TYPE), envelope(result, cost), deps, op);
}

/**
 * Sends an answer with its request id, then writes its access line. Failures thrown from
 * here on are answered by the error handler (gateway/app.ts), which does the same.
 */
function answer(request: FastifyRequest, reply: FastifyReply, payload: unknown, deps: RouteDeps, op: Operation): FastifyReply {
  reply.header('x-request-id', request.id).send(payload);
  deps.accessLog.write(request, reply, op.id);
  return reply;
}

/**
 * A 422: the details as JSON text written straight to the response (gateway/replies.ts; no
 * header is set on a reply before this point), then the access line.
 */
function rejected(request: FastifyRequest, reply: FastifyReply, details: ValidationDetail[], deps: RouteDeps, op: Operation): FastifyReply {
  writeValidationFailed(request, reply, details);
  deps.accessLog.write(request, reply, op.id);
  return reply;
}

/**
 * The success envelope as JSON text. A handler with data already serialized (`dataJson`: a
 * constant answer, or a pipeline reply's data as its actor wrote it) has the envelope written
 * around those bytes, and only `cost` is serialized per request.
 */
function envelope(result: HandlerResult, cost: Record<string, unknown>): string {
  if (result.dataJson !== undefined) {
    const inner = result.dataJson.trim().slice(1, -1).trim();
    return `{"success":true,"data":{${inner}${inner ? ',' : ''}"cost":${JSON.stringify(cost)}}}`;
  }
  return JSON.stringify({ success: true, data: { ...result.data, cost } });
}

/**
 * A `rawResponse` success: the bytes with their own content type, the cost in headers. The
 * content is someone else's: `nosniff` keeps a browser to the declared type, and the
 * `sandbox` policy keeps fetched HTML or SVG from running script with this origin's rights.
 */
function withRawHeaders(reply: FastifyReply, raw: RawBody, settled: { charged: number; remaining: number | null }): FastifyReply {
  return reply
    .headers({
      ...raw.headers,
      [RAW_RESPONSE_HEADERS.creditsCharged.name]: String(settled.charged),
      [RAW_RESPONSE_HEADERS.creditsRemaining.name]: settled.remaining === null ? 'unlimited' : String(settled.remaining),
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox',
    })
    .type(raw.contentType || 'application/octet-stream');
}

/** Aborted when the connection closes before the response was written. */
function abortSignalOf(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableEnded) controller.abort();
  });
  return controller.signal;
}

export function registerOperations(app: FastifyInstance, deps: RouteDeps): void {
  for (const op of OPERATIONS) if (!op.multipartFiles) route(app, op, deps);
  // @fastify/multipart hooks every request of the scope it is registered in (a 'close'
  // listener on each response, an onResponse cleanup), which is most of a small request's
  // overhead: it lives in a scope holding only the upload operations. Elsewhere a multipart
  // body has no parser and is a 415.
  void app.register(async (uploads) => {
    await uploads.register(multipart, { limits: { fileSize: deps.uploadLimitBytes, files: 5, fields: 20, parts: 25 } });
    for (const op of OPERATIONS) if (op.multipartFiles) route(uploads, op, deps);
  });
}

/**
 * The operations' key hook (401, then the rate limit's 429) for another route that takes the
 * API key the same way (/mcp, gateway/mcp/http.ts).
 */
export function keyHook(deps: Pick<RouteDeps, 'keys' | 'limiter' | 'invalidKeys'>): (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void {
  return (request, _reply, done) => authorize(request, deps as RouteDeps, done);
}
