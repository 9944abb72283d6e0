/**
 * The crawl and batch handlers without a pipeline: what starting a job writes and publishes,
 * and the 404s (another key, the other kind, past `expiresAt`), over memory state, a
 * recording writer and bus, and a store that answers nothing (a job the state holds is
 * never read from it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HandlerContext, OperationHandler } from '../../gateway/handler.js';
import { START_LOOKUPS, type JobHandlerOptions } from '../../gateway/handlers/jobs.js';
import type { RecordDeps } from '../../gateway/handler.js';
import { OPERATION_TABLE, type PipelineHandlerDeps } from '../../gateway/wiring.js';
import type { Config } from '../../pipeline/service/config.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import { liveJob } from '../../pipeline/jobs/record.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { KeyRecord } from '../../pipeline/keys/registry.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { OPERATIONS } from '../../schemas/api/operations.js';
import { loadConfig } from '../../pipeline/service/config.js';

/** The gateway's settings a price estimate reads (no operator model). */
const GATEWAY = { config: loadConfig({}), version: 'test' };

const BROWSER_PAGE_CREDITS = PRICES.browserPage.credits;

const JOB_OPERATIONS = ['crawlStart', 'crawlStatus', 'crawlPages', 'crawlErrors', 'crawlCancel', 'batchStart', 'batchStatus', 'batchPages'] as const;

/**
 * The job operations' handlers as the operation table's rows build them, over `records`, with
 * jobs answered for `retentionMs` (JOB_RETENTION_HOURS) and the build's job options.
 */
function jobHandlers(records: RecordDeps, retentionMs: number, jobOptions: JobHandlerOptions = {}): Record<string, OperationHandler> {
  const deps: PipelineHandlerDeps = {
    config: { jobRetentionHours: retentionMs / 3_600_000 } as Config,
    version: 'test',
    serves: new Set(['jobs', 'scrape']),
    requester: null as unknown as Requester,
    records,
    jobOptions,
  };
  return Object.fromEntries(
    JOB_OPERATIONS.map((id) => {
      const row = OPERATION_TABLE[id];
      if (row.served !== 'pipeline') throw new Error(`${id} is not served by the pipeline`);
      return [id, row.handler(deps)];
    }),
  );
}

const key = (id: string): KeyRecord => ({ id, name: id, prefix: id, unlimited: true, revoked: false, balance: null, createdAt: new Date(0).toISOString() });

function ctx(opId: string, over: Partial<HandlerContext> = {}): HandlerContext {
  const op = OPERATIONS.find((o) => o.id === opId);
  if (!op) throw new Error(opId);
  return { op, body: {}, query: {}, params: {}, key: key('key-a'), requestId: 'r1', log: createLogger('silent'), signal: new AbortController().signal, ...over };
}

describe('gateway/handlers/jobs', () => {
  let state: MemoryState;
  let rows: { table: string; rows: readonly Record<string, unknown>[] }[];
  let emitted: Emission[];
  const deps = () => ({
    state,
    store: { query: async () => [] as never[] },
    writer: { write: async (table: string, r: readonly Record<string, unknown>[]) => void rows.push({ table, rows: r }) },
    events: { emit: async (e: readonly Emission[]) => void emitted.push(...e) },
  });

  beforeEach(() => {
    state = new MemoryState({ sweepIntervalMs: 0 });
    rows = [];
    emitted = [];
  });
  afterEach(async () => {
    await state.close();
  });

  it('starts a batch: a scraping record, its first stored version and a started event', async () => {
    const handlers = jobHandlers(deps(), 3_600_000);
    const result = await handlers.batchStart?.handle(ctx('batchStart', { body: { urls: ['https://example.com/a'], maxConcurrency: 10 } }));
    const id = result?.data?.id as string;
    expect(result?.data).toEqual({ id, url: `/v1/batch/${id}`, invalidURLs: [] });
    expect(result?.credits).toBe(0);
    const job = await liveJob(state, id);
    expect(job).toMatchObject({ tenant: 'key-a', kind: 'batch', status: 'scraping', total: 0 });
    expect((job?.expiresAtMs ?? 0) - (job?.createdAtMs ?? 0)).toBe(3_600_000);
    expect(JSON.parse(job?.params ?? '{}')).toEqual({ urls: ['https://example.com/a'], maxConcurrency: 10 });
    expect(rows).toMatchObject([{ table: 'jobs', rows: [{ id, status: 'scraping', version: 1 }] }]);
    expect(emitted).toMatchObject([{ topic: 'jobEvents', key: id, value: { jobId: id, kind: 'batch', type: 'started', tenant: 'key-a' } }]);

    const status = await handlers.batchStatus?.handle(ctx('batchStatus', { params: { job_id: id } }));
    expect(status?.data).toMatchObject({ id, status: 'scraping', total: 0, completed: 0, creditsUsed: 0, data: [] });
    expect(typeof status?.data?.next).toBe('string');
  });

  it('answers 404 for another key, the other kind and a job past expiresAt', async () => {
    const handlers = jobHandlers(deps(), 1);
    const started = await handlers.crawlStart?.handle(ctx('crawlStart', { body: { url: 'https://example.com/' } }));
    const id = started?.data?.id as string;
    const notFound = { code: 'not_found' };
    await expect(handlers.crawlStatus?.handle(ctx('crawlStatus', { params: { job_id: id }, key: key('key-b') }))).rejects.toMatchObject(notFound);
    await expect(handlers.batchStatus?.handle(ctx('batchStatus', { params: { job_id: id } }))).rejects.toMatchObject(notFound);
    await new Promise((r) => setTimeout(r, 5));
    await expect(handlers.crawlStatus?.handle(ctx('crawlStatus', { params: { job_id: id } }))).rejects.toMatchObject(notFound);
  });

  it('with the notifier, keeps the webhook in the live record only, a bare URL as the object', async () => {
    // A guard that refuses private addresses, over a resolver that knows two names.
    const resolve = async (host: string) => [{ address: host === 'hooks.example.com' ? '93.184.216.34' : '10.0.0.7', family: 4 as const }];
    const handlers = jobHandlers(deps(), 3_600_000, { webhooks: new NetGuard({ allowPrivate: false, resolve }) });
    const hook = { url: 'https://hooks.example.com/x', headers: { authorization: 'Bearer t0ken' }, metadata: { a: 1 }, events: ['completed'] };
    const crawl = await handlers.crawlStart?.handle(ctx('crawlStart', { body: { url: 'https://example.com/', limit: 5, webhook: hook } }));
    const crawlJob = await liveJob(state, crawl?.data?.id as string);
    expect(JSON.parse(crawlJob?.webhook ?? '')).toEqual(hook);
    expect(JSON.parse(crawlJob?.params ?? '')).toEqual({ url: 'https://example.com/', limit: 5 });
    const batch = await handlers.batchStart?.handle(ctx('batchStart', { body: { urls: ['https://example.com/a'], webhook: 'https://hooks.example.com/y' } }));
    const batchJob = await liveJob(state, batch?.data?.id as string);
    expect(JSON.parse(batchJob?.webhook ?? '')).toEqual({ url: 'https://hooks.example.com/y', headers: {}, metadata: {}, events: null });
    // The store's versions never hold it (its headers may be credentials).
    expect(JSON.stringify(rows)).not.toContain('t0ken');
    expect(JSON.stringify(rows)).not.toContain('hooks.example.com');

    rows = [];
    emitted = [];
    await expect(
      handlers.crawlStart?.handle(ctx('crawlStart', { body: { url: 'https://example.com/', webhook: { url: 'https://internal.example.com/hook' } } })),
    ).rejects.toMatchObject({ code: 'url_blocked', message: expect.stringMatching(/^webhook: refused .*10\.0\.0\.7/) });
    await expect(handlers.batchStart?.handle(ctx('batchStart', { body: { urls: ['https://example.com/'], webhook: 'http://169.254.169.254/' } }))).rejects.toMatchObject({
      code: 'url_blocked',
    });
    expect(rows).toEqual([]);
    expect(emitted).toEqual([]);
  });

  it("refuses a crawl whose start URL the SSRF guard refuses with 403 url_blocked, as a scrape's, creating nothing", async () => {
    const resolve = async (host: string) => {
      if (host === 'nowhere.example') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return [{ address: host === 'internal.example' ? '10.0.0.7' : '93.184.216.34', family: 4 as const }];
    };
    const handlers = jobHandlers(deps(), 3_600_000, { guard: new NetGuard({ allowPrivate: false, resolve }) });
    for (const url of ['http://127.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://localhost:8080/', 'http://[::1]/', 'http://2130706433/', 'https://internal.example/admin']) {
      await expect(handlers.crawlStart?.handle(ctx('crawlStart', { body: { url } })), url).rejects.toMatchObject({ code: 'url_blocked', message: expect.stringMatching(/^refused to fetch /) });
    }
    expect(rows).toEqual([]);
    expect(emitted).toEqual([]);
    // A public address starts; a name that does not resolve is left to the fetch (dns_failed there).
    for (const url of ['https://example.com/', 'https://nowhere.example/']) {
      const started = await handlers.crawlStart?.handle(ctx('crawlStart', { body: { url } }));
      expect(started?.data).toEqual({ id: expect.stringMatching(/^crawl_/), url: expect.stringMatching(/^\/v1\/crawl\//) });
    }
  });

  it('starts a batch with the URLs the guard allows, listing the others in invalidURLs; 403 when it allows none', async () => {
    const looked: string[] = [];
    const resolve = async (host: string) => {
      looked.push(host);
      return [{ address: host.startsWith('internal') ? '10.0.0.7' : '93.184.216.34', family: 4 as const }];
    };
    const handlers = jobHandlers(deps(), 3_600_000, { guard: new NetGuard({ allowPrivate: false, resolve }) });
    const urls = ['https://example.com/a', 'http://127.0.0.1/x', 'https://internal.example/b', 'https://example.com/c', 'http://metadata.google.internal/'];
    const started = await handlers.batchStart?.handle(ctx('batchStart', { body: { urls } }));
    expect(started?.data).toMatchObject({ invalidURLs: ['http://127.0.0.1/x', 'https://internal.example/b', 'http://metadata.google.internal/'] });
    const job = await liveJob(state, started?.data?.id as string);
    expect(JSON.parse(job?.params ?? '{}')).toEqual({ urls: ['https://example.com/a', 'https://example.com/c'] });
    // One lookup per distinct name; literals and local names need none.
    expect(looked.sort()).toEqual(['example.com', 'internal.example']);

    rows = [];
    emitted = [];
    await expect(handlers.batchStart?.handle(ctx('batchStart', { body: { urls: ['http://10.1.2.3/', 'https://internal.example/'] } }))).rejects.toMatchObject({
      code: 'url_blocked',
      message: expect.stringMatching(/^every URL of the batch is refused: refused to fetch /),
    });
    expect(rows).toEqual([]);
    expect(emitted).toEqual([]);
  });

  it(`resolves at most START_LOOKUPS (${START_LOOKUPS}) distinct names of a batch; the others are checked when fetched`, async () => {
    const looked = new Set<string>();
    const resolve = async (host: string) => (looked.add(host), [{ address: '10.0.0.7', family: 4 as const }]);
    const handlers = jobHandlers(deps(), 3_600_000, { guard: new NetGuard({ allowPrivate: false, resolve }) });
    const urls = Array.from({ length: 3 * START_LOOKUPS }, (_, i) => `https://h${i}.example/`);
    const started = await handlers.batchStart?.handle(ctx('batchStart', { body: { urls } }));
    expect(looked.size).toBe(START_LOOKUPS);
    expect(started?.data?.invalidURLs).toEqual(urls.slice(0, START_LOOKUPS));
  });

  it('takes every URL as given with FETCH_ALLOW_PRIVATE, without a lookup', async () => {
    const resolve = async () => Promise.reject(new Error('no lookup expected'));
    const handlers = jobHandlers(deps(), 3_600_000, { guard: new NetGuard({ allowPrivate: true, resolve }) });
    const started = await handlers.batchStart?.handle(ctx('batchStart', { body: { urls: ['http://127.0.0.1:8080/', 'https://example.com/'] } }));
    expect(started?.data?.invalidURLs).toEqual([]);
  });

  it('refuses webhooks (in a build without the notifier) and options it cannot serve in a job, before creating anything', async () => {
    const handlers = jobHandlers(deps(), 3_600_000);
    await expect(handlers.crawlStart?.handle(ctx('crawlStart', { body: { url: 'https://example.com/', webhook: 'https://hooks.example.com/x' } }))).rejects.toMatchObject({
      code: 'not_implemented',
    });
    await expect(handlers.batchStart?.handle(ctx('batchStart', { body: { urls: ['https://example.com/'], scrapeOptions: { waitFor: 1000 } } }))).rejects.toMatchObject({
      code: 'not_implemented',
    });
    expect(rows).toEqual([]);
    expect(emitted).toEqual([]);
  });

  it('takes browser options in a build with a renderer, asking a browser page of balance to start', async () => {
    const handlers = jobHandlers(deps(), 3_600_000, { render: true });
    const body = { urls: ['https://example.com/'], scrapeOptions: { formats: ['markdown', 'screenshot'] } };
    expect(OPERATION_TABLE.batchStart.price.estimate(ctx('batchStart', { body }), GATEWAY)).toBe(BROWSER_PAGE_CREDITS);
    expect(OPERATION_TABLE.batchStart.price.estimate(ctx('batchStart', { body: { urls: ['https://example.com/'] } }), GATEWAY)).toBe(1);
    const started = await handlers.batchStart?.handle(ctx('batchStart', { body }));
    expect(started?.data).toMatchObject({ id: expect.stringMatching(/^batch_/) });
    expect(emitted).toHaveLength(1);
  });
});
