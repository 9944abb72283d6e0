/**
 * actors/frontier/page-links-pool.ts: the map reads a page of heavy markup (over 2 MiB or
 * 40,000 tags) in a worker thread, as this thread would read it, while this thread stays free;
 * a page past the worker's time limit is `file_too_complex`, and a map whose seed page is such
 * a page still answers, with the seed and no links from it. Against a local site. And the walk
 * asks robots.txt about a bounded number of URLs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleMapRequested, type MapRequested } from '../../actors/frontier/index.js';
import { startBudget, type BudgetFetch } from '../../actors/frontier/map-budget.js';
import { Findings } from '../../actors/frontier/map-found.js';
import { ROBOTS_ASKED_MAX, walkLinks } from '../../actors/frontier/map-walk.js';
import { readPage } from '../../actors/frontier/page-links.js';
import { inThreadPageLinks, PageLinksPool, type PageLinksReader } from '../../actors/frontier/page-links-pool.js';
import { ALLOW_ALL, type RobotsPolicy } from '../../actors/frontier/robots.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { OFF_THREAD_PAGE_BYTES, OFF_THREAD_PAGE_TAGS, readsOffThread } from '../../pipeline/runtime/markup-limits.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import type { EventValue } from '../../schemas/events/index.js';
import { mapRequested } from '../helpers/events.js';
import { rejection } from '../helpers/wait.js';

const log = createLogger('silent');
const fetcher = new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) });
const LIMITS = { documentTimeoutMs: 60_000, documentMemoryMb: 256 };
const pools: PageLinksPool[] = [];
const poolOf = (limits = LIMITS) => {
  const pool = new PageLinksPool(limits, log);
  pools.push(pool);
  return pool;
};

/** A page of `count` links to /p/<i>, with a title and a link to /walk. */
const linksPage = (count: number, prefix = 'p') =>
  `<html><head><title>Index ${prefix}</title></head><body><a href="/walk">Walk</a>${Array.from({ length: count }, (_, i) => `<a href="/${prefix}/${i}">Item ${i}</a>`).join('')}</body></html>`;

const SEED = linksPage(140_000); // over OFF_THREAD_PAGE_BYTES (checked below), under FETCH_MAX_BYTES
/** The site's home page: 21,000 links, 42,000 tags, over OFF_THREAD_PAGE_TAGS. */
const HOME = linksPage(21_000);
/** The walked page: the home page's links again and five of its own, under the walk's 2 MiB (the map's 30,000 URLs are not reached). */
const WALKED = `${linksPage(21_000)}${Array.from({ length: 5 }, (_, i) => `<a href="/w/${i}">W ${i}</a>`).join('')}`;

let server: http.Server;
let origin = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    const body = req.url === '/' ? HOME : req.url === '/walk' ? WALKED : '<html><body>leaf</body></html>';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await new Promise((resolve) => server.close(resolve));
  fetcher.close();
});

async function map(readLinks: PageLinksReader): Promise<{ ok: boolean; urls: string[] }> {
  const event: MapRequested = mapRequested(`${origin}/`, { limit: 30_000, ignoreSitemap: true }, { requestId: 'req_map_pages', tenant: 'key_test', deadlineMs: Date.now() + 120_000 });
  const outcome = await handleMapRequested(event, { http: fetcher, log, readLinks }, new AbortController().signal);
  if (outcome.kind !== 'ack') throw new Error(`map ${outcome.kind}`);
  const value = outcome.emit?.[0]?.value as EventValue<'Reply'>;
  return { ok: value.ok, urls: value.ok ? (JSON.parse(value.data ?? '{}') as { links: { url: string }[] }).links.map((l) => l.url) : [] };
}

describe('actors/frontier/page-links-pool', () => {
  it(`reads markup over ${OFF_THREAD_PAGE_BYTES} bytes or ${OFF_THREAD_PAGE_TAGS} tags in a worker, as this thread would, while this thread stays free`, async () => {
    expect(SEED.length).toBeGreaterThan(OFF_THREAD_PAGE_BYTES);
    expect(readsOffThread(SEED)).toBe(true);
    expect(readsOffThread(HOME)).toBe(true);
    expect(readsOffThread(WALKED)).toBe(true);
    expect(readsOffThread(linksPage(100))).toBe(false);
    const pool = poolOf();
    let running = true;
    const pending = pool.read(SEED, `${origin}/`).finally(() => void (running = false));
    // This thread's own turns and its own page, while the worker reads the large one.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    const own = readPage(linksPage(3), `${origin}/`).links.length;
    const whileRunning = { own, running, busy: pool.stats().busy };
    const facts = await pending;
    expect(whileRunning).toEqual({ own: 4, running: true, busy: 1 });
    expect(facts).toEqual(readPage(SEED, `${origin}/`));
    expect(facts.links).toHaveLength(140_001);
    // An ordinary page is read here: no worker is asked.
    const started = pool.stats().started;
    expect((await pool.read(linksPage(10), `${origin}/`)).links).toHaveLength(11);
    expect(pool.stats().started).toBe(started);
  });

  it('answers file_too_complex for a page past the time limit, and the map still answers with its seed', async () => {
    const slow = poolOf({ documentTimeoutMs: 20, documentMemoryMb: 256 });
    await expect(rejection(slow.read(SEED, `${origin}/`))).resolves.toMatchObject({ code: 'file_too_complex', message: expect.stringMatching(/^Reading the page's links took longer than this instance's limit for one document \(20 ms\)/) });
    expect(slow.stats().terminated.time).toBe(1);
    const answer = await map(slow.read);
    expect(answer).toEqual({ ok: true, urls: [`${origin}/`] });
  });

  it("maps a site of heavy pages through the pool: the seed's and the walked page's links, as on this thread", async () => {
    const pool = poolOf();
    const [offThread, here] = [await map(pool.read), await map((html, url) => Promise.resolve(readPage(html, url)))];
    expect(pool.stats().started).toBeGreaterThanOrEqual(1);
    expect(offThread.ok).toBe(true);
    expect([...offThread.urls].sort()).toEqual([...here.urls].sort());
    expect(offThread.urls).toContain(`${origin}/p/20999`);
    expect(offThread.urls).toContain(`${origin}/w/4`);
  });
});

describe('actors/frontier/map-walk', () => {
  it(`asks robots.txt about at most ${ROBOTS_ASKED_MAX} distinct URLs a walk, each once`, async () => {
    const asked: string[] = [];
    const robots: RobotsPolicy = { ...ALLOW_ALL, allows: (url) => (asked.push(String(url)), false) };
    // A level of 5,000 distinct links robots.txt disallows, each linked three times.
    const distinct = Array.from({ length: 5_000 }, (_, i) => `https://example.com/p/${i}`);
    const links = [...distinct, ...distinct, ...distinct];
    const budget = startBudget(Date.now() + 60_000, Date.now, new AbortController().signal);
    const findings = new Findings({ search: null, limit: 30_000, candidates: 200_000, keep: () => true, onEnough: () => undefined });
    const fetched: string[] = [];
    const fetch: BudgetFetch = (url) => (fetched.push(url), Promise.reject(new Error('not fetched')));
    try {
      const walked = await walkLinks(
        { host: 'example.com', robots, seedUrl: 'https://example.com/', links },
        { fetch, budget, log, findings, limits: { walkPages: 25, walkConcurrency: 4, pageTimeoutMs: 5_000, pageMaxBytes: 2 * 1024 * 1024 }, readLinks: inThreadPageLinks },
      );
      expect(walked).toBe(0);
    } finally {
      budget.end();
    }
    expect(fetched).toEqual([]);
    expect(asked).toEqual(distinct.slice(0, ROBOTS_ASKED_MAX));
  });
});
