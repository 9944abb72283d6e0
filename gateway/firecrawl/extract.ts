/**
 * Firecrawl's extract, a job, onto our extract, which answers at once: started in the
 * background, its answer kept in coordination state (shared by every gateway process) under the
 * key that asked for EXTRACT_KEEP_MS; another key's extract id is a 404. And v2's crawl params
 * preview, asked of the operator's model through POST /v1/extract.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { isLinearRegex } from '../../pipeline/runtime/linear-regex.js';
import { authenticate } from '../routes.js';
import { dataOf, send, sendFailure, type Edge } from './edge.js';
import { errorOf, FirecrawlRefusal, isObject, type Json, type Version } from './translate.js';
import { extractAnswerOf, extractBodyOf, PARAMS_PREVIEW_PROMPT, PARAMS_PREVIEW_SCHEMA, paramsPreviewOf } from './translate-extract.js';

/** How long a Firecrawl extract job's answer is kept (Firecrawl keeps them 6 h). */
export const EXTRACT_KEEP_MS = 6 * 3_600_000;

const extractKey = (id: string) => `firecrawl:extract:${id}`;

export function registerExtract(fc: FastifyInstance, v: Version, edge: Edge): void {
  const { deps, ours, bodyOf } = edge;
  const base = `/${v}`;
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
}
