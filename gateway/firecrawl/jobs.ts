/**
 * Firecrawl's crawl and batch scrape jobs onto ours: start, status with `next` paging under the
 * `/firecrawl` prefix, cancel, errors, and the key's active crawls.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jobKindOf } from '../../pipeline/jobs/pages.js';
import { jobCancelHandler, jobErrorsHandler } from '../handlers/jobs.js';
import { authenticate } from '../routes.js';
import { dataOf, originOf, parseParams, PREFIX, send, sendFailure, type Edge } from './edge.js';
import { batchBodyOf, crawlBodyOf, documentOf, FirecrawlRefusal, jobStatusOf, type Json, type Version } from './translate.js';

/** Documents per page of a job status. */
const PAGE_LIMIT = 50;

export function registerJobs(fc: FastifyInstance, v: Version, edge: Edge): void {
  const { deps, ours, runHandler, runningJobs, requireRecords, bodyOf } = edge;
  const base = `/${v}`;
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
}
