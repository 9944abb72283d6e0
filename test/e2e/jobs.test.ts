/**
 * Crawl and batch-scrape jobs through the production actors in embedded mode (gateway →
 * JobEvent → frontier → ScrapeRequested → fetcher → parser → job_pages + JobEvent → frontier),
 * against the generated local site of test/helpers/map-site.ts: a batch with a failing URL,
 * cursor paging (also while a crawl runs), crawl scope (maxDepth, limit, include/exclude,
 * dedupe, robots.txt, delay), cancel, per-page charging and a balance that runs out, another
 * key's job, the 422 answers, a restart mid-crawl (resumed with the default STATE=file;
 * answered failed, pages kept, with STATE=memory), and the
 * same jobs with the coordination state in Redis (when a Redis answers at TEST_REDIS_URL).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Service } from '../../main.js';
import { sleep } from '../../pipeline/runtime/retry.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { RedisState } from '../../pipeline/runtime/state/redis.js';
import { jobKey } from '../../pipeline/jobs/record.js';
import { pagesKey, queueKey, seenKey } from '../../actors/frontier/jobs/queue.js';
import { meteredKey as metered, serveEmbedded } from '../helpers/embedded.js';
import { engine } from '../helpers/engines.js';
import { HIDDEN_PER_SECTION, SECTIONS, startMapSite, type MapSite } from '../helpers/map-site.js';
import { dropNamespace, REDIS_INSTALL, redisProbe, TEST_REDIS_URL, testNamespace } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';

const API_KEY = 'e2e-jobs-key-0123456789';

// The pause a crawl with a `delay` takes before each page (actors/frontier/jobs/schedule.ts) is
// the runtime's `sleep`: the real one, unless a test reads what was asked of it.
vi.mock('../../pipeline/runtime/retry.js', async (importOriginal) => {
  const retry = await importOriginal<typeof import('../../pipeline/runtime/retry.js')>();
  return { ...retry, sleep: vi.fn(retry.sleep) };
});

let site: MapSite;
let slow: MapSite;
let hanging: MapSite;
let service: Service;
let base = '';
let dataDir = '';

type Body = Record<string, any>;

async function call(method: string, path: string, body?: unknown, key = API_KEY): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

async function start(path: string, body: unknown, key = API_KEY): Promise<string> {
  const res = await call('POST', path, body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(typeof res.body.data.id).toBe('string');
  return res.body.data.id as string;
}

const ENDED = ['completed', 'failed', 'cancelled'];

async function waitFor(path: string, done: (data: Body) => boolean, key = API_KEY, timeoutMs = 25_000): Promise<Body> {
  let last: Body | undefined;
  return until(
    () => `waiting on ${path} (last: ${JSON.stringify({ ...last, data: undefined })})`,
    async () => {
      const res = await call('GET', path, undefined, key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      last = res.body.data;
      return done(res.body.data) && res.body.data;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** Every page of a job, `limit` at a time, following `next` until it is null. */
async function allPages(path: string, limit: number, key = API_KEY): Promise<{ urls: string[]; calls: number }> {
  const urls: string[] = [];
  let cursor: string | null = null;
  let calls = 0;
  do {
    const query: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await call('GET', `${path}/pages?${query}`, undefined, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.data.length).toBeLessThanOrEqual(limit);
    for (const doc of res.body.data.data as Body[]) urls.push(doc.metadata.sourceURL as string);
    cursor = res.body.data.next as string | null;
    calls++;
  } while (cursor);
  return { urls, calls };
}

/** A key with a finite balance in the running service's ledger. */
const meteredKey = (credits: number) => metered(dataDir, credits);

const pathOf = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  site = await startMapSite();
  // Every page but the home page takes a while: a crawl of it is still running when cancelled.
  slow = await startMapSite({ delayMs: (path) => (path.startsWith('/page/') ? 150 : 0) });
  // Every page but the home page and robots.txt answers after a minute: a crawl's pages hang in flight.
  hanging = await startMapSite({ delayMs: (path) => (path === '/' || path === '/robots.txt' ? 0 : 60_000) });
  dataDir = mkdtempSync(join(tmpdir(), 'wds-jobs-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', API_KEY, FETCH_ALLOW_PRIVATE: 'true' });
  ({ service, base } = await serveEmbedded(config));
});

afterAll(async () => {
  await service?.stop();
  await site?.close();
  await slow?.close();
  await hanging?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('e2e/jobs: batch scrape', () => {
  it('scrapes every URL, lists the one that failed, pages with cursors and charges per page', async () => {
    const { key, balance } = await meteredKey(100);
    const urls = [1, 2, 3, 4, 5].map((n) => site.url(`/page/${n}`));
    const failing = 'http://127.0.0.1:1/nothing-listens-here';
    const id = await start('/v1/batch/scrape', { urls: [...urls, failing], maxConcurrency: 3 }, key);
    expect(id.startsWith('batch_')).toBe(true);
    const status = await waitFor(`/v1/batch/${id}`, (d) => ENDED.includes(d.status), key);
    expect(status).toMatchObject({ status: 'completed', total: 6, completed: 5, failed: 1, creditsUsed: 5, next: null });
    expect(Date.parse(status.expiresAt)).toBeGreaterThan(Date.now());
    expect((status.data as Body[]).map((d) => d.metadata.sourceURL).sort()).toEqual([...urls].sort());
    expect((status.data as Body[])[0]?.markdown).toMatch(/Home/);

    const paged = await allPages(`/v1/batch/${id}`, 2, key);
    expect(paged.urls).toHaveLength(5);
    expect(new Set(paged.urls).size).toBe(5);
    expect([...paged.urls].sort()).toEqual([...urls].sort());
    expect(paged.calls).toBe(3);
    expect(await balance()).toBe(95);

    // Another key, and the other kind's paths, know nothing of it.
    expect((await call('GET', `/v1/batch/${id}`)).status).toBe(404);
    expect((await call('GET', `/v1/batch/${id}/pages`)).status).toBe(404);
    expect((await call('GET', `/v1/crawl/${id}`, undefined, key)).status).toBe(404);
    const missing = await call('GET', '/v1/batch/batch_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('refuses a cursor it did not hand out (browser pages: test/e2e/jobs-render.test.ts; webhooks: test/e2e/webhooks.test.ts)', async () => {
    const id = await start('/v1/batch/scrape', { urls: [site.url('/page/7')] });
    const bad = await call('GET', `/v1/batch/${id}/pages?cursor=nonsense`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('bad_request');
  });
});

describe('e2e/jobs: crawl', () => {
  it('follows links to maxDepth within the site, collapsing duplicate URLs', async () => {
    const id = await start('/v1/crawl', { url: site.url('/'), ignoreSitemap: true, maxDepth: 1 });
    expect(id.startsWith('crawl_')).toBe(true);
    const status = await waitFor(`/v1/crawl/${id}`, (d) => ENDED.includes(d.status));
    // The home page, its 5 sections, /page/1…10 (the utm, fragment, trailing-slash and
    // upper-case copies collapse) and /private/area; not the subdomain nor the other host.
    expect(status).toMatchObject({ status: 'completed', total: 17, completed: 17, failed: 0, creditsUsed: 17 });
    const { urls } = await allPages(`/v1/crawl/${id}`, 200);
    const expected = ['/', ...Array.from({ length: SECTIONS }, (_, k) => `/section/${k}`), ...Array.from({ length: 10 }, (_, n) => `/page/${n + 1}`), '/private/area'];
    expect(urls.map(pathOf).sort()).toEqual(expected.sort());
    expect(urls.every((u) => u.startsWith(site.origin) && !u.includes('utm_'))).toBe(true);
    expect(urls[0]).toBe(site.url('/'));
  });

  it('honours robots.txt, includePaths and excludePaths (exclude wins), and lists robots-blocked URLs', async () => {
    site.requests.length = 0;
    const id = await start('/v1/crawl', {
      url: site.url('/'),
      ignoreSitemap: true,
      maxDepth: 2,
      respectRobots: true,
      includePaths: ['^/(section|hidden|private)/'],
      excludePaths: ['^/hidden/1/'],
    });
    const status = await waitFor(`/v1/crawl/${id}`, (d) => ENDED.includes(d.status));
    const hidden = (SECTIONS - 1) * HIDDEN_PER_SECTION;
    expect(status).toMatchObject({ status: 'completed', total: 1 + SECTIONS + hidden, completed: 1 + SECTIONS + hidden });
    const { urls } = await allPages(`/v1/crawl/${id}`, 7);
    expect(new Set(urls).size).toBe(urls.length);
    const paths = urls.map(pathOf);
    expect(paths.filter((p) => p.startsWith('/hidden/'))).toHaveLength(hidden);
    expect(paths.some((p) => p.startsWith('/hidden/1/'))).toBe(false);
    expect(paths.some((p) => p.startsWith('/page/'))).toBe(false);
    expect(site.requests).not.toContain('/private/area');
    const errors = await call('GET', `/v1/crawl/${id}/errors`);
    expect(errors.status).toBe(200);
    expect(errors.body.data.robotsBlocked).toEqual([site.url('/private/area')]);
    expect(errors.body.data.errors).toEqual([]);
  });

  it('seeds from the sitemaps and stops at limit', async () => {
    const id = await start('/v1/crawl', { url: site.url('/'), limit: 20, maxConcurrency: 10 });
    const status = await waitFor(`/v1/crawl/${id}`, (d) => ENDED.includes(d.status));
    expect(status).toMatchObject({ status: 'completed', total: 20, completed: 20 });
    const { urls } = await allPages(`/v1/crawl/${id}`, 50);
    expect(urls).toHaveLength(20);
    // Sitemap URLs come before links found on pages: most of the 20 are /page/N from pages-1.xml.
    expect(urls.filter((u) => pathOf(u).startsWith('/page/')).length).toBeGreaterThan(10);
  });

  it('pages a running crawl without duplicates or gaps, and cancel stops it keeping its pages', async () => {
    const id = await start('/v1/crawl', { url: slow.url('/'), limit: 200, maxConcurrency: 3 });
    // Read pages while the crawl runs, following the cursor.
    const seen: string[] = [];
    let cursor: string | null = null;
    const until = Date.now() + 20_000;
    while (seen.length < 8 && Date.now() < until) {
      const res = await call('GET', `/v1/crawl/${id}/pages?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      for (const doc of res.body.data.data as Body[]) seen.push(doc.metadata.sourceURL as string);
      expect(res.body.data.next).not.toBeNull();
      cursor = res.body.data.next as string;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen.length).toBeGreaterThanOrEqual(8);
    const cancel = await call('DELETE', `/v1/crawl/${id}`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.data.status).toBe('cancelled');
    // In-flight pages land; then nothing more is scheduled or stored.
    await new Promise((r) => setTimeout(r, 1000));
    const settled = await waitFor(`/v1/crawl/${id}`, (d) => d.status === 'cancelled' && d.next === null);
    expect(settled.completed).toBeLessThan(200);
    const requested = slow.requests.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(slow.requests.length).toBe(requested);
    // The rest of the listing, from where the running read stopped, and the whole listing agree.
    do {
      const res = await call('GET', `/v1/crawl/${id}/pages?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      for (const doc of res.body.data.data as Body[]) seen.push(doc.metadata.sourceURL as string);
      cursor = res.body.data.next as string | null;
    } while (cursor);
    const { urls } = await allPages(`/v1/crawl/${id}`, 200);
    expect(seen).toEqual(urls);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls).toHaveLength(settled.completed);
    expect((await call('DELETE', `/v1/crawl/${id}`)).body.data.status).toBe('cancelled');
  });

  it('stops its pages in flight when cancelled: listed as job_ended, not charged, the site asked nothing more', async () => {
    const { key, balance } = await meteredKey(100);
    const id = await start('/v1/crawl', { url: hanging.url('/'), limit: 50, maxConcurrency: 4, ignoreSitemap: true }, key);
    const inFlight = () => hanging.requests.filter((path) => path !== '/' && path !== '/robots.txt');
    await until('four pages in flight at the site', () => inFlight().length >= 4);
    expect((await call('DELETE', `/v1/crawl/${id}`, undefined, key)).body.data.status).toBe('cancelled');
    // The fetches in flight are stopped (their pages would take a minute), each a failed page of its own.
    const listed = await until(
      'the pages in flight listed as job_ended',
      async () => {
        const res = await call('GET', `/v1/crawl/${id}/errors`, undefined, key);
        const errors = (res.body.data.errors as { url: string; code: string }[]).filter((e) => e.code === 'job_ended');
        return errors.length === inFlight().length && errors;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(listed.map((e) => new URL(e.url).pathname).sort()).toEqual(inFlight().sort());
    const status = await waitFor(`/v1/crawl/${id}`, (d) => d.status === 'cancelled' && d.next === null, key);
    expect(status).toMatchObject({ completed: 1, failed: inFlight().length, creditsUsed: 1 });
    // Only the home page is charged: the holds of the pages never read are given back.
    expect(await balance()).toBe(99);
    const asked = hanging.requests.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(hanging.requests.length).toBe(asked);
  });

  it('stops with a clear error when the balance runs out, keeping the pages it paid for', async () => {
    const { key, balance } = await meteredKey(5);
    const id = await start('/v1/crawl', { url: site.url('/'), limit: 50, maxConcurrency: 2 }, key);
    const status = await waitFor(`/v1/crawl/${id}`, (d) => ENDED.includes(d.status) && d.next === null, key);
    expect(status.status).toBe('failed');
    expect(status.error).toMatch(/insufficient_credits/);
    expect(status).toMatchObject({ completed: 5, creditsUsed: 5 });
    const { urls } = await allPages(`/v1/crawl/${id}`, 200, key);
    expect(urls).toHaveLength(5);
    expect(await balance()).toBe(0);
    // With nothing left, a new job is refused before it starts.
    const refused = await call('POST', '/v1/crawl', { url: site.url('/') }, key);
    expect(refused.status).toBe(402);
  });

  it('paces a crawl by its `delay`: a pause before each page after the first, asked once the page before it was answered', async () => {
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      const n = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
      res.writeHead(req.url === '/' || n ? 200 : 404, { 'content-type': 'text/html' });
      res.end(`<html><head><title>P${n}</title></head><body><a href="/p/${n + 1}">next</a></body></html>`);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    // Each pause is over at once: what the frontier asked for is read, nothing is waited. How
    // long it is with the clock standing still is test/actors/frontier.jobs.test.ts's.
    const pauses: { ms: number; hostAsked: number }[] = [];
    vi.mocked(sleep).mockImplementation(async (ms) => void pauses.push({ ms, hostAsked: asked.length }));
    try {
      const { port } = server.address() as AddressInfo;
      const id = await start('/v1/crawl', { url: `http://localhost:${port}/`, ignoreSitemap: true, maxDepth: 10, limit: 4, delay: 30_000, maxConcurrency: 10 });
      const status = await waitFor(`/v1/crawl/${id}`, (d) => ENDED.includes(d.status));
      expect(status).toMatchObject({ status: 'completed', completed: 4 });
      expect(asked).toEqual(['/', '/p/1', '/p/2', '/p/3']);
      // One pause before each page after the first, each taken once the page before it was
      // answered (the host had been asked 1, 2, then 3 times), for what was left of the delay.
      expect(pauses.map((p) => p.hostAsked)).toEqual([1, 2, 3]);
      for (const { ms } of pauses) {
        expect(ms).toBeGreaterThan(0);
        expect(ms).toBeLessThanOrEqual(30_000);
      }
    } finally {
      vi.mocked(sleep).mockReset();
      server.closeAllConnections();
      server.close();
    }
  });

  it('answers 422 for an invalid includePaths regex and 404 for another key', async () => {
    const bad = await call('POST', '/v1/crawl', { url: site.url('/'), includePaths: ['^/ok', '(['] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'includePaths', 1]);
    const id = await start('/v1/crawl', { url: site.url('/'), maxDepth: 0 });
    const status = await waitFor(`/v1/crawl/${id}`, (d) => ENDED.includes(d.status));
    expect(status).toMatchObject({ status: 'completed', total: 1, completed: 1 });
    const { key } = await meteredKey(10);
    for (const path of [`/v1/crawl/${id}`, `/v1/crawl/${id}/pages`, `/v1/crawl/${id}/errors`]) {
      const res = await call('GET', path, undefined, key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await call('DELETE', `/v1/crawl/${id}`, undefined, key)).status).toBe(404);
  });
});

// Last: it restarts the shared service.
describe('e2e/jobs: restart', () => {
  /** Stops the shared service and starts it again on the same DATA_DIR, with `env` on top. */
  async function restart(env: Record<string, string> = {}): Promise<void> {
    await service.stop();
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', API_KEY, FETCH_ALLOW_PRIVATE: 'true', ...env });
    ({ service, base } = await serveEmbedded(config));
  }

  it('resumes a crawl and a batch the restart interrupted (STATE=file, the default), listing every page once', async () => {
    const crawl = await start('/v1/crawl', { url: slow.url('/'), limit: 30, maxConcurrency: 2, ignoreSitemap: false });
    const batch = await start('/v1/batch/scrape', { urls: Array.from({ length: 12 }, (_, i) => slow.url(`/page/${i + 1}`)), maxConcurrency: 2 });
    await waitFor(`/v1/crawl/${crawl}`, (d) => d.completed >= 3);
    await restart();
    // Right after the restart the status still agrees with the listing.
    const resumed = (await call('GET', `/v1/crawl/${crawl}`)).body.data as Body;
    expect(resumed.status).toBe('scraping');
    expect(resumed.completed).toBeGreaterThanOrEqual(3);
    const crawled = await waitFor(`/v1/crawl/${crawl}`, (d) => ENDED.includes(d.status), API_KEY, 60_000);
    expect(crawled).toMatchObject({ status: 'completed', total: 30, completed: 30, failed: 0 });
    const { urls } = await allPages(`/v1/crawl/${crawl}`, 7);
    expect(urls).toHaveLength(30);
    expect(new Set(urls).size).toBe(30);
    const batched = await waitFor(`/v1/batch/${batch}`, (d) => ENDED.includes(d.status), API_KEY, 60_000);
    expect(batched).toMatchObject({ status: 'completed', total: 12, completed: 12, failed: 0 });
    const listed = await allPages(`/v1/batch/${batch}`, 5);
    expect(new Set(listed.urls).size).toBe(12);
    expect(listed.urls).toHaveLength(12);
  });

  it('answers a crawl the restart interrupted as failed with a reason, keeping its pages, when the state was in memory', async () => {
    await restart({ STATE: 'memory' });
    const id = await start('/v1/crawl', { url: slow.url('/'), limit: 200, maxConcurrency: 2 });
    await waitFor(`/v1/crawl/${id}`, (d) => d.completed >= 3);
    await restart({ STATE: 'memory' });
    const status = (await call('GET', `/v1/crawl/${id}`)).body.data as Body;
    expect(status.status).toBe('failed');
    expect(status.error).toMatch(/^interrupted/);
    const { urls } = await allPages(`/v1/crawl/${id}`, 200);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    expect(new Set(urls).size).toBe(urls.length);
    // The failed status counts what the listing holds (not the last stored version's count).
    expect(status.completed).toBe(urls.length);
    // The answer was stored: it stays failed.
    expect((await call('GET', `/v1/crawl/${id}`)).body.data.status).toBe('failed');
  });
});

const hasRedis = await engine('redis', () => redisProbe(), REDIS_INSTALL);

// After the restart: the shared service is replaced by one whose coordination state is Redis.
describe.skipIf(!hasRedis)('e2e/jobs: coordination state in Redis', () => {
  const namespace = testNamespace();
  afterAll(async () => {
    await dropNamespace(namespace);
  });

  /** Replaces the shared service with one on Redis state (JOB_STALL_MS 1500: a restart's lost pages are sent again soon). */
  async function restartOnRedis(): Promise<void> {
    await service.stop();
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      API_KEY,
      FETCH_ALLOW_PRIVATE: 'true',
      STATE: 'redis',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_NAMESPACE: namespace,
      JOB_STALL_MS: '1500',
    });
    ({ service, base } = await serveEmbedded(config));
  }

  it('crawls and batch-scrapes with the frontier state in Redis', async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
    dataDir = mkdtempSync(join(tmpdir(), 'wds-jobs-redis-'));
    await restartOnRedis();

    const crawl = await start('/v1/crawl', { url: site.url('/'), ignoreSitemap: true, maxDepth: 1, maxConcurrency: 4 });
    const batch = await start('/v1/batch/scrape', { urls: [site.url('/page/1'), site.url('/page/2'), 'http://127.0.0.1:1/down'] });
    const crawled = await waitFor(`/v1/crawl/${crawl}`, (d) => ENDED.includes(d.status));
    expect(crawled).toMatchObject({ status: 'completed', total: 17, completed: 17 });
    const { urls } = await allPages(`/v1/crawl/${crawl}`, 5);
    expect(new Set(urls).size).toBe(17);
    const batched = await waitFor(`/v1/batch/${batch}`, (d) => ENDED.includes(d.status));
    expect(batched).toMatchObject({ status: 'completed', total: 3, completed: 2, failed: 1 });
    // The frontier's working state is gone from Redis once the jobs ended; the records stay.
    const redis = new RedisState({ url: TEST_REDIS_URL, namespace, log: createLogger('silent') });
    await redis.connect();
    try {
      for (const id of [crawl, batch]) {
        expect(await redis.scard(seenKey(id))).toBe(0);
        expect(await redis.qlen(queueKey(id))).toBe(0);
        expect(await redis.hgetall(pagesKey(id))).toEqual({});
        expect(await redis.hget(jobKey(id), 'status')).toBe('completed');
        expect(await redis.ttl(jobKey(id))).toBeGreaterThan(0);
      }
    } finally {
      await redis.close();
    }
  });

  it('resumes a crawl a restart interrupted: the watchdog sends the pages lost with the process again', async () => {
    const id = await start('/v1/crawl', { url: slow.url('/'), limit: 30, maxConcurrency: 2, ignoreSitemap: false });
    await waitFor(`/v1/crawl/${id}`, (d) => d.completed >= 3);
    await restartOnRedis();
    const status = await waitFor(`/v1/crawl/${id}`, (d) => ENDED.includes(d.status), API_KEY, 60_000);
    expect(status).toMatchObject({ status: 'completed', total: 30, completed: 30, failed: 0 });
    const { urls } = await allPages(`/v1/crawl/${id}`, 200);
    expect(urls).toHaveLength(30);
    expect(new Set(urls).size).toBe(30);
  });
});
