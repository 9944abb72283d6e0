/**
 * POST /v1/domain/history/snapshots: loads the archived snapshots a report left pending. It
 * reads the key's newest report on the domain (none: `null`, a 404 for the caller), plans the
 * years as the report did from the captures it kept (`snapshots`, the figure the report
 * used), or takes the `years` given, and reads each year not loaded yet through the scrape
 * path within the budget; years still not read stay `pending` and the call is repeated.
 *
 * Charging (rule 8): a year this key has loaded before is answered from the store, free; a
 * year the report included is free within 7 days of the report; any other year loaded costs
 * PRICES.loadedSnapshot. A year with no capture (`unavailable`), a year not read in time and
 * one the archive could not serve cost nothing.
 */
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import { loadYears } from './archive.js';
import type { HistoryEvidence } from './evidence.js';
import { planYears, SNAPSHOT_CHARGES, snapshotCharge, type ArchiveCapture, type SnapshotCharge, type SnapshotEvidence } from './history.js';
import type { DomainName } from './names.js';
import type { ReadPage } from './pages.js';
import { latestReport, storedSnapshots, writeSnapshots } from './records.js';
import { reportConcerns } from './rules.js';
import type { IntelSources } from './sources.js';

export interface SnapshotsRequest {
  readonly name: DomainName;
  readonly years: readonly number[] | null;
  readonly snapshots: number;
}

export interface SnapshotsContext {
  readonly tenant: string;
  readonly sources: Pick<IntelSources, 'store'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly readPage: ReadPage;
  readonly pageTimeoutMs: number;
  readonly pageConcurrency: number;
  readonly now: () => number;
  /** Aborted when the budget ends or the request is given up. */
  readonly signal: AbortSignal;
}

/** The most a load can cost: each year it may load at the loaded price. */
export function snapshotsEstimate(request: { readonly years?: readonly number[] | null; readonly snapshots?: number }): number {
  return (request.years ? new Set(request.years).size : (request.snapshots ?? 6)) * SNAPSHOT_CHARGES.loaded.credits;
}

export async function loadSnapshots(request: SnapshotsRequest, ctx: SnapshotsContext): Promise<{ answer: Record<string, unknown>; credits: number } | null> {
  const domain = request.name.domain;
  const report = await latestReport(ctx.sources.store, ctx.tenant, domain);
  if (!report) return null;
  const byYear = new Map(report.captures.map((c) => [c.year, c]));
  const wanted = request.years ? [...new Set(request.years)].sort((a, b) => b - a) : planYears(report.captures, request.snapshots);
  const unavailable = wanted.filter((y) => !byYear.has(y));
  const stored = await storedSnapshots(ctx.sources.store, ctx.tenant, domain);
  const toRead = wanted.filter((y) => byYear.has(y) && !stored.has(y)).map((y) => byYear.get(y) as ArchiveCapture);
  const read = await loadYears(toRead, { readPage: ctx.readPage, pageTimeoutMs: ctx.pageTimeoutMs, concurrency: ctx.pageConcurrency, signal: ctx.signal });
  const nowMs = ctx.now();
  const charged = (s: SnapshotEvidence, isStored: boolean): SnapshotCharge => snapshotCharge(s.year, { stored: isStored, included: report.included, report, nowMs });
  const snapshots = [
    ...wanted.flatMap((y) => {
      const kept = stored.get(y);
      return kept ? [{ ...kept.evidence, charge: 'stored' as SnapshotCharge }] : [];
    }),
    ...read.loaded.map((s) => ({ ...s, charge: charged(s, false) })),
  ].sort((a, b) => b.year - a.year);
  await writeSnapshots(ctx.writer, ctx.tenant, domain, read.loaded.map((evidence) => ({ year: evidence.year, loadedAtMs: nowMs, reportId: report.id, evidence })));
  const credits = snapshots.reduce((sum, s) => sum + SNAPSHOT_CHARGES[s.charge].credits, 0);
  // Every snapshot this key holds for the domain now, for the history's concerns.
  const all = new Map([...stored.values()].map((s) => [s.year, s.evidence]));
  for (const s of read.loaded) all.set(s.year, s);
  const history: HistoryEvidence = { captures: report.captures, snapshots: [...all.values()].sort((a, b) => b.year - a.year), pending: read.pending, failed: read.failed };
  const concerns = reportConcerns({ registration: null, dns: null, mail: null, website: null, history, backlinks: null, links: null }, nowMs);
  return {
    answer: {
      domain,
      unicode: request.name.unicode,
      reportId: report.id,
      reportedAt: new Date(report.createdAtMs).toISOString(),
      snapshots,
      pending: read.pending,
      failed: read.failed,
      unavailable,
      concerns,
    },
    credits,
  };
}
