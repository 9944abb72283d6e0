/**
 * Faults under load (issue 36 item 2), the test-sized half of bench/scale.ts's `faults`
 * scenario: the production actors as separate processes — a gateway, a frontier, four
 * fetchers and two parsers — on the mock Kafka (topics at their definition's 12 partitions, so
 * every fetcher has partitions of its own), Redis and a ClickHouse server, crawling a site of
 * 300 pages over 20 loopback hosts (test/helpers/scale-site.ts) whose pages answer after
 * 20–60 ms. Once a third of the pages are stored, one fetcher and one parser are SIGKILLed and
 * replacements started at once; the crawl must complete with every page of the site stored
 * exactly once: one row per URL in `job_pages` (FINAL, what a listing reads), each of the
 * site's URLs among them, and the listing through the API naming each once.
 *
 * What repairs the kills: the dead members' uncommitted events (pages being fetched, pages
 * being parsed) go to the group's other members once the broker drops them after their
 * session timeout (6 s here); a page fetched or parsed twice is stored under its one seq,
 * one row. The time until throughput is back (a trailing 3 s window at 0.8 of the rate before
 * the kill) is annotated, not asserted: it depends on the machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster, type ServiceProcess } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { hasKafka } from '../helpers/kafka.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { api, followCrawl, recoveryMs, startCrawl, storedPages, type Gateway } from '../helpers/scale-crawl.js';
import { startScaleSite, type ScaleSite } from '../helpers/scale-site.js';

const ready = (await chdbAvailable()) && (await hasKafka()) && (await engine('redis', () => redisProbe(), REDIS_INSTALL));

const PAGES = 300;
const HOSTS = 20;
/** Two pages in flight per fetcher: the pool's eight are the crawl's bound, not the frontier's 50. */
const FETCH_CONCURRENCY = '2';

describe.skipIf(!ready)('e2e/scale faults: a fetcher and a parser SIGKILLed under load', () => {
  let site: ScaleSite;
  let cluster: Cluster;
  let gateway: Gateway;
  const fetchers: ServiceProcess[] = [];
  const parsers: ServiceProcess[] = [];

  const startFetcher = () => cluster.service('fetcher', { POOL_CONCURRENCY: FETCH_CONCURRENCY });

  beforeAll(async () => {
    site = await startScaleSite({ hosts: HOSTS, pages: PAGES, delayRangeMs: [20, 60] });
    cluster = await startCluster({
      main: PRODUCTION_MAIN,
      kafkaPartitions: 12,
      env: { FETCH_ALLOW_PRIVATE: 'true', KAFKA_SESSION_TIMEOUT_MS: '6000', JOB_STALL_MS: '20000', REQUEST_TIMEOUT_MS: '120000' },
    });
    // Two processes at a time: eight starting at once outlast a start's time limit on 2 cores.
    const [gatewayProcess] = await Promise.all([cluster.service('gateway'), cluster.service('frontier')]);
    gateway = { url: gatewayProcess?.url as string, apiKey: cluster.apiKey };
    parsers.push(...(await Promise.all([cluster.service('parser'), cluster.service('parser')])));
    fetchers.push(...(await Promise.all([startFetcher(), startFetcher()])));
    fetchers.push(...(await Promise.all([startFetcher(), startFetcher()])));
    // The first scrape absorbs the consumer-group rebalances still pending after start-up.
    const first = await api(gateway, 'POST', '/v1/scrape', { url: `${site.origin(2)}/p/1` });
    if (first.status !== 200) throw new Error(`the warm-up scrape answered ${first.status}: ${JSON.stringify(first.body)}`);
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
    await site?.close();
  }, 60_000);

  it('the crawl completes with every page stored exactly once', async ({ annotate }) => {
    const kill: { atMs: number; atCompleted: number; replaced: Promise<ServiceProcess[]> | null } = { atMs: 0, atCompleted: 0, replaced: null };
    const fetcher = fetchers[0] as ServiceProcess;
    const parser = parsers[0] as ServiceProcess;
    const crawl = await startCrawl(gateway, site.start, PAGES);
    const end = await followCrawl(gateway, crawl, {
      stallMs: 90_000,
      onSample: (sample) => {
        if (kill.replaced || sample.completed < PAGES / 3) return;
        kill.atMs = sample.atMs;
        kill.atCompleted = sample.completed;
        fetcher.child.kill('SIGKILL');
        parser.child.kill('SIGKILL');
        kill.replaced = Promise.all([fetcher.exited, parser.exited]).then(() => Promise.all([startFetcher(), cluster.service('parser')]));
      },
    });
    expect(kill.replaced, 'the crawl ended before a third of it was stored').not.toBeNull();
    const replacements = await (kill.replaced as Promise<ServiceProcess[]>);
    expect((await fetcher.exited).signal).toBe('SIGKILL');
    expect((await parser.exited).signal).toBe('SIGKILL');
    // The killed fetcher was working when it died.
    expect(fetcher.logLines().filter((l) => l.msg === 'page fetched').length).toBeGreaterThan(0);
    expect(kill.atCompleted).toBeLessThan(PAGES);

    expect(end).toMatchObject({ status: 'completed', total: PAGES, completed: PAGES, failed: 0 });
    const stored = await storedPages(cluster.store(), end.id);
    expect({ rows: stored.rows, urls: stored.urls }).toEqual({ rows: PAGES, urls: PAGES });
    expect(site.allUrls().filter((u) => !stored.createdAt.has(u))).toEqual([]);

    // The listing through the API: each URL once.
    const urls: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await api(gateway, 'GET', `/v1/crawl/${end.id}/pages?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      for (const doc of res.body.data.data as Record<string, any>[]) urls.push(doc.metadata.sourceURL as string);
      cursor = res.body.data.next as string | null;
    } while (cursor);
    expect(urls).toHaveLength(PAGES);
    expect(new Set(urls).size).toBe(PAGES);

    const recovery = recoveryMs(end.samples, kill.atMs, 3000, 0.8);
    const line =
      `killed at ${kill.atCompleted}/${PAGES} pages; ${(recovery.before).toFixed(1)} pages/s before; throughput back after ` +
      `${recovery.ms === null ? 'the crawl ended (never measured back)' : `${(recovery.ms / 1000).toFixed(1)} s`}; ` +
      `${site.requests.length} page fetches for ${PAGES} pages, ${stored.rowsWritten} rows written; replacements: ${replacements.map((p) => p.role).join(', ')}`;
    process.stdout.write(`scale-faults: ${line}\n`);
    await annotate(line);
  }, 240_000);
});
