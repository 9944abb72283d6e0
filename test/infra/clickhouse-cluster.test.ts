/**
 * The cluster variant of the store's DDL (infra/clickhouse/cluster/schema.sql, written by
 * infra/codegen/gen-clickhouse-cluster.ts). What chdb can check of it, on an engine configured
 * with a one-shard cluster and the `{cluster}`, `{shard}`, `{replica}` macros:
 *
 * - the file is what the generator writes now from the migrations (not stale);
 * - every statement parses with ClickHouse's own parser (`formatQuery`), ON CLUSTER and the
 *   Replicated engines included;
 * - every single-node table has its `_local` table with the replicated form of its engine and a
 *   `Distributed` table under its own name, and every materialized view is there;
 * - applied without what needs ClickHouse Keeper (ON CLUSTER and the Replicated engines, which
 *   chdb refuses: NO_ZOOKEEPER, "Replicated DDL queries are disabled"), every statement creates
 *   its table or view, the Distributed tables on the configured cluster, and a row inserted in a
 *   shard's `_local` table reaches the views' `_local` targets.
 *
 * Reading or writing through the Distributed tables needs a server on the native TCP port,
 * which chdb does not open: not checked here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_DDL_FILE, clusterDocument, type Engine } from '../../infra/codegen/gen-clickhouse-cluster.js';
import { readMigrations, splitStatements } from '../../pipeline/runtime/store/migration-files.js';
import { chdbAvailable } from '../helpers/clickhouse.js';

const hasChdb = await chdbAvailable();

const CONFIG = `<clickhouse>
  <remote_servers>
    <wds_test><shard><replica><host>localhost</host><port>9000</port></replica></shard></wds_test>
  </remote_servers>
  <macros><cluster>wds_test</cluster><shard>01</shard><replica>r1</replica></macros>
</clickhouse>
`;

/** The single-node tables and views with their engines, from the migrations' text. */
function singleNode(): { tables: Map<string, string>; views: string[] } {
  const tables = new Map<string, string>();
  const views: string[] = [];
  for (const statement of readMigrations().flatMap((m) => m.statements)) {
    const table = /CREATE TABLE IF NOT EXISTS (\w+)[\s\S]*?\bENGINE = (\w+)/.exec(statement);
    if (table) tables.set(table[1] as string, table[2] as string);
    const view = /CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+)/.exec(statement);
    if (view) views.push(view[1] as string);
  }
  return { tables, views };
}

/** What an engine without Keeper can run: no ON CLUSTER, the Replicated engines' own forms. */
const withoutKeeper = (statement: string) =>
  statement.replace(/ ON CLUSTER '\{cluster\}'/g, '').replace(/ENGINE = Replicated(\w*MergeTree)\('[^']*', '\{replica\}'(?:, )?/, 'ENGINE = $1(');

const quote = (sql: string) => `'${sql.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

describe.skipIf(!hasChdb)('infra/clickhouse/cluster (the cluster variant of the DDL)', () => {
  let dir: string;
  let session: { query(sql: string, format?: string): string; cleanup(): void };
  const run = (sql: string) => session.query(sql, 'TabSeparatedRaw').toString();
  let file: string;
  let statements: string[];

  beforeAll(async () => {
    const { Session } = await import('chdb');
    dir = mkdtempSync(join(tmpdir(), 'wds-cluster-test-'));
    writeFileSync(join(dir, 'config.xml'), CONFIG);
    session = new Session(join(dir, 'data'), { connectionArgs: [`--config-file=${join(dir, 'config.xml')}`] });
    file = readFileSync(CLUSTER_DDL_FILE, 'utf8');
    // The file's header comment opens the first statement's text.
    statements = splitStatements(file).map((s) => s.replace(/^(?:--.*\n)+\s*/, ''));
  }, 60_000);
  afterAll(() => {
    session?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is what npm run gen:clickhouse-cluster writes from the migrations now', async () => {
    // The store's reads and statements over this test's engine (configured with the cluster).
    const db: Engine = {
      query: async <T>(sql: string) =>
        run(`${sql} FORMAT JSONEachRow`)
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as T),
      command: async (sql: string) => void run(sql),
    };
    expect(file).toBe(await clusterDocument(db));
  }, 120_000);

  it('parses statement by statement with ClickHouse\'s parser', () => {
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      const formatted = run(`SELECT formatQuery(${quote(statement)})`);
      expect(formatted, statement.slice(0, 80)).toMatch(/^CREATE (TABLE|MATERIALIZED VIEW) /);
      expect(formatted).toContain('ON CLUSTER `{cluster}`');
    }
  });

  it('has a replicated _local table and a Distributed table for every single-node table, and every view', () => {
    const { tables, views } = singleNode();
    expect(tables.size).toBeGreaterThan(20);
    for (const [name, engine] of tables) {
      const local = statements.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${name}_local ON CLUSTER '{cluster}'\n`));
      expect(local, `${name}_local`).toBeDefined();
      const want =
        engine === 'Null' ? 'ENGINE = `Null`' : `ENGINE = Replicated${engine}('/clickhouse/tables/{shard}/{database}/${name}_local', '{replica}'`;
      expect(local, `${name}_local's engine`).toContain(want);
      const front = statements.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${name} ON CLUSTER '{cluster}' AS ${name}_local\n`));
      expect(front, name).toMatch(new RegExp(`ENGINE = Distributed\\('\\{cluster\\}', currentDatabase\\(\\), ${name}_local, \\w+\\(.*\\)\\)$`));
    }
    expect(statements.filter((s) => s.startsWith('CREATE TABLE')).length).toBe(2 * tables.size);
    for (const view of views) {
      const statement = statements.find((s) => s.startsWith(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${view} ON CLUSTER '{cluster}' TO `));
      expect(statement, view).toBeDefined();
      expect(statement).toMatch(/ TO \w+_local\n/);
      expect(statement).toMatch(/\bFROM \w+_local\b/);
    }
    expect(statements.length).toBe(2 * tables.size + views.length);
  });

  it('applies on one shard without Keeper: locals, Distributed tables on the cluster, views that feed the shard\'s tables', () => {
    const { tables, views } = singleNode();
    for (const statement of statements) run(withoutKeeper(statement));
    const engines = new Map(
      run("SELECT name, engine FROM system.tables WHERE database = currentDatabase() FORMAT TabSeparatedRaw")
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t') as [string, string]),
    );
    for (const [name, engine] of tables) {
      expect(engines.get(`${name}_local`), name).toBe(engine);
      expect(engines.get(name), name).toBe('Distributed');
    }
    for (const view of views) expect(engines.get(view), view).toBe('MaterializedView');
    expect(run("SELECT count() FROM system.clusters WHERE cluster = 'wds_test' FORMAT TabSeparatedRaw").trim()).toBe('1');
    run(`INSERT INTO search_page_terms_local (url_hash, tenant, shareable, fetched_at, doc_len, lang, dated_at, terms, tfs)
         VALUES (42, 't', 1, '2026-01-01 00:00:00', 3, 'en', '2026-01-01 00:00:00', ['alpha', 'beta'], [2, 1])`);
    expect(run('SELECT term, tf FROM search_postings_local FINAL WHERE url_hash = 42 ORDER BY term FORMAT TabSeparatedRaw')).toBe('alpha\t2\nbeta\t1\n');
  });
});
