/**
 * Firecrawl's /v2/monitor onto our /v1/monitor (docs/firecrawl.md: scrape targets, fixed-interval cron schedules).
 * PATCH (update, pause, resume) is our PATCH; `run` on a paused monitor is our 409 `monitor_paused`, as Firecrawl's 409,
 * and `run` while a check is queued or running our 409 `monitor_check_running`, with Firecrawl's `checkId`: the
 * monitor's `currentCheckId`, read back from our GET.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { dataOf, send, sendFailure, window, type Answer, type Edge } from './edge.js';
import { errorOf, FirecrawlRefusal, isObject, type Json } from './translate.js';
import { monitorBodyOf, monitorCheckOf, monitorOf, monitorUpdateOf } from './translate-monitors.js';

export function registerMonitors(fc: FastifyInstance, edge: Edge): void {
  const { ours, bodyOf } = edge;
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
  fc.patch('/v2/monitor/:id', async (request, reply) => {
    // Update, pause (`status: "paused"`) and resume are our PATCH /v1/monitor/{id}; its rules apply once.
    const answer = await ours(request, 'PATCH', path((request.params as { id: string }).id), monitorUpdateOf(bodyOf(request)));
    if (answer.status !== 200) return sendFailure(reply, answer);
    return send(reply, 200, { success: true, data: monitorOf(dataOf(answer)) });
  });
  fc.delete('/v2/monitor/:id', async (request, reply) => {
    const answer = await ours(request, 'DELETE', path((request.params as { id: string }).id));
    if (answer.status !== 200) return sendFailure(reply, answer);
    return send(reply, 200, { success: true });
  });
  fc.post('/v2/monitor/:id/run', async (request, reply) => {
    const id = (request.params as { id: string }).id;
    const answer = await ours(request, 'POST', path(id, '/run'));
    if (answer.status === 409 && isObject(answer.body) && isObject(answer.body.error) && answer.body.error.code === 'monitor_check_running') {
      const monitor = await ours(request, 'GET', path(id));
      const checkId = monitor.status === 200 ? dataOf(monitor).currentCheckId : null;
      const failure = errorOf(answer.status, answer.body);
      return send(reply, failure.status, typeof checkId === 'string' ? { ...failure.body, checkId } : failure.body);
    }
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
