/**
 * Applies the DDL files of infra/clickhouse (see migration-files.ts) that the store has not
 * recorded yet, in version order, and records each in `schema_migrations` after its last
 * statement succeeded. Every statement is idempotent (IF NOT EXISTS), so a migration
 * interrupted half-way — or two processes migrating at once — simply runs again; the record
 * table is a ReplacingMergeTree on version, so a version recorded twice counts once.
 *
 * Both drivers call this with themselves as the runner: the same SQL files, the same order.
 */
import type { Logger } from '../log.js';
import { readMigrations } from './migration-files.js';
import type { Store } from './store.js';

export type MigrationRunner = Pick<Store, 'command' | 'query' | 'insert'>;

const CREATE_RECORD_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations
(
    version    UInt32,
    name       String,
    applied_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY version`;

/** Returns the names of the migrations applied by this call (empty when up to date). */
export async function migrate(runner: MigrationRunner, log: Logger, dir?: string): Promise<string[]> {
  const migrations = readMigrations(dir);
  await runner.command(CREATE_RECORD_TABLE);
  const recorded = await runner.query<{ version: number }>('SELECT version FROM schema_migrations FINAL');
  const done = new Set(recorded.map((r) => Number(r.version)));
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    const started = Date.now();
    for (const statement of migration.statements) await runner.command(statement);
    await runner.insert('schema_migrations', [{ version: migration.version, name: migration.name, applied_at: Date.now() }]);
    log.info({ migration: migration.name, statements: migration.statements.length, ms: Date.now() - started }, 'store migration applied');
    applied.push(migration.name);
  }
  return applied;
}
