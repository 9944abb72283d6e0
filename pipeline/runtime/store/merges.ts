/**
 * How the embedded engine merges the tables that take small inserts all day: set at start-up
 * for chdb (a setting of the engine we ship, so not a migration: a ClickHouse server is its
 * operator's to tune, and older servers lack the setting).
 *
 * `merge_selector_base` (ClickHouse's default 5) is how unequal the parts of one merge may be.
 * At the default, every few one-row parts are merged into the table's large part, which is
 * rewritten each time: a table holding 6,000 rows of 8 KB spent 11–12 ms of merge CPU per
 * one-row insert; at 20 it spent 1.0 ms and kept 11–12 active parts instead of 2–5 (chdb
 * 26.7, 30 one-row inserts a second for 20 s, merges waited out, two runs each). A monitor
 * check or a scrape at a slow pace writes one-row batches to four to seven tables, so that
 * merge work was most of its CPU (bench/monitors: 48 ms of a 89 ms check in the engine's
 * MergeMutate threads). Reads see a few more parts; the batch writer's group commit keeps
 * busy periods' parts large.
 *
 * A table whose settings already say so is left alone, so every start (and every process)
 * may run this.
 */
import type { Logger } from '../log.js';
import type { Store } from './store.js';

export const MERGE_SELECTOR_BASE = 20;

/** The tables written a few rows at a time as pages, checks and mentions come in (the link graph's about once a second). */
export const SMALL_INSERT_TABLES = [
  'pages',
  'job_pages',
  'jobs',
  'job_errors',
  'page_changes',
  'search_docs',
  'search_postings',
  'search_lengths',
  'search_shown',
  'monitor_checks',
  'monitor_check_pages',
  'mentions',
  'watch_collections',
  'webhook_deliveries',
  'link_domains',
  'link_samples',
  'link_coverage',
] as const;

/** Sets `merge_selector_base` on the small-insert tables of an embedded store; returns the tables it changed. */
export async function applyEmbeddedMerges(store: Pick<Store, 'driver' | 'query' | 'command'>, log: Logger): Promise<string[]> {
  if (store.driver !== 'chdb') return [];
  return applyMergeSelector(store, log);
}

/**
 * Sets `merge_selector_base` on the small-insert tables whatever the driver: what an operator
 * runs on a ClickHouse server that is the embedded engine served over HTTP
 * (infra/chdb-http/server.ts, the multi-process tests' server) or a recent server they choose
 * to tune the same way (docs/distributed.md). Returns the tables it changed.
 */
export async function applyMergeSelector(store: Pick<Store, 'query' | 'command'>, log: Logger): Promise<string[]> {
  const setting = `merge_selector_base = ${MERGE_SELECTOR_BASE}`;
  const rows = await store.query<{ name: string; create: string }>(
    'SELECT name, create_table_query AS create FROM system.tables WHERE database = currentDatabase() AND has({tables:Array(String)}, name)',
    { tables: [...SMALL_INSERT_TABLES] },
  );
  const changed: string[] = [];
  for (const { name, create } of rows) {
    if (create.includes(setting)) continue;
    await store.command(`ALTER TABLE ${name} MODIFY SETTING ${setting}`);
    changed.push(name);
  }
  if (changed.length) log.info({ tables: changed, setting }, 'store merge settings applied');
  return changed;
}
