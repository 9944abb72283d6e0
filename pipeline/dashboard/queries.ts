/**
 * The dashboard's named queries, read from `queries.sql` beside this module (the one file of
 * the dashboard's SQL, which analysts can run against ClickHouse directly; docs/dashboard.md).
 * The build copies the file next to the built module (infra/build/copy-assets.ts), so it
 * resolves the same from source (tsx, tests) and from dist.
 *
 * A query starts at a `-- name: <name>` line and ends at the first line ending with `;`
 * (dropped: the store takes one statement without it).
 */
import { readFileSync } from 'node:fs';

export const QUERY_NAMES = [
  'usage_by_day',
  'errors_by_code',
  'jobs',
  'job_pages',
  'job_errors',
  'monitors',
  'monitor_checks',
  'monitor_changes',
  'monitor_deliveries',
  'mentions_by_day',
  'newest_mentions',
  'mention_status_changes',
] as const;

export type QueryName = (typeof QUERY_NAMES)[number];

const NAME_LINE = /^-- name: ([a-z_]+)\s*$/;

/** The named statements of a file in the format above; a block without its `;` line is an error. */
export function parseQueries(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let name: string | null = null;
  let lines: string[] = [];
  for (const line of text.split('\n')) {
    const named = NAME_LINE.exec(line);
    if (named) {
      if (name !== null) throw new Error(`dashboard query ${name} does not end with a line ending in ';'`);
      name = named[1] as string;
      lines = [];
      continue;
    }
    if (name === null) continue;
    if (line.trimStart().startsWith('--')) continue;
    const end = line.trimEnd().endsWith(';');
    lines.push(end ? line.trimEnd().slice(0, -1) : line);
    if (end) {
      if (out.has(name)) throw new Error(`dashboard query ${name} is named twice`);
      out.set(name, lines.join('\n').trim());
      name = null;
    }
  }
  if (name !== null) throw new Error(`dashboard query ${name} does not end with a line ending in ';'`);
  return out;
}

export const QUERIES_FILE = new URL('./queries.sql', import.meta.url);

let loaded: ReadonlyMap<string, string> | null = null;

/** The statement of a named query (the file is read once). */
export function dashboardQuery(name: QueryName): string {
  loaded ??= parseQueries(readFileSync(QUERIES_FILE, 'utf8'));
  const sql = loaded.get(name);
  if (sql === undefined) throw new Error(`pipeline/dashboard/queries.sql has no query named ${name}`);
  return sql;
}
