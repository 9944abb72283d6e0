/**
 * Runs of recurring work, versioned rows read with FINAL: a monitor's checks (monitor_checks,
 * pipeline/monitors/checks.ts) and a watch's collections (watch_collections,
 * pipeline/mentions/collections.ts). Both records show, per parent, its newest run and its
 * newest completed one; the reads differ only in the table, the parent's id column and the
 * columns returned, all of them the caller's constants.
 */
import type { Store } from './store.js';

export interface RunTable {
  readonly table: string;
  /** The parent's id column (`monitor_id`, `watch_id`). */
  readonly parent: string;
  /** The SELECT list. */
  readonly columns: string;
}

/** The newest run (with `completedOnly`, the newest completed run) of each of a tenant's parents. Params: tenant, parentIds. */
export function newestRunsSql(runs: RunTable, completedOnly: boolean): string {
  return `
SELECT ${runs.columns} FROM ${runs.table} FINAL
WHERE tenant = {tenant:String} AND ${runs.parent} IN {parentIds:Array(String)}${completedOnly ? " AND status = 'completed'" : ''}
ORDER BY ${runs.parent}, id DESC
LIMIT 1 BY ${runs.parent}`;
}

export interface NewestRuns<R> {
  /** Parent id → its newest run. */
  readonly newest: Map<string, R>;
  /** Parent id → its newest completed run. */
  readonly completed: Map<string, R>;
}

/** Per parent: its newest run and its newest completed one, as records (two reads, in parallel). */
export async function newestRuns<Row extends object, R>(
  store: Pick<Store, 'query'>,
  runs: RunTable,
  tenant: string,
  parentIds: readonly string[],
  recordOf: (row: Row) => R,
): Promise<NewestRuns<R>> {
  if (parentIds.length === 0) return { newest: new Map(), completed: new Map() };
  const [newest, completed] = await Promise.all([
    store.query<Row>(newestRunsSql(runs, false), { tenant, parentIds }),
    store.query<Row>(newestRunsSql(runs, true), { tenant, parentIds }),
  ]);
  const byParent = (rows: Row[]) => new Map(rows.map((row) => [String((row as Record<string, unknown>)[runs.parent]), recordOf(row)]));
  return { newest: byParent(newest), completed: byParent(completed) };
}
