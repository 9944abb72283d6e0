/** Firecrawl's reads of a key's usage: queue status, concurrency, credits and model tokens (now and per month). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CrawlBody } from '../../schemas/api/page-reading.js';
import { tokensByMonth } from '../../pipeline/structured/model-usage.js';
import { authenticate } from '../routes.js';
import { parseParams, send, type Edge } from './edge.js';
import type { Version } from './translate.js';

/** The most pages one crawl fetches at once (the largest `maxConcurrency` the crawl body takes). */
const MAX_JOB_CONCURRENCY = (CrawlBody.properties.maxConcurrency as { maximum: number }).maximum;

/** A calendar month (`YYYY-MM`, UTC) as Firecrawl's period: its first and last millisecond. */
function periodOf(month: string): { startDate: string; endDate: string } {
  return {
    startDate: `${month}-01T00:00:00.000Z`,
    endDate: new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1) - 1).toISOString(),
  };
}

export function registerTeam(fc: FastifyInstance, v: Version, edge: Edge): void {
  const { deps, runningJobs } = edge;
  const base = `/${v}`;

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
      ...periodOf(month),
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

  // ---- the tokens the key's model calls used ------------------------------------------
  // From the extractor's `model_usage` rows (pipeline/structured/model-usage.ts): the
  // `json` and `summary` formats, extracts and the crawl params preview the model answered.
  // A key has no token allowance (model use is charged in credits), so `remainingTokens` and
  // `planTokens` are null; `tokensUsed` is the current calendar month's (UTC), that month
  // the period.
  fc.get(`${base}/team/token-usage/historical`, async (request, reply) => {
    const key = await authenticate(request, deps.auth);
    const byKey = (request.query as Record<string, string | undefined>).byApiKey === 'true';
    const periods = (await tokensByMonth(edge.requireRecords().store, key.id)).map((m) => ({
      ...periodOf(m.month),
      ...(byKey ? { apiKey: key.prefix } : {}),
      tokensUsed: m.inputTokens + m.outputTokens,
      inputTokens: m.inputTokens,
      outputTokens: m.outputTokens,
    }));
    return send(reply, 200, { success: true, periods });
  });

  fc.get(`${base}/team/token-usage`, async (request, reply) => {
    const key = await authenticate(request, deps.auth);
    const month = new Date(deps.now()).toISOString().slice(0, 7);
    const current = (await tokensByMonth(edge.requireRecords().store, key.id)).find((m) => m.month === month);
    const input = current?.inputTokens ?? 0;
    const output = current?.outputTokens ?? 0;
    const { startDate, endDate } = periodOf(month);
    if (v === 'v1') {
      return send(reply, 200, { success: true, data: { remaining_tokens: null, plan_tokens: null, billing_period_start: startDate, billing_period_end: endDate, tokens_used: input + output, input_tokens: input, output_tokens: output } });
    }
    return send(reply, 200, { success: true, data: { remainingTokens: null, planTokens: null, billingPeriodStart: startDate, billingPeriodEnd: endDate, tokensUsed: input + output, inputTokens: input, outputTokens: output } });
  });
}
