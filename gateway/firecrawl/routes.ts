/**
 * Firecrawl's v2 and v1 APIs under `/firecrawl` (docs/firecrawl.md): its SDKs, loaders and MCP
 * server are pointed at `http://<host>/firecrawl` and work unchanged. Translated at the edge
 * only: each Firecrawl request is rewritten into one of our /v1 operations and made in-process
 * (`app.inject`) with the caller's own `Authorization` header, so the key, rate limit,
 * validation, credit reservation and charge, SSRF guard and every other rule are the
 * operation's, applied once; its answer is rewritten into Firecrawl's shape (gateway/firecrawl/
 * translate.ts). The few reads Firecrawl has and our table does not (a batch's cancel and errors,
 * an extract job's status, the key's credits) take the operations' own key check
 * (gateway/routes.ts `authenticate`) and the jobs' own handlers.
 *
 * Firecrawl's extract is a job; ours answers at once. A Firecrawl extract starts our extract in
 * the background and keeps its answer in coordination state (shared by every gateway process)
 * under the key that asked, for EXTRACT_KEEP_MS; another key's extract id is a 404.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { KeyRecord } from '../../pipeline/keys/registry.js';
import { CrawlBody } from '../../schemas/api/page-reading.js';
import { isLinearRegex } from '../../pipeline/runtime/linear-regex.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import { OPERATIONS } from '../../schemas/api/operations.js';
import type { HandlerContext, OperationHandler, RecordDeps } from '../handler.js';
import { jobCancelHandler, jobErrorsHandler } from '../handlers/jobs.js';
import { jobKindOf } from '../../pipeline/jobs/pages.js';
import { dataOf, ourAnswer, type Answer } from './inject.js';
import { registerWatcher } from './watcher.js';
import { readJob, type JobRecord } from '../../pipeline/jobs/record.js';
import { JOBS_NOT_ENDED } from '../../pipeline/runtime/store/queries.js';
import { errorBody } from '../replies.js';
import type { AccessLog } from '../access-log.js';
import { authenticate, type RouteDeps } from '../routes.js';
import {
  batchBodyOf,
  crawlBodyOf,
  documentOf,
  errorOf,
  extractAnswerOf,
  extractBodyOf,
  FirecrawlRefusal,
  isObject,
  jobStatusOf,
  mapBodyOf,
  PARAMS_PREVIEW_PROMPT,
  PARAMS_PREVIEW_SCHEMA,
  paramsPreviewOf,
  monitorBodyOf,
  monitorCheckOf,
  monitorOf,
  scrapeOptionsOf,
  searchBodyOf,
  searchResultOf,
  type Json,
  type Version,
} from './translate.js';

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
}

export const PREFIX = '/firecrawl';
/** How long a Firecrawl extract job's answer is kept (Firecrawl keeps them 6 h). */
export const EXTRACT_KEEP_MS = 6 * 3_600_000;
/** The most pages one crawl fetches at once (the largest `maxConcurrency` the crawl body takes). */
const MAX_JOB_CONCURRENCY = (CrawlBody.properties.maxConcurrency as { maximum: number }).maximum;
/** Documents per page of a job status. */
const PAGE_LIMIT = 50;

/** Firecrawl's cloud operations this service does not have, by the path they start with. */
const CLOUD_ONLY: readonly [RegExp, string][] = [
  [/^\/v[12]\/agent\b/, "Firecrawl's agent is a cloud feature this self-hosted service does not offer"],
  [/^\/v[12]\/browser\b/, "Firecrawl's browser sessions are a cloud feature this service does not offer (use `actions` on a scrape)"],
  [/^\/v[12]\/scrape\/[^/]+\/interact\b/, 'interacting with a scrape\'s browser afterwards is not offered (use `actions` on the scrape)'],
  [/^\/v[12]\/deep-research\b/, 'deep research is a Firecrawl cloud feature this service does not offer'],
  [/^\/v[12]\/llmstxt\b/, 'llms.txt generation is a Firecrawl cloud feature this service does not offer'],
  [/^\/v[12]\/search\/(research|developer)\b/, 'research and developer search are Firecrawl cloud features this service does not offer'],
  [/^\/v[12]\/feedback\b|^\/v[12]\/search\/[^/]+\/feedback\b/, 'feedback is a Firecrawl cloud feature this service does not offer'],
  [/^\/v[12]\/team\/token-usage\b/, 'token usage is not metered by this service: extraction is charged in credits (GET /firecrawl/v2/team/credit-usage)'],
  [/^\/v[12]\/extract\/[^/]+\/cancel\b/, 'cancelling an extract is not offered'],
];

function send(reply: FastifyReply, status: number, body: Json): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

/** Our failure as Firecrawl's, with the headers a client acts on (Retry-After). */
function sendFailure(reply: FastifyReply, answer: Answer): FastifyReply {
  const retry = answer.headers['retry-after'];
  if (typeof retry === 'string') reply.header('retry-after', retry);
  const { status, body } = errorOf(answer.status, answer.body);
  return send(reply, status, body);
}

/** The origin the caller reached us at: paging links are absolute and keep the `/firecrawl` prefix. */
function originOf(request: FastifyRequest): string {
  const proto = request.headers['x-forwarded-proto'];
  const scheme = typeof proto === 'string' && /^https?$/.test(proto) ? proto : request.protocol;
  return `${scheme}://${request.headers.host ?? 'localhost'}`;
}

export function registerFirecrawl(app: FastifyInstance, deps: FirecrawlDeps): void {
  /** One of our operations, made in-process with the caller's key and address. */
  async function ours(request: FastifyRequest, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, contentType?: string): Promise<Answer> {
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

  // The crawl watcher's WebSocket, on the HTTP server's upgrades.
  registerWatcher(app, deps.log);

  void app.register(
    async (fc) => {
      // Firecrawl's parse uploads: the multipart body is handed on as it came, to POST /v1/parse.
      fc.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: deps.uploadLimitBytes + 64 * 1024 }, (_request, body, done) => done(null, body));
      fc.setErrorHandler((error, request, reply) => {
        if (error instanceof FirecrawlRefusal) return send(reply, error.status, { success: false, error: error.message, code: error.code });
        if (error instanceof AppError) {
          for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
          return send(reply, error.status, errorOf(error.status, errorBody(error.code, error.message, request.id)).body);
        }
        const status = (error as { statusCode?: number }).statusCode;
        if (typeof status === 'number' && status >= 400 && status < 500) {
          return send(reply, status, { success: false, error: (error as Error).message, code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST' });
        }
        deps.log.child({ reqId: request.id }).error({ err: error }, 'firecrawl edge failure');
        return send(reply, 500, { success: false, error: 'An unexpected error occurred', code: 'UNKNOWN_ERROR' });
      });
      fc.setNotFoundHandler((request, reply) => {
        const path = (request.url.split('?')[0] ?? '').slice(PREFIX.length);
        const cloud = CLOUD_ONLY.find(([pattern]) => pattern.test(path));
        if (cloud) return send(reply, 404, { success: false, error: cloud[1], code: 'NOT_SUPPORTED' });
        return send(reply, 404, { success: false, error: `${request.method} ${PREFIX}${path} is not a Firecrawl operation this service offers (docs/firecrawl.md)`, code: 'NOT_FOUND' });
      });
      fc.addHook('onSend', (request, reply, payload, done) => {
        reply.header('x-request-id', request.id);
        deps.accessLog.write(request, reply);
        done(null, payload);
      });

      for (const version of ['v1', 'v2'] as const) registerVersion(fc, version);
    },
    { prefix: PREFIX },
  );

  const bodyOf = (request: FastifyRequest): Json => {
    if (!isObject(request.body)) throw new FirecrawlRefusal('the body must be a JSON object');
    return request.body;
  };

  /** Firecrawl's /v2/monitor onto our /v1/monitor (docs/firecrawl.md: scrape targets, fixed-interval cron schedules). */
  function registerMonitors(fc: FastifyInstance): void {
    const path = (id: string, rest = '') => `/v1/monitor/${encodeURIComponent(id)}${rest}`;
    fc.post('/v2/monitor', async (request, reply) => {
      const answer = await ours(request, 'POST', '/v1/monitor', monitorBodyOf(bodyOf(request)));
      if (answer.status !== 200) return sendFailure(reply, answer);
      return send(reply, 200, { success: true, data: monitorOf(dataOf(answer)) });
    });
    fc.get('/v2/monitor', async (request, reply) => {
      const { limit, offset } = window(request.query as Record<string, string | undefined>);
      const answer = await ours(request, 'GET', '/v1/monitor');
      if (answer.status !== 200) return sendFailure(reply, answer);
      const all = Array.isArray(dataOf(answer).monitors) ? (dataOf(answer).monitors as Json[]) : [];
      return send(reply, 200, { success: true, data: all.slice(offset, offset + limit).map(monitorOf) });
    });
    fc.get('/v2/monitor/:id', async (request, reply) => {
      const answer = await ours(request, 'GET', path((request.params as { id: string }).id));
      if (answer.status !== 200) return sendFailure(reply, answer);
      return send(reply, 200, { success: true, data: monitorOf(dataOf(answer)) });
    });
    fc.patch('/v2/monitor/:id', async () => {
      throw new FirecrawlRefusal('updating or pausing a monitor is not offered: delete it and create it again', 400, 'NOT_SUPPORTED');
    });
    fc.delete('/v2/monitor/:id', async (request, reply) => {
      const answer = await ours(request, 'DELETE', path((request.params as { id: string }).id));
      if (answer.status !== 200) return sendFailure(reply, answer);
      return send(reply, 200, { success: true });
    });
    fc.post('/v2/monitor/:id/run', async (request, reply) => {
      const answer = await ours(request, 'POST', path((request.params as { id: string }).id, '/run'));
      if (answer.status !== 200) return sendFailure(reply, answer);
      return send(reply, 200, { success: true, data: monitorCheckOf(dataOf(answer), false) });
    });
    const checks = async (request: FastifyRequest, limit: number): Promise<Answer> => ours(request, 'GET', path((request.params as { id: string }).id, `/checks?limit=${limit}`));
    fc.get('/v2/monitor/:id/checks', async (request, reply) => {
      const { limit, offset } = window(request.query as Record<string, string | undefined>);
      if (offset + limit > 100) throw new FirecrawlRefusal('only the newest 100 checks are listed: keep `offset + limit` at most 100');
      const answer = await checks(request, offset + limit);
      if (answer.status !== 200) return sendFailure(reply, answer);
      const all = Array.isArray(dataOf(answer).checks) ? (dataOf(answer).checks as Json[]) : [];
      return send(reply, 200, { success: true, data: all.slice(offset, offset + limit).map((c) => monitorCheckOf(c, false)) });
    });
    fc.get('/v2/monitor/:id/checks/:checkId', async (request, reply) => {
      const { checkId } = request.params as { checkId: string };
      const query = request.query as Record<string, string | undefined>;
      const answer = await checks(request, 100);
      if (answer.status !== 200) return sendFailure(reply, answer);
      const all = Array.isArray(dataOf(answer).checks) ? (dataOf(answer).checks as Json[]) : [];
      const found = all.find((c) => c.id === checkId);
      if (!found) return send(reply, 404, { success: false, error: 'Monitor check not found (only the newest 100 checks of a monitor are kept listed)', code: 'NOT_FOUND' });
      const detail = monitorCheckOf(found, true);
      if (query.status) detail.pages = (detail.pages as Json[]).filter((p) => p.status === query.status);
      return send(reply, 200, { success: true, data: detail });
    });
  }

  function registerVersion(fc: FastifyInstance, v: Version): void {
    const base = `/${v}`;

    fc.post(`${base}/scrape`, async (request, reply) => {
      const { url, ...rest } = bodyOf(request);
      const { options, shape } = scrapeOptionsOf(rest, v, { formats: null, maxAge: v === 'v2' });
      const answer = await ours(request, 'POST', '/v1/scrape', { url, ...options });
      if (answer.status !== 200) return sendFailure(reply, answer);
      const doc = documentOf(dataOf(answer), shape);
      const { warning, ...data } = doc;
      return send(reply, 200, { success: true, data, ...(warning ? { warning } : {}) });
    });

    // Before `crawl/:id`, which would take `active` for an id.
    fc.get(`${base}/crawl/active`, async (request, reply) => {
      const key = await authenticate(request, deps.auth);
      const jobs = (await runningJobs(key)).filter((j) => j.kind === 'crawl');
      const origin = `${originOf(request)}${PREFIX}`;
      return send(reply, 200, {
        success: true,
        crawls: jobs.map((j) => {
          const params = parseParams(j.params);
          return { id: j.id, teamId: key.id, url: params.url, options: params, statusUrl: `${origin}${base}/crawl/${j.id}` };
        }),
      });
    });

    // ---- crawl and batch ------------------------------------------------------------------
    const kinds = [
      { kind: 'crawl' as const, fcPath: `${base}/crawl`, ourStart: '/v1/crawl', ourJob: '/v1/crawl' },
      { kind: 'batch' as const, fcPath: `${base}/batch/scrape`, ourStart: '/v1/batch/scrape', ourJob: '/v1/batch' },
    ];
    for (const { kind, fcPath, ourStart, ourJob } of kinds) {
      fc.post(fcPath, async (request, reply) => {
        const given = bodyOf(request);
        const { body } = kind === 'crawl' ? crawlBodyOf(given, v) : batchBodyOf(given, v);
        const answer = await ours(request, 'POST', ourStart, body);
        if (answer.status !== 200) return sendFailure(reply, answer);
        const data = dataOf(answer);
        const id = String(data.id);
        const url = `${originOf(request)}${PREFIX}${fcPath}/${id}`;
        return send(reply, 200, { success: true, id, url, ...(kind === 'batch' ? { invalidURLs: Array.isArray(data.invalidURLs) ? data.invalidURLs : [] } : {}) });
      });

      fc.get(`${fcPath}/:id`, async (request, reply) => {
        const { id } = request.params as { id: string };
        const query = request.query as Record<string, string | undefined>;
        if (query.skip !== undefined && query.skip !== '0') {
          throw new FirecrawlRefusal('`skip` is not offered: page with the `next` link each status answers');
        }
        const limit = query.limit !== undefined ? Number(query.limit) : undefined;
        if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) throw new FirecrawlRefusal('`limit` must be a positive whole number');
        // Firecrawl keeps batches beside crawls: its 1.x SDK polls a batch at /v1/crawl/{id}.
        const jobPath = jobKindOf(id) === 'batch' ? '/v1/batch' : ourJob;
        const status = await ours(request, 'GET', `${jobPath}/${encodeURIComponent(id)}`);
        if (status.status !== 200) return sendFailure(reply, status);
        const job = dataOf(status);
        let docs = Array.isArray(job.data) ? (job.data as Json[]) : [];
        let next = typeof job.next === 'string' ? job.next : null;
        if (query.cursor !== undefined || limit !== undefined) {
          const params = new URLSearchParams();
          if (query.cursor) params.set('cursor', query.cursor);
          params.set('limit', String(Math.min(limit ?? PAGE_LIMIT, 200)));
          const pages = await ours(request, 'GET', `${jobPath}/${encodeURIComponent(id)}/pages?${params}`);
          if (pages.status !== 200) return sendFailure(reply, pages);
          const listed = dataOf(pages);
          docs = Array.isArray(listed.data) ? (listed.data as Json[]) : [];
          next = typeof listed.next === 'string' ? listed.next : null;
        }
        // While the job runs our listing always offers a `next`; an empty page of a running
        // job is not worth a link (the SDKs would loop on it): the next poll lists from here.
        const link =
          next && (docs.length > 0 || !['scraping', 'queued'].includes(String(job.status)))
            ? `${originOf(request)}${PREFIX}${fcPath}/${encodeURIComponent(id)}?cursor=${encodeURIComponent(next)}${limit !== undefined ? `&limit=${limit}` : ''}`
            : null;
        const out: Json = {
          success: true,
          status: jobStatusOf(job.status),
          completed: job.completed ?? 0,
          total: job.total ?? 0,
          creditsUsed: job.creditsUsed ?? 0,
          expiresAt: job.expiresAt,
          // v1's SDK follows `next` while the key is present: it is left out when there is none.
          ...(link ? { next: link } : v === 'v2' ? { next: null } : {}),
          data: docs.map((d) => documentOf(d, null)),
        };
        if (typeof job.error === 'string' && job.error) out.error = job.error;
        return send(reply, 200, out);
      });

      const cancel = async (request: FastifyRequest, reply: FastifyReply) => {
        const { id } = request.params as { id: string };
        if (kind === 'crawl') {
          const answer = await ours(request, 'DELETE', `/v1/crawl/${encodeURIComponent(id)}`);
          if (answer.status !== 200) return sendFailure(reply, answer);
          return send(reply, 200, { success: true, status: jobStatusOf(dataOf(answer).status) });
        }
        const key = await authenticate(request, deps.auth);
        const data = await runHandler(request, key, jobCancelHandler(requireRecords(), 'batch'), { job_id: id });
        return send(reply, 200, { success: true, status: jobStatusOf(data.status) });
      };
      fc.delete(`${fcPath}/:id`, cancel);

      const errors = async (request: FastifyRequest, reply: FastifyReply) => {
        const { id } = request.params as { id: string };
        let data: Json;
        if (kind === 'crawl') {
          const answer = await ours(request, 'GET', `/v1/crawl/${encodeURIComponent(id)}/errors`);
          if (answer.status !== 200) return sendFailure(reply, answer);
          data = dataOf(answer);
        } else {
          const key = await authenticate(request, deps.auth);
          data = await runHandler(request, key, jobErrorsHandler(requireRecords(), 'batch'), { job_id: id });
        }
        const listed = Array.isArray(data.errors) ? (data.errors as Json[]) : [];
        return send(reply, 200, {
          success: true,
          errors: listed.map((e, i) => ({ id: `${id}-${i}`, timestamp: e.at, url: e.url, code: e.code, error: e.message })),
          robotsBlocked: Array.isArray(data.robotsBlocked) ? data.robotsBlocked : [],
        });
      };
      fc.get(`${fcPath}/:id/errors`, errors);
      // The 1.x SDK's checkCrawlErrors sends DELETE.
      if (v === 'v1') fc.delete(`${fcPath}/:id/errors`, errors);
    }

    // ---- map, search ----------------------------------------------------------------------
    fc.post(`${base}/map`, async (request, reply) => {
      const answer = await ours(request, 'POST', '/v1/map', mapBodyOf(bodyOf(request)));
      if (answer.status !== 200) return sendFailure(reply, answer);
      const data = dataOf(answer);
      const links = (Array.isArray(data.links) ? data.links : []).map((l) => (isObject(l) ? l : { url: String(l) }));
      const out = v === 'v2' ? links.map((l) => ({ url: l.url, ...(l.title ? { title: l.title } : {}), ...(l.description ? { description: l.description } : {}) })) : links.map((l) => l.url);
      return send(reply, 200, { success: true, links: out, ...(typeof data.warning === 'string' ? { warning: data.warning } : {}) });
    });

    fc.post(`${base}/search`, async (request, reply) => {
      const { body, shape } = searchBodyOf(bodyOf(request), v);
      const answer = await ours(request, 'POST', '/v1/search', body);
      if (answer.status !== 200) return sendFailure(reply, answer);
      const data = dataOf(answer);
      const results = (Array.isArray(data.results) ? (data.results as Json[]) : []).map((r) => searchResultOf(r, shape));
      const cost = isObject(data.cost) ? data.cost : {};
      const warning = typeof data.warning === 'string' ? { warning: data.warning } : {};
      if (v === 'v2') return send(reply, 200, { success: true, data: { web: results }, creditsUsed: cost.credits ?? 0, ...warning });
      return send(reply, 200, { success: true, data: results, ...warning });
    });

    // ---- crawl params preview (v2): the operator's model through POST /v1/extract ----------
    if (v === 'v2') {
      fc.post(`${base}/crawl/params-preview`, async (request, reply) => {
        const given = bodyOf(request);
        const url = typeof given.url === 'string' ? given.url.trim() : '';
        const prompt = typeof given.prompt === 'string' ? given.prompt.trim() : '';
        if (!url || !prompt) throw new FirecrawlRefusal('`url` and `prompt` are required');
        if (prompt.length > 5000) throw new FirecrawlRefusal('`prompt` is at most 5,000 characters');
        if (!deps.operatorModel) {
          throw new FirecrawlRefusal('crawl params preview needs a model, and this service has none configured (MODEL_PROVIDER): give includePaths, excludePaths and limit yourself');
        }
        // Prompt only: a schema would be filled from the page's own markup and words first, and
        // crawl options are never on a page; the prompt carries the fields' schema instead.
        const answer = await ours(request, 'POST', '/v1/extract', {
          urls: [url],
          prompt: `${PARAMS_PREVIEW_PROMPT}\n\nAnswer with one JSON object of this JSON Schema: ${JSON.stringify(PARAMS_PREVIEW_SCHEMA)}\n\nThe user asks: ${prompt}`,
        });
        if (answer.status !== 200) return sendFailure(reply, answer);
        const data = dataOf(answer);
        const [result] = Array.isArray(data.results) ? (data.results as Json[]) : [];
        if (!result || !isObject(result.data)) {
          const error = result && isObject(result.error) ? result.error : {};
          return send(reply, 502, { success: false, error: `the start page could not be read: ${String(error.message ?? error.code ?? 'no answer')}`, code: 'SCRAPE_FAILED' });
        }
        return send(reply, 200, { success: true, data: { url, ...paramsPreviewOf(result.data, isLinearRegex) } });
      });
    }

    // ---- extract --------------------------------------------------------------------------
    fc.post(`${base}/extract`, async (request, reply) => {
      const given = bodyOf(request);
      const body = extractBodyOf(given, v);
      const key = await authenticate(request, deps.auth);
      const id = randomUUID();
      const record = (status: string, extra: Json = {}) => JSON.stringify({ tenant: key.id, status, expiresAt: new Date(Date.now() + EXTRACT_KEEP_MS).toISOString(), ...extra });
      await deps.state.set(extractKey(id), record('processing'), EXTRACT_KEEP_MS);
      const log = deps.log.child({ reqId: request.id });
      void ours(request, 'POST', '/v1/extract', body)
        .then(async (answer) => {
          if (answer.status !== 200) {
            const failure = errorOf(answer.status, answer.body).body;
            await deps.state.set(extractKey(id), record('failed', { error: failure.error, code: failure.code }), EXTRACT_KEEP_MS);
            return;
          }
          const data = dataOf(answer);
          const results = Array.isArray(data.results) ? (data.results as Json[]) : [];
          const merged = extractAnswerOf(results, given.showSources === true);
          const cost = isObject(data.cost) ? data.cost : {};
          const status = merged.data === null ? 'failed' : 'completed';
          await deps.state.set(extractKey(id), record(status, { ...merged, creditsUsed: cost.credits ?? 0 }), EXTRACT_KEEP_MS);
        })
        .catch((error: unknown) => log.error({ err: error, extractId: id }, 'firecrawl extract failed'));
      log.info({ extractId: id }, 'firecrawl extract started');
      return send(reply, 200, { success: true, id, ...(v === 'v1' ? { urlTrace: [] } : {}) });
    });

    fc.get(`${base}/extract/:id`, async (request, reply) => {
      const { id } = request.params as { id: string };
      const key = await authenticate(request, deps.auth);
      const raw = /^[\w-]{1,64}$/.test(id) ? await deps.state.get(extractKey(id)) : null;
      const job = raw ? (JSON.parse(raw) as Json) : null;
      if (!job || job.tenant !== key.id) return send(reply, 404, { success: false, error: 'Extract job not found', code: 'NOT_FOUND' });
      const { tenant: _tenant, ...rest } = job;
      return send(reply, 200, { success: rest.status !== 'failed', data: rest.data ?? null, ...rest });
    });

    // ---- parse (v2) -----------------------------------------------------------------------
    if (v === 'v2') {
      fc.post(`${base}/parse`, async (request, reply) => {
        if (!Buffer.isBuffer(request.body)) throw new FirecrawlRefusal('parse takes multipart/form-data with a `file` part');
        const answer = await ours(request, 'POST', '/v1/parse', request.body, request.headers['content-type']);
        if (answer.status !== 200) return sendFailure(reply, answer);
        const { warning, ...data } = documentOf(dataOf(answer), null);
        return send(reply, 200, { success: true, data, ...(warning ? { warning } : {}) });
      });
    }

    // ---- monitors (v2) --------------------------------------------------------------------
    if (v === 'v2') registerMonitors(fc);

    /** Pages the key's running jobs hold and have not settled; at most each job's `maxConcurrency` are fetched at once. */
    async function queueOf(request: FastifyRequest): Promise<{ active: number; waiting: number }> {
      const key = await authenticate(request, deps.auth);
      let waiting = 0;
      let active = 0;
      for (const job of await runningJobs(key)) {
        const left = Math.max(0, job.total - job.completed - job.failed);
        const params = parseParams(job.params);
        const concurrency = typeof params.maxConcurrency === 'number' ? params.maxConcurrency : job.kind === 'crawl' ? 5 : 10;
        active += Math.min(left, concurrency);
        waiting += left - Math.min(left, concurrency);
      }
      return { active, waiting };
    }

    fc.get(`${base}/team/queue-status`, async (request, reply) => {
      const { active, waiting } = await queueOf(request);
      return send(reply, 200, { success: true, jobsInQueue: active + waiting, activeJobsInQueue: active, waitingJobsInQueue: waiting, maxConcurrency: null, mostRecentSuccess: null });
    });

    // A key has no concurrency limit of its own here: each job fetches at most its own
    // `maxConcurrency` pages at once, up to MAX_JOB_CONCURRENCY; `concurrency` is what the
    // key's running jobs fetch now.
    fc.get(`${base}/concurrency-check`, async (request, reply) => {
      const { active } = await queueOf(request);
      return send(reply, 200, { success: true, concurrency: active, maxConcurrency: MAX_JOB_CONCURRENCY });
    });

    // The credits charged to the key in each calendar month (UTC), from its ledger: the
    // periods are months, oldest first; `byApiKey` names the key by its prefix (never its secret).
    fc.get(`${base}/team/credit-usage/historical`, async (request, reply) => {
      const key = await authenticate(request, deps.auth);
      const byKey = (request.query as Record<string, string | undefined>).byApiKey === 'true';
      const periods = (await deps.auth.keys.usage(key)).map(({ month, credits }) => ({
        startDate: `${month}-01T00:00:00.000Z`,
        endDate: new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1) - 1).toISOString(),
        ...(byKey ? { apiKey: key.prefix } : {}),
        creditsUsed: credits,
      }));
      return send(reply, 200, { success: true, periods });
    });

    // ---- the key's credits ----------------------------------------------------------------
    fc.get(`${base}/team/credit-usage`, async (request, reply) => {
      const key = await authenticate(request, deps.auth);
      const fresh = (await deps.auth.keys.get(key.id)) ?? key;
      // An unlimited key (API_KEY) has no balance: `remainingCredits` is null and `unlimited` true.
      const remaining = fresh.unlimited ? null : fresh.balance;
      if (v === 'v1') return send(reply, 200, { success: true, data: { remaining_credits: remaining, unlimited: fresh.unlimited } });
      return send(reply, 200, { success: true, data: { remainingCredits: remaining, planCredits: null, billingPeriodStart: null, billingPeriodEnd: null, unlimited: fresh.unlimited } });
    });
  }
}

/** `limit` and `offset` of a Firecrawl list (limit 1 to 100, default 25). */
function window(query: Record<string, string | undefined>): { limit: number; offset: number } {
  const limit = query.limit === undefined ? 25 : Number(query.limit);
  const offset = query.offset === undefined ? 0 : Number(query.offset);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new FirecrawlRefusal('`limit` must be a whole number from 1 to 100');
  if (!Number.isInteger(offset) || offset < 0) throw new FirecrawlRefusal('`offset` must be a whole number, 0 or more');
  return { limit, offset };
}

function parseParams(json: string): Json {
  try {
    const value: unknown = JSON.parse(json);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

const extractKey = (id: string) => `firecrawl:extract:${id}`;
