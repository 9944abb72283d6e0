/**
 * How long the store keeps a crawl or batch job's rows: ClickHouse TTLs on the job tables,
 * from JOB_RETENTION_HOURS, set at start-up after the migrations (a setting, so not a
 * migration file). A job is answered for that long after it starts (its `expiresAt`); its
 * rows then go with ClickHouse's next merge of their part (TTL merges run at least every
 * `merge_with_ttl_timeout`, 4 hours by default).
 *
 * - `jobs`: at its row's `expires_at` (already start + retention when the job was created, so
 *   a job started under an older setting keeps the retention it was promised);
 * - `job_pages`, `job_errors`: retention after the row was written.
 *
 * A table whose TTL already says the same is left alone, so every process of a deployment can
 * run this at start; a changed setting applies to parts written or merged from then on
 * (`materialize_ttl_after_modify = 0`: existing parts are not rewritten at start-up).
 */
import type { Logger } from '../log.js';
import type { Store } from './store.js';

export interface RetentionRule {
  readonly table: string;
  /** The TTL expression (as ClickHouse prints it back in `create_table_query`). */
  readonly ttl: string;
}

export function jobRetentionRules(hours: number): RetentionRule[] {
  if (!Number.isSafeInteger(hours) || hours < 1) throw new RangeError(`retention hours must be a positive integer, got ${hours}`);
  return [
    { table: 'jobs', ttl: 'toDateTime(expires_at)' },
    { table: 'job_pages', ttl: `toDateTime(created_at) + toIntervalHour(${hours})` },
    { table: 'job_errors', ttl: `toDateTime(at) + toIntervalHour(${hours})` },
  ];
}

/** Sets the job tables' TTLs for `hours`; returns the tables it changed. */
export async function applyJobRetention(store: Pick<Store, 'query' | 'command'>, hours: number, log: Logger): Promise<string[]> {
  const changed: string[] = [];
  for (const rule of jobRetentionRules(hours)) {
    const [row] = await store.query<{ create: string }>(
      'SELECT create_table_query AS create FROM system.tables WHERE database = currentDatabase() AND name = {table:String}',
      { table: rule.table },
    );
    if (!row) throw new Error(`table ${rule.table} does not exist: run the migrations first`);
    if (row.create.includes(` TTL ${rule.ttl}`)) continue;
    await store.command(`ALTER TABLE ${rule.table} MODIFY TTL ${rule.ttl} SETTINGS materialize_ttl_after_modify = 0`);
    changed.push(rule.table);
  }
  if (changed.length) log.info({ tables: changed, hours }, 'job retention set on the store');
  return changed;
}
