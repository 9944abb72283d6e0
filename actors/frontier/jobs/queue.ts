/**
 * A job's frontier in coordination state (pipeline/runtime/state), so a 100,000-page crawl grows
 * Redis (or the embedded state), never a frontier process. Its WorkQueueKeys, the job's id their
 * hash tag (`job:{<id>}…`, pipeline/jobs/record.ts: one Redis Cluster slot for the job):
 *
 * - `job:{<id>}:seen`     set of dedupe keys of every URL the job has looked at;
 * - `job:{<id>}:queue`    FIFO of URLs accepted but not scheduled yet (`{url, depth}` JSON);
 * - `job:{<id>}`          the job's hash (pipeline/jobs/record.ts) holds the counters: total,
 *                         seq, inflight, completed, failed, creditsUsed, watermark;
 * - `job:{<id>}:pages`    hash seq → `{url, depth}` of pages in flight (deleted when settled,
 *                         which makes settling idempotent under redelivery);
 * - `job:{<id>}:sentAt`   hash seq → when the page was sent (ms), for the stall watchdog;
 * - `job:{<id>}:settled`  seqs settled above the watermark (see `advanceWatermark`);
 * - `job:{<id>}:stored`   seqs of pages stored above the watermark: the watermark counts them
 *                         into `listed` as it passes them (what the listing holds);
 * - `job:{<id>}:depths`   hash dedupe key → the smallest link depth the URL was found at: with
 *                         many pages in flight a URL may first be found through a longer path,
 *                         and a page follows its links by its smallest depth (`depthOf`).
 *
 * A URL (or a page's links together) is offered, a page claimed and a page settled in one
 * atomic state step each (State.queueAdmit or queueAdmitMany, queueClaim, queueSettle), so a
 * frontier process killed at any point leaves every URL either untouched or wholly moved, and
 * any number of frontier handlers may work on one job at once.
 */
import { jobKey, jobPartKey } from '../../../pipeline/jobs/record.js';
import { QUEUE_OFFERS_MAX, type Admission, type QueueOffer, type State, type WorkQueueKeys } from '../../../pipeline/runtime/state/state.js';
import type { Candidate } from './scope.js';

export const seenKey = (id: string) => jobPartKey(id, 'seen');
export const queueKey = (id: string) => jobPartKey(id, 'queue');
export const pagesKey = (id: string) => jobPartKey(id, 'pages');
export const sentAtKey = (id: string) => jobPartKey(id, 'sentAt');
export const settledKey = (id: string) => jobPartKey(id, 'settled');
export const depthsKey = (id: string) => jobPartKey(id, 'depths');
export const storedKey = (id: string) => jobPartKey(id, 'stored');
export const seededKey = (id: string) => jobPartKey(id, 'seeded');
export const lastRequestKey = (id: string) => jobPartKey(id, 'last');

export function workQueueOf(id: string): WorkQueueKeys {
  return { seen: seenKey(id), queue: queueKey(id), counters: jobKey(id), claims: pagesKey(id), claimedAt: sentAtKey(id), settled: settledKey(id), ranks: depthsKey(id) };
}

export interface QueuedPage {
  readonly url: string;
  readonly depth: number;
  /** Its dedupe key (absent in items queued before keys were kept). */
  readonly key?: string;
}

export type { Admission };

/** Whether the job has looked at this URL already (a cheap check before robots.txt). */
export function seenBefore(state: State, jobId: string, candidate: Candidate): Promise<boolean> {
  return state.sismember(seenKey(jobId), candidate.key);
}

/** Marks a URL seen without queueing it (robots.txt disallows it); true when it had not been. */
export async function markSeen(state: State, jobId: string, candidate: Candidate): Promise<boolean> {
  return (await state.sadd(seenKey(jobId), candidate.key)) === 1;
}

/** Offers a URL: seen once, counted into `total` and queued unless the job holds `limit` already. */
export function enqueue(state: State, jobId: string, candidate: Candidate, depth: number, limit: number): Promise<Admission> {
  const { dedupeKey, item, rank } = offerOf(candidate, depth);
  return state.queueAdmit(workQueueOf(jobId), dedupeKey, item, limit, rank);
}

/** A URL as the job's queue takes it: deduped by its key, queued as `{url, depth, key}`, ranked by its depth. */
function offerOf(candidate: Candidate, depth: number): QueueOffer {
  const item: QueuedPage = { url: candidate.url, depth, key: candidate.key };
  return { dedupeKey: candidate.key, item: JSON.stringify(item), rank: depth };
}

/**
 * Offers URLs in order, as `enqueue` one by one would, in one state step for each
 * QUEUE_OFFERS_MAX of them (State.queueAdmitMany: a page's links are one Redis round trip, not
 * one each): `full` when the job filled up before the last was offered (those after it were
 * not looked at), else `open`.
 */
export async function enqueueAll(state: State, jobId: string, candidates: readonly Candidate[], depth: number, limit: number): Promise<'full' | 'open'> {
  const queue = workQueueOf(jobId);
  for (let i = 0; i < candidates.length; i += QUEUE_OFFERS_MAX) {
    const offers = candidates.slice(i, i + QUEUE_OFFERS_MAX).map((c) => offerOf(c, depth));
    if ((await state.queueAdmitMany(queue, offers, limit)).at(-1) === 'full') return 'full';
  }
  return 'open';
}

/** Gives the job's working keys the job's retention, so an abandoned job's state expires. */
export async function expireWorkingKeys(state: State, jobId: string, ttlMs: number): Promise<void> {
  for (const key of [seenKey(jobId), queueKey(jobId), pagesKey(jobId), sentAtKey(jobId), settledKey(jobId), depthsKey(jobId), storedKey(jobId)]) await state.expire(key, ttlMs);
}

/** Drops the working keys of an ended job once nothing of it is in flight (the seeded latch expires with the job). */
export async function dropWorkingKeys(state: State, jobId: string): Promise<void> {
  await state.del(seenKey(jobId), queueKey(jobId), pagesKey(jobId), sentAtKey(jobId), depthsKey(jobId), storedKey(jobId), lastRequestKey(jobId));
}

export function parsePage(json: string | null): QueuedPage | null {
  if (!json) return null;
  try {
    const v = JSON.parse(json) as Partial<QueuedPage>;
    if (typeof v.url !== 'string' || typeof v.depth !== 'number') return null;
    return typeof v.key === 'string' ? { url: v.url, depth: v.depth, key: v.key } : { url: v.url, depth: v.depth };
  } catch {
    return null;
  }
}

/** A page in flight: its `{url, depth}`, or null when it is settled already or was never scheduled. */
export async function peekInFlight(state: State, jobId: string, seq: number): Promise<QueuedPage | null> {
  const json = await state.hget(pagesKey(jobId), String(seq));
  return json === null ? null : (parsePage(json) ?? { url: '', depth: Number.MAX_SAFE_INTEGER });
}

/** A page's smallest known link depth: found again through a shorter path, it is that one. */
export async function depthOf(state: State, jobId: string, page: QueuedPage): Promise<number> {
  if (page.key === undefined || page.depth === 0) return page.depth;
  const least = Number(await state.hget(depthsKey(jobId), page.key));
  return Number.isSafeInteger(least) ? Math.min(least, page.depth) : page.depth;
}

/**
 * Settles a page in flight once: out of flight, `counts` added to the job's counters, its seq
 * marked settled; true for the one call that did (a redelivery finds it gone). `stored`: the
 * page is marked stored in the same step, whether or not this call settles it (a redelivered
 * event, or a copy stored after another failed), so the watermark counts it into `listed`
 * when it passes it. Marking twice is marking once.
 */
export function takeInFlight(state: State, jobId: string, seq: number, counts: Readonly<Record<string, number>>, stored = false): Promise<boolean> {
  return state.queueSettle(workQueueOf(jobId), seq, counts, stored ? storedKey(jobId) : undefined);
}

/**
 * Moves the job's watermark over every consecutive settled seq (takeInFlight marks them), and
 * `listed` over the stored pages among them, in one atomic state step (State.queueAdvance):
 * the pages listing reads up to the watermark, and the status answers `listed` as
 * `completed`, so the two always agree. Any number of handlers may move it at once; a seq
 * is never left above a watermark nobody moves (the stall watchdog moves it again too).
 */
export async function advanceWatermark(state: State, jobId: string): Promise<void> {
  await state.queueAdvance(workQueueOf(jobId), storedKey(jobId));
}
