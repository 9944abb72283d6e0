/**
 * Runs of recurring work, versioned rows read with FINAL: a monitor's checks (monitor_checks,
 * pipeline/monitors/checks.ts) and a watch's collections (watch_collections,
 * pipeline/mentions/collections.ts). Both records show, per parent, its newest run and its
 * newest completed one, and the frontier resumes the unfinished runs and rebuilds each
 * schedule from the newest scheduled run; the reads differ only in the table, the parent's id
 * column and the columns returned, all of them the caller's constants.
 */
import type { Store } from './store.js';

/** The columns every run row has, as read (times in epoch ms). */
export interface RunRow {
  readonly tenant: string;
  readonly id: string;
  readonly trigger: string;
  readonly status: string;
  readonly reason: string;
  readonly scheduled_ms: string | number;
  readonly queued_ms: string | number;
  readonly started_ms: string | number | null;
  readonly finished_ms: string | number | null;
  readonly credits_used: string | number;
}

const msOrNull = (value: string | number | null) => (value === null ? null : Number(value));

/** A run row's common columns as a record's fields (trigger and status are the caller's to type). */
export function runFields(row: RunRow) {
  return {
    id: row.id,
    tenant: row.tenant,
    reason: row.reason,
    scheduledAtMs: Number(row.scheduled_ms),
    queuedAtMs: Number(row.queued_ms),
    startedAtMs: msOrNull(row.started_ms),
    finishedAtMs: msOrNull(row.finished_ms),
    creditsUsed: Number(row.credits_used),
  };
}

export interface RunTable {
  readonly table: string;
  /** The parent's id column (`monitor_id`, `watch_id`). */
  readonly parent: string;
  /** The SELECT list. */
  readonly columns: string;
}

/**
 * Per parent of a tenant: its newest completed run and its newest run of any other status (at
 * most two rows a parent). One query, so one snapshot of the table: two reads in parallel could
 * see a run finish between them, and show it at once as the parent's current run and as its
 * last completed one. Params: tenant, parentIds.
 */
export function newestRunsSql(runs: RunTable): string {
  return `
SELECT ${runs.columns} FROM ${runs.table} FINAL
WHERE tenant = {tenant:String} AND ${runs.parent} IN {parentIds:Array(String)}
ORDER BY ${runs.parent}, id DESC
LIMIT 1 BY ${runs.parent}, status = 'completed'`;
}

export interface NewestRuns<R> {
  /** Parent id → its newest run. */
  readonly newest: Map<string, R>;
  /** Parent id → its newest completed run. */
  readonly completed: Map<string, R>;
}

/** Per parent: its newest run and its newest completed one, as records, from one read (newestRunsSql). */
export async function newestRuns<Row extends RunRow, R>(
  store: Pick<Store, 'query'>,
  runs: RunTable,
  tenant: string,
  parentIds: readonly string[],
  recordOf: (row: Row) => R,
): Promise<NewestRuns<R>> {
  const newest = new Map<string, R>();
  const completed = new Map<string, R>();
  if (parentIds.length === 0) return { newest, completed };
  const newestIds = new Map<string, string>();
  for (const row of await store.query<Row>(newestRunsSql(runs), { tenant, parentIds })) {
    const parent = String((row as Record<string, unknown>)[runs.parent]);
    const record = recordOf(row);
    if (row.status === 'completed') completed.set(parent, record);
    // Ids sort by creation time: the larger of the parent's two rows is its newest run.
    const seen = newestIds.get(parent);
    if (seen === undefined || row.id > seen) {
      newestIds.set(parent, row.id);
      newest.set(parent, record);
    }
  }
  return { newest, completed };
}

/**
 * How far back unfinished runs are resumed: older ones are abandoned (a run two days late
 * tells nothing the next one will not).
 */
export const RESUME_WINDOW_DAYS = 2;

/** How far back the schedule's anchor is looked for: the longest interval (a week) and a day. */
export const ANCHOR_WINDOW_DAYS = 8;

const DAY_MS = 86_400_000;

/**
 * Every tenant's runs queued in the last RESUME_WINDOW_DAYS and not finished (queued or
 * running), oldest first: the frontier resumes them. Reads those days' partitions only.
 * `nowMs` comes from the caller's injected clock, never the store's own, so a test's fixed
 * clock decides what is recent.
 */
export async function unfinishedRuns<Row extends object, R>(store: Pick<Store, 'query'>, runs: RunTable, recordOf: (row: Row) => R, nowMs: number): Promise<R[]> {
  const sql = `
SELECT ${runs.columns} FROM ${runs.table} FINAL
WHERE queued_at >= fromUnixTimestamp64Milli({sinceMs:Int64}) AND status IN ('queued', 'running')
ORDER BY id`;
  return (await store.query<Row>(sql, { sinceMs: nowMs - RESUME_WINDOW_DAYS * DAY_MS })).map(recordOf);
}

/**
 * `tenant/parentId` → when the parent's newest scheduled run was due (ms), within the longest
 * interval and a day (a parent with none since is scheduled from its creation, on the same
 * grid's terms): the schedule rebuild's anchor.
 */
export async function lastScheduledRuns(store: Pick<Store, 'query'>, runs: RunTable, nowMs: number): Promise<Map<string, number>> {
  const sql = `
SELECT tenant, ${runs.parent} AS parent, toUnixTimestamp64Milli(max(scheduled_at)) AS scheduled_ms
FROM ${runs.table}
WHERE queued_at >= fromUnixTimestamp64Milli({sinceMs:Int64}) AND trigger = 'scheduled'
GROUP BY tenant, parent`;
  const rows = await store.query<{ tenant: string; parent: string; scheduled_ms: string | number }>(sql, { sinceMs: nowMs - ANCHOR_WINDOW_DAYS * DAY_MS });
  return new Map(rows.map((r) => [`${r.tenant}/${r.parent}`, Number(r.scheduled_ms)]));
}
