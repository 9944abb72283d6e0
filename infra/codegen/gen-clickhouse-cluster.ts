/**
 * Writes the optional ClickHouse cluster variant of the store's DDL
 * (`infra/clickhouse/cluster/schema.sql`) from the single-node migrations, so the two never
 * drift: the migrations `infra/clickhouse/NNNN_*.sql` are applied to an empty embedded engine
 * (chdb) in a database of their own, and every table the engine then holds is written again
 * from `SHOW CREATE TABLE` (the migrations' ALTERs folded in) as
 *
 * - `<table>_local ON CLUSTER '{cluster}'`: the same columns, sorting key, partitioning, TTL
 *   and settings, its engine made replicated (`ReplacingMergeTree(v)` →
 *   `ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/<table>_local',
 *   '{replica}', v)`, likewise Aggregating, Summing…, plain MergeTree); `Null` tables stay Null;
 * - `<table> ON CLUSTER '{cluster}'`: a `Distributed` table in front of it under the name the
 *   service uses, sharded by a hash of the first two sorting-key columns (or SHARDING_KEYS);
 * - every materialized view again, ON CLUSTER, reading and writing the shard's `_local` tables.
 *
 * `{cluster}`, `{shard}`, `{replica}` are the servers' macros (docs/scaling.md). The service
 * does not apply this file: an operator does, once, instead of letting the migrations run
 * (docs/scaling.md, "The store").
 *
 *   npm run gen:clickhouse-cluster            write the file
 *   npm run gen:clickhouse-cluster -- --check exit 1 when it is stale
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../pipeline/runtime/log.js';
import { createStore } from '../../pipeline/runtime/store/index.js';
import { readMigrations } from '../../pipeline/runtime/store/migration-files.js';
import type { Store } from '../../pipeline/runtime/store/store.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLUSTER_DDL_FILE = join(ROOT, 'infra', 'clickhouse', 'cluster', 'schema.sql');
/** The database the migrations are applied in while generating: the engine's own, which an engine of its own leaves empty. */
const SOURCE_DB = 'default';

/**
 * Sharding keys that are not the first two sorting-key columns: a table whose rows reach other
 * tables through materialized views is sharded so that each target's rows of one key land on
 * one shard (a FINAL or a merge then sees them together), and those targets say the same.
 */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  // The page's terms become postings on the page's shard: postings of one (term, url, tenant).
  search_page_terms: 'cityHash64(url_hash, tenant)',
  search_postings: 'cityHash64(url_hash, tenant)',
  // A source domain's pages on one shard: its (target, source) domain rows and samples with them.
  link_page_edges: 'cityHash64(source_domain)',
  link_domains: 'cityHash64(source_domain)',
  link_samples: 'cityHash64(source_domain)',
  // One aggregate row, merged at read: any shard.
  link_coverage: 'rand()',
};

/** What the generator needs of an engine: the store's reads and statements (an empty chdb store). */
export type Engine = Pick<Store, 'query' | 'command'>;

interface TableInfo {
  name: string;
  engine: string;
  sortingKey: string;
}

/** `default.` or the source database's qualifier on a name → the cluster variant's name. */
function rename(sql: string, names: ReadonlySet<string>, views: ReadonlySet<string>): string {
  return sql.replace(new RegExp(`\\b${SOURCE_DB}\\.(\\w+)`, 'g'), (_, name: string) =>
    views.has(name) ? name : names.has(name) ? `${name}_local` : name,
  );
}

/** `ReplacingMergeTree(version)` → its replicated form on the shard's path; other engines as they are. */
export function replicatedEngine(engineLine: string, localName: string): string {
  const match = /^ENGINE = (\w*MergeTree)(?:\((.*)\))?$/.exec(engineLine);
  if (!match) return engineLine;
  const [, engine, args] = match;
  const path = `'/clickhouse/tables/{shard}/{database}/${localName}', '{replica}'`;
  return `ENGINE = Replicated${engine}(${path}${args ? `, ${args}` : ''})`;
}

/** The first two sorting-key columns hashed (rand() for a table without one). */
export function shardingKey(table: string, sortingKey: string): string {
  const override = SHARDING_KEYS[table];
  if (override) return override;
  const columns = sortingKey
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .slice(0, 2);
  return columns.length > 0 ? `cityHash64(${columns.join(', ')})` : 'rand()';
}

/** The cluster variant's statements, in the order they apply (locals, Distributed tables, views). */
export async function clusterStatements(db: Engine): Promise<string[]> {
  const [present] = await db.query<{ n: string | number }>(`SELECT count() AS n FROM system.tables WHERE database = '${SOURCE_DB}'`);
  if (Number(present?.n) !== 0) {
    throw new Error(`the engine's ${SOURCE_DB} database is not empty: generate the cluster DDL on an engine of its own`);
  }
  for (const migration of readMigrations()) {
    for (const statement of migration.statements) await db.command(statement);
  }
  const tables: TableInfo[] = (
    await db.query<{ name: string; engine: string; sorting_key: string }>(
      `SELECT name, engine, sorting_key FROM system.tables WHERE database = '${SOURCE_DB}' ORDER BY name`,
    )
  ).map((t) => ({ name: t.name, engine: t.engine, sortingKey: t.sorting_key }));
  const stored = tables.filter((t) => t.engine !== 'MaterializedView');
  const views = tables.filter((t) => t.engine === 'MaterializedView');
  const names = new Set(stored.map((t) => t.name));
  const viewNames = new Set(views.map((t) => t.name));
  const shown = new Map<string, string>();
  for (const t of tables) {
    const [row] = await db.query<{ statement: string }>(`SHOW CREATE TABLE ${SOURCE_DB}.${t.name}`);
    shown.set(t.name, (row?.statement ?? '').trim());
  }
  const show = (name: string) => shown.get(name) ?? '';
  const out: string[] = [];
  for (const t of stored) {
    const lines = rename(show(t.name), names, viewNames).split('\n');
    lines[0] = (lines[0] ?? '').replace(/^CREATE TABLE (\w+)/, `CREATE TABLE IF NOT EXISTS $1 ON CLUSTER '{cluster}'`);
    out.push(lines.map((line) => replicatedEngine(line, `${t.name}_local`)).join('\n'));
  }
  for (const t of stored) {
    out.push(
      `CREATE TABLE IF NOT EXISTS ${t.name} ON CLUSTER '{cluster}' AS ${t.name}_local\nENGINE = Distributed('{cluster}', currentDatabase(), ${t.name}_local, ${shardingKey(t.name, t.sortingKey)})`,
    );
  }
  for (const v of views) {
    const text = rename(show(v.name), names, viewNames);
    out.push(text.replace(/^CREATE MATERIALIZED VIEW (\w+)/, `CREATE MATERIALIZED VIEW IF NOT EXISTS $1 ON CLUSTER '{cluster}'`));
  }
  // The engine is left as it was found: views first, then what they read and write.
  for (const t of [...views, ...stored]) await db.command(`DROP TABLE ${SOURCE_DB}.${t.name}`);
  return out;
}

/** The file: a header, then every statement ending with `;` on its own line's end. */
export async function clusterDocument(db: Engine): Promise<string> {
  const header = `-- The store's tables for a sharded, replicated ClickHouse cluster: written by
-- npm run gen:clickhouse-cluster (infra/codegen/gen-clickhouse-cluster.ts) from the single-node
-- migrations infra/clickhouse/NNNN_*.sql; do not edit. Each table is <name>_local (a Replicated*
-- engine on every shard's replicas) behind a Distributed table under the name the service uses;
-- the materialized views read and write the shard's _local tables. {cluster}, {shard} and
-- {replica} are the servers' macros. Applied once by an operator, see docs/scaling.md.
`;
  return `${header}\n${(await clusterStatements(db)).map((s) => `${s};\n`).join('\n')}`;
}

/** An empty embedded store in a temporary directory for the command line. */
async function withEngine<T>(fn: (db: Engine) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'wds-cluster-ddl-'));
  const store = await createStore({ kind: 'chdb', dataDir: dir }, createLogger('silent'));
  try {
    return await fn(store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const want = await withEngine(clusterDocument);
  if (process.argv.includes('--check')) {
    const have = (() => {
      try {
        return readFileSync(CLUSTER_DDL_FILE, 'utf8');
      } catch {
        return '';
      }
    })();
    if (have !== want) {
      process.stderr.write(`${CLUSTER_DDL_FILE} is stale: run npm run gen:clickhouse-cluster\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(CLUSTER_DDL_FILE, want);
    process.stdout.write(`wrote ${CLUSTER_DDL_FILE}\n`);
  }
}
