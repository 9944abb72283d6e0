/**
 * The store: one ClickHouse SQL dialect, two drivers — `chdb` (the ClickHouse engine
 * in-process, data under DATA_DIR; embedded mode) and `clickhouse` (a ClickHouse server over
 * HTTP via @clickhouse/client; distributed mode). Everything above this interface writes the
 * same SQL for both.
 *
 * Parameters use ClickHouse's typed placeholders, `{name:Type}`, bound by the driver — never
 * string concatenation. Rows travel as JSONEachRow objects.
 *
 * DDL lives in infra/clickhouse/NNNN_name.sql, applied in order by `migrate()`, each once,
 * recorded in the `schema_migrations` table; every statement is idempotent (IF NOT EXISTS)
 * so a migration interrupted half-way can run again.
 */
export type Params = Readonly<Record<string, unknown>>;

export interface Store {
  readonly driver: 'chdb' | 'clickhouse';
  /** Applies pending migrations from infra/clickhouse; safe to call on every start. */
  migrate(): Promise<string[]>;
  /** Inserts rows (JSONEachRow) in one statement. */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  /** Runs a SELECT and returns its rows as objects. 64-bit integers come back as strings. */
  query<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  /** Runs a statement that returns no rows (DDL, ALTER, OPTIMIZE, …). */
  command(sql: string, params?: Params): Promise<void>;
  close(): Promise<void>;
}
