/**
 * Reading a domain's archive: its yearly captures from the Wayback Machine's index
 * (`archiveCaptures`), and the archived home pages of chosen years through the scrape path
 * within a time budget (`loadYears`): what is read in time is loaded; what is not, or failed
 * in a way worth trying again (a timeout, a 429 or 5xx, any retriable error code), stays
 * pending; what the archive could not serve (a 404, a refused URL) has failed.
 */
import { ERRORS, isErrorCode } from '../../schemas/errors.js';
import { mapBounded } from '../runtime/bounded.js';
import type { SnapshotFailure } from './evidence.js';
import { snapshotEvidence, type ArchiveCapture, type SnapshotEvidence } from './history.js';
import type { ReadPage } from './pages.js';
import type { IntelSources, SourceLimits } from './sources.js';

/**
 * An archived page never changes: a cached copy of one is good for this long. The snapshots
 * are not stored as pages (their links are the past's: they would pass for today's backlinks,
 * and the local index would answer searches with them); the report's own records keep them.
 */
export const ARCHIVE_MAX_AGE_MS = 30 * 86_400_000;

export async function archiveCaptures(domain: string, sources: Pick<IntelSources, 'wayback'>, limits: Pick<SourceLimits, 'waybackTimeoutMs'>, signal?: AbortSignal): Promise<ArchiveCapture[]> {
  const captures = await sources.wayback.yearly(domain, { timeoutMs: limits.waybackTimeoutMs, ...(signal ? { signal } : {}) });
  return captures.map((c) => ({ year: c.year, timestamp: c.timestamp, original: c.original, archiveUrl: sources.wayback.snapshotUrl(c) }));
}

export interface LoadedYears {
  readonly loaded: readonly SnapshotEvidence[];
  readonly failed: readonly SnapshotFailure[];
  /** Years not read by the budget's end. */
  readonly pending: readonly number[];
}

export interface LoadContext {
  readonly readPage: ReadPage;
  readonly pageTimeoutMs: number;
  readonly concurrency: number;
  /** Aborted when the budget ends (or the request is given up): reads still running stop, the rest stay pending. */
  readonly signal: AbortSignal;
}

/** Reads the archived home page of each capture, `concurrency` at a time, until `ctx.signal` aborts. */
export async function loadYears(captures: readonly ArchiveCapture[], ctx: LoadContext): Promise<LoadedYears> {
  const loaded: SnapshotEvidence[] = [];
  const failed: SnapshotFailure[] = [];
  const pending: number[] = [];
  const outcomes = await mapBounded(
    captures,
    ctx.concurrency,
    async (capture) => {
      const read = await ctx.readPage(capture.archiveUrl, { maxAgeMs: ARCHIVE_MAX_AGE_MS, store: false, timeoutMs: ctx.pageTimeoutMs, signal: ctx.signal });
      return { capture, read };
    },
    ctx.signal,
  );
  captures.forEach((capture, i) => {
    const outcome = outcomes[i];
    if (!outcome || (ctx.signal.aborted && !outcome.read.ok)) return void pending.push(capture.year);
    const { read } = outcome;
    if (!read.ok) {
      if (isErrorCode(read.code) && ERRORS[read.code].retriable) return void pending.push(capture.year);
      return void failed.push({ year: capture.year, code: read.code, message: read.message });
    }
    const status = read.page.statusCode;
    if (status === 429 || status >= 500) return void pending.push(capture.year);
    if (status >= 400) return void failed.push({ year: capture.year, code: 'archive_page_failed', message: `the archive answered ${status} for the ${capture.year} snapshot` });
    loaded.push(snapshotEvidence(capture, read.page));
  });
  return { loaded: loaded.sort((a, b) => b.year - a.year), failed, pending: pending.sort((a, b) => b - a) };
}
