/**
 * Crawling and mapping a site: pages/s and peak memory of a whole crawl job through the
 * service, beside a plain Crawlee script crawling the same site in the same run, and the time
 * to map a large sitemap.
 *
 *   site      bench/servers/crawl-site.ts in its own child process on 127.0.0.1:
 *             BENCH_CRAWL_PAGES generated article pages (default 10,000, ~5 KB of HTML each),
 *             all reachable by links from `/` within 3 links; and a second site whose
 *             robots.txt names a sitemap index of BENCH_MAP_URLS URLs (default 30,000)
 *   service   embedded mode in a child process (bench/servers/scrape-service.ts, as
 *             `npm start` runs it, with its defaults: POOL_CONCURRENCY and the rest), driven
 *             over HTTP: POST /v1/crawl `{url, limit: pages, maxDepth: 3 (the default),
 *             maxConcurrency: BENCH_CRAWL_CONCURRENCY (default 50), scrapeOptions: {formats:
 *             ['markdown']}}`, then GET /v1/crawl/<id> every 500 ms until the job ends
 *   baseline  a plain Crawlee script in its own child process
 *             (bench/servers/crawlee-crawler.ts: CheerioCrawler, the same limit and
 *             concurrency, every same-hostname link followed, each page to markdown with
 *             turndown + GFM, pushed to an in-memory Dataset)
 *
 * pages/s is pages stored (ours: the job's `completed`; Crawlee's: requests finished) over the
 * wall time from the start request to the poll that saw the job end (Crawlee: `run()`). CPU
 * per page is the child's user + system time over the crawl (ours includes the gateway
 * answering the polls). Peak RSS is each child's getrusage maximum after its crawl (so it
 * includes start-up: chdb for the service). Every round starts both children afresh (the
 * service would otherwise answer the second crawl from its page cache); with BENCH_ROUNDS > 1
 * the side that goes first alternates and medians are kept.
 *
 * The map: after its crawl, the same service child answers POST /v1/map `{url, limit:
 * BENCH_MAP_URLS}` on the sitemap site (robots.txt, the index, its sitemaps of 10,000 URLs,
 * the seed page and a short link walk), timed from the client; the count must be the site's.
 * The baseline is Crawlee's `Sitemap.load` on the same index, in the Crawlee child.
 *
 * Two JSON lines, `crawl` and `map`. Ratios are "higher is better for us": `ratio` is our
 * pages/s over Crawlee's, `rss_ratio` Crawlee's peak RSS over ours, `cpu_ratio` Crawlee's CPU
 * per page over ours, the map's `ratio` Crawlee's seconds over ours. The targets (issue 28,
 * with the local search index on): ratio >= 1.2, cpu_ratio >= 1.0 and rss_ratio >= 1.25 (our
 * peak at most 0.8 of Crawlee's). Ours also reports its current RSS before the crawl, when it
 * ended and BENCH_CRAWL_SETTLE_S seconds (default 10) later (`rss_start_mb`, `rss_end_mb`,
 * `rss_settled_mb`), and its CPU per page by thread name (`threads_ms_per_page`, one object
 * per round: chdb's threads under their own names, `main` the JavaScript thread, from
 * /proc/self/task). BENCH_CRAWL_SIDES=ours runs only the service's side (no ratios).
 * BENCH_MEMORY_TRACE=<file> has the service append where its memory is every
 * BENCH_MEMORY_TRACE_MS (bench/servers/memory-trace.ts; a diagnostic: it costs queries). `complete` says whether each side stored every page of
 * the site. A crawl that errors or stops progressing for BENCH_CRAWL_STALL_S seconds
 * (default 120) fails the scenario with the job's last status.
 *
 * On a machine with more runnable threads than cores, pages/s leans towards the service: the
 * scheduler shares CPU per thread, and the service runs more of them (chdb's, libuv's) than
 * the single-threaded script, so it gets the larger share. `cpu_ratio` is the steadier
 * comparison there; `load_avg_1m` (at the start and after each round) says how busy it was.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { SETTINGS, cpuMs, emit, median, positiveInteger, startChild, startServer, type Child, type ServerChild } from './lib.js';

const TARGET_RATIO = 1.2;
const TARGET_RSS_RATIO = 1.25;
const TARGET_CPU_RATIO = 1.0;
const MAX_DEPTH = 3;
const POLL_MS = 500;

const PAGES = positiveInteger('BENCH_CRAWL_PAGES', 10_000);
const CONCURRENCY = positiveInteger('BENCH_CRAWL_CONCURRENCY', 50);
const MAP_URLS = positiveInteger('BENCH_MAP_URLS', 30_000);
const STALL_S = positiveInteger('BENCH_CRAWL_STALL_S', 120);
const SETTLE_S = positiveInteger('BENCH_CRAWL_SETTLE_S', 10);
/** `ours` runs only the service's side (for profiling; no ratios), else both. */
const SIDES = process.env.BENCH_CRAWL_SIDES === 'ours' ? 'ours' : 'both';
const logLevel = process.env.BENCH_LOG_LEVEL || 'info';
const script = (name: string) => fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;

const rssMb = async (child: Child) => round1(Number((await child.ask({ type: 'memory' })).maxRssKb) / 1024);
const currentRssMb = async (child: Child) => round1(Number((await child.ask({ type: 'memory' })).rssKb) / 1024);
/** Current RSS, V8 heap (total) and external memory, MB. */
const memoryMb = async (child: Child) => {
  const m = await child.ask({ type: 'memory' });
  return { rss: round1(Number(m.rssKb) / 1024), heap: round1(Number(m.heapTotalKb) / 1024), external: round1(Number(m.externalKb) / 1024) };
};
const threadsMs = async (child: Child) => (await child.ask({ type: 'threads' })) as Record<string, number>;

/** CPU ms per page by thread name between two threadsMs readings, largest first. */
function threadsPerPage(before: Record<string, number>, after: Record<string, number>, pages: number): Record<string, number> {
  const rows = Object.entries(after)
    .map(([name, ms]) => [name, (ms - (before[name] ?? 0)) / Math.max(1, pages)] as const)
    .filter(([, ms]) => ms >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(rows.map(([name, ms]) => [name, round3(ms)]));
}

async function siteRequests(site: Child, which: 'crawl' | 'map'): Promise<number> {
  const counts = (await site.ask({ type: 'requests' })) as Record<string, { requests: number; notOk: number }>;
  return counts[which]?.requests ?? 0;
}

interface CrawlSide {
  pages: number;
  failed: number;
  elapsedS: number;
  pagesPerS: number;
  cpuMsPerPage: number;
  peakRssMb: number;
  siteRequests: number;
  /** Ours: current RSS before the crawl, when it ended, and SETTLE_S seconds later. */
  rssStartMb?: number;
  rssEndMb?: number;
  rssSettledMb?: number;
  /** Ours: current RSS, V8 heap and external memory (MB) at the start, end and settled. */
  memory?: Record<string, unknown>;
  /** Ours: CPU ms per page by thread name (chdb's threads by their names, `main` the JS thread). */
  threadsMsPerPage?: Record<string, number>;
}

interface MapSide {
  found: number;
  seconds: number;
}

interface JobStatus {
  status?: string;
  total?: number;
  completed?: number;
  failed?: number;
  error?: string;
  data?: { markdown?: unknown }[];
}

async function call(service: ServerChild, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${String(service.ready.key)}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as { success?: boolean; data?: Record<string, unknown>; error?: { code?: string; message?: string } };
  if (res.status !== 200 || !json.success || !json.data) {
    throw new Error(`${method} ${path}: ${res.status} ${json.error?.code ?? ''} ${json.error?.message ?? JSON.stringify(json).slice(0, 300)}`);
  }
  return json.data;
}

/** Our crawl: start the job, poll until it ends; throws when it fails, stalls or lost pages. */
async function crawlOurs(service: ServerChild, site: Child, url: string): Promise<CrawlSide> {
  const requestsBefore = await siteRequests(site, 'crawl');
  const memStart = await memoryMb(service);
  const rssStartMb = memStart.rss;
  const threadsBefore = await threadsMs(service);
  const cpuBefore = await cpuMs(service);
  const start = performance.now();
  const { id } = await call(service, 'POST', '/v1/crawl', {
    url,
    limit: PAGES,
    maxDepth: MAX_DEPTH,
    maxConcurrency: CONCURRENCY,
    scrapeOptions: { formats: ['markdown'] },
  });
  let status: JobStatus = {};
  let progress = -1;
  let progressAt = performance.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    status = (await call(service, 'GET', `/v1/crawl/${String(id)}`)) as JobStatus;
    if (status.status !== 'scraping') break;
    const settled = (status.completed ?? 0) + (status.failed ?? 0);
    if (settled !== progress) {
      progress = settled;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > STALL_S * 1000) {
      throw new Error(`crawl ${String(id)} made no progress for ${STALL_S} s: ${JSON.stringify({ ...status, data: undefined })}`);
    }
  }
  const elapsedS = (performance.now() - start) / 1000;
  const cpu = (await cpuMs(service)) - cpuBefore;
  const threadsAfter = await threadsMs(service);
  const memEnd = await memoryMb(service);
  const rssEndMb = memEnd.rss;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_S * 1000));
  const memSettled = await memoryMb(service);
  const rssSettledMb = memSettled.rss;
  const summary = JSON.stringify({ ...status, data: undefined });
  if (status.status !== 'completed') throw new Error(`crawl ${String(id)} ended ${summary}`);
  if (typeof status.data?.[0]?.markdown !== 'string') throw new Error(`crawl ${String(id)}: its first document has no markdown (${summary})`);
  const pages = status.completed ?? 0;
  return {
    pages,
    failed: status.failed ?? 0,
    elapsedS: round1(elapsedS),
    pagesPerS: round1(pages / elapsedS),
    cpuMsPerPage: round3(cpu / Math.max(1, pages)),
    peakRssMb: await rssMb(service),
    siteRequests: (await siteRequests(site, 'crawl')) - requestsBefore,
    rssStartMb,
    rssEndMb,
    rssSettledMb,
    memory: { start: memStart, end: memEnd, settled: memSettled },
    threadsMsPerPage: threadsPerPage(threadsBefore, threadsAfter, pages),
  };
}

async function crawlCrawlee(crawlee: Child, site: Child, url: string): Promise<CrawlSide> {
  const requestsBefore = await siteRequests(site, 'crawl');
  const cpuBefore = await cpuMs(crawlee);
  const r = await crawlee.ask({ type: 'crawl', url, limit: PAGES, concurrency: CONCURRENCY }, 60 * 60_000);
  if (typeof r.error === 'string') throw new Error(`Crawlee crawl failed: ${r.error}`);
  const cpu = (await cpuMs(crawlee)) - cpuBefore;
  const pages = Number(r.pages);
  const elapsedS = Number(r.elapsedMs) / 1000;
  return {
    pages,
    failed: Number(r.failed),
    elapsedS: round1(elapsedS),
    pagesPerS: round1(pages / elapsedS),
    cpuMsPerPage: round3(cpu / Math.max(1, pages)),
    peakRssMb: await rssMb(crawlee),
    siteRequests: (await siteRequests(site, 'crawl')) - requestsBefore,
  };
}

async function mapOurs(service: ServerChild, origin: string): Promise<MapSide> {
  const start = performance.now();
  const data = await call(service, 'POST', '/v1/map', { url: `${origin}/`, limit: MAP_URLS });
  const seconds = (performance.now() - start) / 1000;
  return { found: Array.isArray(data.links) ? data.links.length : 0, seconds: round3(seconds) };
}

async function mapCrawlee(crawlee: Child, origin: string): Promise<MapSide> {
  const r = await crawlee.ask({ type: 'map', url: `${origin}/sitemap.xml` }, 10 * 60_000);
  if (typeof r.error === 'string') throw new Error(`Crawlee Sitemap.load failed: ${r.error}`);
  return { found: Number(r.urls), seconds: round3(Number(r.elapsedMs) / 1000) };
}

async function main(): Promise<void> {
  const load = [round1(loadavg()[0] ?? 0)];
  const children: Child[] = [];
  const stop = async (child: Child) => {
    children.splice(children.indexOf(child), 1);
    await child.stop();
  };
  try {
    const site = await startServer(script('crawl-site'), { CRAWL_SITE_PAGES: String(PAGES), CRAWL_SITE_SITEMAP_URLS: String(MAP_URLS) });
    children.push(site);
    const start = `${site.url}/`;
    const mapOrigin = `http://127.0.0.1:${Number(site.ready.mapPort)}`;
    const ours: CrawlSide[] = [];
    const theirs: CrawlSide[] = [];
    const ourMaps: MapSide[] = [];
    const theirMaps: MapSide[] = [];

    const runOurs = async () => {
      const service = await startServer(script('scrape-service'), { LOG_LEVEL: logLevel });
      children.push(service);
      ours.push(await crawlOurs(service, site, start));
      ourMaps.push(await mapOurs(service, mapOrigin));
      await stop(service);
    };
    const runCrawlee = async () => {
      const crawlee = await startChild(script('crawlee-crawler'));
      children.push(crawlee);
      theirs.push(await crawlCrawlee(crawlee, site, start));
      theirMaps.push(await mapCrawlee(crawlee, mapOrigin));
      await stop(crawlee);
    };
    for (let round = 0; round < SETTINGS.rounds; round += 1) {
      if (SIDES === 'ours') {
        await runOurs();
      } else if (round % 2 === 0) {
        await runOurs();
        await runCrawlee();
      } else {
        await runCrawlee();
        await runOurs();
      }
      load.push(round1(loadavg()[0] ?? 0));
    }

    const pick = (sides: CrawlSide[], k: keyof CrawlSide) => median(sides.map((s) => Number(s[k])));
    const pagesPerS = pick(ours, 'pagesPerS');
    const baselinePagesPerS = pick(theirs, 'pagesPerS');
    const rss = pick(ours, 'peakRssMb');
    const baselineRss = pick(theirs, 'peakRssMb');
    const ratio = round3(pagesPerS / baselinePagesPerS);
    const rssRatio = round3(baselineRss / rss);
    const cpuRatio = round3(pick(theirs, 'cpuMsPerPage') / pick(ours, 'cpuMsPerPage'));
    emit({
      bench: 'crawl',
      site_pages: PAGES,
      site_html_mb: round1(Number(site.ready.htmlBytes) / 1e6),
      concurrency: CONCURRENCY,
      max_depth: MAX_DEPTH,
      completed: pick(ours, 'pages'),
      failed: pick(ours, 'failed'),
      complete: ours.every((s) => s.pages === PAGES),
      seconds: pick(ours, 'elapsedS'),
      pages_per_s: pagesPerS,
      cpu_ms_per_page: pick(ours, 'cpuMsPerPage'),
      peak_rss_mb: rss,
      rss_start_mb: pick(ours, 'rssStartMb'),
      rss_end_mb: pick(ours, 'rssEndMb'),
      rss_settled_mb: pick(ours, 'rssSettledMb'),
      memory_mb: ours.map((s) => s.memory),
      threads_ms_per_page: ours.map((s) => s.threadsMsPerPage),
      site_requests: pick(ours, 'siteRequests'),
      baseline: 'Crawlee CheerioCrawler + turndown (GFM)',
      baseline_completed: pick(theirs, 'pages'),
      baseline_failed: pick(theirs, 'failed'),
      baseline_complete: theirs.every((s) => s.pages === PAGES),
      baseline_seconds: pick(theirs, 'elapsedS'),
      baseline_pages_per_s: baselinePagesPerS,
      baseline_cpu_ms_per_page: pick(theirs, 'cpuMsPerPage'),
      baseline_peak_rss_mb: baselineRss,
      baseline_site_requests: pick(theirs, 'siteRequests'),
      ratio,
      cpu_ratio: cpuRatio,
      rss_ratio: rssRatio,
      target_ratio: TARGET_RATIO,
      target_rss_ratio: TARGET_RSS_RATIO,
      target_cpu_ratio: TARGET_CPU_RATIO,
      meets_target: ratio >= TARGET_RATIO && rssRatio >= TARGET_RSS_RATIO && cpuRatio >= TARGET_CPU_RATIO,
      log_level: logLevel,
      rounds: SETTINGS.rounds,
      load_avg_1m: load,
    });

    const found = median(ourMaps.map((m) => m.found));
    const seconds = median(ourMaps.map((m) => m.seconds));
    const baselineSeconds = median(theirMaps.map((m) => m.seconds));
    emit({
      bench: 'map',
      sitemap_urls: MAP_URLS,
      found,
      complete: ourMaps.every((m) => m.found === MAP_URLS),
      seconds,
      baseline: "Crawlee's Sitemap.load on the sitemap index",
      baseline_found: median(theirMaps.map((m) => m.found)),
      baseline_seconds: baselineSeconds,
      ratio: round3(baselineSeconds / seconds),
      rounds: SETTINGS.rounds,
    });
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

await main();
