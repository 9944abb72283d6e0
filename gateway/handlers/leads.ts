/**
 * Find Leads at the gateway: POST /v1/leads, GET /v1/leads/sources, GET and DELETE
 * /v1/leads/{job_id}. The searcher pool does the work (actors/searcher/leads.ts); the run's
 * record is pipeline/leads/record.ts.
 *
 * - **Start**: the body is an open object: its documented fields (schemas/api/leads-social.ts)
 *   are validated by the schema, fields it does not know are accepted and named in the
 *   answer's `warning` (and the run's). It needs `where` or `country` (422 otherwise); the
 *   `sources` it names must be among those this instance offers (422 naming the others;
 *   default: every source, each asked when it covers the run's country). The run is created
 *   `queued` and handed to the searcher (LeadsRequested `run`); the answer is `{id, url,
 *   status, warning?}` at once. Starting costs nothing, but a key that cannot cover `limit`
 *   leads (PRICES.lead each: gateway/wiring.ts reserves them for the request) is refused 402
 *   before the run exists; the run then holds them itself and is charged per lead delivered.
 * - **Sources** (free): asked of the searcher, which resolves `where` with Nominatim
 *   (`{country, where, area, sources: [{key, label, countries}]}`; `country: null` when the
 *   place is unknown).
 * - **Status** (free): the run (pipeline/leads/record.ts runView): `partial: true` and the
 *   leads so far without contacts while it runs; final once it has ended.
 * - **Cancel** (free), the spec's state table: a queued run never starts and costs nothing; a
 *   running run takes the end latch `cancelled`, stops within CANCEL_POLL_MS plus what its
 *   outside calls take to abort, keeps and pays for the leads it had (the answer waits up to
 *   CANCEL_WAIT_MS for its final record); a finished run is answered unchanged.
 * - Another key's run, an unknown id, or a run past its `expiresAt` is 404 `not_found`.
 */
import type { Emission } from '../../pipeline/runtime/events.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { sleep } from '../../pipeline/runtime/retry.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import { createRun, isRunId, liveRun, newRunId, readRun, runView, saveRun, takeEnd, type LeadsRun, type RunParams } from '../../pipeline/leads/record.js';
import type { LeadSource } from '../../pipeline/leads/sources.js';
import { LeadsBody } from '../../schemas/api/leads-social.js';
import { PRICES } from '../../schemas/api/prices.js';
import { tenantOf, type HandlerContext, type OperationHandler, type RecordDeps } from '../handler.js';
import { ValidationFailed } from '../replies.js';
import { askPipeline, replyResult } from './ask.js';

/** How long DELETE of a running run waits for it to write its final record. */
export const CANCEL_WAIT_MS = 5_000;
const CANCEL_POLL_MS = 100;
/** The `limit` a body without one asks (the schema's default). */
export const DEFAULT_LIMIT = 100;

const KNOWN_FIELDS = new Set(Object.keys(LeadsBody.properties));

/** The most a run can cost: `limit` leads. */
export function leadsEstimate(body: { limit?: number }): number {
  return (body.limit ?? DEFAULT_LIMIT) * PRICES.lead.credits;
}

interface LeadsStartBody {
  query: string;
  where?: string;
  country?: string;
  limit?: number;
  sources?: string[];
  contacts?: boolean;
  [field: string]: unknown;
}

/** The run's parameters from a valid body; 422 for what the schema cannot say. */
export function runParamsOf(body: LeadsStartBody, offered: readonly LeadSource[]): { params: RunParams; unknown: string[] } {
  const where = body.where?.trim() || null;
  const country = body.country ? body.country.toUpperCase() : null;
  if (!where && !country) {
    throw new ValidationFailed([{ loc: ['body', 'where'], msg: 'give `where` (a place) or `country` (a two-letter code): a run searches somewhere', type: 'value_error.missing' }]);
  }
  if (!body.query.trim()) throw new ValidationFailed([{ loc: ['body', 'query'], msg: 'must say what kind of business to find', type: 'value_error' }]);
  const keys = offered.map((s) => s.key);
  const named = body.sources ?? keys;
  const unknownSources = named.filter((k) => !keys.includes(k));
  if (unknownSources.length) {
    throw new ValidationFailed([{ loc: ['body', 'sources'], msg: `not a source of this instance: ${unknownSources.join(', ')} (GET /v1/leads/sources lists them: ${keys.join(', ')})`, type: 'value_error' }]);
  }
  if (named.length === 0) throw new ValidationFailed([{ loc: ['body', 'sources'], msg: 'name at least one source, or leave `sources` out for all', type: 'value_error' }]);
  const unknown = Object.keys(body).filter((k) => !KNOWN_FIELDS.has(k)).sort();
  return {
    params: { query: body.query.trim(), where, country, limit: body.limit ?? DEFAULT_LIMIT, sources: keys.filter((k) => named.includes(k)), contacts: body.contacts ?? true },
    unknown,
  };
}

/** The run `ctx` names for this key; 404 otherwise. */
async function runOf(deps: RecordDeps, ctx: HandlerContext): Promise<LeadsRun> {
  const id = ctx.params.job_id ?? '';
  const nowMs = Date.now();
  const run = isRunId(id) ? await readRun(deps, tenantOf(ctx), id, nowMs) : null;
  if (!run || run.expiresAtMs < nowMs) throw new AppError('not_found', `no leads run ${id} for this key`);
  return run;
}

/** POST /v1/leads. */
export function leadsStartHandler(deps: RecordDeps, offered: readonly LeadSource[], retentionMs: number): OperationHandler {
  return {
    async handle(ctx) {
      const { params, unknown } = runParamsOf(ctx.body as LeadsStartBody, offered);
      const warning = unknown.length ? `fields this API does not know were ignored: ${unknown.join(', ')}` : null;
      const id = newRunId();
      const tenant = tenantOf(ctx);
      const nowMs = Date.now();
      await createRun(deps, { id, tenant, params, warning, nowMs, retentionMs });
      const event: Emission<'leadsRequested'> = {
        topic: 'leadsRequested',
        key: id,
        value: { requestId: ctx.requestId, tenant, kind: 'run', runId: id, query: JSON.stringify(params), replyTo: null, correlationId: null, deadlineMs: nowMs + retentionMs, createdAtMs: nowMs },
      };
      await deps.events.emit([event as Emission]);
      ctx.log.info({ runId: id, sources: params.sources, limit: params.limit, unknownFields: unknown.length }, 'leads run queued');
      return { data: { id, url: `/v1/leads/${id}`, status: 'queued', ...(warning ? { warning } : {}) }, credits: 0 };
    },
  };
}

/** GET /v1/leads/sources. */
export function leadsSourcesHandler(requester: Requester, waitMs: number): OperationHandler {
  return {
    async handle(ctx) {
      const q = ctx.query as { country?: string; where?: string };
      const reply = await askPipeline(requester, ctx, 'leadsSources', { kind: 'sources', runId: null, query: JSON.stringify({ country: q.country ?? null, where: q.where ?? null }) }, waitMs);
      return { ...replyResult(reply), credits: 0 };
    },
  };
}

/** GET /v1/leads/{job_id}. */
export function leadsStatusHandler(deps: RecordDeps): OperationHandler {
  return {
    async handle(ctx) {
      return { data: runView(await runOf(deps, ctx)) };
    },
  };
}

/** DELETE /v1/leads/{job_id}. */
export function leadsCancelHandler(deps: RecordDeps): OperationHandler {
  return {
    async handle(ctx) {
      const run = await runOf(deps, ctx);
      if (run.final) return { data: runView(run) };
      const nowMs = Date.now();
      if (!(await takeEnd(deps.state, run, 'cancelled', null, nowMs))) return { data: runView((await runOf(deps, ctx)) ?? run) };
      ctx.log.info({ runId: run.id, status: run.status }, 'leads run cancelled');
      const live = await liveRun(deps.state, run.id);
      if (live?.status === 'queued') {
        // It never starts (the searcher finds the latch) and costs nothing.
        const cancelled = await saveRun(deps, { ...live, status: 'cancelled', stage: 'done', final: true }, nowMs, true);
        return { data: runView(cancelled) };
      }
      // Running: it stops within a few seconds and writes its final record with the leads it had.
      const until = Date.now() + CANCEL_WAIT_MS;
      for (;;) {
        const now = await liveRun(deps.state, run.id);
        if (!now || now.final || Date.now() >= until) return { data: runView(now ?? run) };
        await sleep(CANCEL_POLL_MS, ctx.signal);
      }
    },
  };
}
