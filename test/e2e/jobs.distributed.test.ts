/**
 * Durability of crawl jobs in the distributed shape (issue 6): the production actors as
 * separate processes — a gateway, two frontiers, two fetchers, two parsers — on the mock
 * Kafka, Redis and a ClickHouse server, crawling a local site (test/helpers/map-site.ts, 309
 * pages). One process of each pool is SIGKILLed mid-crawl; the crawl must still complete with
 * every page the site served stored exactly once and counted once.
 *
 * What the kills leave behind, and what repairs it: events a dead process had taken but not
 * committed are delivered again to the survivors once its session times out (every frontier
 * step is one atomic state operation, so a half-done one does not exist, and settling a page
 * is idempotent); pages a dead frontier had claimed but never published, or whose events were
 * lost with a dead fetcher or parser, are sent again by the frontier's stall watchdog
 * (JOB_STALL_MS, short here) under the same seq, so a page stored twice collapses into one row.
 *
 * Then a crawl of a site whose pages hang is cancelled: the surviving fetcher reads the job's
 * end latch in Redis (pipeline/jobs/ended.ts) and stops its fetches in flight, each page listed
 * `job_ended` and not charged, and the site is asked nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster, type ServiceProcess } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { hasKafka } from '../helpers/kafka.js';
import { startMapSite, type MapSite } from '../helpers/map-site.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';

const ready = (await chdbAvailable()) && (await hasKafka()) && (await engine('redis', () => redisProbe(), REDIS_INSTALL));

/**
 * The map site's pages a crawl of `/` reaches at the default maxDepth 3: the home page, 5
 * sections, their 50 hidden pages, /page/1…249 (sitemaps) and the 404 /page/250 the last
 * one links to, /animals/zebra-facts, /private/area and /secret/1.
 */
const SITE_PAGES = 309;
/** A SIGKILLed member's partitions move after about two session timeouts on the mock broker. */
const SESSION_TIMEOUT_MS = 6000;

type Body = Record<string, any>;

describe.skipIf(!ready)('e2e/jobs distributed: processes killed mid-crawl', () => {
  let site: MapSite;
  let cluster: Cluster;
  let base: string;
  let store: Store;
  let pools: Record<'frontier' | 'fetcher' | 'parser', ServiceProcess[]>;

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${cluster.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(120_000),
    });
    return { status: res.status, body: (await res.json()) as Body };
  }

  /** GETs `path` every 250 ms until `check` holds for its data; a timeout names the last data seen. */
  async function untilJob(what: string, check: (data: Body) => boolean, path: string, limitMs: number): Promise<Body> {
    let last: Body | undefined;
    return until(
      () => `${what} (last: ${JSON.stringify({ ...last, data: undefined })})`,
      async () => {
        const res = await call('GET', path);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        last = res.body.data;
        return check(res.body.data) && res.body.data;
      },
      { timeoutMs: limitMs, intervalMs: 250 },
    );
  }

  beforeAll(async () => {
    // Pages answer after 40 ms, so the crawl is still running when the processes die.
    site = await startMapSite({ delayMs: (path) => (path.startsWith('/page/') || path.startsWith('/hidden/') ? 40 : 0) });
    cluster = await startCluster({
      main: PRODUCTION_MAIN,
      env: { FETCH_ALLOW_PRIVATE: 'true', KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS), JOB_STALL_MS: '4000', REQUEST_TIMEOUT_MS: '120000' },
    });
    // Two processes at a time: seven starting at once outlast a start's time limit on 2 cores.
    base = (await cluster.service('gateway')).url as string;
    pools = { frontier: [], fetcher: [], parser: [] };
    for (const role of ['frontier', 'fetcher', 'parser'] as const) pools[role] = await Promise.all([cluster.service(role), cluster.service(role)]);
    store = cluster.store();
    // The first scrape absorbs the consumer-group rebalances still pending after start-up.
    const first = await call('POST', '/v1/scrape', { url: site.url('/page/1') });
    if (first.status !== 200) throw new Error(`the warm-up scrape answered ${first.status}: ${JSON.stringify(first.body)}`);
  }, 360_000);

  afterAll(async () => {
    await cluster?.stop();
    await site?.close();
  }, 60_000);

  it('a frontier, a fetcher and a parser SIGKILLed mid-crawl: the crawl completes with every page stored exactly once', async ({ annotate }) => {
    const started = await call('POST', '/v1/crawl', { url: site.url('/'), limit: 1000, maxConcurrency: 6 });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.id as string;
    const path = `/v1/crawl/${id}`;

    const atKill = await untilJob('the crawl is under way', (d) => d.completed >= 30, path, 90_000);
    expect(atKill.status).toBe('scraping');
    const victims = [pools.frontier[0], pools.fetcher[0], pools.parser[0]] as ServiceProcess[];
    for (const victim of victims) victim.child.kill('SIGKILL');
    await Promise.all(victims.map((v) => v.exited));

    const done = await untilJob('the crawl ends', (d) => d.status !== 'scraping', path, 240_000);
    expect(done, JSON.stringify({ ...done, data: undefined })).toMatchObject({ status: 'completed', total: SITE_PAGES, completed: SITE_PAGES, failed: 0 });
    expect(done.creditsUsed).toBe(SITE_PAGES);

    // Every page through the cursor: each URL once, SITE_PAGES of them.
    const urls: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call('GET', `${path}/pages?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      for (const doc of res.body.data.data as Body[]) urls.push(doc.metadata.sourceURL as string);
      cursor = res.body.data.next as string | null;
    } while (cursor);
    expect(urls).toHaveLength(SITE_PAGES);
    expect(new Set(urls).size).toBe(SITE_PAGES);

    // Every page the site served is stored, once (a page fetched twice is one row: one seq).
    const served = new Set(site.requests.filter((p) => !p.startsWith('/sitemap') && p !== '/robots.txt'));
    const stored = new Set(urls.map((u) => new URL(u).pathname));
    expect([...served].filter((p) => !stored.has(p))).toEqual([]);
    const rows = await store.query<{ n: string; urls: string }>(
      'SELECT count() AS n, uniqExact(url) AS urls FROM job_pages FINAL WHERE job_id = {id:String}',
      { id },
    );
    expect(rows).toEqual([{ n: String(SITE_PAGES), urls: String(SITE_PAGES) }]);

    const fetches = site.requests.filter((p) => served.has(p)).length;
    const resent = pools.frontier.flatMap((p) => p.logLines()).filter((l) => l.msg === 'job stalled: its pages in flight are sent again');
    await annotate(
      `killed at ${atKill.completed}/${atKill.total} pages; ${fetches} page fetches for ${SITE_PAGES} pages; ` +
        `the watchdog sent pages again ${resent.length} time(s) (${resent.reduce((n, l) => n + Number(l.pages), 0)} pages)`,
    );
  }, 420_000);

  it('a crawl cancelled while its pages hang: the fetchers stop them, each listed job_ended, and the site is asked nothing more', async () => {
    // The home page answers at once; every page it links to answers after a minute.
    const hanging = await startMapSite({ delayMs: (path) => (path === '/' || path === '/robots.txt' ? 0 : 60_000) });
    try {
      const started = await call('POST', '/v1/crawl', { url: hanging.url('/'), limit: 50, maxConcurrency: 3, ignoreSitemap: true });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const id = started.body.data.id as string;
      const inFlight = () => hanging.requests.filter((path) => path !== '/' && path !== '/robots.txt');
      await until('three pages in flight at the site', () => inFlight().length >= 3, { timeoutMs: 60_000, intervalMs: 100 });
      expect((await call('DELETE', `/v1/crawl/${id}`)).body.data.status).toBe('cancelled');
      // The latch is in Redis; the fetcher processes read it and stop their fetches.
      const listed = await until(
        'the pages in flight listed as job_ended',
        async () => {
          const res = await call('GET', `/v1/crawl/${id}/errors`);
          const errors = (res.body.data.errors as { url: string; code: string }[]).filter((e) => e.code === 'job_ended');
          return errors.length === inFlight().length && errors;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(listed.map((e) => new URL(e.url).pathname).sort()).toEqual(inFlight().sort());
      const asked = hanging.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(hanging.requests.length).toBe(asked);
      const status = await untilJob('the job settles', (d) => d.status === 'cancelled' && d.next === null, `/v1/crawl/${id}`, 30_000);
      expect(status).toMatchObject({ completed: 1, failed: inFlight().length, creditsUsed: 1 });
    } finally {
      await hanging.close();
    }
  }, 180_000);
});
