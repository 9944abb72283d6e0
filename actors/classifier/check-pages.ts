/**
 * A monitor check's pages: each read through the scrape path with the check's own options, and
 * what the check knows of its previous snapshot before judging it (the digest kept in state,
 * else the store's snapshot), then the new snapshot and its digest recorded.
 */
import { digestMatch, hasNoiseFreeHash, keepDigest, monitorSnapshots, recordMonitorSnapshot, snapshotDigest, storedDigest } from '../../pipeline/monitors/snapshots.js';
import type { CheckRecord } from '../../pipeline/monitors/checks.js';
import type { PageSnapshot } from '../../pipeline/pages/changes.js';
import { ownReadOptions, scrapeRequestFields, scrapeTopic } from '../../pipeline/pages/scrape-request.js';
import { ask, failedReply, PIPELINE_SLACK_MS, type ReplyValue } from '../../pipeline/runtime/request-reply.js';
import type { WriteOptions } from '../../pipeline/runtime/store/batch-writer.js';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import type { CheckDeps, CheckMonitor } from './check-deps.js';
import { judgedAgainstPrevious } from './judge.js';

/**
 * The scrape options of a monitor's page: markdown of the main content, never from the cache
 * (a check wants the page as it is now) and not kept in it: the check keeps what it needs,
 * the page's snapshot in the monitor's history (pipeline/monitors/snapshots.ts), and a copy
 * in `pages` with its search index rows would cost the check three more inserts, most of a
 * check's CPU (bench/README.md, monitors), for a cache no monitor reads. A later scrape with
 * `maxAge` finds the copies scrapes stored, as old as they are, or fetches the page fresh.
 * The monitor's page timeout; the other fields at the defaults the gateway's validation fills
 * in (schemas/api/scrape-options.ts).
 */
export function checkScrapeOptions(timeoutMs: number): ScrapeOptions {
  return ownReadOptions({ formats: ['markdown'], onlyMainContent: true, maxAge: 0, storeInCache: false, timeout: timeoutMs });
}

/** One page of the check through the scrape path; a page that could not be read is a failed reply, never a thrown error. */
export async function readPage(deps: CheckDeps, check: CheckRecord, url: string, position: number, signal: AbortSignal): Promise<ReplyValue> {
  const fields = scrapeRequestFields(checkScrapeOptions(deps.pageTimeoutMs));
  const ctx = { requestId: `${check.id}:${position + 1}`, tenant: check.tenant, signal };
  try {
    const requester = await deps.requester();
    return await ask(requester, ctx, scrapeTopic(fields), { jobId: null, url, ...fields }, deps.pageTimeoutMs + PIPELINE_SLACK_MS);
  } catch (error) {
    return failedReply(error);
  }
}

/** What the check knows of a page's previous snapshot before judging it. */
export interface Previous {
  /** The snapshot to judge against (the page as read now when its digest said it is the same). */
  readonly previous: PageSnapshot | null;
  /** The digest state had for the page; null when none. */
  readonly kept: string | null;
  /** `previous` is the page as read now, which the kept digest said its snapshot is (up to noise when movedByNoise). */
  readonly fromState: boolean;
  /** The page differs from its snapshot only by noise, known from the digests without reading the snapshot. */
  readonly movedByNoise: boolean;
}

/**
 * The page's previous snapshot: when the page reads back with the digest state keeps for it,
 * the snapshot that digest stands for (the same status and normalized text, which is all the
 * judgement reads of it), and when it reads back the same but for noise, only that
 * (`movedByNoise`: judged by judgeMovedByNoise); neither reads the store. Else the store's.
 */
export async function previousOf(deps: CheckDeps, monitor: CheckMonitor, url: string, current: PageSnapshot | null): Promise<Previous> {
  // A page that could not be read, or answered an error, is judged without its previous snapshot.
  if (!current || !judgedAgainstPrevious(current)) return { previous: null, kept: null, fromState: false, movedByNoise: false };
  const kept = await storedDigest(deps.state, monitor.id, url);
  const match = kept === null ? null : digestMatch(kept, current);
  if (match !== null) return { previous: current, kept, fromState: true, movedByNoise: match === 'noise' };
  const previous = (await monitorSnapshots(deps.store, monitor.tenant, monitor.id, [url])).get(url) ?? null;
  return { previous, kept, fromState: false, movedByNoise: false };
}

/** Records the page's new snapshot, then its digest (the digest says the snapshot landed). */
export async function recordSnapshot(deps: CheckDeps, check: CheckRecord, url: string, snapshot: PageSnapshot, options: WriteOptions = {}): Promise<void> {
  await recordMonitorSnapshot(deps.writer, check.tenant, check.monitorId, url, snapshot, options);
  await keepDigest(deps.state, check.monitorId, url, snapshotDigest(snapshot));
}

/**
 * When the page's snapshot stays: its digest kept, if state did not have it (the snapshot was
 * read from the store) or had it in the older form.
 */
export async function keepDigestOf(deps: CheckDeps, monitorId: string, url: string, known: Previous): Promise<void> {
  if (!known.previous || (known.fromState && known.kept !== null && hasNoiseFreeHash(known.kept))) return;
  const digest = snapshotDigest(known.previous);
  if (digest !== known.kept) await keepDigest(deps.state, monitorId, url, digest);
}
