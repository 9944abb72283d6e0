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
import type { AnyEmission } from '../../../pipeline/runtime/events.js';
import { jobEvent, jobPageRequestId } from '../../../pipeline/jobs/pages.js';
import { endJob, jobEndKey, jobTtlMs, type JobRecord, type JobStateDeps } from '../../../pipeline/jobs/record.js';
import type { KeyRecord, KeyRegistry } from '../../../pipeline/keys/registry.js';
import type { Logger } from '../../../pipeline/runtime/log.js';
import { needsBrowser } from '../../../pipeline/pages/rendering.js';
import { extractionEstimate } from '../../../pipeline/structured/plan.js';
import { scrapeRequestFields, scrapeTopic } from '../../../pipeline/pages/scrape-request.js';
import { PRICES } from '../../../schemas/api/prices.js';
import { PAGE_TIMEOUT_MS, type ScrapeOptions } from '../../../schemas/api/scrape-options.js';
import { sleep } from '../../../pipeline/runtime/retry.js';
import { HEADERS } from '../../../schemas/topics.js';
import { advanceWatermark, lastRequestKey, parsePage, takeInFlight, workQueueOf, type QueuedPage } from './queue.js';

/**
 * What a job's page holds on the key while in flight, and costs at most: a browser page
 * (schemas/api/prices.ts) when the job's scrape options need a browser
 * (`waitFor`, `actions`, `screenshot`, `network`), else a fetched page; plus, when the
 * operator configured a model and the formats may call it (`json`, `summary`), its price.
 */
export function jobPageCredits(scrapeOptions: Record<string, unknown>, operatorModel = false): number {
  const page = needsBrowser(scrapeOptions as ScrapeOptions) ? PRICES.browserPage.credits : PRICES.freshPage.credits;
  return page + extractionEstimate((scrapeOptions as ScrapeOptions).formats, operatorModel);
}

/** Time a job page may wait in the fetcher's topic beyond its own `timeout`. */
export const JOB_PAGE_SLACK_MS = 5 * 60_000;

export interface ScheduleDeps extends JobStateDeps {
  readonly keys: KeyRegistry;
  /** The operator configured a model (MODEL_PROVIDER): a page whose formats may call it is held its price too. */
  readonly operatorModel?: boolean;
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

/** The ScrapeRequested of a job's page `seq` (the same when it is sent again). */
export function pageRequest(job: JobRecord, seq: number, page: QueuedPage, pace: Pace, at: number): AnyEmission {
  const timeoutMs = typeof pace.scrapeOptions.timeout === 'number' ? pace.scrapeOptions.timeout : PAGE_TIMEOUT_MS.default;
  const requestId = jobPageRequestId(job.id, seq);
  // The browser decision and the cache key are taken here, once, and travel on the event.
  const fields = scrapeRequestFields(pace.scrapeOptions as ScrapeOptions);
  return {
    // A page whose options need a browser goes to the renderer, the rest to the fetcher.
    topic: scrapeTopic(fields),
    // Keyed by the page, not the job: a key's messages are handled one at a time, so a job
    // keyed as one was fetched one page at a time whatever its maxConcurrency. Its pages need
    // no order among themselves; how many are in flight is the job's maxConcurrency, which
    // the frontier enforces before it sends a page.
    key: requestId,
    headers: { [HEADERS.requestId]: requestId },
    value: {
      requestId,
      tenant: job.tenant,
      jobId: job.id,
      url: page.url,
      ...fields,
      replyTo: null,
      correlationId: null,
      deadlineMs: at + timeoutMs + JOB_PAGE_SLACK_MS,
      createdAtMs: at,
    },
  };
}

/**
 * Claims queued pages (State.queueClaim: popped, numbered and held in one step) while the job
 * runs, fewer than its concurrency are in flight and more are queued, pays for each, and
 * returns their ScrapeRequested.
 * A page is claimed before it is paid for: a process killed between the two leaves a page in
 * flight that the stall watchdog sends again (fetched unpaid), never credits held for nothing.
 */
export async function pump(deps: ScheduleDeps, job: JobRecord, pace: Pace, signal: AbortSignal): Promise<AnyEmission[]> {
  const { state } = deps;
  const now = deps.now ?? Date.now;
  const max = pace.delayMs > 0 ? 1 : pace.maxConcurrency;
  const queue = workQueueOf(job.id);
  const out: AnyEmission[] = [];
  let account: KeyRecord | null = null;
  // `more` false: the claim just taken filled the job's concurrency or emptied its queue, so
  // the next would answer busy or empty; its round trip is spared. A job that has ended (its
  // end latch) or whose record is gone claims nothing: the claim checks, in the same step.
  let more = true;
  while (more && !signal.aborted) {
    const claim = await state.queueClaim(queue, max, now(), jobEndKey(job.id));
    if (claim === 'busy' || claim === 'empty' || claim === 'ended') break;
    more = claim.more;
    const page = parsePage(claim.item);
    if (!page) {
      // Not written by enqueue(): counted as failed so the job can still end.
      await takeInFlight(state, job.id, claim.seq, { failed: 1 });
      await advanceWatermark(state, job.id);
      // Its claim is given back: the next may be taken whatever `more` said.
      more = true;
      continue;
    }
    account ??= await deps.keys.get(job.tenant);
    if (!account || account.revoked || !(await deps.keys.reserve(account, jobPageCredits(pace.scrapeOptions, deps.operatorModel)))) {
      // Never sent: out of flight without counting it; the job ends here.
      await takeInFlight(state, job.id, claim.seq, {});
      await advanceWatermark(state, job.id);
      out.push(...(await outOfCredits(deps, job)));
      break;
    }
    if (pace.delayMs > 0) {
      const last = Number(await state.get(lastRequestKey(job.id))) || 0;
      const wait = last + pace.delayMs - now();
      if (wait > 0) await sleep(wait, signal).catch(() => undefined);
      await state.set(lastRequestKey(job.id), String(now()), jobTtlMs(job));
    }
    out.push(pageRequest(job, claim.seq, page, pace, now()));
  }
  return out;
}
