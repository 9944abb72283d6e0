/**
 * What domain reports keep, per key (infra/clickhouse/0011_domains.sql): each report with the
 * archive captures it found and the years its price included (`domain_reports`), and each
 * archived snapshot a key has loaded (`domain_snapshots`), reused by later reports and
 * snapshot loads of that key. Every read names the tenant: another key's records are never
 * seen (a snapshot load for a domain this key has no report on is a 404).
 */
import { parseJsonObject } from '../runtime/json.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';
import type { ArchiveCapture, SnapshotEvidence } from './history.js';

export type ReportDepth = 'quick' | 'buyer' | 'deep';

export interface ReportRecord {
  readonly id: string;
  readonly tenant: string;
  readonly domain: string;
  readonly createdAtMs: number;
  readonly depth: ReportDepth;
  /** The `snapshots` figure the report used. */
  readonly snapshots: number;
  /** Years whose snapshots the report's flat price included. */
  readonly included: readonly number[];
  /** The archive's yearly captures of the home page, oldest first (empty when the archive did not answer). */
  readonly captures: readonly ArchiveCapture[];
}

export interface StoredSnapshot {
  readonly year: number;
  readonly loadedAtMs: number;
  readonly reportId: string;
  readonly evidence: SnapshotEvidence;
}

type Writer = Pick<BatchWriter, 'write'>;
type Reader = Pick<Store, 'query'>;

export async function writeReport(writer: Writer, report: ReportRecord, answer: Record<string, unknown>): Promise<void> {
  await writer.write('domain_reports', [
    {
      tenant: report.tenant,
      domain: report.domain,
      id: report.id,
      created_at: new Date(report.createdAtMs),
      depth: report.depth,
      snapshots: report.snapshots,
      included: [...report.included],
      captures: JSON.stringify(report.captures),
      answer: JSON.stringify(answer),
    },
  ]);
}

interface ReportRow {
  readonly id: string;
  readonly created_ms: string | number;
  readonly depth: string;
  readonly snapshots: string | number;
  readonly included: readonly (string | number)[];
  readonly captures: string;
}

const LATEST_REPORT = `
SELECT id, toUnixTimestamp64Milli(created_at) AS created_ms, depth, snapshots, included, captures
FROM domain_reports
WHERE tenant = {tenant:String} AND domain = {domain:String}
ORDER BY created_at DESC, id DESC
LIMIT 1`;

/** The stored captures (the service's own JSON array); anything else reads as none. */
function capturesOf(text: string): ArchiveCapture[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as ArchiveCapture[]) : [];
  } catch {
    return [];
  }
}

/** The key's newest report on `domain`, or null when it has none. */
export async function latestReport(store: Reader, tenant: string, domain: string): Promise<ReportRecord | null> {
  const [row] = await store.query<ReportRow>(LATEST_REPORT, { tenant, domain });
  if (!row) return null;
  return {
    id: row.id,
    tenant,
    domain,
    createdAtMs: Number(row.created_ms),
    depth: row.depth as ReportDepth,
    snapshots: Number(row.snapshots),
    included: row.included.map(Number),
    captures: capturesOf(row.captures),
  };
}

export async function writeSnapshots(writer: Writer, tenant: string, domain: string, snapshots: readonly StoredSnapshot[]): Promise<void> {
  if (snapshots.length === 0) return;
  await writer.write(
    'domain_snapshots',
    snapshots.map((s) => ({
      tenant,
      domain,
      year: s.year,
      timestamp: s.evidence.timestamp,
      loaded_at: new Date(s.loadedAtMs),
      report_id: s.reportId,
      evidence: JSON.stringify(s.evidence),
    })),
  );
}

interface SnapshotRow {
  readonly year: string | number;
  readonly loaded_ms: string | number;
  readonly report_id: string;
  readonly evidence: string;
}

const SNAPSHOTS = `
SELECT year, toUnixTimestamp64Milli(loaded_at) AS loaded_ms, report_id, evidence
FROM domain_snapshots FINAL
WHERE tenant = {tenant:String} AND domain = {domain:String}
ORDER BY year`;

/** The snapshots this key has loaded for `domain`, by year. */
export async function storedSnapshots(store: Reader, tenant: string, domain: string): Promise<Map<number, StoredSnapshot>> {
  const rows = await store.query<SnapshotRow>(SNAPSHOTS, { tenant, domain });
  const out = new Map<number, StoredSnapshot>();
  for (const row of rows) {
    const evidence = parseJsonObject(row.evidence) as SnapshotEvidence | null;
    if (!evidence) continue;
    out.set(Number(row.year), { year: Number(row.year), loadedAtMs: Number(row.loaded_ms), reportId: row.report_id, evidence });
  }
  return out;
}
