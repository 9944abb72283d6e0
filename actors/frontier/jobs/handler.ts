/**
 * The frontier's pure handler for crawl and batch jobs: one JobEvent in, an Outcome out.
 *
 * - `started` (the gateway created the job): seeds the queue once (a batch: its URLs, exact
 *   duplicates once; a crawl: the start page at depth 0 and, unless `ignoreSitemap` or
 *   `maxDepth` 0, the sitemaps' URLs at depth 1, within scope and `limit`), then schedules.
 * - `page` (the parser stored a page): settles the page's credits, counts it, and for a
 *   crawl queues its links in scope one level deeper (up to `maxDepth`), then schedules more.
 * - `pageFailed` (the fetcher or parser could not read it): releases its credits, records it
 *   in `job_errors`, counts it, schedules more.
 * - Any other type (completed, failed, cancelled: for the notifier) is not the frontier's.
 *
 * With `respectRobots`, a URL robots.txt disallows is not fetched: it is listed in
 * `job_errors` with the code `robots_disallowed` and not counted in `total`. A job is
 * `completed` once every URL it holds is settled; its working state is then dropped.
 * A redelivered event changes nothing: seeding admits each URL once (the seen set) and a page
 * is counted and charged once (it leaves the in-flight hash).
 */
import { createHash } from 'node:crypto';
import type { AnyEmission } from '../../../pipeline/runtime/events.js';
import type { BatchWriter } from '../../../pipeline/runtime/store/batch-writer.js';
import { jobEvent, type PageFailed, type PageStored } from '../../../pipeline/jobs/pages.js';
import { ACTIVE_JOBS_KEY, endJob, jobKey, jobPartKey, jobTtlMs, liveJob, queueJobSnapshot, snapshotJob, type JobRecord } from '../../../pipeline/jobs/record.js';
import { parseJsonObject } from '../../../pipeline/runtime/json.js';
import type { Outcome } from '../../../pipeline/runtime/pool.js';
import type { EventValue } from '../../../schemas/events/index.js';
import { advanceWatermark, depthOf, dropWorkingKeys, enqueue, enqueueAll, expireWorkingKeys, lastRequestKey, markSeen, peekInFlight, seededKey, seenBefore, sentAtKey, takeInFlight } from './queue.js';
import { jobPageCredits, pageRequest, pump, type Pace, type ScheduleDeps } from './schedule.js';
import { batchParamsOf, crawlParamsOf, crawlScope, type Candidate, type CrawlParams } from './scope.js';
import type { SiteReader } from './site.js';

export type JobEventValue = EventValue<'JobEvent'>;

export interface JobHandlerDeps extends ScheduleDeps {
  readonly site: SiteReader;
  /** `pending`: a job's progress versions are queued (queueJobSnapshot). */
  readonly writer: Pick<BatchWriter, 'write' | 'pending'>;
}

function dataOf<T extends object>(json: string): Partial<T> {
  return parseJsonObject<Partial<T>>(json) ?? {};
}

/** Longest robots.txt `Crawl-delay` a crawl honours (the API's own `delay` maximum). */
export const MAX_CRAWL_DELAY_MS = 60_000;

/**
 * How fast a job's pages go out: its `maxConcurrency`, and for a crawl its `delay` — or, with
 * `respectRobots`, the start site's robots.txt `Crawl-delay` when that is longer (at most
 * MAX_CRAWL_DELAY_MS).
 */
async function paceOf(deps: JobHandlerDeps, job: JobRecord, signal: AbortSignal): Promise<Pace> {
  if (job.kind === 'batch') {
    const p = batchParamsOf(job.params);
    return { maxConcurrency: p.maxConcurrency, delayMs: 0, scrapeOptions: p.scrapeOptions };
  }
  const p = crawlParamsOf(job.params);
  let delayMs = p.delay;
  if (p.respectRobots) {
    const origin = URL.canParse(p.url) ? new URL(p.url).origin : null;
    const robotsDelay = origin ? (await deps.site.robots(origin, signal)).crawlDelayMs : null;
    if (robotsDelay !== null) delayMs = Math.max(delayMs, Math.min(MAX_CRAWL_DELAY_MS, Math.round(robotsDelay)));
  }
  return { maxConcurrency: p.maxConcurrency, delayMs, scrapeOptions: p.scrapeOptions };
}

async function recordError(deps: JobHandlerDeps, job: JobRecord, id: string, e: { url: string; code: string; message: string; statusCode: number }) {
  await deps.writer.write('job_errors', [
    { tenant: job.tenant, job_id: job.id, id, at: Date.now(), url: e.url, code: e.code, message: e.message, status_code: e.statusCode },
  ]);
}

/**
 * Admits a crawl URL: robots.txt (when asked; its policy is cached per origin), then the job's
 * limit. A URL seen before is offered again all the same, to record a shorter path to it (its
 * depth).
 */
async function admit(deps: JobHandlerDeps, job: JobRecord, params: CrawlParams, c: Candidate, depth: number, signal: AbortSignal) {
  if (await disallowed(deps, params, c, signal)) return refuseByRobots(deps, job, c);
  return enqueue(deps.state, job.id, c, depth, params.limit);
}

/** Whether the crawl respects robots.txt and the URL's origin disallows it (its policy is cached per origin). */
async function disallowed(deps: JobHandlerDeps, params: CrawlParams, c: Candidate, signal: AbortSignal): Promise<boolean> {
  return params.respectRobots && !(await deps.site.robots(new URL(c.url).origin, signal)).allows(c.url);
}

/** Links admitted between two turns of the event loop (admitLinks): ~50 ms against a robots.txt of 500 KiB of wildcard rules. */
const ADMIT_TURN = 64;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Admits a page's links in order, as `admit` one by one would: the allowed ones in one state
 * step (enqueueAll), a link robots.txt disallows on its own after the allowed ones before it,
 * and none after the job fills up.
 */
async function admitLinks(deps: JobHandlerDeps, job: JobRecord, params: CrawlParams, candidates: readonly Candidate[], depth: number, signal: AbortSignal): Promise<void> {
  let allowed: Candidate[] = [];
  let checked = 0;
  for (const c of candidates) {
    // robots.txt is asked once a link, each of its rules matched against it: a page of 100,000
    // links and a robots.txt of 25,000 rules is over a minute of work, given back to the event
    // loop every ADMIT_TURN links so that it never holds the service's thread for long.
    if (params.respectRobots && ++checked % ADMIT_TURN === 0) await nextTurn();
    if (await disallowed(deps, params, c, signal)) {
      if ((await enqueueAll(deps.state, job.id, allowed, depth, params.limit)) === 'full') return;
      allowed = [];
      await refuseByRobots(deps, job, c);
    } else {
      allowed.push(c);
    }
  }
  await enqueueAll(deps.state, job.id, allowed, depth, params.limit);
}

/**
 * A URL robots.txt disallows is listed (under an id of its own, so listing it again changes
 * nothing) before it is marked seen, so a process killed in between lists it when the event
 * comes again.
 */
async function refuseByRobots(deps: JobHandlerDeps, job: JobRecord, c: Candidate): Promise<'seen' | 'blocked'> {
  if (await seenBefore(deps.state, job.id, c)) return 'seen';
  const id = `robots-${createHash('sha256').update(c.url).digest('hex').slice(0, 24)}`;
  await recordError(deps, job, id, { url: c.url, code: 'robots_disallowed', message: "the site's robots.txt disallows this URL", statusCode: 0 });
  await markSeen(deps.state, job.id, c);
  return 'blocked';
}

async function seed(deps: JobHandlerDeps, job: JobRecord, signal: AbortSignal): Promise<void> {
  if (job.kind === 'batch') {
    await enqueueAll(deps.state, job.id, batchParamsOf(job.params).urls.map((url) => ({ url, key: url })), 0, Number.MAX_SAFE_INTEGER);
    return;
  }
  const params = crawlParamsOf(job.params);
  const scope = crawlScope(params);
  if (!scope.start) return;
  await admit(deps, job, params, scope.start, 0, signal);
  if (params.ignoreSitemap || params.maxDepth < 1) return;
  let full = false;
  await deps.site.sitemapUrls(
    new URL(scope.start.url).origin,
    async (url) => {
      const c = scope.candidate(url);
      if (c && (await admit(deps, job, params, c, 1, signal)) === 'full') full = true;
      return !full;
    },
    signal,
  );
}

/**
 * Ends a job whose every URL is settled; drops its working state once nothing is in flight
 * (`final`: the job's counters will not change again).
 */
async function finish(deps: JobHandlerDeps, id: string): Promise<{ emit: AnyEmission[]; final: boolean }> {
  const job = await liveJob(deps.state, id);
  if (!job) return { emit: [], final: false };
  const out: AnyEmission[] = [];
  let status = job.status;
  if (status === 'scraping' && job.completed + job.failed >= job.total) {
    if (await endJob(deps, id, 'completed')) {
      deps.log.info({ jobId: id, completed: job.completed, failed: job.failed }, 'job completed');
      out.push(jobEvent(job.tenant, id, 'completed', { total: job.total, completed: job.completed, failed: job.failed }));
    }
    status = (await liveJob(deps.state, id))?.status ?? 'completed';
  }
  // A running job keeps its working state: only an ended one needs its pages in flight read.
  // Ended by another process since the read above, it is finished by the next event or the
  // stall watchdog (it stays on ACTIVE_JOBS_KEY: not final).
  if (status === 'scraping') return { emit: out, final: false };
  const inflight = Number(await deps.state.hget(jobKey(id), 'inflight')) || 0;
  const final = inflight <= 0;
  if (final) await dropWorkingKeys(deps.state, id);
  return { emit: out, final };
}

/** Stored versions of a running job are written at most this often (its live record is in state). */
export const SNAPSHOT_INTERVAL_MS = 1_000;

/**
 * Counts a page stored or failed, pays for it and, for a crawl, queues its links. What can be
 * done twice safely (queueing links: the seen set; the error row: its id) comes first; the
 * page then leaves the in-flight hash, and only the call that removed it counts and charges
 * it, so a redelivered or retried event never counts a page twice.
 */
async function settle(deps: JobHandlerDeps, job: JobRecord, pace: Pace, type: 'page' | 'pageFailed', json: string, signal: AbortSignal): Promise<void> {
  const data = dataOf<PageStored & PageFailed>(json);
  const seq = typeof data.seq === 'number' ? data.seq : 0;
  const page = seq > 0 ? await peekInFlight(deps.state, job.id, seq) : null;
  if (!page) return;
  if (type === 'page' && job.kind === 'crawl' && job.status === 'scraping') {
    const params = crawlParamsOf(job.params);
    const scope = crawlScope(params);
    // The page's redirects ended elsewhere: that URL is this page, not one to fetch again.
    const landed = typeof data.finalUrl === 'string' ? scope.candidate(data.finalUrl) : null;
    if (landed) await markSeen(deps.state, job.id, landed);
    const depth = await depthOf(deps.state, job.id, page);
    if (depth < params.maxDepth) {
      const found: Candidate[] = [];
      for (const link of Array.isArray(data.links) ? data.links : []) {
        const c = typeof link === 'string' ? scope.candidate(link) : null;
        if (c) found.push(c);
      }
      await admitLinks(deps, job, params, found, depth + 1, signal);
    }
  }
  if (type === 'pageFailed') {
    await recordError(deps, job, `page-${seq}`, {
      url: typeof data.url === 'string' ? data.url : page.url,
      code: typeof data.code === 'string' ? data.code : 'internal_error',
      message: typeof data.message === 'string' ? data.message : '',
      statusCode: typeof data.statusCode === 'number' ? data.statusCode : 0,
    });
  }
  const account = await deps.keys.get(job.tenant);
  const held = jobPageCredits(pace.scrapeOptions, deps.operatorModel);
  const credits = typeof data.credits === 'number' ? Math.max(0, data.credits) : held;
  const charged = account?.unlimited ? credits : Math.min(credits, held);
  const counts: Record<string, number> = type === 'page' ? { completed: 1, creditsUsed: charged } : { failed: 1 };
  // Marked stored and settled in one step: no process is killed between the two.
  if (!(await takeInFlight(deps.state, job.id, seq, counts, type === 'page'))) return;
  // With a `delay` one page is in flight at a time: the next waits `delay` from now, when this
  // one is known to be done, so the host sees the requests at least `delay` apart.
  if (pace.delayMs > 0) await deps.state.set(lastRequestKey(job.id), String(Date.now()), jobTtlMs(job));
  // The hold ends after the count: a process killed in between leaves the page's credit spent
  // (the pump reserved it), never a page counted twice. A state written behind (STATE=file)
  // makes the count durable first: a kill cannot leave the charge without it (the page
  // fetched and charged again after the restart).
  if (account && type === 'page') {
    if (!account.unlimited) await deps.state.durable?.();
    await deps.keys.settle(account, held, charged, { requestId: `${job.id}:${seq}`, op: job.kind === 'crawl' ? 'crawlStart' : 'batchStart' });
  } else if (account) {
    await deps.keys.release(account, held);
  }
  await advanceWatermark(deps.state, job.id);
}

export { ACTIVE_JOBS_KEY };

export async function handleJobEvent(event: JobEventValue, deps: JobHandlerDeps, signal: AbortSignal): Promise<Outcome> {
  if (event.type !== 'started' && event.type !== 'page' && event.type !== 'pageFailed') return { kind: 'ack' };
  const job = await liveJob(deps.state, event.jobId);
  if (!job || job.tenant !== event.tenant) {
    deps.log.warn({ jobId: event.jobId, type: event.type }, 'job event for a job state does not hold; ignored');
    return { kind: 'ack' };
  }
  const pace = await paceOf(deps, job, signal);
  const emit: AnyEmission[] = [];
  if (event.type === 'started') {
    // Seeding again after a failed attempt is harmless (the seen set admits a URL once);
    // the latch only spares a redelivered `started` the work.
    if (job.status === 'scraping' && (await deps.state.get(seededKey(job.id))) === null) {
      await seed(deps, job, signal);
      await deps.state.set(seededKey(job.id), '1', jobTtlMs(job));
      deps.log.info({ jobId: job.id, kind: job.kind }, 'job seeded');
    }
  } else {
    await settle(deps, job, pace, event.type, event.data, signal);
  }
  // The pump reads the job's status itself at every page; the job's other fields it uses
  // (id, tenant, expiry) do not change.
  emit.push(...(await pump(deps, job, pace, signal)));
  // Once seeded and first scheduled, every working key exists: it gets the job's retention.
  if (event.type === 'started') await expireWorkingKeys(deps.state, job.id, jobTtlMs(job));
  const finished = await finish(deps, job.id);
  emit.push(...finished.emit);
  // The store gets a version when the job starts, ends (endJob), settles its last page, and at
  // most once a SNAPSHOT_INTERVAL_MS between: a 100,000-page crawl does not write 100,000 versions.
  // Those between are queued, not waited for: every running job's progress in one insert a second.
  if (event.type === 'started' || finished.final) await snapshotJob(deps, job.id);
  else if (await deps.state.setIfAbsent(jobPartKey(job.id, 'snapshot'), '1', SNAPSHOT_INTERVAL_MS)) {
    await queueJobSnapshot(deps, job.id, (error) => deps.log.warn({ err: error, jobId: job.id }, "a job's progress version was not stored; the next one supersedes it"));
  }
  if (!finished.final) await deps.state.zadd(ACTIVE_JOBS_KEY, (deps.now ?? Date.now)(), job.id);
  return { kind: 'ack', emit };
}

/**
 * The stall watchdog, run by every frontier process on a timer (JOB_STALL_MS): each running
 * job none of whose events has come for `stallMs` is taken from ACTIVE_JOBS_KEY by one
 * process (zpopDue is atomic) and repaired from what state holds — what a process killed in
 * the middle of the job's work would otherwise leave stuck:
 *
 * - pages in flight sent `stallMs` ago or more are sent again under the same seq (a page whose
 *   ScrapeRequested was never published, or whose fetcher or parser died, holding it); a
 *   page that was only slow then arrives twice and is counted once;
 * - the watermark is moved (a process died between settling a page and moving it), more pages are scheduled and
 *   the job is completed when every URL is settled.
 *
 * The job goes back on the schedule first, so a watchdog killed halfway leaves it watched.
 * An ended job is dropped from the schedule (its working keys too, once nothing is in flight).
 */
export async function sweepStalledJobs(deps: JobHandlerDeps, stallMs: number, signal: AbortSignal): Promise<AnyEmission[]> {
  const now = (deps.now ?? Date.now)();
  return (await repairJobs(deps, { dueBy: now - stallMs, sentBy: now - stallMs, now, requeueAt: now, reason: 'stalled' }, signal)).emit;
}

/**
 * Resumes every running job after a restart in embedded mode (STATE=file: the jobs' state
 * outlived the process, nothing of their work in flight did): each job's pages in flight are
 * sent again at once under the same seq (each page at most once more: the process that held
 * them is gone), the job is seeded if its `started` event was lost, scheduled on and
 * completed if it is done. Only for one process that owns its state: in distributed mode the
 * watchdog does this for the pages of a process that died, after JOB_STALL_MS.
 */
export async function resumeJobs(deps: JobHandlerDeps, signal: AbortSignal): Promise<AnyEmission[]> {
  const now = (deps.now ?? Date.now)();
  const out: AnyEmission[] = [];
  // Each resumed job goes back on the schedule after `dueBy`: each is taken once.
  for (;;) {
    const { emit, jobs } = await repairJobs(deps, { dueBy: now, sentBy: now, now, requeueAt: now + 1, reason: 'resumed' }, signal);
    out.push(...emit);
    if (jobs === 0 || signal.aborted) return out;
  }
}

interface Repair {
  /** Jobs whose last event came at or before this (ms) are repaired. */
  readonly dueBy: number;
  /** Their pages in flight sent at or before this (ms) are sent again. */
  readonly sentBy: number;
  readonly now: number;
  /** When a repaired job that still runs is due on the schedule again (ms). */
  readonly requeueAt: number;
  readonly reason: 'stalled' | 'resumed';
}

async function repairJobs(deps: JobHandlerDeps, repair: Repair, signal: AbortSignal): Promise<{ emit: AnyEmission[]; jobs: number }> {
  const { now } = repair;
  const out: AnyEmission[] = [];
  const due = await deps.state.zpopDue(ACTIVE_JOBS_KEY, repair.dueBy, 100);
  for (const { member: id } of due) {
    if (signal.aborted) break;
    const job = await liveJob(deps.state, id);
    if (!job) continue;
    if (job.status !== 'scraping') {
      await finish(deps, id);
      continue;
    }
    await deps.state.zadd(ACTIVE_JOBS_KEY, repair.requeueAt, id);
    if ((await deps.state.get(seededKey(id))) === null) {
      // Its `started` event was lost with a process (or is still on its way: seeding twice
      // is harmless); the frontier seeds and schedules it when the event comes again.
      deps.log.warn({ jobId: id, reason: repair.reason }, 'job not seeded yet: its start is sent again');
      out.push(jobEvent(job.tenant, id, 'started', {}, now));
      continue;
    }
    const pace = await paceOf(deps, job, signal);
    let resent = 0;
    for (const [field, at] of Object.entries(await deps.state.hgetall(sentAtKey(id)))) {
      if (Number(at) > repair.sentBy) continue;
      const seq = Number(field);
      const page = await peekInFlight(deps.state, id, seq);
      if (!page) continue;
      await deps.state.hset(sentAtKey(id), { [field]: String(now) });
      out.push(pageRequest(job, seq, page, pace, now));
      resent++;
    }
    if (resent > 0 && repair.reason === 'stalled') deps.log.warn({ jobId: id, pages: resent, stallMs: now - repair.sentBy }, 'job stalled: its pages in flight are sent again');
    if (repair.reason === 'resumed') deps.log.info({ jobId: id, pages: resent }, 'job resumed after a restart: its pages in flight are sent again');
    await advanceWatermark(deps.state, id);
    out.push(...(await pump(deps, job, pace, signal)));
    const finished = await finish(deps, id);
    out.push(...finished.emit);
    if (finished.emit.length > 0 || finished.final) await snapshotJob(deps, id);
  }
  return { emit: out, jobs: due.length };
}
