/**
 * chdb's ClickHouse HTTP interface (infra/chdb-http/server.ts), in this process: the
 * protocol details @clickhouse/client relies on, checked with plain HTTP requests, plus the
 * embedded shape — a ChdbStore and the HTTP interface sharing one data directory.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { startChdbHttp, type ChdbHttpServer } from '../../infra/chdb-http/server.js';
import { multipartFields, readRequest } from '../../infra/chdb-http/request.js';
import { insertTarget, outputFormat, setStatement, sqlString } from '../../infra/chdb-http/sql.js';
import { createStore, type Store } from '../../pipeline/runtime/store/index.js';
import type { StoreError } from '../../pipeline/runtime/store/store-error.js';
import { chdbAvailable, quietLog, tempDir, type TempDir } from '../helpers/clickhouse.js';

const hasChdb = await chdbAvailable();

describe('infra/chdb-http/server request reading (no engine)', () => {
  it('quotes SQL string literals so any text survives', () => {
    expect(sqlString("a'b\\c\0d\ne")).toBe("'a\\'b\\\\c\\0d\ne'");
  });

  it('reads the query from the URL and the body as INSERT data, or the body as the query', () => {
    const insert = readRequest(new URL('http://h/?query=INSERT+INTO+t+FORMAT+JSONEachRow&param_x=1&max_threads=2&query_id=q1&database=d'), {}, Buffer.from('{"a":1}\n'));
    expect(insert).toMatchObject({ sql: 'INSERT INTO t FORMAT JSONEachRow', queryId: 'q1', database: 'd' });
    expect(insert.data?.toString()).toBe('{"a":1}\n');
    expect([...insert.params]).toEqual([['x', '1']]);
    expect([...insert.settings]).toEqual([['max_threads', '2']]);
    const select = readRequest(new URL('http://h/'), { authorization: `Basic ${Buffer.from('u:p:w').toString('base64')}` }, Buffer.from('SELECT 1'));
    expect(select).toMatchObject({ sql: 'SELECT 1', data: null, user: 'u', password: 'p:w' });
  });

  it('reads query and parameters from a multipart body', () => {
    const body = Buffer.from(
      '--B\r\nContent-Disposition: form-data; name="query"\r\n\r\nSELECT {v:String}\r\n' +
        '--B\r\nContent-Disposition: form-data; name="param_v"\r\n\r\nline\r\n\r\nbreaks\r\n--B--\r\n',
    );
    expect([...multipartFields(body, 'multipart/form-data; boundary=B')]).toEqual([
      ['query', 'SELECT {v:String}'],
      ['param_v', 'line\r\n\r\nbreaks'],
    ]);
  });

  it('applies known settings and every parameter with one SET, ignoring unknown settings', () => {
    const { sql, ignored } = setStatement(new Map([['max_threads', '1'], ['no_such', 'x']]), new Map([['p', "it\\'s"]]), new Set(['max_threads']));
    expect(sql).toBe("SET max_threads = '1', param_p = 'it\\\\\\'s'");
    expect(ignored).toEqual(['no_such']);
    expect(() => setStatement(new Map(), new Map([['bad name', '1']]), new Set())).toThrow(/invalid parameter name/);
  });

  it('recognizes plain INSERT … FORMAT statements and output formats', () => {
    expect(insertTarget('INSERT INTO db.t (a, b) FORMAT JSONEachRow')).toEqual({ table: 'db.t', columns: ['a', 'b'], format: 'JSONEachRow' });
    expect(insertTarget('INSERT INTO t (* EXCEPT (x)) FORMAT JSONEachRow')).toBeNull();
    expect(insertTarget('INSERT INTO t FORMAT RowBinary')).toBeNull();
    expect(outputFormat('SELECT 1 \nFORMAT JSONEachRow', null)).toBe('JSONEachRow');
    expect(outputFormat('SELECT 1', 'CSV')).toBe('CSV');
    expect(insertTarget('insert into TABLE t\n( a ,b )FORMAT CSVWithNames ;  ')).toEqual({ table: 't', columns: ['a', 'b'], format: 'CSVWithNames' });
    expect(insertTarget('INSERT INTO t FORMAT JSONEachRow;;')).toBeNull();
    expect(outputFormat('SELECT 1 format CSV ; \n', null)).toBe('CSV');
    expect(outputFormat('SELECT 1 AS xFORMAT CSV', 'JSON')).toBe('JSON');
  });

  it('reads a statement ending in a long run of spaces in one pass (the old patterns were quadratic and worse over it)', () => {
    // 200,000 spaces before a word that is not the statement's end: the old INSERT and FORMAT
    // patterns tried their `\s*;?\s*$` from every space (minutes here); the tail is now read once from the end.
    const spaces = ' '.repeat(200_000);
    expect(insertTarget(`INSERT INTO t FORMAT JSONEachRow${spaces}x`)).toBeNull();
    expect(insertTarget(`INSERT INTO t${spaces}x FORMAT JSONEachRow`)).toBeNull();
    expect(insertTarget(`INSERT INTO t (a, b)${spaces}FORMAT JSONEachRow${spaces};${spaces}`)).toEqual({ table: 't', columns: ['a', 'b'], format: 'JSONEachRow' });
    expect(outputFormat(`SELECT 1 FORMAT JSON${spaces}x`, null)).toBe('TabSeparated');
    expect(outputFormat(`SELECT 1 FORMAT JSON${spaces};`, null)).toBe('JSON');
  });
});

describe.skipIf(!hasChdb)('infra/chdb-http/server (ClickHouse HTTP served by chdb, in-process)', () => {
  let dir: TempDir;
  let server: ChdbHttpServer;
  let embedded: Store;

  beforeAll(async () => {
    dir = tempDir('chdb-http');
    // One process binds one chdb directory: the store and the server share it.
    embedded = await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog);
    await embedded.migrate();
    server = await startChdbHttp({ dataDir: dir.path, port: 0, log: quietLog });
  });

  afterAll(async () => {
    await server?.close();
    await embedded?.close();
    dir?.remove();
  });

  it.runIf(process.platform === 'linux')("gives back the engine library's start-up pages once it is up, as the embedded store does", () => {
    expect(server.released.skipped).toBeUndefined();
    expect(server.released.mappings).toBeGreaterThan(0);
  });

  const post = (search: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/?${search}`, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers });

  it('answers /ping and a bare GET with Ok.', async () => {
    for (const path of ['/ping', '/']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('Ok.\n');
    }
  });

  it('runs a query with the ClickHouse response headers', async () => {
    const res = await post('query_id=my-query&default_format=JSONEachRow', 'SELECT 1 AS one, toUInt64(2) AS two');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"one":1,"two":2}\n');
    expect(res.headers.get('x-clickhouse-query-id')).toBe('my-query');
    expect(res.headers.get('x-clickhouse-format')).toBe('JSONEachRow');
    expect(res.headers.get('x-clickhouse-server-display-name')).toBeTruthy();
    const summary = JSON.parse(res.headers.get('x-clickhouse-summary') ?? 'null') as Record<string, string>;
    expect(summary).toMatchObject({ read_rows: expect.stringMatching(/^\d+$/), elapsed_ns: expect.stringMatching(/^\d+$/) });
  });

  it('binds param_ values as ClickHouse receives them and applies settings, ignoring unknown ones', async () => {
    const search = new URLSearchParams({
      param_s: "it\\'s a\\ttab\\nand \\\\ backslash",
      param_a: "['x\\'y','z']",
      output_format_json_quote_64bit_integers: '1',
      some_setting_that_does_not_exist: '1',
    });
    const res = await post(search.toString(), 'SELECT {s:String} AS s, {a:Array(String)} AS a, toUInt64(5) AS n FORMAT JSONEachRow');
    expect(res.status).toBe(200);
    expect(JSON.parse(await res.text())).toEqual({ s: "it's a\ttab\nand \\ backslash", a: ["x'y", 'z'], n: '5' });
  });

  it('reads query and parameters from a multipart body', async () => {
    const body =
      '--XyZ\r\nContent-Disposition: form-data; name="query"\r\n\r\nSELECT {v:String} AS v FORMAT JSONEachRow\r\n' +
      '--XyZ\r\nContent-Disposition: form-data; name="param_v"\r\n\r\nmulti\\npart\r\n--XyZ--\r\n';
    const res = await post('', body, { 'Content-Type': 'multipart/form-data; boundary=XyZ' });
    expect(await res.text()).toBe('{"v":"multi\\npart"}\n');
  });

  it('inserts the body rows of INSERT … FORMAT, gzip-compressed, and compresses responses on request', async () => {
    // created_at must be recent: blobs expire a day after it (TTL), at the next merge.
    const now = new Date();
    const rows = `${JSON.stringify({ id: 'gz', created_at: now.getTime(), data: 'zipped' })}\n`;
    const insert = await post('query=INSERT+INTO+blobs+FORMAT+JSONEachRow', gzipSync(rows), { 'Content-Encoding': 'gzip' });
    expect(insert.status).toBe(200);
    expect(JSON.parse(insert.headers.get('x-clickhouse-summary') ?? '{}')).toMatchObject({ written_rows: '1' });
    const res = await fetch(`${server.url}/?enable_http_compression=1`, {
      method: 'POST',
      body: "SELECT data, created_at FROM blobs WHERE id = 'gz' FORMAT JSONEachRow",
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    // fetch undoes Content-Encoding itself, so this text proves the bytes were valid gzip.
    const text = now.toISOString().replace('T', ' ').replace('Z', '');
    expect(await res.text()).toBe(`{"data":"zipped","created_at":"${text}"}\n`);
    // The embedded store sees the same table.
    expect(await embedded.query("SELECT data FROM blobs WHERE id = 'gz'")).toEqual([{ data: 'zipped' }]);
  });

  it('answers errors with HTTP 500, the exception code header and ClickHouse error text', async () => {
    const res = await post('', 'SELEC 1');
    expect(res.status).toBe(500);
    expect(res.headers.get('x-clickhouse-exception-code')).toBe('62');
    expect(await res.text()).toMatch(/^Code: 62\. DB::Exception: Syntax error.*\(SYNTAX_ERROR\)/s);
  });

  it('runs GET requests read-only', async () => {
    const res = await fetch(`${server.url}/?query=${encodeURIComponent("INSERT INTO blobs (id) VALUES ('ro')")}`);
    expect(res.status).toBe(500);
    expect(res.headers.get('x-clickhouse-exception-code')).toBe('164');
    const read = await fetch(`${server.url}/?query=${encodeURIComponent('SELECT 1')}`);
    expect(await read.text()).toBe('1\n');
  });

  it('keeps no request\'s parameters, settings or SET statements on the connections it reuses', async () => {
    const threads = (search: string) => post(search, "SELECT getSetting('max_threads') AS t FORMAT JSONEachRow").then((r) => r.text());
    const unset = await threads('');
    expect(await threads('max_threads=3')).toBe('{"t":3}\n');
    expect(await threads('max_threads=3')).toBe('{"t":3}\n');
    expect(await threads('')).toBe(unset);
    // A SET sent as the statement itself changes only the connection it ran on, which is not reused.
    expect((await post('', 'SET max_threads = 5')).status).toBe(200);
    expect(await threads('')).toBe(unset);
    // A parameter one request set is not there for the next request that does not send it.
    const withParam = await post('param_v=first', 'SELECT {v:String} AS v FORMAT JSONEachRow');
    expect(await withParam.text()).toBe('{"v":"first"}\n');
    const again = await post('param_v=second', 'SELECT {v:String} AS v FORMAT JSONEachRow');
    expect(await again.text()).toBe('{"v":"second"}\n');
    const without = await post('', 'SELECT {v:String} AS v FORMAT JSONEachRow');
    expect(without.status).toBe(500);
    // A GET's read-only connection is not given to a POST, nor a POST's to a GET.
    expect((await fetch(`${server.url}/?query=${encodeURIComponent("SELECT getSetting('readonly')")}`).then((r) => r.text())).trim()).toBe('2');
    expect(await post('', "SELECT getSetting('readonly') AS r FORMAT JSONEachRow").then((r) => r.text())).toBe('{"r":0}\n');
  });

  it('serves the rows the embedded store writes to the clickhouse driver, and back', async () => {
    const remote = await createStore({ kind: 'clickhouse', url: server.url }, quietLog);
    try {
      await embedded.insert('jobs', [{ tenant: 't', id: 'from-chdb', kind: 'crawl', status: 'queued', version: 1 }]);
      await remote.insert('jobs', [{ tenant: 't', id: 'from-http', kind: 'crawl', status: 'queued', version: 1 }]);
      const ids = 'SELECT id FROM jobs FINAL WHERE tenant = {t:String} ORDER BY id';
      expect(await remote.query(ids, { t: 't' })).toEqual([{ id: 'from-chdb' }, { id: 'from-http' }]);
      expect(await embedded.query(ids, { t: 't' })).toEqual([{ id: 'from-chdb' }, { id: 'from-http' }]);
      expect(await remote.migrate()).toEqual([]);
    } finally {
      await remote.close();
    }
  });

  it('requires the configured credentials', async () => {
    const guarded = await startChdbHttp({ dataDir: dir.path, port: 0, username: 'reader', password: 's3cret', log: quietLog });
    const good = await createStore({ kind: 'clickhouse', url: guarded.url, username: 'reader', password: 's3cret' }, quietLog);
    const bad = await createStore({ kind: 'clickhouse', url: guarded.url, username: 'reader', password: 'wrong' }, quietLog);
    try {
      expect(await good.query('SELECT 1 AS x')).toEqual([{ x: 1 }]);
      const error = (await bad.query('SELECT 1').catch((e: unknown) => e)) as StoreError;
      expect(hasCode(error, 'store_rejected')).toBe(true);
      expect(error.clickhouseCode).toBe(516);
    } finally {
      await good.close();
      await bad.close();
      await guarded.close();
    }
  });
});
