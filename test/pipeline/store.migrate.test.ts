/**
 * Migration files and the migration runner, and the value encoding both drivers share —
 * without an engine (a recording runner stands in for the store).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { MIGRATION_TIMEOUT_MS, migrationOptions } from '../../pipeline/runtime/store/clickhouse.js';
import { migrate, type MigrationRunner } from '../../pipeline/runtime/store/migrate.js';
import { migrationsDir, readMigrations, splitStatements } from '../../pipeline/runtime/store/migration-files.js';
import { storeError } from '../../pipeline/runtime/store/store-error.js';
import { bindable, jsonEachRow, parseJsonEachRow } from '../../pipeline/runtime/store/wire.js';
import { quietLog, tempDir, type TempDir } from '../helpers/clickhouse.js';
import { REPO_ROOT } from '../helpers/process.js';

/** A runner that records statements and remembers schema_migrations inserts. */
function recordingRunner() {
  const statements: string[] = [];
  const recorded: Record<string, unknown>[] = [];
  const runner: MigrationRunner = {
    async command(sql) {
      statements.push(sql);
    },
    async query<T>() {
      return recorded.map((r) => ({ version: r.version })) as T[];
    },
    async insert(table, rows) {
      expect(table).toBe('schema_migrations');
      recorded.push(...rows);
    },
  };
  return { runner, statements, recorded };
}

describe('pipeline/runtime/store/migrate', () => {
  let dir: TempDir | null = null;
  afterEach(() => {
    dir?.remove();
    dir = null;
  });

  it('splits files at ";" ending a line, never inside comments, and drops comment-only chunks', () => {
    const sql = ['-- header;', 'CREATE TABLE a (x String) -- note', '  -- indented comment;', 'ENGINE = Memory;', '', "SELECT 'a;b';  ", '-- trailing comment', ''].join('\n');
    expect(splitStatements(sql)).toEqual([
      '-- header;\nCREATE TABLE a (x String) -- note\n  -- indented comment;\nENGINE = Memory',
      "SELECT 'a;b'",
    ]);
  });

  it('finds infra/clickhouse from the source tree and from the build output', () => {
    const expected = join(REPO_ROOT, 'infra', 'clickhouse');
    expect(migrationsDir()).toBe(expected);
    expect(migrationsDir(pathToFileURL(join(REPO_ROOT, 'dist', 'pipeline', 'store', 'migrate.js')).href)).toBe(expected);
  });

  it('reads the repository migrations: 0001_init creates every table idempotently', () => {
    const [init, ...rest] = readMigrations();
    expect(init?.name).toBe('0001_init');
    expect(rest.map((m) => m.version)).toEqual(rest.map((_, i) => i + 2));
    expect(init?.statements.length).toBe(12);
    for (const statement of init?.statements ?? []) expect(statement).toMatch(/CREATE TABLE IF NOT EXISTS \w+/);
  });

  it('applies pending files in order, records them, and applies nothing the second time', async () => {
    dir = tempDir('migrations');
    writeFileSync(join(dir.path, '0002_second.sql'), 'CREATE TABLE IF NOT EXISTS b (x UInt8) ENGINE = Memory;\n');
    writeFileSync(join(dir.path, '0001_first.sql'), '-- first\nCREATE TABLE IF NOT EXISTS a (x UInt8) ENGINE = Memory;\nSELECT 1;\n');
    const { runner, statements, recorded } = recordingRunner();
    expect(await migrate(runner, quietLog, dir.path)).toEqual(['0001_first', '0002_second']);
    expect(statements.slice(1)).toEqual([
      '-- first\nCREATE TABLE IF NOT EXISTS a (x UInt8) ENGINE = Memory',
      'SELECT 1',
      'CREATE TABLE IF NOT EXISTS b (x UInt8) ENGINE = Memory',
    ]);
    expect(recorded.map((r) => [r.version, r.name])).toEqual([
      [1, '0001_first'],
      [2, '0002_second'],
    ]);
    expect(await migrate(runner, quietLog, dir.path)).toEqual([]);
  });

  it('runs migrations on the ClickHouse server with a timeout of their own, never shorter than the store\'s, and progress headers', () => {
    const options = { url: 'http://127.0.0.1:8123', database: 'wds', requestTimeoutMs: 30_000 };
    const progress = { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '60000' };
    expect(migrationOptions(options)).toEqual({ ...options, requestTimeoutMs: MIGRATION_TIMEOUT_MS, settings: progress });
    expect(migrationOptions({ url: options.url })).toEqual({ url: options.url, requestTimeoutMs: MIGRATION_TIMEOUT_MS, settings: progress });
    expect(migrationOptions({ ...options, requestTimeoutMs: 2 * MIGRATION_TIMEOUT_MS }).requestTimeoutMs).toBe(2 * MIGRATION_TIMEOUT_MS);
    expect(MIGRATION_TIMEOUT_MS).toBeGreaterThan(30_000);
  });

  it('refuses badly named files and duplicate versions', () => {
    dir = tempDir('migrations');
    writeFileSync(join(dir.path, '1_bad.sql'), 'SELECT 1;');
    expect(() => readMigrations(dir?.path)).toThrow(/not named NNNN_name.sql/);
    const dup = join(dir.path, 'dup');
    mkdirSync(dup);
    writeFileSync(join(dup, '0001_a.sql'), 'SELECT 1;');
    writeFileSync(join(dup, '0001_b.sql'), 'SELECT 1;');
    expect(() => readMigrations(dup)).toThrow(/two migrations have version 1/);
  });
});

describe('pipeline/runtime/store wire encoding', () => {
  it('writes JSONEachRow with bigint as decimal text and Dates as ISO text', () => {
    const body = jsonEachRow([{ n: 18446744073709551615n, at: new Date(0) }, { s: 'a\nb' }]);
    expect(body).toBe('{"n":"18446744073709551615","at":"1970-01-01T00:00:00.000Z"}\n{"s":"a\\nb"}\n');
    expect(parseJsonEachRow(body)).toEqual([{ n: '18446744073709551615', at: '1970-01-01T00:00:00.000Z' }, { s: 'a\nb' }]);
    expect(parseJsonEachRow('')).toEqual([]);
  });

  it('binds Dates as Unix time with milliseconds and top-level booleans as 1/0', () => {
    expect(bindable({ t: new Date(1700000000123), s: new Date(1700000000000), b: true, a: [new Date(5), false] })).toEqual({
      t: '1700000000.123',
      s: '1700000000',
      b: 1,
      a: ['0.005', false],
    });
    expect(() => bindable({ 'x;y': 1 })).toThrow(/invalid query parameter name/);
  });

  it('maps ClickHouse errors of either driver to store_rejected with code and name, and no answer to store_unavailable', () => {
    const chdb = Object.assign(new Error('Code: 60. DB::Exception: Unknown table expression identifier \'x\'. (UNKNOWN_TABLE)'), { clickhouseCode: 60 });
    const mapped = storeError('chdb', chdb) as ReturnType<typeof storeError> & { clickhouseCode: number; clickhouseType: string };
    expect(hasCode(mapped, 'store_rejected')).toBe(true);
    expect([mapped.message, mapped.clickhouseCode, mapped.clickhouseType]).toEqual([
      "chdb: Unknown table expression identifier 'x' [UNKNOWN_TABLE 60]",
      60,
      'UNKNOWN_TABLE',
    ]);
    const client = Object.assign(new Error("Unknown table expression identifier 'x'. "), { code: '60', type: 'UNKNOWN_TABLE' });
    expect(storeError('clickhouse', client)).toMatchObject({ clickhouseCode: 60, clickhouseType: 'UNKNOWN_TABLE' });
    const timeout = Object.assign(new Error('Code: 159. DB::Exception: Timeout exceeded. (TIMEOUT_EXCEEDED)'), { clickhouseCode: 159 });
    expect(hasCode(storeError('chdb', timeout), 'store_unavailable')).toBe(true);
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(storeError('clickhouse', socket)).toMatchObject({ code: 'store_unavailable', clickhouseCode: null, message: 'clickhouse: connect ECONNREFUSED 127.0.0.1:1' });
  });

  it('reads an engine message that quotes a long hostile value in one pass (the old pattern was cubic over a run of spaces)', () => {
    // The engine quotes a bound parameter's value whole. 2,000 spaces inside it kept the old
    // pattern busy for longer than the test's timeout (300 took 5 s); 200,000 ` .` kept its trailing-dots trim as long.
    const spaces = ' '.repeat(2_000);
    const value = Object.assign(new Error(`Code: 41. DB::Exception: Cannot parse datetime: value a${spaces}a cannot be parsed as DateTime for query parameter 'v'. (CANNOT_PARSE_DATETIME) (version 24.3.1)`), { clickhouseCode: 41 });
    expect(storeError('chdb', value)).toMatchObject({
      message: `chdb: Cannot parse datetime: value a${spaces}a cannot be parsed as DateTime for query parameter 'v' [CANNOT_PARSE_DATETIME 41]`,
      clickhouseCode: 41,
      clickhouseType: 'CANNOT_PARSE_DATETIME',
    });
    const dots = ' .'.repeat(100_000);
    const quoted = new Error(`Code: 27. DB::Exception: Cannot parse input: expected '"' before: 'x${dots}x${dots}': (at row 1)${dots}`);
    expect(storeError('chdb', quoted).message).toBe(`chdb: Cannot parse input: expected '"' before: 'x${dots}x${dots}': (at row 1) [code 27]`);
    expect(storeError('chdb', new Error('Code: 62. DB::Exception: Syntax error. (SYNTAX_ERROR) (version 24.3.1.1)'))).toMatchObject({ message: 'chdb: Syntax error [SYNTAX_ERROR 62]', clickhouseType: 'SYNTAX_ERROR' });
    expect(storeError('chdb', new Error('Code: 1. Value (version 1 (BAD) .'))).toMatchObject({ message: 'chdb: Value [code 1]', clickhouseType: null });
  });
});
