/**
 * One route per operation of schemas/api/operations.ts. For each request, in this order:
 * key (401) → rate limit (429) → body parsing (400/413/415) → validation of path, query and
 * body (422) → not built yet (501) → credit reservation (402) → the handler → settlement and
 * the success envelope with `cost`. A handler that throws releases its reservation: a failed
 * request is never charged.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ValidateFunction } from 'ajv';
import { Type, type TSchema } from '@sinclair/typebox';
import { AppError } from '../pipeline/errors.js';
import type { KeyRecord, KeyRegistry } from '../pipeline/keys/registry.js';
import type { Logger } from '../pipeline/log.js';
import { OPERATIONS, PATH_PARAMS, pathParamNames, routerPath, type Operation } from '../schemas/api/operations.js';
import type { Credits } from './credits.js';
import type { HandlerContext, Handlers } from './handler.js';
import type { RateLimiter } from './rate-limit.js';
import { ValidationFailed } from './replies.js';
import { compile, toDetails, type Part, type ValidationDetail } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: KeyRecord | null;
  }
}

export interface RouteDeps {
  keys: KeyRegistry;
  credits: Credits;
  limiter: RateLimiter;
  handlers: Handlers;
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
  if (validate && !validate(value)) out.push(...toDetails(validate.errors, part));
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

async function authenticate(request: FastifyRequest, deps: RouteDeps): Promise<KeyRecord> {
  const header = request.headers.authorization;
  if (!header) throw new AppError('missing_api_key', 'send the key as `Authorization: Bearer <key>`');
  const match = BEARER.exec(header);
  if (!match) throw new AppError('missing_api_key', 'the Authorization header must be `Bearer <key>`');
  const key = await deps.keys.authenticate(match[1] as string);
  if (!key || key.revoked) throw new AppError('invalid_api_key', 'the key is unknown or has been revoked');
  return key;
}

/** Reads the multipart body of an upload operation: each named file field is required. */
async function readUploads(op: Operation, request: FastifyRequest, details: ValidationDetail[]) {
  if (!request.isMultipart()) {
    throw new AppError('unsupported_media_type', 'this operation takes multipart/form-data');
  }
  const files: Record<string, { filename: string; mimetype: string; data: Buffer }> = {};
  for await (const part of request.parts()) {
    if (part.type === 'file' && op.multipartFiles?.includes(part.fieldname) && !files[part.fieldname]) {
      files[part.fieldname] = { filename: part.filename, mimetype: part.mimetype, data: await part.toBuffer() };
    } else if (part.type === 'file') {
      part.file.resume();
    }
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
    onRequest: op.auth
      ? async (request) => {
          const key = await authenticate(request, deps);
          deps.limiter.take(key.id);
          request.apiKey = key;
        }
      : undefined,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const details: ValidationDetail[] = [];
      const params = { ...(request.params as Record<string, string>) };
      const query = { ...(request.query as Record<string, unknown>) };
      check(validators.path, 'path', params, details);
      check(validators.query, 'query', query, details);
      let body: unknown = request.body;
      if (op.multipartFiles) {
        body = await readUploads(op, request, details);
      } else if (op.body) {
        if (request.isMultipart()) throw new AppError('unsupported_media_type', 'this operation takes application/json');
        check(validators.body, 'body', body, details);
      }
      if (details.length) throw new ValidationFailed(details);
      if (!handler) {
        throw new AppError('not_implemented', `${op.method} ${op.path} is not served by this instance yet`);
      }
      const ctx: HandlerContext = {
        op,
        body,
        query,
        params,
        key: request.apiKey,
        requestId: request.id,
        log: request.log as Logger,
        signal: abortSignalOf(reply),
      };
      const reservation = ctx.key ? deps.credits.reserve(ctx.key, handler.estimate?.(ctx) ?? 0) : null;
      let result;
      try {
        result = await handler.handle(ctx);
      } catch (error) {
        if (reservation) deps.credits.release(reservation);
        throw error;
      }
      const credits = result.credits ?? 0;
      const remaining = reservation
        ? await deps.credits.settle(reservation, credits, { requestId: request.id, op: op.id })
        : null;
      const cost = { credits, remaining, ...(result.source ? { source: result.source } : {}) };
      return reply.send({ success: true, data: { ...result.data, cost } });
    },
  });
}

/** Aborted when the connection closes before the response was written. */
function abortSignalOf(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

export function registerOperations(app: FastifyInstance, deps: RouteDeps): void {
  app.decorateRequest('apiKey', null);
  for (const op of OPERATIONS) route(app, op, deps);
}
