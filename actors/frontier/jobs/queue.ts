/**
 * A job's frontier in coordination state (pipeline/state), so a 100,000-page crawl grows
 * Redis (or the embedded state), never a frontier process:
 *
 * - `job:<id>:seen`    set of dedupe keys of every URL the job has looked at;
 * - `job:<id>:queue`   FIFO of URLs accepted but not scheduled yet (`{url, depth}` JSON);
 * - `job:<id>:pages`   hash seq → `{url, depth}` of pages in flight (deleted when settled,
 *                      which makes settling idempotent under redelivery);
 * - `job:<id>:settled` seqs settled above the watermark (see `advanceWatermark`);
 * - counters on the job's hash (pipeline/jobs/record.ts): total, inflight, seq, completed,
 *   failed, creditsUsed, watermark.
 *
 * Every step is one atomic state operation or a compensated pair (`hincrby` then `-1`), so
 * any number of frontier handlers may work on one job at once.
 */
import { sleep } from '../../../pipeline/retry.js';
import { jobKey } from '../../../pipeline/jobs/record.js';
import type { State } from '../../../pipeline/state/state.js';
import type { Candidate } from './scope.js';

export const seenKey = (id: string) => `job:${id}:seen`;
export const queueKey = (id: string) => `job:${id}:queue`;
export const pagesKey = (id: string) => `job:${id}:pages`;
export const settledKey = (id: string) => `job:${id}:settled`;
export const seededKey = (id: string) => `job:${id}:seeded`;
export const lastRequestKey = (id: string) => `job:${id}:last`;

export interface QueuedPage {
  readonly url: string;
  readonly depth: number;
}

export type Admission = 'added' | 'seen' | 'full';

/** Marks a URL seen; true when it had not been. */
export async function firstSight(state: State, jobId: string, candidate: Candidate): Promise<boolean> {
  return (await state.sadd(seenKey(jobId), candidate.key)) === 1;
}

/** Counts a URL seen for the first time into the job and queues it, unless the job holds `limit` already. */
export async function enqueue(state: State, jobId: string, candidate: Candidate, depth: number, limit: number): Promise<Admission> {
  const total = await state.hincrby(jobKey(jobId), 'total', 1);
  if (total > limit) {
    await state.hincrby(jobKey(jobId), 'total', -1);
    return 'full';
  }
  const item: QueuedPage = { url: candidate.url, depth };
  await state.push(queueKey(jobId), JSON.stringify(item));
  return 'added';
}

/** Gives the job's working keys the job's retention, so an abandoned job's state expires. */
export async function expireWorkingKeys(state: State, jobId: string, ttlMs: number): Promise<void> {
  for (const key of [seenKey(jobId), queueKey(jobId), pagesKey(jobId), settledKey(jobId)]) await state.expire(key, ttlMs);
}

/** Drops the working keys of an ended job once nothing of it is in flight (the seeded latch expires with the job). */
export async function dropWorkingKeys(state: State, jobId: string): Promise<void> {
  await state.del(seenKey(jobId), queueKey(jobId), pagesKey(jobId), lastRequestKey(jobId));
}

function parsePage(json: string | null): QueuedPage | null {
  if (!json) return null;
  try {
    const v = JSON.parse(json) as Partial<QueuedPage>;
    return typeof v.url === 'string' && typeof v.depth === 'number' ? { url: v.url, depth: v.depth } : null;
  } catch {
    return null;
  }
}

export async function popQueued(state: State, jobId: string): Promise<QueuedPage | null | undefined> {
  const [item] = await state.pop(queueKey(jobId), 1);
  return item === undefined ? undefined : parsePage(item);
}

export async function putInFlight(state: State, jobId: string, seq: number, page: QueuedPage): Promise<void> {
  await state.hset(pagesKey(jobId), { [String(seq)]: JSON.stringify(page) });
}

/** A page in flight: its `{url, depth}`, or null when it is settled already or was never scheduled. */
export async function peekInFlight(state: State, jobId: string, seq: number): Promise<QueuedPage | null> {
  const json = await state.hget(pagesKey(jobId), String(seq));
  return json === null ? null : (parsePage(json) ?? { url: '', depth: Number.MAX_SAFE_INTEGER });
}

/** Takes a page out of flight; true for the one call that did (a redelivery finds it gone). */
export async function takeInFlight(state: State, jobId: string, seq: number): Promise<boolean> {
  return (await state.hdel(pagesKey(jobId), String(seq))) === 1;
}

const WATERMARK_LOCK_TTL_MS = 5_000;

/**
 * Records `seq` as settled and moves the job's watermark over every consecutive settled
 * seq. One handler moves it at a time (a lock); one that finds the lock taken waits for it,
 * so a seq is never left above a watermark nobody moves.
 */
export async function advanceWatermark(state: State, jobId: string, seq: number): Promise<void> {
  await state.sadd(settledKey(jobId), String(seq));
  let lock = await state.lock(`job:${jobId}:watermark`, WATERMARK_LOCK_TTL_MS);
  for (let i = 0; !lock && i < 500; i++) {
    await sleep(2);
    lock = await state.lock(`job:${jobId}:watermark`, WATERMARK_LOCK_TTL_MS);
  }
  if (!lock) return;
  try {
    let mark = Number(await state.hget(jobKey(jobId), 'watermark')) || 0;
    const moved: string[] = [];
    while (await state.sismember(settledKey(jobId), String(mark + 1))) moved.push(String(++mark));
    if (moved.length) {
      await state.hset(jobKey(jobId), { watermark: String(mark) });
      await state.srem(settledKey(jobId), ...moved);
    }
  } finally {
    await lock.release();
  }
}
