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
 * The route groups: scrape, map, search and parse here; crawl and batch jobs (jobs.ts), extract
 * and the crawl params preview (extract.ts), monitors (monitors.ts), the key's usage reads
 * (team.ts), the crawl watcher's WebSocket (watcher.ts); what they share in edge.ts.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../pipeline/runtime/errors.js';
import { errorBody, ValidationFailed } from '../replies.js';
import { createEdge, dataOf, PREFIX, send, sendFailure, type FirecrawlDeps } from './edge.js';
import { registerExtract } from './extract.js';
import { registerJobs } from './jobs.js';
import { registerMonitors } from './monitors.js';
import { registerTeam } from './team.js';
import { documentOf, errorOf, FirecrawlRefusal, isObject, mapBodyOf, scrapeOptionsOf, searchBodyOf, searchResultOf, type Json, type Version } from './translate.js';
import { registerWatcher } from './watcher.js';

export type { FirecrawlDeps } from './edge.js';

/** Firecrawl's cloud operations this service does not have, by the path they start with. */
const CLOUD_ONLY: readonly [RegExp, string][] = [
  [/^\/v[12]\/agent\b/, "Firecrawl's agent is a cloud feature this self-hosted service does not offer"],
  [/^\/v[12]\/browser\b/, "Firecrawl's browser sessions are a cloud feature this service does not offer (use `actions` on a scrape)"],
  [/^\/v[12]\/scrape\/[^/]+\/interact\b/, 'interacting with a scrape\'s browser afterwards is not offered (use `actions` on the scrape)'],
  [/^\/v[12]\/deep-research\b/, 'deep research is a Firecrawl cloud feature this service does not offer'],
  [/^\/v[12]\/llmstxt\b/, 'llms.txt generation is a Firecrawl cloud feature this service does not offer'],
  [/^\/v[12]\/search\/(research|developer)\b/, 'research and developer search are Firecrawl cloud features this service does not offer'],
  [/^\/v[12]\/feedback\b|^\/v[12]\/search\/[^/]+\/feedback\b/, 'feedback is a Firecrawl cloud feature this service does not offer'],
  [/^\/v[12]\/extract\/[^/]+\/cancel\b/, 'cancelling an extract is not offered'],
];

export function registerFirecrawl(app: FastifyInstance, deps: FirecrawlDeps): void {
  const edge = createEdge(app, deps);
  const { ours, bodyOf } = edge;

  // The crawl watcher's WebSocket, on the HTTP server's upgrades.
  registerWatcher(app, deps.log);

  void app.register(
    async (fc) => {
      // Firecrawl's parse uploads: the multipart body is handed on as it came, to POST /v1/parse.
      fc.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: deps.uploadLimitBytes + 64 * 1024 }, (_request, body, done) => done(null, body));
      fc.setErrorHandler((error, request, reply) => {
        if (error instanceof FirecrawlRefusal) return send(reply, error.status, { success: false, error: error.message, code: error.code });
        // A body whose members name a prototype (gateway/json-body.ts): as our 422 reads in Firecrawl's shape.
        if (error instanceof ValidationFailed) {
          const failure = errorOf(422, { detail: error.detail });
          return send(reply, failure.status, failure.body);
        }
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


    registerJobs(fc, v, edge);

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

    registerExtract(fc, v, edge);

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
    if (v === 'v2') registerMonitors(fc, edge);

    registerTeam(fc, v, edge);
  }
}
