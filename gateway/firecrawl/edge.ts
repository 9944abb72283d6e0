/**
 * What every Firecrawl route shares: one of our operations made in-process (`app.inject`) with
 * the caller's key and address and its answer read as a JSON object, our handlers outside the
 * operation table run for the authenticated key, the key's running jobs, and Firecrawl's answer
 * and failure shapes on the wire.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyRecord } from '../../pipeline/keys/registry.js';
import { readJob, type JobRecord } from '../../pipeline/jobs/record.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import { JOBS_NOT_ENDED } from '../../pipeline/runtime/store/queries.js';
import { OPERATIONS } from '../../schemas/api/operations.js';
import type { AccessLog } from '../access-log.js';
import type { HandlerContext, OperationHandler, RecordDeps } from '../handler.js';
import type { RouteDeps } from '../routes.js';
import { errorOf, FirecrawlRefusal, isObject, type Json } from './translate.js';

export interface FirecrawlDeps {
  /** The operations' key and rate-limit checks. */
  readonly auth: Pick<RouteDeps, 'keys' | 'limiter' | 'invalidKeys'>;
  /** Where extract jobs' answers are kept. */
  readonly state: State;
  /** Where jobs are kept (none: a build without jobs; batch cancel and errors answer 501 as the jobs would). */
  readonly records: RecordDeps | null;
  readonly uploadLimitBytes: number;
  readonly log: Logger;
  /** Where each Firecrawl answer's access line goes (the operations it calls write their own). */
  readonly accessLog: AccessLog;
  /** Whether the operator configured a model (MODEL_PROVIDER): crawl params preview needs one. */
  readonly operatorModel: boolean;
  /** The service's clock in ms: the current month of the token-usage read. */
  readonly now: () => number;
}

export const PREFIX = '/firecrawl';

export interface Answer {
  status: number;
  body: Json;
  headers: Record<string, unknown>;
}

/** The answer's `data` object; `{}` when it has none. */
export function dataOf(answer: Answer): Json {
  return isObject(answer.body.data) ? answer.body.data : {};
}

export function send(reply: FastifyReply, status: number, body: Json): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

/** Our failure as Firecrawl's, with the headers a client acts on (Retry-After). */
export function sendFailure(reply: FastifyReply, answer: Answer): FastifyReply {
  const retry = answer.headers['retry-after'];
  if (typeof retry === 'string') reply.header('retry-after', retry);
  const { status, body } = errorOf(answer.status, answer.body);
  return send(reply, status, body);
}

/** The origin the caller reached us at: paging links are absolute and keep the `/firecrawl` prefix. */
export function originOf(request: FastifyRequest): string {
  const proto = request.headers['x-forwarded-proto'];
  const scheme = typeof proto === 'string' && /^https?$/.test(proto) ? proto : request.protocol;
  return `${scheme}://${request.headers.host ?? 'localhost'}`;
}

export /** `limit` and `offset` of a Firecrawl list (limit 1 to 100, default 25). */
function window(query: Record<string, string | undefined>): { limit: number; offset: number } {
  const limit = query.limit === undefined ? 25 : Number(query.limit);
  const offset = query.offset === undefined ? 0 : Number(query.offset);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new FirecrawlRefusal('`limit` must be a whole number from 1 to 100');
  if (!Number.isInteger(offset) || offset < 0) throw new FirecrawlRefusal('`offset` must be a whole number, 0 or more');
  return { limit, offset };
}

export function parseParams(json: string): Json {
  try {
    const value: unknown = JSON.parse(json);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}


/** Our answer to an in-process call; a body that is not a JSON object reads as `{}`. */
export async function ourAnswer(app: FastifyInstance, call: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; headers: Record<string, string>; remoteAddress: string; payload?: unknown }): Promise<Answer> {
  const { payload, ...rest } = call;
  const res = await app.inject({ ...rest, ...(payload === undefined ? {} : { payload: Buffer.isBuffer(payload) ? payload : JSON.stringify(payload) }) });
  let body: Json = {};
  try {
    const parsed: unknown = res.json();
    if (isObject(parsed)) body = parsed;
  } catch {
    body = {};
  }
  return { status: res.statusCode, body, headers: res.headers as Record<string, unknown> };
}

/** What the route groups share, for one gateway (`createEdge`). */
export interface Edge {
  readonly deps: FirecrawlDeps;
  /** One of our operations, made in-process with the caller's key and address. */
  ours(request: FastifyRequest, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, contentType?: string): Promise<Answer>;
  /** A handler of ours outside the operation table, run for the authenticated key. */
  runHandler(request: FastifyRequest, key: KeyRecord, handler: OperationHandler, params: Record<string, string>): Promise<Json>;
  /** The key's crawls and batches still running. */
  runningJobs(key: KeyRecord): Promise<JobRecord[]>;
  /** The jobs' records; `not_implemented` in a build without jobs. */
  requireRecords(): RecordDeps;
  /** The request's body, which must be a JSON object. */
  bodyOf(request: FastifyRequest): Json;
}

export function createEdge(app: FastifyInstance, deps: FirecrawlDeps): Edge {
  /** One of our operations, made in-process with the caller's key and address. */
  async function ours(request: FastifyRequest, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, contentType?: string): Promise<Answer> {
    const headers: Record<string, string> = { 'x-request-id': request.id };
    if (request.headers.authorization) headers.authorization = request.headers.authorization;
    if (payload !== undefined) headers['content-type'] = contentType ?? 'application/json';
    return ourAnswer(app, { method, url, headers, remoteAddress: request.ip, payload });
  }

  /** A handler of ours outside the operation table, run for the authenticated key. */
  async function runHandler(request: FastifyRequest, key: KeyRecord, handler: OperationHandler, params: Record<string, string>): Promise<Json> {
    const controller = new AbortController();
    const ctx: HandlerContext = {
      op: OPERATIONS.find((o) => o.id === 'crawlStatus') as HandlerContext['op'],
      body: undefined,
      query: {},
      params,
      key,
      requestId: request.id,
      log: deps.log.child({ reqId: request.id }),
      signal: controller.signal,
    };
    const result = await handler.handle(ctx);
    return result.data ?? {};
  }

  /** The key's crawls and batches still running (the store's list, each read again through its live record). */
  async function runningJobs(key: KeyRecord): Promise<JobRecord[]> {
    const records = requireRecords();
    const rows = await records.store.query<{ id: string }>(JOBS_NOT_ENDED, { tenant: key.id, now: new Date(), limit: 100 });
    const jobs = await Promise.all(rows.map((r) => readJob(records, key.id, r.id)));
    return jobs.filter((j): j is JobRecord => j !== null && (j.status === 'queued' || j.status === 'scraping'));
  }

  const requireRecords = (): RecordDeps => {
    if (!deps.records) throw new AppError('not_implemented', 'this instance runs no jobs');
    return deps.records;
  };

  const bodyOf = (request: FastifyRequest): Json => {
    if (!isObject(request.body)) throw new FirecrawlRefusal('the body must be a JSON object');
    return request.body;
  };

  return { deps, ours, runHandler, runningJobs, requireRecords, bodyOf };
}
