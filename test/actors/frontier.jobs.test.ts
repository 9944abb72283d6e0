/**
 * The frontier's job scheduling without a bus: crawl scope rules, and handleJobEvent over
 * memory state and Redis (when it answers), a real ledger-file key registry and a recording
 * writer — bounded pages in
 * flight, seqs in request ids, out-of-order settling behind the watermark, redelivery,
 * failures, completion, and a robots.txt that disallows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACTIVE_JOBS_KEY, handleJobEvent, resumeJobs, sweepStalledJobs } from '../../actors/frontier/jobs/handler.js';
import { pagesKey, seenKey, takeInFlight, workQueueOf } from '../../actors/frontier/jobs/queue.js';
import { crawlParamsOf, crawlScope } from '../../actors/frontier/jobs/scope.js';
import type { SiteReader } from '../../actors/frontier/jobs/site.js';
import { ALLOW_ALL, robotsFromStatus } from '../../actors/frontier/robots.js';
import type { AnyEmission } from '../../pipeline/runtime/events.js';
import { decodeCursor, encodeCursor, jobEvent, jobPageSeq, newJobId } from '../../pipeline/jobs/pages.js';
import { createJob, endJob, jobEndKey, jobPartKey, liveJob } from '../../pipeline/jobs/record.js';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { RedisState } from '../../pipeline/runtime/state/redis.js';
import { QUEUE_OFFERS_MAX, type State } from '../../pipeline/runtime/state/state.js';
import { sleep } from '../../pipeline/runtime/retry.js';
import { engine } from '../helpers/engines.js';
import { dropNamespace, REDIS_INSTALL, redisProbe, TEST_REDIS_URL, testNamespace } from '../helpers/redis.js';
import { observedState } from '../helpers/state-calls.js';

// The pause a paced job takes before its next page (schedule.ts) is the runtime's `sleep`, the
// real one unless a test holds it to read what was asked of it.
vi.mock('../../pipeline/runtime/retry.js', async (importOriginal) => {
  const retry = await importOriginal<typeof import('../../pipeline/runtime/retry.js')>();
  return { ...retry, sleep: vi.fn(retry.sleep) };
});

describe('actors/frontier/jobs scope', () => {
  const scope = (over: Record<string, unknown> = {}) => crawlScope(crawlParamsOf(JSON.stringify({ url: 'https://example.com/docs/', ...over })));

  it('keeps the start path and the site unless asked otherwise', () => {
    const s = scope();
    expect(s.start?.url).toBe('https://example.com/docs/');
    expect(s.candidate('a', 'https://example.com/docs/')?.url).toBe('https://example.com/docs/a');
    expect(s.candidate('https://www.example.com/docs')).not.toBeNull();
    expect(s.candidate('https://example.com/blog/x')).toBeNull();
    expect(s.candidate('https://other.org/docs/a')).toBeNull();
    expect(s.candidate('https://example.com/docs/logo.png')).toBeNull();
    expect(s.candidate('mailto:a@example.com', 'https://example.com/')).toBeNull();
    expect(scope({ allowBackwardLinks: true }).candidate('https://example.com/blog/x')).not.toBeNull();
    expect(scope({ allowExternalLinks: true }).candidate('https://other.org/anything')).not.toBeNull();
  });

  it('tests include and exclude on path and query, exclude winning', () => {
    const s = scope({ includePaths: ['^/docs/(api|guide)', 'lang=en'], excludePaths: ['/internal', 'draft=1'] });
    expect(s.candidate('https://example.com/docs/api/x')).not.toBeNull();
    expect(s.candidate('https://example.com/docs/other?lang=en')).not.toBeNull();
    expect(s.candidate('https://example.com/docs/other')).toBeNull();
    expect(s.candidate('https://example.com/docs/api/internal')).toBeNull();
    expect(s.candidate('https://example.com/docs/guide?draft=1')).toBeNull();
  });

  it('dedupes similar URLs by default, by exact URL when asked, and drops queries when asked', () => {
    const a = scope().candidate('https://example.com/docs/a/?utm_source=x');
    const b = scope().candidate('http://www.example.com/docs/a');
    expect(a?.key).toBe(b?.key);
    const exact = scope({ deduplicateSimilarURLs: false });
    expect(exact.candidate('https://example.com/docs/a/')?.key).not.toBe(exact.candidate('https://example.com/docs/a')?.key);
    const noQuery = scope({ ignoreQueryParameters: true });
    expect(noQuery.candidate('https://example.com/docs/a?page=2')?.url).toBe('https://example.com/docs/a');
    expect(noQuery.candidate('https://example.com/docs/a?page=2')?.key).toBe(noQuery.candidate('https://example.com/docs/a?page=3')?.key);
  });

  it('takes a page once whatever session id or tracking parameters its links carry', () => {
    const token = () => Math.random().toString(16).slice(2).padEnd(16, '0') + 'ABCDEF0123456789';
    for (const s of [scope(), scope({ deduplicateSimilarURLs: false })]) {
      const variants = [
        'https://example.com/docs/a?x=1',
        `https://example.com/docs/a;jsessionid=${token()}?x=1`,
        `https://example.com/docs/a?PHPSESSID=${token()}&x=1`,
        `https://example.com/docs/a?x=1&sid=${token()}&utm_source=feed&utm_medium=rss`,
        `https://example.com/docs/a?fbclid=${token()}&x=1&gclid=${token()}`,
      ].map((v) => s.candidate(v));
      expect(variants.map((c) => c?.url)).toEqual(Array(5).fill('https://example.com/docs/a?x=1'));
      expect(new Set(variants.map((c) => c?.key)).size).toBe(1);
    }
    expect(scope({ url: `https://example.com/docs/;jsessionid=${token()}` }).start?.url).toBe('https://example.com/docs/');
  });

  it('reads the schema defaults for a crawl whose params miss them', () => {
    expect(crawlParamsOf('{"url":"https://example.com"}')).toMatchObject({ limit: 100, maxDepth: 3, maxConcurrency: 5, deduplicateSimilarURLs: true, delay: 0 });
  });
});

describe('pipeline/jobs pages', () => {
  it('carries the seq in the request id and round-trips cursors', () => {
    const id = newJobId('batch');
    expect(jobPageSeq(`${id}:12`, id)).toBe(12);
    expect(jobPageSeq('req-1', id)).toBeNull();
    expect(decodeCursor(encodeCursor(41))).toBe(41);
    expect(decodeCursor(null)).toBe(0);
    expect(decodeCursor('garbage')).toBeNull();
  });
});

const hasRedis = await engine('redis', () => redisProbe(), REDIS_INSTALL);

interface Engine {
  open(): Promise<State>;
  teardown(): Promise<void>;
}

const memoryEngine = (): Engine => ({ open: async () => new MemoryState({ sweepIntervalMs: 0 }), teardown: async () => undefined });

function redisEngine(): Engine {
  const namespace = testNamespace();
  return {
    async open() {
      const state = new RedisState({ url: TEST_REDIS_URL, namespace, log: createLogger('silent'), connectTimeoutMs: 2000 });
      await state.connect();
      return state;
    },
    teardown: async () => void (await dropNamespace(namespace)),
  };
}

describe('actors/frontier/jobs handleJobEvent (memory state)', () => jobSuite(memoryEngine));
describe.skipIf(!hasRedis)('actors/frontier/jobs handleJobEvent (redis state)', () => jobSuite(redisEngine));

function jobSuite(makeEngine: () => Engine): void {
  let dir: string;
  let state: State;
  let stateEngine: Engine;
  let keys: FileKeyRegistry;
  let written: { table: string; rows: readonly Record<string, unknown>[] }[];
  let robots = ALLOW_ALL;
  const sitemap: string[] = [];
  const site: SiteReader = {
    robots: async () => robots,
    async sitemapUrls(_origin, take) {
      for (const url of sitemap) if (!(await take(url))) return;
    },
  };
  const signal = new AbortController().signal;
  const deps = () => ({ state, keys, site, log: createLogger('silent'), writer: { write: async (table: string, rows: readonly Record<string, unknown>[]) => void written.push({ table, rows }), pending: () => 0 } });
  const scrapes = (emit: readonly AnyEmission[] | undefined) => (emit ?? []).filter((e) => e.topic === 'scrapeRequested').map((e) => e.value as { requestId: string; url: string });
  const types = (emit: readonly AnyEmission[] | undefined) => (emit ?? []).filter((e) => e.topic === 'jobEvents').map((e) => (e.value as { type: string }).type);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wds-frontier-jobs-'));
    stateEngine = makeEngine();
    state = await stateEngine.open();
    keys = new FileKeyRegistry(dir);
    written = [];
    robots = ALLOW_ALL;
    sitemap.length = 0;
  });
  afterEach(async () => {
    keys.close();
    await state.close();
    await stateEngine.teardown();
    rmSync(dir, { recursive: true, force: true });
  });

  async function job(kind: 'crawl' | 'batch', params: object, credits: number | 'unlimited' = 'unlimited') {
    const { record } = await keys.create({ name: 't', credits });
    const id = newJobId(kind);
    await createJob(deps(), { id, tenant: record.id, kind, params: JSON.stringify(params), nowMs: Date.now(), retentionMs: 3_600_000 });
    return { id, tenant: record.id, key: record };
  }
  const event = (tenant: string, id: string, type: string, data: object = {}) => jobEvent(tenant, id, type, data).value as Parameters<typeof handleJobEvent>[0];

  it('keeps maxConcurrency pages in flight, settles out of order behind the watermark, once each, then completes', async () => {
    const urls = ['a', 'b', 'c', 'd', 'a'].map((p) => `https://example.com/${p}`);
    const { id, tenant } = await job('batch', { urls, maxConcurrency: 2 });
    const started = await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    expect(started.kind).toBe('ack');
    const first = scrapes(started.kind === 'ack' ? started.emit : []);
    expect(first.map((s) => s.requestId)).toEqual([`${id}:1`, `${id}:2`]);
    // Each page is keyed by its request id, so a job's pages spread over the partitions and
    // are fetched side by side (one key's messages are handed out one at a time).
    const sent = started.kind === 'ack' ? (started.emit ?? []).filter((e) => e.topic === 'scrapeRequested') : [];
    expect(sent.map((e) => e.key)).toEqual([`${id}:1`, `${id}:2`]);
    expect((await liveJob(state, id))?.total).toBe(4);
    // A redelivered `started` seeds nothing again.
    const again = await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    expect(scrapes(again.kind === 'ack' ? again.emit : [])).toEqual([]);

    const page = (seq: number) => event(tenant, id, 'page', { seq, url: urls[seq - 1], statusCode: 200, credits: 1, links: [] });
    const second = await handleJobEvent(page(2), deps(), signal);
    expect(scrapes(second.kind === 'ack' ? second.emit : []).map((s) => s.requestId)).toEqual([`${id}:3`]);
    expect((await liveJob(state, id))?.watermark).toBe(0);
    await handleJobEvent(page(1), deps(), signal);
    expect((await liveJob(state, id))?.watermark).toBe(2);
    const redelivered = await handleJobEvent(page(1), deps(), signal);
    expect(scrapes(redelivered.kind === 'ack' ? redelivered.emit : [])).toEqual([]);
    expect((await liveJob(state, id))?.completed).toBe(2);

    await handleJobEvent(event(tenant, id, 'pageFailed', { seq: 3, url: urls[2], code: 'dns_failed', message: 'no such host', statusCode: 0 }), deps(), signal);
    const last = await handleJobEvent(page(4), deps(), signal);
    expect(types(last.kind === 'ack' ? last.emit : [])).toEqual(['completed']);
    expect(await liveJob(state, id)).toMatchObject({ status: 'completed', total: 4, completed: 3, failed: 1, creditsUsed: 3, watermark: 4, scheduled: 4 });
    expect(written.filter((w) => w.table === 'job_errors').flatMap((w) => w.rows)).toMatchObject([{ job_id: id, url: urls[2], code: 'dns_failed' }]);
    // Its working state is gone; the record stays.
    expect(await state.scard(seenKey(id))).toBe(0);
    expect(await state.hgetall(pagesKey(id))).toEqual({});
    expect(written.filter((w) => w.table === 'jobs').length).toBeGreaterThan(3);
    // A `started` redelivered after the end admits nothing.
    const late = await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    expect(late).toEqual({ kind: 'ack', emit: [] });
    expect((await liveJob(state, id))?.total).toBe(4);
  });

  it("queues running jobs' progress versions in one insert and waits only for the start and the end", async () => {
    // A real batch writer with a 20 ms window over a store that only counts inserts.
    const inserts: { table: string; rows: readonly Record<string, unknown>[] }[] = [];
    const writer = new BatchWriter({ insert: async (table: string, rows: readonly Record<string, unknown>[]) => void inserts.push({ table, rows }) } as unknown as Store, { maxRows: 1000, maxDelayMs: 20 }, createLogger('silent'));
    const batched = () => ({ ...deps(), writer });
    const jobs = await Promise.all([1, 2, 3].map(() => job('batch', { urls: ['https://example.com/a', 'https://example.com/b'], maxConcurrency: 2 })));
    for (const j of jobs) await handleJobEvent(event(j.tenant, j.id, 'started'), batched(), signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const versions = () => inserts.filter((i) => i.table === 'jobs').map((i) => i.rows.map((r) => [r.id, r.version]));
    const landed = versions().length;
    // Each job's first page: a progress version each, due within SNAPSHOT_INTERVAL_MS of each other.
    const page = (j: (typeof jobs)[number], seq: number) => event(j.tenant, j.id, 'page', { seq, url: `https://example.com/${seq === 1 ? 'a' : 'b'}`, statusCode: 200, credits: 1, links: [] });
    for (const j of jobs) await handleJobEvent(page(j, 1), batched(), signal);
    expect(writer.pending('jobs')).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Past the writer's own window, still queued: the handlers did not wait for them.
    expect(versions()).toHaveLength(landed);
    // The first job's last page ends it: its final version goes at once and takes the queued ones along.
    await handleJobEvent(page(jobs[0] as (typeof jobs)[number], 2), batched(), signal);
    const [together] = versions().slice(landed);
    expect(together).toHaveLength(4);
    expect(together?.map(([id]) => id)).toEqual([...jobs.map((j) => j.id), jobs[0]?.id]);
    expect(writer.pending('jobs')).toBe(0);
    await writer.close();
  });

  it('the stall watchdog sends pages a dead process held again, same seq, and completes the job', async () => {
    const urls = ['a', 'b', 'c'].map((p) => `https://example.com/${p}`);
    const { id, tenant } = await job('batch', { urls, maxConcurrency: 2 });
    // The frontier that handled `started` died before publishing: its two claims were never sent.
    const lost = await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    expect(scrapes(lost.kind === 'ack' ? lost.emit : [])).toHaveLength(2);
    // Nothing is stalled yet.
    expect(await sweepStalledJobs(deps(), 60_000, signal)).toEqual([]);

    const later = Date.now() + 120_000;
    const stalledDeps = { ...deps(), now: () => later };
    const resent = scrapes(await sweepStalledJobs(stalledDeps, 60_000, signal));
    expect(resent.map((r) => r.requestId)).toEqual([`${id}:1`, `${id}:2`]);
    expect(resent.map((r) => r.url)).toEqual(urls.slice(0, 2));
    // Sent again just now: a second sweep at the same time sends nothing more.
    expect(await sweepStalledJobs(stalledDeps, 60_000, signal)).toEqual([]);

    // Both copies of page 1 arrive: it is counted once.
    const page = (seq: number) => event(tenant, id, 'page', { seq, url: urls[seq - 1], statusCode: 200, credits: 1, links: [] });
    const next = await handleJobEvent(page(1), deps(), signal);
    expect(scrapes(next.kind === 'ack' ? next.emit : []).map((r) => r.requestId)).toEqual([`${id}:3`]);
    await handleJobEvent(page(1), deps(), signal);
    await handleJobEvent(page(2), deps(), signal);
    const last = await handleJobEvent(page(3), deps(), signal);
    expect(types(last.kind === 'ack' ? last.emit : [])).toEqual(['completed']);
    expect(await liveJob(state, id)).toMatchObject({ status: 'completed', total: 3, completed: 3, failed: 0, creditsUsed: 3, watermark: 3 });
    // An ended job leaves the watchdog's schedule.
    expect(await sweepStalledJobs({ ...deps(), now: () => later + 600_000 }, 60_000, signal)).toEqual([]);
    expect(await state.zcard(ACTIVE_JOBS_KEY)).toBe(0);
  });

  it('resumes the running jobs at a restart: pages in flight sent again at once, a job never seeded started again', async () => {
    const urls = ['a', 'b', 'c'].map((p) => `https://example.com/${p}`);
    const { id, tenant } = await job('batch', { urls, maxConcurrency: 2 });
    await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    // The process died after creating this job, before its `started` event was read.
    const unseeded = await job('batch', { urls: ['https://example.com/z'] });
    const out = await resumeJobs(deps(), signal);
    // At once, not a stall time later: what the dead process held is sent again, same seqs.
    expect(scrapes(out).map((r) => r.requestId)).toEqual([`${id}:1`, `${id}:2`]);
    const starts = out.filter((e) => e.topic === 'jobEvents').map((e) => e.value as { jobId: string; type: string });
    expect(starts).toEqual([expect.objectContaining({ jobId: unseeded.id, type: 'started' })]);
    // Its `started` seeds and sends it; the resumed batch completes with each page counted once.
    const seeded = await handleJobEvent(event(unseeded.tenant, unseeded.id, 'started'), deps(), signal);
    expect(scrapes(seeded.kind === 'ack' ? seeded.emit : []).map((r) => r.url)).toEqual(['https://example.com/z']);
    const page = (seq: number) => event(tenant, id, 'page', { seq, url: urls[seq - 1], statusCode: 200, credits: 1, links: [] });
    for (const seq of [1, 2, 1, 3]) await handleJobEvent(page(seq), deps(), signal);
    expect(await liveJob(state, id)).toMatchObject({ status: 'completed', total: 3, completed: 3, listed: 3, watermark: 3 });
  });

  it('counts as listed only the pages stored at or below the watermark, which the listing reads', async () => {
    const urls = ['a', 'b', 'c', 'd'].map((p) => `https://example.com/${p}`);
    const { id, tenant } = await job('batch', { urls, maxConcurrency: 4 });
    await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    const page = (seq: number) => event(tenant, id, 'page', { seq, url: urls[seq - 1], statusCode: 200, credits: 1, links: [] });
    await handleJobEvent(page(2), deps(), signal);
    await handleJobEvent(page(4), deps(), signal);
    // Stored above the watermark: counted, not listed yet.
    expect(await liveJob(state, id)).toMatchObject({ completed: 2, listed: 0, watermark: 0 });
    await handleJobEvent(event(tenant, id, 'pageFailed', { seq: 1, url: urls[0], code: 'fetch_failed', message: 'x', statusCode: 0 }), deps(), signal);
    expect(await liveJob(state, id)).toMatchObject({ completed: 2, failed: 1, listed: 1, watermark: 2 });
    await handleJobEvent(page(3), deps(), signal);
    expect(await liveJob(state, id)).toMatchObject({ status: 'completed', completed: 3, failed: 1, listed: 3, watermark: 4 });
  });

  it('the watchdog completes a job whose last page was counted by a process that died before ending it', async () => {
    const { id, tenant } = await job('batch', { urls: ['https://example.com/only'] });
    await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    // The page is settled (counted) but the process died before it could end the job.
    expect(await takeInFlight(state, id, 1, { completed: 1, creditsUsed: 1 })).toBe(true);
    expect((await liveJob(state, id))?.status).toBe('scraping');
    const out = await sweepStalledJobs({ ...deps(), now: () => Date.now() + 120_000 }, 60_000, signal);
    expect(types(out)).toEqual(['completed']);
    expect(await liveJob(state, id)).toMatchObject({ status: 'completed', completed: 1, watermark: 1 });
  });

  it('a job whose end latch was taken by a process that died before writing the record reads as ended', async () => {
    const { id, tenant } = await job('batch', { urls: ['https://example.com/only'] });
    await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    await state.set(jobEndKey(id), JSON.stringify({ status: 'cancelled', error: '' }));
    expect((await liveJob(state, id))?.status).toBe('scraping');
    expect(await endJob(deps(), id, 'completed')).toBe(false);
    expect((await liveJob(state, id))?.status).toBe('cancelled');
  });

  /**
   * Settles `page` with the clock standing still, holding the pause the frontier asks for:
   * how long that pause was (or that the handler answered without one), and, once it is over,
   * the URLs sent.
   */
  async function pausedBefore(page: Parameters<typeof handleJobEvent>[0]): Promise<{ pauseMs: number | 'answered without a pause'; answeredWhilePaused: boolean; next: string[] }> {
    vi.useFakeTimers({ toFake: ['Date'] });
    let endPause!: () => void;
    const over = new Promise<void>((resolve) => {
      endPause = resolve;
    });
    const asked = new Promise<number>((resolve) =>
      vi.mocked(sleep).mockImplementationOnce((ms) => {
        resolve(ms);
        return over;
      }),
    );
    try {
      let answered = false;
      const pending = handleJobEvent(page, deps(), signal).finally(() => void (answered = true));
      const pauseMs = await Promise.race([asked, pending.then(() => 'answered without a pause' as const)]);
      for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
      const answeredWhilePaused = answered;
      endPause();
      const next = await pending;
      return { pauseMs, answeredWhilePaused, next: scrapes(next.kind === 'ack' ? next.emit : []).map((s) => s.url) };
    } finally {
      vi.useRealTimers();
      vi.mocked(sleep).mockReset();
    }
  }

  it("honours robots.txt's Crawl-delay with respectRobots: one page in flight at a time, the next a Crawl-delay after the last settled", async () => {
    robots = robotsFromStatus(200, 'User-agent: *\nCrawl-delay: 1\n', 'https://example.com/robots.txt');
    sitemap.push('https://example.com/s1', 'https://example.com/s2');
    const polite = await job('crawl', { url: 'https://example.com/', respectRobots: true, maxConcurrency: 10 });
    const sent = await handleJobEvent(event(polite.tenant, polite.id, 'started'), deps(), signal);
    expect(scrapes(sent.kind === 'ack' ? sent.emit : []).map((s) => s.url)).toEqual(['https://example.com/']);
    // The clock stands still: the pause before the next page is the whole Crawl-delay, and
    // nothing is sent until it is over.
    const settled = await pausedBefore(event(polite.tenant, polite.id, 'page', { seq: 1, url: 'https://example.com/', statusCode: 200, credits: 1, links: [] }));
    expect(settled).toEqual({ pauseMs: 1000, answeredWhilePaused: false, next: ['https://example.com/s1'] });
    // Without respectRobots the crawl delay is not read.
    const eager = await job('crawl', { url: 'https://example.com/', maxConcurrency: 10 });
    const all = await handleJobEvent(event(eager.tenant, eager.id, 'started'), deps(), signal);
    expect(scrapes(all.kind === 'ack' ? all.emit : [])).toHaveLength(3);
  });

  it("paces a crawl by its own `delay` the same way: one page in flight, the next `delay` ms after the last settled", async () => {
    sitemap.push('https://example.com/s1', 'https://example.com/s2');
    const paced = await job('crawl', { url: 'https://example.com/', delay: 250, maxConcurrency: 10 });
    const sent = await handleJobEvent(event(paced.tenant, paced.id, 'started'), deps(), signal);
    expect(scrapes(sent.kind === 'ack' ? sent.emit : []).map((s) => s.url)).toEqual(['https://example.com/']);
    const settled = await pausedBefore(event(paced.tenant, paced.id, 'page', { seq: 1, url: 'https://example.com/', statusCode: 200, credits: 1, links: [] }));
    expect(settled).toEqual({ pauseMs: 250, answeredWhilePaused: false, next: ['https://example.com/s1'] });
  });

  it('follows a page by the shortest path found to it, even when a longer one was found first', async () => {
    sitemap.push('https://example.com/a');
    const { id, tenant } = await job('crawl', { url: 'https://example.com/', maxDepth: 2, maxConcurrency: 10 });
    const started = await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    expect(scrapes(started.kind === 'ack' ? started.emit : []).map((s) => s.url)).toEqual(['https://example.com/', 'https://example.com/a']);
    const page = (seq: number, url: string, links: string[]) => event(tenant, id, 'page', { seq, url, statusCode: 200, credits: 1, links });
    // /a (depth 1) settles first: /x is found at depth 2.
    const fromA = await handleJobEvent(page(2, 'https://example.com/a', ['https://example.com/x']), deps(), signal);
    expect(scrapes(fromA.kind === 'ack' ? fromA.emit : []).map((s) => s.requestId)).toEqual([`${id}:3`]);
    // The home page (depth 0) links /x too: /x is at depth 1 after all.
    await handleJobEvent(page(1, 'https://example.com/', ['https://example.com/x']), deps(), signal);
    // So /x's links are followed (depth 2 = maxDepth), not dropped as one level too deep.
    const fromX = await handleJobEvent(page(3, 'https://example.com/x', ['https://example.com/y']), deps(), signal);
    expect(scrapes(fromX.kind === 'ack' ? fromX.emit : []).map((s) => s.url)).toEqual(['https://example.com/y']);
  });

  it('does not fetch again the URL a page redirected to', async () => {
    const { id, tenant } = await job('crawl', { url: 'https://example.com/', maxConcurrency: 10 });
    await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    const links = ['https://example.com/home', 'https://example.com/home/', 'https://example.com/other'];
    const out = await handleJobEvent(event(tenant, id, 'page', { seq: 1, url: 'https://example.com/', finalUrl: 'https://example.com/home', statusCode: 200, credits: 1, links }), deps(), signal);
    expect(scrapes(out.kind === 'ack' ? out.emit : []).map((s) => s.url)).toEqual(['https://example.com/other']);
    expect((await liveJob(state, id))?.total).toBe(2);
  });

  it('follows links one level deeper up to maxDepth and limit, and lists what robots.txt disallows', async () => {
    robots = robotsFromStatus(200, 'User-agent: *\nDisallow: /private/\n', 'https://example.com/robots.txt');
    sitemap.push('https://example.com/s1', 'https://example.com/s2');
    const { id, tenant } = await job('crawl', { url: 'https://example.com/', maxDepth: 1, limit: 5, respectRobots: true, maxConcurrency: 50 });
    const started = await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    const sent = scrapes(started.kind === 'ack' ? started.emit : []);
    expect(sent.map((s) => s.url)).toEqual(['https://example.com/', 'https://example.com/s1', 'https://example.com/s2']);
    const links = ['/x', '/private/p', '/y', '/z', '/w'].map((p) => `https://example.com${p}`);
    const home = await handleJobEvent(event(tenant, id, 'page', { seq: 1, url: sent[0]?.url, statusCode: 200, credits: 1, links }), deps(), signal);
    // limit 5: the home page, two sitemap URLs, /x and /y; /private/p is blocked, /z and /w are over the limit.
    expect(scrapes(home.kind === 'ack' ? home.emit : []).map((s) => s.url)).toEqual(['https://example.com/x', 'https://example.com/y']);
    expect(written.filter((w) => w.table === 'job_errors').flatMap((w) => w.rows)).toMatchObject([{ url: 'https://example.com/private/p', code: 'robots_disallowed' }]);
    // Depth 1 pages' links are not followed (maxDepth 1).
    const deeper = await handleJobEvent(event(tenant, id, 'page', { seq: 2, url: sent[1]?.url, statusCode: 200, credits: 1, links: ['https://example.com/deep'] }), deps(), signal);
    expect(scrapes(deeper.kind === 'ack' ? deeper.emit : [])).toEqual([]);
    expect((await liveJob(state, id))?.total).toBe(5);
  });

  it('gives the event loop a turn while it asks robots.txt about a page of many links', async () => {
    const { id, tenant } = await job('crawl', { url: 'https://example.com/', maxDepth: 2, limit: 10_000, respectRobots: true, ignoreSitemap: true });
    await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    let turned = false;
    const turnedAt: boolean[] = [];
    robots = {
      ...ALLOW_ALL,
      allows: (url) => {
        // From the first link asked on, a turn of the event loop is waited for.
        if (turnedAt.length === 0) setImmediate(() => void (turned = true));
        turnedAt.push(turned);
        return ALLOW_ALL.allows(url);
      },
    };
    const links = Array.from({ length: 300 }, (_, i) => `https://example.com/p/${i}`);
    await handleJobEvent(event(tenant, id, 'page', { seq: 1, url: 'https://example.com/', statusCode: 200, credits: 1, links }), deps(), signal);
    expect(turnedAt).toHaveLength(300);
    // Asked one link after another with no turn in between, the setImmediate would run only after the last.
    expect(turnedAt.indexOf(true)).toBeGreaterThan(0);
    expect(turnedAt.indexOf(true)).toBeLessThanOrEqual(64);
  });

  it("offers a page's links in one state step, a disallowed link after the ones before it, and none once the job is full", async () => {
    robots = robotsFromStatus(200, 'User-agent: *\nDisallow: /private/\n', 'https://example.com/robots.txt');
    const { id, tenant } = await job('crawl', { url: 'https://example.com/', maxDepth: 2, limit: 4, respectRobots: true, maxConcurrency: 50, ignoreSitemap: true });
    await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    const calls: string[] = [];
    const counted = observedState(state, (name, args) => {
      if (name === 'queueAdmit' || name === 'queueAdmitMany') calls.push(`${name} ${name === 'queueAdmitMany' ? (args[1] as unknown[]).length : 1}`);
    });
    const at = (p: string) => `https://example.com${p}`;
    const keyOf = (p: string) => crawlScope(crawlParamsOf(JSON.stringify({ url: at('/') }))).candidate(at(p))?.key ?? '';
    // /a, /b; then /private/one is listed after them; /a again is seen; /c fills the job (limit 4
    // with the home page), so /d finds it full and /private/two, after it, is not listed.
    const links = ['/a', '/b', '/private/one', '/a', '/c', '/d', '/private/two'].map(at);
    const home = await handleJobEvent(event(tenant, id, 'page', { seq: 1, url: at('/'), statusCode: 200, credits: 1, links }), { ...deps(), state: counted }, signal);
    expect(scrapes(home.kind === 'ack' ? home.emit : []).map((s) => s.url)).toEqual(['/a', '/b', '/c'].map(at));
    expect(calls).toEqual(['queueAdmitMany 2', 'queueAdmitMany 3']);
    expect(await state.sismember(seenKey(id), keyOf('/d'))).toBe(true);
    expect(written.filter((w) => w.table === 'job_errors').flatMap((w) => w.rows)).toMatchObject([{ url: at('/private/one'), code: 'robots_disallowed' }]);
    expect(await state.sismember(seenKey(id), keyOf('/private/two'))).toBe(false);
    expect(await state.sismember(seenKey(id), keyOf('/private/one'))).toBe(true);
    expect((await liveJob(state, id))?.total).toBe(4);
  });

  it('queues a batch job of more URLs than one state step takes, in order', async () => {
    const urls = Array.from({ length: QUEUE_OFFERS_MAX + 20 }, (_, i) => `https://example.com/p${i}`);
    const { id, tenant } = await job('batch', { urls, maxConcurrency: 1 });
    const started = await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    expect(scrapes(started.kind === 'ack' ? started.emit : []).map((s) => s.url)).toEqual([urls[0]]);
    expect((await liveJob(state, id))?.total).toBe(urls.length);
    const queued = await state.pop(workQueueOf(id).queue, urls.length);
    expect(queued.map((item) => (JSON.parse(item) as { url: string }).url)).toEqual(urls.slice(1));
  });

  it("settles a running job's page in eight state steps, and sends the next page in the same step", async () => {
    // Each state call is a Redis round trip: one crawl's rate is bounded by its page events
    // settled one at a time (docs/scaling.md "Where it breaks first").
    const urls = Array.from({ length: 12 }, (_, i) => `https://example.com/p${i}`);
    const { id, tenant } = await job('batch', { urls, maxConcurrency: 3 });
    const started = await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    const inFlight = scrapes(started.kind === 'ack' ? started.emit : []);
    expect(inFlight).toHaveLength(3);
    // This second's progress version is written already (at most one a second: three steps more).
    await state.set(jobPartKey(id, 'snapshot'), '1', 60_000);
    let calls = 0;
    const counted = observedState(state, () => void calls++);
    for (let i = 0; i < 6; i++) {
      const page = inFlight.shift() as { requestId: string; url: string };
      calls = 0;
      const out = await handleJobEvent(event(tenant, id, 'page', { seq: jobPageSeq(page.requestId, id), url: page.url, statusCode: 200, credits: 1, links: [] }), { ...deps(), state: counted }, signal);
      const next = scrapes(out.kind === 'ack' ? out.emit : []);
      expect(next).toHaveLength(1);
      inFlight.push(...next);
      // The job read as the event comes and as it is finished (2), the page in flight (1), its
      // settle, the watermark, the next claim (3), the progress throttle, the watchdog's schedule (2).
      expect(calls).toBeLessThanOrEqual(8);
    }
    expect(await liveJob(state, id)).toMatchObject({ status: 'scraping', completed: 6, scheduled: 9 });
  });

  it('counts an unreadable queued page failed and claims the next in its place', async () => {
    const urls = ['a', 'b', 'c'].map((p) => `https://example.com/${p}`);
    const { id, tenant } = await job('batch', { urls, maxConcurrency: 1 });
    await handleJobEvent(event(tenant, id, 'started'), deps(), signal);
    const queue = workQueueOf(id).queue;
    const rest = await state.pop(queue, 10);
    await state.push(queue, 'not a page', ...rest);
    const out = await handleJobEvent(event(tenant, id, 'page', { seq: 1, url: urls[0], statusCode: 200, credits: 1, links: [] }), deps(), signal);
    // The claim that filled the job's one slot was given back: the next page goes at once.
    expect(scrapes(out.kind === 'ack' ? out.emit : []).map((s) => [s.requestId, s.url])).toEqual([[`${id}:3`, urls[1]]]);
    expect(await liveJob(state, id)).toMatchObject({ completed: 1, failed: 1, scheduled: 3 });
  });

  it('schedules nothing once the job is cancelled, and ends failed when the balance runs out', async () => {
    const cancelled = await job('batch', { urls: ['https://example.com/1', 'https://example.com/2'], maxConcurrency: 1 });
    const out = await handleJobEvent(event(cancelled.tenant, cancelled.id, 'started'), deps(), signal);
    expect(scrapes(out.kind === 'ack' ? out.emit : [])).toHaveLength(1);
    await endJob(deps(), cancelled.id, 'cancelled');
    const after = await handleJobEvent(event(cancelled.tenant, cancelled.id, 'page', { seq: 1, url: 'https://example.com/1', statusCode: 200, credits: 1, links: [] }), deps(), signal);
    expect(scrapes(after.kind === 'ack' ? after.emit : [])).toEqual([]);
    expect(await liveJob(state, cancelled.id)).toMatchObject({ status: 'cancelled', completed: 1 });

    const poor = await job('batch', { urls: ['https://example.com/1', 'https://example.com/2', 'https://example.com/3'], maxConcurrency: 3 }, 2);
    const started = await handleJobEvent(event(poor.tenant, poor.id, 'started'), deps(), signal);
    expect(scrapes(started.kind === 'ack' ? started.emit : [])).toHaveLength(2);
    expect(types(started.kind === 'ack' ? started.emit : [])).toEqual(['failed']);
    expect((await liveJob(state, poor.id))?.error).toMatch(/insufficient_credits/);
  });
}
