/**
 * The one-process install keeps its jobs through SIGKILL (issue 33): main.ts in a child
 * process (embedded mode, STATE=file, a temporary DATA_DIR) crawls a local 1,000-page site;
 * the test kills it with SIGKILL at random moments three times and starts it again on the
 * same DATA_DIR each time; a batch of 120 slower pages runs beside it. Both complete with
 * every page listed exactly once, their
 * `completed` equal to the listing; the status never counts a page the listing does not
 * hold (checked right after each restart and at the end); a page is fetched again at most
 * once per kill (the pages in flight at the kill, and those of the last write-behind flush).
 *
 * JOB_STALL_MS is left at its default (5 minutes): the resume comes from the restart itself
 * (actors/frontier/jobs/handler.ts resumeJobs), not from the stall watchdog.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Server } from '../helpers/process.js';

const API_KEY = 'e2e-kill-key-0123456789abcdef';
/** Pages of the site: `/` and `/p/1`…`/p/999`. */
const PAGES = 1000;
const KILLS = 3;
const CONCURRENCY = 8;
/** A batch beside the crawl: `/b/1`…`/b/120`, pages without links. */
const BATCH = 120;

type Body = Record<string, any>;

interface Site {
  readonly origin: string;
  /** Fetches per page path. */
  readonly fetches: Map<string, number>;
  close(): Promise<void>;
}

/**
 * `/` links to /p/1…/p/3; /p/N to /p/2N, /p/2N+1, /p/N+1 (those below 1000) and home; `/b/N`
 * (for the batch) links nowhere. Each answer takes ~15 ms (a batch page ~60 ms).
 */
async function startSite(): Promise<Site> {
  const fetches = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const b = /^\/b\/(\d+)$/.exec(path);
    if (b && Number(b[1]) >= 1 && Number(b[1]) <= BATCH) {
      fetches.set(path, (fetches.get(path) ?? 0) + 1);
      const html = `<!doctype html><html><head><title>Batch ${b[1]}</title></head><body><p>Batch page ${b[1]}.</p></body></html>`;
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html), 60);
      return;
    }
    const n = path === '/' ? 0 : /^\/p\/(\d+)$/.test(path) ? Number(path.slice(3)) : -1;
    if (n < 0 || n >= PAGES) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    const links = (n === 0 ? [1, 2, 3] : [2 * n, 2 * n + 1, n + 1]).filter((m) => m < PAGES).map((m) => `<a href="/p/${m}">page ${m}</a>`);
    const body = `<!doctype html><html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1><p>Text of page ${n}.</p>${links.join(' ')} <a href="/">home</a></body></html>`;
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body), 15);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    fetches,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let site: Site;
let dataDir = '';
let server: Server | null = null;

const env = () => ({ DATA_DIR: dataDir, STATE: 'file', API_KEY, FETCH_ALLOW_PRIVATE: 'true' });

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${server?.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

async function status(id: string, kind = 'crawl'): Promise<Body> {
  const res = await call('GET', `/v1/${kind}/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Body;
}

/** Every page the listing holds now, following `next` until it is null or stops moving. */
async function listing(id: string, kind = 'crawl'): Promise<string[]> {
  const urls: string[] = [];
  let cursor: string | null = null;
  for (;;) {
    const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await call('GET', `/v1/${kind}/${id}/pages?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const docs = res.body.data.data as Body[];
    for (const doc of docs) urls.push(doc.metadata.sourceURL as string);
    const next = res.body.data.next as string | null;
    // A running job always gives `next`; an empty page means the listing holds no more now.
    if (!next || docs.length === 0) return urls;
    cursor = next;
  }
}

/**
 * The status and the listing agree: `completed` read before the listing is walked is at most
 * what it holds, and what it holds is at most `completed` read after; no page twice.
 */
async function agree(id: string, kind = 'crawl'): Promise<{ before: Body; urls: string[]; after: Body }> {
  const before = await status(id, kind);
  const urls = await listing(id, kind);
  const after = await status(id, kind);
  expect(new Set(urls).size, 'a page listed twice').toBe(urls.length);
  expect(before.completed).toBeLessThanOrEqual(urls.length);
  expect(urls.length).toBeLessThanOrEqual(after.completed);
  return { before, urls, after };
}

const random = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));

beforeAll(async () => {
  site = await startSite();
  dataDir = mkdtempSync(join(tmpdir(), 'wds-kill-'));
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('e2e/jobs: SIGKILL and restart in embedded mode (STATE=file)', () => {
  it('completes a 1,000-page crawl killed three times, every page listed once and counted once', async () => {
    server = await startServer(env(), 60_000);
    const started = await call('POST', '/v1/crawl', { url: `${site.origin}/`, limit: 5000, maxDepth: 20, maxConcurrency: CONCURRENCY, ignoreSitemap: true });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.id as string;
    const batchUrls = Array.from({ length: BATCH }, (_, i) => `${site.origin}/b/${i + 1}`);
    const batchStart = await call('POST', '/v1/batch/scrape', { urls: batchUrls, maxConcurrency: 2 });
    expect(batchStart.status, JSON.stringify(batchStart.body)).toBe(200);
    const batch = batchStart.body.data.id as string;
    const killedAt: number[] = [];
    let floor = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      // A random moment: after a random number of pages more, plus a random few milliseconds.
      const target = floor + random(60, 220);
      for (let seen = await status(id); seen.completed < target && seen.status === 'scraping'; seen = await status(id)) await sleep(random(5, 40));
      await sleep(random(0, 60));
      server.child.kill('SIGKILL');
      await server.exited;
      expect(existsSync(join(dataDir, 'state.sqlite'))).toBe(true);
      server = await startServer(env(), 60_000);
      // Right after the restart: still running (resumed, not failed), and the status agrees with the listing.
      const { before: now, urls } = await agree(id);
      expect(now.error ?? '').not.toMatch(/interrupted/);
      expect((await agree(batch, 'batch')).before.error ?? '').not.toMatch(/interrupted/);
      killedAt.push(urls.length);
      floor = Math.max(floor, now.completed);
    }
    let last: Body = await status(id);
    const giveUpAt = Date.now() + 90_000;
    while (last.status === 'scraping' && Date.now() < giveUpAt) {
      await sleep(200);
      last = await status(id);
    }
    expect(last).toMatchObject({ status: 'completed', total: PAGES, completed: PAGES, failed: 0 });
    const { urls } = await agree(id);
    expect(urls).toHaveLength(PAGES);
    const expected = new Set([`${site.origin}/`, ...Array.from({ length: PAGES - 1 }, (_, i) => `${site.origin}/p/${i + 1}`)]);
    expect(new Set(urls)).toEqual(expected);
    // Fetched: every page, and again at most once per kill; in all, a few pages again per kill.
    let batched: Body = await status(batch, 'batch');
    while (batched.status === 'scraping' && Date.now() < giveUpAt) {
      await sleep(200);
      batched = await status(batch, 'batch');
    }
    expect(batched).toMatchObject({ status: 'completed', total: BATCH, completed: BATCH, failed: 0 });
    const batchListed = (await agree(batch, 'batch')).urls;
    expect(new Set(batchListed)).toEqual(new Set(batchUrls));
    expect(batchListed).toHaveLength(BATCH);
    expect(site.fetches.size).toBe(PAGES + BATCH);
    const counts = [...site.fetches.values()];
    expect(Math.max(...counts)).toBeLessThanOrEqual(1 + KILLS);
    const again = counts.reduce((sum, n) => sum + n - 1, 0);
    expect(again).toBeLessThanOrEqual(KILLS * (CONCURRENCY + 2) * 3);
    console.log(`kill test: killed at ${killedAt.join(', ')} pages listed; ${again} fetches again in all (${counts.filter((n) => n > 1).length} pages)`);
  }, 115_000);
});
