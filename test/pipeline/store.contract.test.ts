/**
 * One contract, two drivers: every test below runs against the chdb driver (the engine in
 * this process, a temp directory) and the clickhouse driver (@clickhouse/client over real
 * HTTP to chdb's ClickHouse interface, run as a separate process with its own directory).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { BatchWriter, createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { cacheColumns, cachedCopy, cachePlan, type CachedRow } from '../../pipeline/pages/cache.js';
import { CACHED_PAGE_FOR_TENANT, CACHED_PAGE_SHARED, JOB_BY_ID, JOB_ERRORS, JOB_PAGES_AFTER, JOB_PAGES_SETTLED } from '../../pipeline/runtime/store/queries.js';
import type { StoreError } from '../../pipeline/runtime/store/store-error.js';
import { EARLIEST_BOUND_MS } from '../../pipeline/runtime/store/wire.js';
import { runTs } from '../helpers/process.js';
import { chdbAvailable, clickhouseHttpStore, quietLog, tempDir, type TempDir } from '../helpers/clickhouse.js';
import { rejection as rejected } from '../helpers/wait.js';

const hasChdb = await chdbAvailable();

const TABLES = [
  'api_keys',
  'api_requests',
  'blobs',
  'checks',
  'company_answers',
  'credit_ledger',
  'domain_reports',
  'domain_snapshots',
  'job_errors',
  'job_pages',
  'jobs',
  'leads_runs',
  'link_coverage',
  'link_domains',
  'link_page_edges',
  'link_samples',
  'mention_status_changes',
  'mentions',
  'model_usage',
  'monitor_check_pages',
  'monitor_checks',
  'monitors',
  'page_changes',
  'pages',
  'schema_migrations',
  'search_docs',
  'search_lengths',
  'search_page_terms',
  'search_postings',
  'search_shown',
  'watch_collections',
  'watches',
  'webhook_deliveries',
];

/** Strings that break naive quoting: quotes, backslashes, newlines, tabs, braces, NUL, UTF-8. */
const NASTY = [
  "it's",
  'back\\slash',
  'ends with backslash\\',
  "\\'",
  'new\nline\r\nand\ttab',
  "'; DROP TABLE pages; --",
  '{x:String}',
  'nul\u0000byte',
  'ünïcødé 🙂 "double"',
  '',
];

const rejection = (promise: Promise<unknown>) => rejected<StoreError>(promise);

function pageRow(tenant: string, jobId: string, seq: number, url: string) {
  return {
    tenant,
    job_id: jobId,
    seq,
    url,
    status_code: 200,
    content_type: 'text/html',
    final_url: url,
    title: `page ${seq}`,
    document: JSON.stringify({ markdown: `# ${seq}` }),
    content_hash: `h${seq}`,
    created_at: new Date(),
  };
}

function storeContract(
  name: string,
  open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>,
  driverTests: (store: () => Store) => void = () => {},
) {
  describe.skipIf(!hasChdb)(name, () => {
    let store: Store;
    let cleanup: () => Promise<void> = async () => {};
    let firstMigration: string[] = [];

    beforeAll(async () => {
      ({ store, cleanup } = await open());
      firstMigration = await store.migrate();
    });

    afterAll(async () => {
      await store?.close();
      await cleanup();
    });

    it('migrates once: the second run applies nothing and every table exists', async () => {
      expect(firstMigration).toEqual(['0001_init', '0002_page_cache', '0003_merge_memory', '0004_page_changes', '0005_search_index', '0006_monitors', '0007_mentions', '0008_search_reads', '0009_search_shown', '0010_link_graph', '0011_domains', '0012_company', '0013_leads', '0014_requests', '0015_model_usage', '0016_merge_parts']);
      expect(await store.migrate()).toEqual([]);
      const tables = await store.query<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name');
      expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(TABLES));
      const recorded = await store.query('SELECT version, name FROM schema_migrations FINAL');
      expect(recorded).toEqual(
        expect.arrayContaining([
          { version: 1, name: '0001_init' },
          { version: 2, name: '0002_page_cache' },
          { version: 3, name: '0003_merge_memory' },
          { version: 4, name: '0004_page_changes' },
          { version: 5, name: '0005_search_index' },
          { version: 6, name: '0006_monitors' },
          { version: 7, name: '0007_mentions' },
          { version: 8, name: '0008_search_reads' },
          { version: 9, name: '0009_search_shown' },
          { version: 10, name: '0010_link_graph' },
          { version: 11, name: '0011_domains' },
          { version: 12, name: '0012_company' },
          { version: 13, name: '0013_leads' },
          { version: 14, name: '0014_requests' },
          { version: 15, name: '0015_model_usage' },
          { version: 16, name: '0016_merge_parts' },
        ]),
      );
      expect(recorded).toHaveLength(16);
      const columns = await store.query<{ name: string }>("SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'pages'");
      expect(columns.map((c) => c.name)).toEqual(expect.arrayContaining(['body_base64', 'response_headers', 'cache_key', 'shareable']));
      // 0007_mentions: what a stored mention carries beyond 0001's columns.
      const mentionColumns = await store.query<{ name: string }>("SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'mentions'");
      expect(mentionColumns.map((c) => c.name)).toEqual(expect.arrayContaining(['external_id', 'text', 'lang', 'collection_id', 'classifier', 'score', 'matched']));
      // 0003_merge_memory and 0016_merge_parts: what a merge of the large-row tables may hold.
      for (const table of ['pages', 'job_pages']) {
        const [ddl] = await store.query<{ statement: string }>(`SHOW CREATE TABLE ${table}`);
        for (const setting of ['index_granularity_bytes = 1048576', 'merge_max_block_size_bytes = 1048576', 'min_bytes_for_wide_part = 134217728', 'max_parts_to_merge_at_once = 10']) {
          expect(ddl?.statement, `${table}: ${setting}`).toContain(setting);
        }
      }
      // 0008_search_reads and 0009_search_shown: the search index's parts stay compact at any size.
      for (const table of ['search_docs', 'search_postings', 'search_shown']) {
        const [ddl] = await store.query<{ statement: string }>(`SHOW CREATE TABLE ${table}`);
        expect(ddl?.statement, table).toContain('min_bytes_for_wide_part = 1099511627776');
      }
    });

    it('inserts rows and reads them back with typed String, UInt64, DateTime64 and Array(String) parameters', async () => {
      await store.command(
        "CREATE TABLE IF NOT EXISTS contract_types (s String, n UInt64, t DateTime64(3, 'UTC'), a Array(String)) ENGINE = MergeTree ORDER BY s",
      );
      const at = new Date('2025-03-04T05:06:07.089Z');
      await store.insert('contract_types', [
        { s: 'max', n: 18446744073709551615n, t: at, a: ['x', 'y'] },
        { s: 'small', n: 7, t: at.getTime() + 1, a: [] },
      ]);
      const rows = await store.query(
        'SELECT s, n, t, a FROM contract_types WHERE s = {s:String} AND n = {n:UInt64} AND t = {t:DateTime64(3)} AND hasAny(a, {a:Array(String)})',
        { s: 'max', n: 18446744073709551615n, t: at, a: ['nope', 'y'] },
      );
      expect(rows).toEqual([{ s: 'max', n: '18446744073709551615', t: '2025-03-04 05:06:07.089', a: ['x', 'y'] }]);
      const later = await store.query<{ s: string }>('SELECT s FROM contract_types WHERE t > {t:DateTime64(3)}', { t: at });
      expect(later).toEqual([{ s: 'small' }]);
    });

    it('binds parameters with quotes, backslashes, newlines and NUL as data, never as SQL', async () => {
      for (const s of NASTY) {
        expect(await store.query('SELECT {s:String} AS s', { s })).toEqual([{ s }]);
      }
      expect(await store.query('SELECT {a:Array(String)} AS a', { a: NASTY })).toEqual([{ a: NASTY }]);
      const tenant = `nasty-${randomUUID()}`;
      await store.insert('jobs', NASTY.map((params, i) => ({ tenant, id: `j${i}`, kind: 'crawl', status: 'queued', version: 1, params })));
      for (const params of NASTY) {
        const rows = await store.query<{ params: string }>('SELECT params FROM jobs FINAL WHERE tenant = {tenant:String} AND params = {params:String}', { tenant, params });
        expect(rows).toEqual([{ params }]);
      }
      // The injection attempt above was data: the table is still there.
      expect(await store.query('SELECT count() AS n FROM pages')).toHaveLength(1);
    });

    it('pages a job with a keyset cursor: no duplicates, no gaps, while rows keep arriving', async () => {
      const tenant = `t-${randomUUID()}`;
      const jobId = `job-${randomUUID()}`;
      const url = (seq: number) => `https://example.com/p/${seq}`;
      await store.insert('job_pages', Array.from({ length: 20 }, (_, i) => pageRow(tenant, jobId, i + 1, url(i + 1))));
      const seen: number[] = [];
      let after = 0;
      let next = 21;
      for (let round = 0; round < 20; round++) {
        const page = await store.query<{ seq: string; url: string }>(JOB_PAGES_AFTER, { tenant, jobId, after, limit: 6 });
        if (page.length === 0) break;
        seen.push(...page.map((r) => Number(r.seq)));
        after = Number(page[page.length - 1]?.seq);
        if (round < 3) {
          // New pages land between reads, and page 2 is delivered again under a new seq.
          await store.insert('job_pages', [pageRow(tenant, jobId, next, url(next)), pageRow(tenant, jobId, next + 1, url(next + 1))]);
          next += 2;
          await store.insert('job_pages', [pageRow(tenant, jobId, 100 + round, url(2))]);
        }
      }
      const expected = Array.from({ length: next - 1 }, (_, i) => i + 1);
      expect(seen).toEqual(expected);
      // Another tenant's cursor over the same job id sees nothing.
      expect(await store.query(JOB_PAGES_AFTER, { tenant: 'someone-else', jobId, after: 0, limit: 50 })).toEqual([]);
    });

    it('reads a job only up to its settled watermark, and its errors once each, oldest first', async () => {
      const tenant = `t-${randomUUID()}`;
      const jobId = `job-${randomUUID()}`;
      // Seq 3 is still being written: pages 4 and 5 landed first.
      await store.insert('job_pages', [1, 2, 4, 5].map((seq) => pageRow(tenant, jobId, seq, `https://example.com/w/${seq}`)));
      const upTo2 = await store.query<{ seq: string }>(JOB_PAGES_SETTLED, { tenant, jobId, after: 0, upTo: 2, limit: 50 });
      expect(upTo2.map((r) => Number(r.seq))).toEqual([1, 2]);
      const rest = await store.query<{ seq: string }>(JOB_PAGES_SETTLED, { tenant, jobId, after: 2, upTo: Number.MAX_SAFE_INTEGER, limit: 50 });
      expect(rest.map((r) => Number(r.seq))).toEqual([4, 5]);
      const error = (id: string, at: number) => ({ tenant, job_id: jobId, id, at, url: `https://example.com/${id}`, code: 'dns_failed', message: 'no host', status_code: 0 });
      await store.insert('job_errors', [error('b', 2000), error('a', 1000), error('b', 2000)]);
      const errors = await store.query<{ url: string; at_ms: string | number }>(JOB_ERRORS, { tenant, jobId, limit: 10 });
      expect(errors.map((e) => [e.url, Number(e.at_ms)])).toEqual([
        ['https://example.com/a', 1000],
        ['https://example.com/b', 2000],
      ]);
      expect(await store.query(JOB_ERRORS, { tenant: 'someone-else', jobId, limit: 10 })).toEqual([]);
    });

    it('reads back a redelivered job page once (FINAL)', async () => {
      const tenant = `t-${randomUUID()}`;
      const row = pageRow(tenant, 'job-1', 1, 'https://example.com/once');
      await store.insert('job_pages', [row]);
      await store.insert('job_pages', [row]);
      const rows = await store.query<{ n: string }>(
        'SELECT count() AS n FROM job_pages FINAL WHERE tenant = {tenant:String} AND job_id = {jobId:String}',
        { tenant, jobId: 'job-1' },
      );
      expect(rows).toEqual([{ n: '1' }]);
    });

    it('finds the newest cached copy of a URL within maxAge: the tenant\'s own, then a shareable one from the index', async () => {
      const url = `https://example.com/cached/${randomUUID()}`;
      const now = Date.now();
      const plain = cachePlan(url, {});
      const withHeaders = cachePlan(url, { headers: { Cookie: 'session=secret' } });
      const mobile = cachePlan(url, { mobile: true });
      // Bytes that are not UTF-8 (NUL, 0xff, a lone continuation byte) must come back unchanged.
      const body = Buffer.concat([Buffer.from('<title>Ünïcode</title>', 'utf8'), Buffer.from([0x00, 0xff, 0xfe, 0x80])]);
      const copy = (tenant: string, agoMs: number, plan = plain, statusCode = 200) => ({
        tenant,
        fetched_at: now - agoMs,
        request_id: randomUUID(),
        job_id: '',
        status_code: statusCode,
        content_type: 'text/html; charset=utf-8',
        final_url: `${url}?final`,
        title: `${tenant} ${agoMs}`,
        document: '{}',
        content_hash: 'h',
        ...cacheColumns(plan, { body: Buffer.concat([body, Buffer.from(`${tenant} ${agoMs}`)]), headers: { etag: `"${tenant}${agoMs}"` } }),
      });
      await store.insert('pages', [
        copy('A', 600_000),
        copy('A', 60_000),
        copy('B', 30_000),
        copy('C', 10_000, withHeaders),
        copy('D', 5_000, mobile),
        copy('E', 1_000, plain, 503),
      ]);
      // A row written before 0002 (no cache columns) never matches.
      await store.insert('pages', [{ tenant: 'A', url, fetched_at: now, request_id: randomUUID(), status_code: 200 }]);
      const since = (ms: number) => new Date(now - ms);
      const lookup = (sql: string, params: Record<string, unknown>) => store.query<CachedRow>(sql, { url, cacheKey: plain.key, ...params });

      const mine = await lookup(CACHED_PAGE_FOR_TENANT, { tenant: 'A', since: since(300_000) });
      expect(mine).toHaveLength(1);
      const hit = cachedCopy(mine[0] as CachedRow, 'cache');
      expect(hit).toEqual({
        source: 'cache',
        requestId: expect.any(String),
        fetchedAtMs: now - 60_000,
        statusCode: 200,
        contentType: 'text/html; charset=utf-8',
        finalUrl: `${url}?final`,
        headers: { etag: '"A60000"' },
        body: Buffer.concat([body, Buffer.from('A 60000')]),
      });
      // The index: B's plain copy; not C's (fetched with headers), D's (another key) or E's (a 503).
      const shared = await lookup(CACHED_PAGE_SHARED, { since: since(300_000) });
      expect(shared.map((r) => r.tenant)).toEqual(['B']);
      expect(cachedCopy(shared[0] as CachedRow, 'index').body.toString('latin1')).toBe(Buffer.concat([body, Buffer.from('B 30000')]).toString('latin1'));
      expect(await lookup(CACHED_PAGE_FOR_TENANT, { tenant: 'A', since: since(45_000) })).toEqual([]);
      expect(await lookup(CACHED_PAGE_FOR_TENANT, { tenant: 'E', since: since(3_600_000) })).toEqual([]);
      // A window reaching back past 1970's first hours starts at EARLIEST_BOUND_MS (wire.ts), which binds: the newest copy.
      const anyAge = await lookup(CACHED_PAGE_FOR_TENANT, { tenant: 'A', since: new Date(EARLIEST_BOUND_MS) });
      expect(anyAge.map((r) => cachedCopy(r, 'cache').fetchedAtMs)).toEqual([now - 60_000]);
      // C finds its own copy only with the same headers; the same URL with mobile is D's.
      expect((await lookup(CACHED_PAGE_FOR_TENANT, { tenant: 'C', since: since(300_000), cacheKey: withHeaders.key })).map((r) => r.tenant)).toEqual(['C']);
      expect(await lookup(CACHED_PAGE_SHARED, { since: since(300_000), cacheKey: withHeaders.key })).toEqual([]);
      expect((await lookup(CACHED_PAGE_SHARED, { since: since(300_000), cacheKey: mobile.key })).map((r) => r.tenant)).toEqual(['D']);
    });

    it('reads the latest version of a record updated twice, whatever order the versions landed in', async () => {
      const tenant = `t-${randomUUID()}`;
      const job = (version: number, status: string) => ({ tenant, id: 'job-v', kind: 'crawl', status, version, completed: version * 10 });
      await store.insert('jobs', [job(1, 'queued')]);
      await store.insert('jobs', [job(3, 'completed')]);
      await store.insert('jobs', [job(2, 'running')]);
      const rows = await store.query<{ status: string; version: string; completed: string }>(JOB_BY_ID, { tenant, id: 'job-v' });
      expect(rows.map((r) => [r.status, r.version, r.completed])).toEqual([['completed', '3', '30']]);
    });

    it('scopes reads by tenant: tenant B sees none of tenant A\'s rows', async () => {
      const a = `A-${randomUUID()}`;
      const b = `B-${randomUUID()}`;
      await store.insert('jobs', [{ tenant: a, id: 'shared-id', kind: 'batch', status: 'running', version: 1 }]);
      await store.insert('mentions', [{ tenant: a, id: 'm1', version: 1, watch_id: 'w', platform: 'web', category: 'praise', status: 'new', found_at: new Date() }]);
      expect(await store.query(JOB_BY_ID, { tenant: b, id: 'shared-id' })).toEqual([]);
      expect(await store.query('SELECT * FROM mentions FINAL WHERE tenant = {tenant:String}', { tenant: b })).toEqual([]);
      expect(await store.query(JOB_BY_ID, { tenant: a, id: 'shared-id' })).toHaveLength(1);
    });

    it('serves concurrent inserts and parameterized reads', async () => {
      const tenant = `t-${randomUUID()}`;
      const ids = Array.from({ length: 24 }, (_, i) => `c${i}`);
      const results = await Promise.all(
        ids.map(async (id, i) => {
          await store.insert('jobs', [{ tenant, id, kind: 'batch', status: 'queued', version: 1, total: i }]);
          return store.query<{ id: string; total: string }>('SELECT id, total FROM jobs FINAL WHERE tenant = {tenant:String} AND id = {id:String}', { tenant, id });
        }),
      );
      expect(results.map((rows) => rows[0]?.total)).toEqual(ids.map((_, i) => String(i)));
      expect(await store.query('SELECT count() AS n FROM jobs FINAL WHERE tenant = {tenant:String}', { tenant })).toEqual([{ n: '24' }]);
    });

    it('makes rows written through a BatchWriter readable once their write resolves', async () => {
      const tenant = `t-${randomUUID()}`;
      const writer = new BatchWriter(store, { maxRows: 10, maxDelayMs: 20 }, quietLog);
      const writes = Array.from({ length: 25 }, (_, i) => writer.write('job_pages', [pageRow(tenant, 'batched', i + 1, `https://example.com/b/${i}`)]));
      await writes[0];
      const first = await store.query<{ n: string }>('SELECT count() AS n FROM job_pages WHERE tenant = {tenant:String}', { tenant });
      expect(Number(first[0]?.n)).toBeGreaterThanOrEqual(1);
      await Promise.all(writes);
      expect(await store.query('SELECT count() AS n FROM job_pages FINAL WHERE tenant = {tenant:String}', { tenant })).toEqual([{ n: '25' }]);
      await writer.close();
    });

    it('round-trips a 10 MB string through blobs', async () => {
      const id = randomUUID();
      const data = randomBytes(7.5 * 1024 * 1024).toString('base64');
      expect(data.length).toBe(10 * 1024 * 1024);
      await store.insert('blobs', [{ id, created_at: Date.now(), data }]);
      const rows = await store.query<{ data: string }>('SELECT data FROM blobs WHERE id = {id:String}', { id });
      expect(rows).toHaveLength(1);
      expect(rows[0]?.data === data).toBe(true);
    });

    it('rejects bad SQL with store_rejected (not retriable) and the ClickHouse message and code', async () => {
      const syntax = await rejection(store.query('SELEC 1'));
      expect(hasCode(syntax, 'store_rejected')).toBe(true);
      expect(syntax.message).toContain(`${store.driver}: Syntax error`);
      expect(syntax.clickhouseCode).toBe(62);
      expect(syntax.clickhouseType).toBe('SYNTAX_ERROR');
      const missing = await rejection(store.command('INSERT INTO no_such_table VALUES (1)'));
      expect(hasCode(missing, 'store_rejected')).toBe(true);
      expect(missing.clickhouseCode).toBe(60);
      expect(missing.message).toContain('no_such_table');
      const badParam = await rejection(store.query('SELECT {n:UInt8} AS n', { n: 'not a number' }));
      expect(hasCode(badParam, 'store_rejected')).toBe(true);
      expect(badParam.clickhouseCode).toBe(457);
      // The engine quotes the value whole: a long run of spaces in it is read in one pass (store-error.ts).
      const spaced = `a${' '.repeat(2_000)}a`;
      const badSpaced = await rejection(store.query('SELECT {n:UInt8} AS n', { n: spaced }));
      expect([badSpaced.clickhouseCode, badSpaced.message.includes(spaced)]).toEqual([457, true]);
      const badTable = await rejection(store.insert('jobs; DROP TABLE jobs', [{ id: 'x' }]));
      expect(hasCode(badTable, 'store_rejected')).toBe(true);
    });

    driverTests(() => store);
  });
}

let chdbDir: TempDir | null = null;
storeContract(
  'pipeline/runtime/store chdb driver (chdb in-process)',
  async () => {
    chdbDir = tempDir('store-chdb');
    const store = await createStore({ kind: 'chdb', dataDir: chdbDir.path }, quietLog);
    return { store, cleanup: async () => chdbDir?.remove() };
  },
  () => {
    it('holds its data directory: a second process cannot open it', async () => {
      const second = await runTs('infra/chdb-http/server.ts', ['--data', chdbDir?.path ?? '', '--port', '0'], {}, 30000);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/Cannot lock file .*status/);
    });
  },
);

storeContract('pipeline/runtime/store clickhouse driver (ClickHouse HTTP served by chdb)', async () => {
  return clickhouseHttpStore('store-chdb-http');
});
