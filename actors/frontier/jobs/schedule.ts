/**
 * Scheduling a job's pages: `pump` moves URLs from the job's queue to the fetcher while the
 * job runs and fewer than its `maxConcurrency` pages are in flight (with a `delay`, one at a
 * time, each sent `delay` ms after the previous one was settled, so the site sees requests at
 * least `delay` apart: the delay holds per host because it holds for the whole job).
 *
 * Each page is paid for before it is fetched: one fetched page's credits are held on the key
 * (KeyRegistry.reserve) and settled at the page's real cost when it is stored, released when
 * it fails. When the balance cannot hold another page the job ends `failed` with an
 * `insufficient_credits` error; the pages in flight still land and are kept.
 */
import type { AnyEmission } from '../../../pipeline/events.js';
import { jobEvent, jobPageRequestId } from '../../../pipeline/jobs/pages.js';
import { endJob, jobKey, jobRunning, jobTtlMs, type JobRecord, type JobStateDeps } from '../../../pipeline/jobs/record.js';
import type { KeyRecord, KeyRegistry } from '../../../pipeline/keys/registry.js';
import type { Logger } from '../../../pipeline/log.js';
import { SOURCE_CREDITS } from '../../../pipeline/page-cache.js';
import { sleep } from '../../../pipeline/retry.js';
import { HEADERS } from '../../../schemas/topics.js';
import { lastRequestKey, popQueued, putInFlight } from './queue.js';

/** What one page holds on the key while in flight: a fetched page's price. */
export const JOB_PAGE_CREDITS = SOURCE_CREDITS.fresh;

/** Time a job page may wait in the fetcher's topic beyond its own `timeout`. */
export const JOB_PAGE_SLACK_MS = 5 * 60_000;

export interface ScheduleDeps extends JobStateDeps {
  readonly keys: KeyRegistry;
  readonly log: Logger;
  readonly now?: () => number;
}

export interface Pace {
  readonly maxConcurrency: number;
  readonly delayMs: number;
  readonly scrapeOptions: Record<string, unknown>;
}

/** Ends the job for want of credits; the event tells who listens (webhooks). */
async function outOfCredits(deps: ScheduleDeps, job: JobRecord): Promise<AnyEmission[]> {
  const message = "insufficient_credits: the key's balance ran out; the pages stored before are kept";
  if (!(await endJob(deps, job.id, 'failed', message))) return [];
  deps.log.info({ jobId: job.id }, 'job stopped: credits ran out');
  return [jobEvent(job.tenant, job.id, 'failed', { error: message })];
}

export async function pump(deps: ScheduleDeps, job: JobRecord, pace: Pace, signal: AbortSignal): Promise<AnyEmission[]> {
  const { state } = deps;
  const now = deps.now ?? Date.now;
  const key = jobKey(job.id);
  const max = pace.delayMs > 0 ? 1 : pace.maxConcurrency;
  const timeoutMs = typeof pace.scrapeOptions.timeout === 'number' ? pace.scrapeOptions.timeout : 90_000;
  const options = JSON.stringify(pace.scrapeOptions);
  const out: AnyEmission[] = [];
  let account: KeyRecord | null = null;
  while (!signal.aborted && (await jobRunning(state, job.id))) {
    if ((await state.hincrby(key, 'inflight', 1)) > max) {
      await state.hincrby(key, 'inflight', -1);
      break;
    }
    const page = await popQueued(state, job.id);
    if (page === undefined) {
      await state.hincrby(key, 'inflight', -1);
      break;
    }
    if (page === null) {
      await state.hincrby(key, 'inflight', -1);
      continue;
    }
    account ??= await deps.keys.get(job.tenant);
    if (!account || account.revoked || !(await deps.keys.reserve(account, JOB_PAGE_CREDITS))) {
      await state.hincrby(key, 'inflight', -1);
      out.push(...(await outOfCredits(deps, job)));
      break;
    }
    const seq = await state.hincrby(key, 'seq', 1);
    await putInFlight(state, job.id, seq, page);
    if (pace.delayMs > 0) {
      const last = Number(await state.get(lastRequestKey(job.id))) || 0;
      const wait = last + pace.delayMs - now();
      if (wait > 0) await sleep(wait, signal).catch(() => undefined);
      await state.set(lastRequestKey(job.id), String(now()), jobTtlMs(job));
    }
    const requestId = jobPageRequestId(job.id, seq);
    const at = now();
    out.push({
      topic: 'scrapeRequested',
      key: job.id,
      headers: { [HEADERS.requestId]: requestId },
      value: {
        requestId,
        tenant: job.tenant,
        jobId: job.id,
        url: page.url,
        options,
        replyTo: null,
        correlationId: null,
        deadlineMs: at + timeoutMs + JOB_PAGE_SLACK_MS,
        createdAtMs: at,
        escalated: false,
      },
    });
  }
  return out;
}
