/**
 * The pools scale apart (issue 36): a crawl through the distributed shape as the tests run it
 * (test/helpers/cluster.ts: one process per role, main.ts itself; librdkafka's mock Kafka with
 * every topic made BENCH_SCALE_PARTITIONS wide, the chdb-served ClickHouse server, the local
 * Redis), with one pool grown while the others stay fixed. One cluster serves every scenario,
 * started with 1 gateway, 1 frontier, 1 parser and 1 fetcher.
 *
 *   fetchers  a site of BENCH_SCALE_PAGES pages (default 20,000) over BENCH_SCALE_HOSTS hosts
 *             (default 200; 127.0.0.1…, test/helpers/scale-site.ts) each answering after a
 *             seeded 100–300 ms, crawled once per step with the fetcher pool at each of
 *             BENCH_SCALE_STEPS processes (default 1,2,4,8), every fetcher handling
 *             BENCH_SCALE_FETCH_CONCURRENCY pages at once (POOL_CONCURRENCY, default 1), so the
 *             pool's pages in flight are steps × that and the site's delay is what bounds it.
 *             (At 2 a page each, 8 fetchers ask for ~75 pages/s: at the ~45 ms of CPU a page
 *             the whole shape costs, 3.4 cores; on this 2-core machine the CPU, not the site,
 *             would bound the last step.) The services' Kafka fetch waits BENCH_SCALE_FETCH_WAIT_MS
 *             (default 100; KAFKA_FETCH_MAX_WAIT_MS) at the broker: librdkafka's mock answers a
 *             waiting fetch only when the wait ends, never when an event arrives as a real
 *             broker does, so at the service's 1,000 every hop whose partitions ran dry waited
 *             up to a second (p50 page latency ~700 ms on pages that answer in 200).
 *             Gateway, frontier and the one parser stay as they are. Per step: pages/s (pages
 *             stored over the time from the crawl's POST to the poll that saw it end), p99
 *             page latency (a page's row written in job_pages less when the site got its
 *             request: fetch, parse and store, not the wait in Kafka before it), and CPU per
 *             page (user + system of every service process, the ClickHouse server and the
 *             Kafka broker, from /proc, over the crawl). `scaling_efficiency` is the pages/s
 *             gained from the first step to the last over the processes added (with a first
 *             step of 1: pages/s at the last over last step × pages/s at the first; null with
 *             one step); target ≥ 0.8.
 *   parsers   fetchers back to 2; a second site of BENCH_SCALE_PARSE_PAGES pages (default
 *             2,000) that answer at once, each 2 KB of article inside BENCH_SCALE_PARSE_BYTES
 *             (default 400,000: under the 512 KiB a Kafka event carries inline) of dense
 *             markup main-content extraction drops, crawled with `storeInCache: false` (no
 *             `pages` copy of the HTML, no search index rows: BENCH_SCALE_PARSE_CACHE=1 keeps
 *             them) so parsing, not storing, is a page's cost, with 1 and then 2 parser
 *             processes: `parser_ratio` is pages/s at 2 over pages/s at 1; target ≥ 1.7
 *             (2 cores here).
 *   drain     the parser pool alone: with no parser running, a backlog of the parsers' site is
 *             sent as batch scrapes of 50 URLs (each batch's every URL at once) and fetched by 2
 *             fetchers into the parsers' topic; once the fetchers are quiet, parsers drain it
 *             while the other processes have nothing to do. BENCH_SCALE_DRAIN_MODE:
 *             `steps` (default): BENCH_SCALE_DRAIN_ROUNDS pairs (default 2) of drains of
 *             BENCH_SCALE_DRAIN_PAGES pages (default 1,000, a fresh backlog each) by 1 or 2
 *             parser processes in the order 1, 2, 2, 1, …; pages/s is over the middle of each
 *             drain (the 10th to the 90th percentile of its pages' job_pages rows, so a
 *             start-up and a group join are not counted), `drain_ratio` the mean at 2 over the
 *             mean at 1, against the same 1.7. `interleaved`: BENCH_SCALE_DRAIN_BACKLOG pages
 *             (default 3,000), two parser processes, and phases of BENCH_SCALE_DRAIN_PHASE_MS
 *             (default 5,000) with both running, then only the first, both, only the second,
 *             … (the other held by SIGSTOP); a phase's pages/s counts the pages stored after
 *             its first BENCH_SCALE_DRAIN_SETTLE_MS (default 500); `drain_ratio` is pages/s with
 *             both over pages/s with one, every phase pooled: both sizes in every moment of a
 *             machine whose speed swings by up to 2x over tens of seconds. Both modes give the
 *             machine's busy CPU beside the rig's, and `other`, what no process of the rig used
 *             (the bench, Redis, the kernel). Every process is restarted for it at the
 *             service's own Kafka fetch wait, BENCH_SCALE_DRAIN_FETCH_WAIT_MS (default 1,000):
 *             no hop's wait is on a drain's measured path, and at 100 ms the idle pools poll
 *             the mock broker ten times a second on the parsers' cores. Run last: the
 *             frontier is restarted with a stall time longer than a drain (JOB_STALL_MS), which
 *             the faults scenario must not have.
 *             BENCH_SCALE_PARSER_NODE_FLAGS replaces the parsers' node flags (default: their
 *             deployment's, infra/codegen/deploy-roles.ts; '' for V8's defaults).
 *   faults    fetchers up to 4 (parsers 2); a third site of BENCH_SCALE_FAULT_PAGES pages
 *             (default 4,000, delays as above) crawled while, once BENCH_SCALE_KILL_AT of it is
 *             stored (default 0.3), one fetcher and one parser are SIGKILLed and replacements
 *             started at once. Every page must be stored once (job_pages: rows = distinct URLs
 *             = the site's pages, each of its URLs there) and the job must complete;
 *             `recovery_s` is the time from the kill until the pages/s of a trailing 5 s
 *             window is back to 0.8 of the 5 s before the kill; target ≤ 30 s.
 *
 * BENCH_SCALE_STORE_BATCH_MS, when set, is every service's STORE_BATCH_MAX_DELAY_MS (unset: the
 * service's own 20 ms): how long a process's rows wait for their insert (docs/scaling.md "Inserts").
 *
 * Sizes that finish in a few minutes on this 2-core machine (bench/README.md "Scaling apart"):
 * BENCH_SCALE_SCENARIOS=fetchers,parsers BENCH_SCALE_PAGES=300 BENCH_SCALE_STEPS=1,2
 * BENCH_SCALE_PARSE_PAGES=150.
 *
 * Before the scenarios, `idle`: each process's CPU ms a second over BENCH_SCALE_IDLE_S (default
 * 20) with nothing sent; each step also gives its CPU ms a second by role, so a step's CPU a
 * page splits into what the processes cost anyway and what its pages added.
 *
 * BENCH_SCALE_SCENARIOS picks scenarios (default `fetchers,parsers,faults,drain`). A crawl that makes
 * no progress for BENCH_SCALE_STALL_S (default 120) fails the bench. The table goes to stderr;
 * one JSON line per scenario, then the summary line (`scaling_efficiency`, `parser_ratio`,
 * `drain_ratio`, `recovery_s`, `exactly_once`) last. `load_avg_1m` says how busy the machine was.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PRODUCTION_MAIN, startCluster, type Cluster, type ServiceProcess } from '../test/helpers/cluster.js';
import { api, cpuTicksMs, followCrawl, quantile, recoveryMs, startCrawl, storedPages, type CrawlEnd, type Gateway } from '../test/helpers/scale-crawl.js';
import { startScaleSite, type ScaleSite } from '../test/helpers/scale-site.js';
import { emit, positiveInteger } from './lib.js';

const PAGES = positiveInteger('BENCH_SCALE_PAGES', 20_000);
const HOSTS = positiveInteger('BENCH_SCALE_HOSTS', 200);
const STEPS = (process.env.BENCH_SCALE_STEPS || '1,2,4,8').split(',').map(Number);
const FETCH_CONCURRENCY = positiveInteger('BENCH_SCALE_FETCH_CONCURRENCY', 1);
const PARSE_PAGES = positiveInteger('BENCH_SCALE_PARSE_PAGES', 2000);
const PARSE_BYTES = positiveInteger('BENCH_SCALE_PARSE_BYTES', 400_000);
const PARSE_CACHE = process.env.BENCH_SCALE_PARSE_CACHE === '1';
const DRAIN_PAGES = positiveInteger('BENCH_SCALE_DRAIN_PAGES', 1000);
const DRAIN_ROUNDS = positiveInteger('BENCH_SCALE_DRAIN_ROUNDS', 2);
const DRAIN_MODE = process.env.BENCH_SCALE_DRAIN_MODE || 'steps';
const DRAIN_BACKLOG = positiveInteger('BENCH_SCALE_DRAIN_BACKLOG', 3000);
const DRAIN_PHASE_MS = positiveInteger('BENCH_SCALE_DRAIN_PHASE_MS', 5000);
const DRAIN_SETTLE_MS = positiveInteger('BENCH_SCALE_DRAIN_SETTLE_MS', 500);
// The parsers' node flags: the deployment's (infra/codegen/deploy-roles.ts) unless set ('' for none: V8's defaults).
const PARSER_NODE_FLAGS = process.env.BENCH_SCALE_PARSER_NODE_FLAGS === undefined ? undefined : process.env.BENCH_SCALE_PARSER_NODE_FLAGS.split(' ').filter(Boolean);
const FAULT_PAGES = positiveInteger('BENCH_SCALE_FAULT_PAGES', 4000);
const KILL_AT = Number(process.env.BENCH_SCALE_KILL_AT || 0.3);
const STALL_S = positiveInteger('BENCH_SCALE_STALL_S', 120);
const FETCH_WAIT_MS = positiveInteger('BENCH_SCALE_FETCH_WAIT_MS', 100);
const DRAIN_FETCH_WAIT_MS = positiveInteger('BENCH_SCALE_DRAIN_FETCH_WAIT_MS', 1000);
const STORE_BATCH_MS: Record<string, string> = process.env.BENCH_SCALE_STORE_BATCH_MS ? { STORE_BATCH_MAX_DELAY_MS: String(Number(process.env.BENCH_SCALE_STORE_BATCH_MS)) } : {};
const IDLE_S = positiveInteger('BENCH_SCALE_IDLE_S', 20);
const SCENARIOS = new Set((process.env.BENCH_SCALE_SCENARIOS || 'fetchers,parsers,faults,drain').split(','));
const PARTITIONS = positiveInteger('BENCH_SCALE_PARTITIONS', Math.max(24, Math.max(...STEPS) * FETCH_CONCURRENCY));
if (STEPS.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`BENCH_SCALE_STEPS must be positive integers, got "${process.env.BENCH_SCALE_STEPS}"`);
if (DRAIN_MODE !== 'interleaved' && DRAIN_MODE !== 'steps') throw new Error(`BENCH_SCALE_DRAIN_MODE must be interleaved or steps, got "${DRAIN_MODE}"`);
if (DRAIN_SETTLE_MS >= DRAIN_PHASE_MS) throw new Error('BENCH_SCALE_DRAIN_SETTLE_MS must be shorter than BENCH_SCALE_DRAIN_PHASE_MS');
if (!(KILL_AT > 0 && KILL_AT < 1)) throw new Error('BENCH_SCALE_KILL_AT must be between 0 and 1');

const TARGET_EFFICIENCY = 0.8;
const TARGET_PARSER_RATIO = 1.7;
const TARGET_RECOVERY_S = 30;
const RECOVERY_WINDOW_MS = 5000;

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const load = () => round1(loadavg()[0] ?? 0);
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Rig {
  cluster: Cluster;
  gateway: Gateway;
  gatewayProcess: ServiceProcess;
  frontier: ServiceProcess;
  /** Settings every process started from now on gets besides the cluster's. */
  env: Record<string, string>;
  pools: { fetcher: ServiceProcess[]; parser: ServiceProcess[] };
}

/** Starts processes of `role` until the pool has `n` (two at a time), or stops the newest past it. */
async function resize(rig: Rig, role: 'fetcher' | 'parser', n: number): Promise<void> {
  const pool = rig.pools[role];
  const env: Record<string, string> = { ...rig.env, ...(role === 'fetcher' ? { POOL_CONCURRENCY: String(FETCH_CONCURRENCY) } : {}) };
  while (pool.length < n) {
    const more = Math.min(2, n - pool.length);
    pool.push(...(await Promise.all(Array.from({ length: more }, () => rig.cluster.service(role, env, role === 'parser' ? PARSER_NODE_FLAGS : undefined)))));
  }
  while (pool.length > n) await (pool.pop() as ServiceProcess).stop(10_000);
}

/** CPU ms so far of every process a crawl costs, by role: the services, the ClickHouse server (`clickhouse`), the broker (`kafka`). */
function cpuNow(rig: Rig): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (role: string, pid: number | undefined) => {
    if (pid) out[role] = (out[role] ?? 0) + cpuTicksMs(pid);
  };
  for (const p of rig.cluster.processes) add(p.role, p.child.pid);
  add('clickhouse', rig.cluster.clickhouse.child.pid);
  add('kafka', rig.cluster.kafka?.pid);
  return out;
}

/** CPU ms so far of the whole machine, every core (/proc/stat: all but idle and iowait). */
function machineBusyMs(): number {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] as string).trim().split(/ +/).slice(1).map(Number);
  const busy = fields.reduce((a, b) => a + b, 0) - (fields[3] ?? 0) - (fields[4] ?? 0);
  // In clock ticks (USER_HZ, 100).
  return busy * 10;
}

/** CPU ms per page by role between two cpuNow readings, and their sum. */
function cpuPerPage(before: Record<string, number>, after: Record<string, number>, pages: number): { total: number; byRole: Record<string, number> } {
  const byRole = Object.fromEntries(Object.entries(after).map(([role, ms]) => [role, round3((ms - (before[role] ?? 0)) / pages)]));
  return { total: round3(Object.values(byRole).reduce((a, b) => a + b, 0)), byRole };
}

/**
 * CPU ms a second of each process while nothing is sent (1 gateway, frontier, parser and
 * fetcher, 5 s after they are up): what a process costs whatever the traffic, which a step's
 * CPU a page includes spread over its pages (bench/README.md "Scaling apart").
 */
async function idleCpu(rig: Rig): Promise<Record<string, number>> {
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const before = cpuNow(rig);
  await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
  const after = cpuNow(rig);
  return Object.fromEntries(Object.entries(after).map(([role, ms]) => [role, round1((ms - (before[role] ?? 0)) / IDLE_S)]));
}

/** A scrape through the pipeline: it waits out rebalances still under way after a resize. */
async function warmUp(rig: Rig, url: string): Promise<void> {
  const res = await fetch(`${rig.gateway.url}/v1/scrape`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rig.gateway.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, formats: ['markdown'] }),
    signal: AbortSignal.timeout(180_000),
  });
  if (res.status !== 200) throw new Error(`the warm-up scrape answered ${res.status}: ${await res.text()}`);
}

/** What every scenario's step measures. */
interface Measured {
  processes: number;
  pages: number;
  seconds: number;
  pagesPerS: number;
  cpuMsPerPage: number;
  /** CPU ms per page of each role's processes together (a process stopped during the crawl drops out). */
  cpuMsPerPageByRole: Record<string, number>;
  /** The same per second of the crawl: set beside the idle reading, what the traffic added. */
  cpuMsPerSByRole: Record<string, number>;
  load: number;
}

interface Step extends Measured {
  p99LatencyMs: number;
  p50LatencyMs: number;
}

/** One crawl of `site`, measured; throws when it does not complete with every page. */
async function measuredCrawl(rig: Rig, site: ScaleSite, pages: number, processes: number, scrapeOptions: Record<string, unknown> = {}): Promise<Step & { end: CrawlEnd }> {
  const firstRequest = site.requests.length;
  const cpuBefore = cpuNow(rig);
  const end = await followCrawl(rig.gateway, await startCrawl(rig.gateway, site.start, pages, scrapeOptions), { stallMs: STALL_S * 1000 });
  const cpu = cpuPerPage(cpuBefore, cpuNow(rig), end.completed);
  if (end.status !== 'completed' || end.completed !== pages) throw new Error(`crawl ${end.id} ended ${end.status} with ${end.completed}/${pages} pages (${end.failed} failed)`);
  const stored = await storedPages(rig.cluster.store(), end.id);
  const latencies = site.requests.slice(firstRequest).flatMap((r) => {
    const at = stored.createdAt.get(r.url);
    return at === undefined ? [] : [at - r.startMs];
  });
  const seconds = (end.endMs - end.startMs) / 1000;
  return {
    processes,
    pages: end.completed,
    seconds: round1(seconds),
    pagesPerS: round1(end.completed / seconds),
    p99LatencyMs: Math.round(quantile(latencies, 0.99)),
    p50LatencyMs: Math.round(quantile(latencies, 0.5)),
    cpuMsPerPage: cpu.total,
    cpuMsPerPageByRole: cpu.byRole,
    cpuMsPerSByRole: perSecond(cpu.byRole, end.completed, seconds),
    load: load(),
    end,
  };
}

/** A step's table columns by role: `(CPU ms/page by role) [CPU ms/s by role]`. */
function byRole(s: Pick<Measured, 'cpuMsPerPageByRole' | 'cpuMsPerSByRole'>): string {
  const list = (figures: Record<string, number>) => Object.entries(figures).map(([role, ms]) => `${role} ${ms}`).join(', ');
  return `(${list(s.cpuMsPerPageByRole)}) [${list(s.cpuMsPerSByRole)}]`;
}

function table(title: string, steps: readonly Step[]): void {
  log(`\n${title}`);
  log('processes  pages/s  p50 ms  p99 ms  CPU ms/page  seconds  load  (CPU ms/page by role) [CPU ms/s by role]');
  for (const s of steps) {
    log(`${String(s.processes).padStart(9)}  ${String(s.pagesPerS).padStart(7)}  ${String(s.p50LatencyMs).padStart(6)}  ${String(s.p99LatencyMs).padStart(6)}  ${String(s.cpuMsPerPage).padStart(11)}  ${String(s.seconds).padStart(7)}  ${String(s.load).padStart(4)}  ${byRole(s)}`);
  }
}

const stepLine = ({ end: _end, ...step }: Step & { end?: CrawlEnd }) => step;

async function fetchers(rig: Rig): Promise<Record<string, unknown>> {
  const site = await startScaleSite({ hosts: HOSTS, pages: PAGES });
  try {
    const steps: Step[] = [];
    for (const n of STEPS) {
      await resize(rig, 'fetcher', n);
      await warmUp(rig, `${site.origin(1)}/p/1`);
      log(`fetchers: ${n} process(es), crawling ${PAGES} pages…`);
      steps.push(stepLine(await measuredCrawl(rig, site, PAGES, n)));
    }
    table(`fetcher pool (${FETCH_CONCURRENCY} pages in flight each; 1 gateway, 1 frontier, ${rig.pools.parser.length} parser)`, steps);
    const first = steps[0] as Step;
    const last = steps[steps.length - 1] as Step;
    // Pages/s gained over processes added, first step to last; one step compares nothing.
    const efficiency = steps.length > 1 ? round3((last.pagesPerS * first.processes) / (last.processes * first.pagesPerS)) : null;
    return { scenario: 'fetchers', pages: PAGES, hosts: HOSTS, fetch_concurrency: FETCH_CONCURRENCY, steps, scaling_efficiency: efficiency, target_scaling_efficiency: TARGET_EFFICIENCY };
  } finally {
    await site.close();
  }
}

async function parsers(rig: Rig): Promise<Record<string, unknown>> {
  const site = await startScaleSite({ hosts: Math.min(HOSTS, 20), pages: PARSE_PAGES, delayMs: () => 0, boilerplateBytes: PARSE_BYTES });
  try {
    await resize(rig, 'fetcher', 2);
    const steps: Step[] = [];
    for (const n of [1, 2]) {
      await resize(rig, 'parser', n);
      await warmUp(rig, `${site.origin(1)}/p/1`);
      log(`parsers: ${n} process(es), crawling ${PARSE_PAGES} pages with ${PARSE_BYTES} bytes of boilerplate${PARSE_CACHE ? '' : ', storeInCache false'}…`);
      steps.push(stepLine(await measuredCrawl(rig, site, PARSE_PAGES, n, PARSE_CACHE ? {} : { storeInCache: false })));
    }
    table(`parser pool (pages answered at once, 2 KB of article in ${PARSE_BYTES} bytes of boilerplate; ${PARSE_CACHE ? 'cached' : 'storeInCache false'}; 2 fetchers)`, steps);
    const ratio = round3((steps[1] as Step).pagesPerS / (steps[0] as Step).pagesPerS);
    return { scenario: 'parsers', pages: PARSE_PAGES, boilerplate_bytes: PARSE_BYTES, store_in_cache: PARSE_CACHE, steps, parser_ratio: ratio, target_parser_ratio: TARGET_PARSER_RATIO };
  } finally {
    await site.close();
  }
}

/** One reading of a drain: when (epoch ms), the pages its batches have stored, and the CPU so far by role. */
interface DrainSample {
  atMs: number;
  completed: number;
  cpu: Record<string, number>;
  /** The machine's busy CPU ms so far (machineBusyMs). */
  machine: number;
}

/**
 * A drain's step: `seconds` from the parsers' start to the last page stored (their start-up and
 * group join included), `pagesPerS` over the middle of the drain (the pages stored between its
 * 10th and 90th percentile, over that time), its CPU over the samples around that stretch.
 */
interface DrainStep extends Measured {
  /** Pages/s from the first page stored to the last. */
  pagesPerSWhole: number;
  /** Seconds the fetchers took to fetch the backlog while no parser ran. */
  backlogSeconds: number;
  /** The machine's busy CPU ms a second over the same samples, and what no process of the rig used of it (the bench, Redis, the kernel). */
  machineMsPerS: number;
  otherMsPerS: number;
}

/** Each role's CPU ms a second, from its CPU ms a page over `pages` in `seconds`. */
const perSecond = (byRole: Record<string, number>, pages: number, seconds: number) =>
  Object.fromEntries(Object.entries(byRole).map(([role, ms]) => [role, round1((ms * pages) / seconds)]));

/** A backlog the parsers have not seen: its batch jobs, and the seconds the fetchers took. */
interface Backlog {
  ids: string[];
  seconds: number;
}

/**
 * `urls` sent as batch jobs of 50 (the API's largest maxConcurrency, so every URL is sent at
 * once) while no parser runs, and fetched into the topic the parsers read; resolves once every
 * URL was requested and the fetchers have gone quiet.
 */
async function fetchBacklog(rig: Rig, site: ScaleSite, urls: readonly string[]): Promise<Backlog> {
  const firstRequest = site.requests.length;
  const backlogStart = performance.now();
  const ids: string[] = [];
  for (let at = 0; at < urls.length; at += 50) {
    const res = await api(rig.gateway, 'POST', '/v1/batch/scrape', {
      urls: urls.slice(at, at + 50),
      maxConcurrency: 50,
      scrapeOptions: { formats: ['markdown'], ...(PARSE_CACHE ? {} : { storeInCache: false }) },
    });
    if (res.status !== 200) throw new Error(`POST /v1/batch/scrape answered ${res.status}: ${JSON.stringify(res.body)}`);
    ids.push(String(res.body.data.id));
  }
  // Every URL fetched, then the fetchers quiet (under 100 ms of CPU a second between them: their events are on the topic).
  let quietSince = 0;
  for (let last = cpuNow(rig).fetcher ?? 0; ; ) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = cpuNow(rig).fetcher ?? 0;
    const fetched = site.requests.length - firstRequest >= urls.length;
    quietSince = fetched && now - last < 100 ? quietSince || performance.now() : 0;
    last = now;
    if (quietSince && performance.now() - quietSince >= 2000) break;
    if (performance.now() - backlogStart > STALL_S * 1000) throw new Error(`the backlog was not fetched in ${STALL_S} s: ${site.requests.length - firstRequest}/${urls.length} pages`);
  }
  return { ids, seconds: round1((performance.now() - backlogStart) / 1000) };
}

/** Pages of `backlog` stored so far (one count from the store). */
async function storedOf(rig: Rig, backlog: Backlog): Promise<number> {
  const [row] = await rig.cluster.store().query<{ n: string }>('SELECT uniqExact(job_id, url) AS n FROM job_pages WHERE job_id IN {ids:Array(String)}', { ids: backlog.ids });
  return Number(row?.n ?? 0);
}

/**
 * Every batch of `backlog` completed with all its pages, each stored once: the pages' job_pages
 * creation times (epoch ms, the parser's clock when it finished the page), sorted.
 */
async function drained(rig: Rig, backlog: Backlog, pages: number): Promise<number[]> {
  for (const id of backlog.ids) {
    for (let tries = 0; ; tries += 1) {
      const res = await api(rig.gateway, 'GET', `/v1/batch/${id}?limit=1`);
      if (res.status !== 200) throw new Error(`GET /v1/batch/${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
      const d = res.body.data as Record<string, unknown>;
      if (d.status === 'completed' && Number(d.completed) === Number(d.total)) break;
      if (d.status !== 'scraping' || tries >= 60) throw new Error(`batch ${id} is ${String(d.status)} with ${String(d.completed)}/${String(d.total)} pages after every page was stored`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  const store = rig.cluster.store();
  const found = await Promise.all(backlog.ids.map((id) => storedPages(store, id)));
  const rows = found.reduce((n, x) => n + x.rows, 0);
  const created = found.flatMap((x) => [...x.createdAt.values()]).sort((a, b) => a - b);
  if (created.length !== pages || rows !== pages) throw new Error(`the drain stored ${created.length} of ${pages} pages in ${rows} rows`);
  return created;
}

/**
 * The parser pool draining a backlog (bench/README.md "Scaling apart"): with no parser running,
 * a backlog is fetched into the topic the parsers read; then parsers drain it while the
 * fetchers, the frontier and the gateway stay up with nothing to do, so the parsers have the
 * machine's cores to themselves, as a pool scaled on its consumer lag would while a backlog
 * lasts. The frontier is restarted with a stall time longer than a drain (the watchdog would
 * otherwise send a backlog's pages again while they wait for a parser).
 *
 * BENCH_SCALE_DRAIN_MODE `steps` (the default, `drainSteps`) drains a fresh backlog with each
 * pool size in turn; `interleaved` (`drainInterleaved`) compares 1 and 2 parsers in
 * alternating phases of one drain.
 */
async function drain(rig: Rig): Promise<Record<string, unknown>> {
  const pages = DRAIN_MODE === 'steps' ? 2 * DRAIN_ROUNDS * DRAIN_PAGES : DRAIN_BACKLOG;
  const site = await startScaleSite({ hosts: Math.min(HOSTS, 20), pages: Math.max(pages, Math.min(HOSTS, 20)), delayMs: () => 0, boilerplateBytes: PARSE_BYTES });
  try {
    // Every process restarted at the drain's fetch wait (the service's own 1,000 ms unless
    // BENCH_SCALE_DRAIN_FETCH_WAIT_MS says otherwise): no hop's wait is on a drain's measured
    // path, and at the other scenarios' 100 ms the pools with nothing to do polled the mock
    // broker ten times a second on the parsers' cores.
    rig.env = { KAFKA_FETCH_MAX_WAIT_MS: String(DRAIN_FETCH_WAIT_MS) };
    await Promise.all([resize(rig, 'fetcher', 0), resize(rig, 'parser', 0), rig.frontier.stop(10_000), rig.gatewayProcess.stop(10_000)]);
    [rig.frontier, rig.gatewayProcess] = await Promise.all([rig.cluster.service('frontier', { ...rig.env, JOB_STALL_MS: String(3_600_000) }), rig.cluster.service('gateway', rig.env)]);
    rig.gateway = { ...rig.gateway, url: rig.gatewayProcess.url as string };
    await resize(rig, 'fetcher', 2);
    return DRAIN_MODE === 'steps' ? await drainSteps(rig, site) : await drainInterleaved(rig, site);
  } finally {
    await site.close();
  }
}

/**
 * Steps: DRAIN_ROUNDS pairs of drains of DRAIN_PAGES pages each, a fresh backlog for every
 * one, by 1 then 2 parsers and 2 then 1 in turn (1, 2, 2, 1, …): a parser's CPU a page on
 * this machine drifts over a run (71, 74, 74, 87, 85, 90 ms in six drains in a row), which
 * always running 2 after 1 would count against the pool of 2; the turned order cancels a
 * steady drift, not the machine's swings (see drainInterleaved). Pages/s is over the middle of
 * each drain (the 10th to the 90th percentile of its pages' job_pages rows, so a start-up and
 * a group join are not counted).
 */
async function drainSteps(rig: Rig, site: ScaleSite): Promise<Record<string, unknown>> {
  const urls = site.allUrls();
  const steps: DrainStep[] = [];
  const order = Array.from({ length: DRAIN_ROUNDS }, (_, r) => (r % 2 ? [2, 1] : [1, 2])).flat();
  for (const [i, n] of order.entries()) {
    await resize(rig, 'parser', 0);
    const mine = urls.slice(i * DRAIN_PAGES, (i + 1) * DRAIN_PAGES);
    log(`drain: ${mine.length} pages fetched with no parser running, then drained by ${n} parser process(es)…`);
    const backlog = await fetchBacklog(rig, site, mine);
    const startMs = Date.now();
    const samples: DrainSample[] = [{ atMs: startMs, completed: 0, cpu: cpuNow(rig), machine: machineBusyMs() }];
    const starting = resize(rig, 'parser', n);
    // Progress from the store, one count a second (polling every batch through the API would
    // cost the gateway more CPU than the parsers can spare, and meets the key's rate limit).
    let progressAt = performance.now();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const completed = await storedOf(rig, backlog);
      const last = samples[samples.length - 1] as DrainSample;
      if (completed !== last.completed) progressAt = performance.now();
      samples.push({ atMs: Date.now(), completed, cpu: cpuNow(rig), machine: machineBusyMs() });
      if (completed >= mine.length) break;
      if (performance.now() - progressAt > STALL_S * 1000) throw new Error(`the drain made no progress for ${STALL_S} s (${completed}/${mine.length} pages)`);
    }
    await starting;
    const created = await drained(rig, backlog, mine.length);
    const lo = Math.floor(created.length * 0.1);
    const hi = Math.ceil(created.length * 0.9) - 1;
    const at = (k: number) => created[k] as number;
    // The CPU over the samples that span the middle stretch.
    const from = [...samples].reverse().find((x) => x.atMs <= at(lo)) ?? (samples[0] as DrainSample);
    const to = samples.find((x) => x.atMs >= at(hi)) ?? (samples[samples.length - 1] as DrainSample);
    const cpu = cpuPerPage(from.cpu, to.cpu, to.completed - from.completed);
    const sampledS = (to.atMs - from.atMs) / 1000;
    const machineMsPerS = round1((to.machine - from.machine) / sampledS);
    steps.push({
      processes: n,
      pages: mine.length,
      seconds: round1((at(created.length - 1) - startMs) / 1000),
      pagesPerS: round1(((hi - lo) * 1000) / (at(hi) - at(lo))),
      pagesPerSWhole: round1(((created.length - 1) * 1000) / (at(created.length - 1) - at(0))),
      cpuMsPerPage: cpu.total,
      cpuMsPerPageByRole: cpu.byRole,
      cpuMsPerSByRole: perSecond(cpu.byRole, to.completed - from.completed, (to.atMs - from.atMs) / 1000),
      backlogSeconds: backlog.seconds,
      machineMsPerS,
      otherMsPerS: round1(machineMsPerS - (cpu.total * (to.completed - from.completed)) / sampledS),
      load: load(),
    });
  }
  log(`\nparser pool draining a backlog (${DRAIN_PAGES} pages of 2 KB of article in ${PARSE_BYTES} bytes of boilerplate, fetched first; ${PARSE_CACHE ? 'cached' : 'storeInCache false'})`);
  log('processes  pages/s (10-90%)  pages/s (whole)  CPU ms/page  machine ms/s  other ms/s  seconds  backlog s  load  (CPU ms/page by role) [CPU ms/s by role]');
  for (const x of steps) {
    log(`${String(x.processes).padStart(9)}  ${String(x.pagesPerS).padStart(16)}  ${String(x.pagesPerSWhole).padStart(15)}  ${String(x.cpuMsPerPage).padStart(11)}  ${String(x.machineMsPerS).padStart(12)}  ${String(x.otherMsPerS).padStart(10)}  ${String(x.seconds).padStart(7)}  ${String(x.backlogSeconds).padStart(9)}  ${String(x.load).padStart(4)}  ${byRole(x)}`);
  }
  const mean = (n: number) => {
    const v = steps.filter((x) => x.processes === n).map((x) => x.pagesPerS);
    return v.reduce((a, b) => a + b, 0) / v.length;
  };
  const ratio = round3(mean(2) / mean(1));
  const pairOf = (r: number, n: number) => (steps.slice(2 * r, 2 * r + 2).find((x) => x.processes === n) as DrainStep).pagesPerS;
  const rounds = Array.from({ length: DRAIN_ROUNDS }, (_, r) => round3(pairOf(r, 2) / pairOf(r, 1)));
  log(`drain_ratio ${ratio} (mean pages/s at 2 over mean at 1; each pair's own: ${rounds.join(', ')})`);
  return { scenario: 'drain', mode: 'steps', pages: DRAIN_PAGES, rounds: DRAIN_ROUNDS, boilerplate_bytes: PARSE_BYTES, store_in_cache: PARSE_CACHE, steps, round_ratios: rounds, drain_ratio: ratio, target_parser_ratio: TARGET_PARSER_RATIO };
}

/** One phase of an interleaved drain: which parsers ran (`a`, `b` or `ab`) from `fromMs` to `toMs`, and the CPU at both ends. */
interface DrainPhase {
  running: 'ab' | 'a' | 'b';
  fromMs: number;
  toMs: number;
  cpuFrom: Record<string, number>;
  cpuTo: Record<string, number>;
  machineFrom: number;
  machineTo: number;
}

/**
 * Interleaved: one backlog of DRAIN_BACKLOG pages, two parser processes, and phases of
 * DRAIN_PHASE_MS in the order both, only the first, both, only the second, … (the other one
 * held with SIGSTOP: it keeps its partitions and its group membership, a phase being well under
 * the session timeout, and uses no CPU). A phase's pages/s counts the pages stored (job_pages
 * created_at, the parser's clock when it finished the page) from DRAIN_SETTLE_MS after its start
 * to its end; `drain_ratio` is the pages/s of every phase with both over that of every phase
 * with one. Phases run in whole cycles of four from the time a tenth of the backlog is stored
 * (the group joined, the code warm) while the backlog lasts, then both finish it.
 *
 * Why phases rather than drains in turn: on this machine a lone parser's CPU a page swings by
 * up to 2x over tens of seconds with nothing else running (38-41 against 72-93 ms a page in
 * consecutive 150-page passes of one process; bench/README.md "The machine's swings"), so two
 * drains a minute apart compare the machine's moments as much as the pool sizes. Phases of a
 * few seconds put both sizes in every moment, and the first and second parser take the lone
 * phases in turn so that both keep the same share of the backlog.
 */
async function drainInterleaved(rig: Rig, site: ScaleSite): Promise<Record<string, unknown>> {
  await resize(rig, 'parser', 0);
  const urls = site.allUrls().slice(0, DRAIN_BACKLOG);
  log(`drain: ${urls.length} pages fetched with no parser running, then drained by 2 parser processes in phases of ${DRAIN_PHASE_MS} ms with both or one of them running…`);
  const backlog = await fetchBacklog(rig, site, urls);
  await resize(rig, 'parser', 2);
  const [a, b] = rig.pools.parser as [ServiceProcess, ServiceProcess];
  const startMs = Date.now();
  let completed = 0;
  for (let progressAt = performance.now(); completed < 0.1 * urls.length; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await storedOf(rig, backlog);
    if (now !== completed) progressAt = performance.now();
    completed = now;
    if (performance.now() - progressAt > STALL_S * 1000) throw new Error(`the drain made no progress for ${STALL_S} s (${completed}/${urls.length} pages)`);
  }
  const phases: DrainPhase[] = [];
  const pattern = ['ab', 'a', 'ab', 'b'] as const;
  try {
    // Whole cycles while the backlog lasts: the next one's pages (the last one's, with a tenth to
    // spare) must fit in what is left, or one parser's partitions could run dry in a phase.
    for (let lastCycle = 0; completed + 1.1 * lastCycle < 0.85 * urls.length; ) {
      const before = completed;
      for (const running of pattern) {
        a.child.kill(running === 'b' ? 'SIGSTOP' : 'SIGCONT');
        b.child.kill(running === 'a' ? 'SIGSTOP' : 'SIGCONT');
        const fromMs = Date.now();
        const cpuFrom = cpuNow(rig);
        const machineFrom = machineBusyMs();
        await new Promise((resolve) => setTimeout(resolve, DRAIN_PHASE_MS));
        phases.push({ running, fromMs, toMs: Date.now(), cpuFrom, cpuTo: cpuNow(rig), machineFrom, machineTo: machineBusyMs() });
      }
      completed = await storedOf(rig, backlog);
      lastCycle = completed - before;
    }
  } finally {
    for (const p of [a, b]) p.child.kill('SIGCONT');
  }
  if (phases.length === 0) throw new Error(`the backlog of ${urls.length} pages is too small for one cycle of ${DRAIN_PHASE_MS} ms phases`);
  for (let progressAt = performance.now(), last = -1; completed < urls.length; ) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    completed = await storedOf(rig, backlog);
    if (completed !== last) progressAt = performance.now();
    last = completed;
    if (performance.now() - progressAt > STALL_S * 1000) throw new Error(`the drain made no progress for ${STALL_S} s (${completed}/${urls.length} pages)`);
  }
  const created = await drained(rig, backlog, urls.length);
  const count = (fromMs: number, toMs: number) => created.filter((t) => t >= fromMs && t < toMs).length;
  const rateOf = (x: DrainPhase) => (count(x.fromMs + DRAIN_SETTLE_MS, x.toMs) * 1000) / (x.toMs - x.fromMs - DRAIN_SETTLE_MS);
  const pooled = (list: readonly DrainPhase[]) => {
    const pages = list.reduce((n, x) => n + count(x.fromMs + DRAIN_SETTLE_MS, x.toMs), 0);
    const ms = list.reduce((n, x) => n + x.toMs - x.fromMs - DRAIN_SETTLE_MS, 0);
    // CPU over the whole phases (ticks are read at their ends), a page being any stored in them.
    const cpuMs: Record<string, number> = {};
    for (const x of list) for (const [role, v] of Object.entries(x.cpuTo)) cpuMs[role] = (cpuMs[role] ?? 0) + v - (x.cpuFrom[role] ?? 0);
    const whole = list.reduce((n, x) => n + count(x.fromMs, x.toMs), 0);
    const wholeMs = list.reduce((n, x) => n + x.toMs - x.fromMs, 0);
    const cpu = cpuPerPage({}, cpuMs, Math.max(1, whole));
    // The machine's busy time beside it: what no process of the rig used (the bench, Redis, the kernel).
    const machineMsPerS = round1((list.reduce((n, x) => n + x.machineTo - x.machineFrom, 0) * 1000) / wholeMs);
    const rigMsPerS = (Object.values(cpuMs).reduce((a, b) => a + b, 0) * 1000) / wholeMs;
    return {
      pages,
      pagesPerS: round1((pages * 1000) / ms),
      cpuMsPerPage: cpu.total,
      cpuMsPerPageByRole: cpu.byRole,
      cpuMsPerSByRole: perSecond(cpu.byRole, whole, wholeMs / 1000),
      machineMsPerS,
      otherMsPerS: round1(machineMsPerS - rigMsPerS),
    };
  };
  const two = pooled(phases.filter((x) => x.running === 'ab'));
  const one = pooled(phases.filter((x) => x.running !== 'ab'));
  const ratio = round3(two.pagesPerS / one.pagesPerS);
  const cycles = Array.from({ length: phases.length / 4 }, (_, c) => {
    const mine = phases.slice(4 * c, 4 * c + 4);
    return round3(pooled(mine.filter((x) => x.running === 'ab')).pagesPerS / pooled(mine.filter((x) => x.running !== 'ab')).pagesPerS);
  });
  const phaseRates = phases.map((x) => `${x.running} ${round1(rateOf(x))}`);
  log(`\nparser pool draining a backlog in phases (${urls.length} pages of 2 KB of article in ${PARSE_BYTES} bytes of boilerplate, fetched first in ${backlog.seconds} s; ${PARSE_CACHE ? 'cached' : 'storeInCache false'}; ${phases.length} phases of ${DRAIN_PHASE_MS} ms, the first ${DRAIN_SETTLE_MS} ms of each not counted)`);
  log('processes  pages/s  pages  CPU ms/page  machine ms/s  other ms/s  (CPU ms/page by role) [CPU ms/s by role]');
  for (const [n, x] of [[1, one], [2, two]] as const) {
    log(`${String(n).padStart(9)}  ${String(x.pagesPerS).padStart(7)}  ${String(x.pages).padStart(5)}  ${String(x.cpuMsPerPage).padStart(11)}  ${String(x.machineMsPerS).padStart(12)}  ${String(x.otherMsPerS).padStart(10)}  ${byRole(x)}`);
  }
  log(`phases (pages/s): ${phaseRates.join(', ')}`);
  log(`drain_ratio ${ratio} (pages/s with both parsers over pages/s with one, over every phase; each cycle's own: ${cycles.join(', ')}); ${round1((Date.now() - startMs) / 1000)} s from the parsers' start`);
  return {
    scenario: 'drain',
    mode: 'interleaved',
    pages: urls.length,
    phase_ms: DRAIN_PHASE_MS,
    settle_ms: DRAIN_SETTLE_MS,
    boilerplate_bytes: PARSE_BYTES,
    store_in_cache: PARSE_CACHE,
    backlog_seconds: backlog.seconds,
    one: { processes: 1, ...one },
    two: { processes: 2, ...two },
    phases: phases.map((x) => ({ running: x.running, seconds: round1((x.toMs - x.fromMs) / 1000), pages_per_s: round1(rateOf(x)) })),
    cycle_ratios: cycles,
    drain_ratio: ratio,
    target_parser_ratio: TARGET_PARSER_RATIO,
    load: load(),
  };
}

async function faults(rig: Rig): Promise<Record<string, unknown>> {
  const site = await startScaleSite({ hosts: HOSTS, pages: FAULT_PAGES });
  try {
    await resize(rig, 'parser', 2);
    await resize(rig, 'fetcher', 4);
    await warmUp(rig, `${site.origin(1)}/p/1`);
    log(`faults: 4 fetchers, 2 parsers, crawling ${FAULT_PAGES} pages; one of each SIGKILLed at ${KILL_AT * 100}%…`);
    const kill: { atMs: number; replacing: Promise<void> | null } = { atMs: 0, replacing: null };
    const crawl = await startCrawl(rig.gateway, site.start, FAULT_PAGES);
    const end = await followCrawl(rig.gateway, crawl, {
      stallMs: STALL_S * 1000,
      onSample: (sample) => {
        if (kill.replacing || sample.completed < KILL_AT * FAULT_PAGES) return;
        kill.atMs = performance.now();
        const victims = [rig.pools.fetcher.shift(), rig.pools.parser.shift()] as ServiceProcess[];
        for (const v of victims) v.child.kill('SIGKILL');
        kill.replacing = Promise.all(victims.map((v) => v.exited)).then(() => Promise.all([resize(rig, 'fetcher', 4), resize(rig, 'parser', 2)]).then(() => undefined));
      },
    });
    const killedAtMs = kill.atMs;
    const replacedAtMs = kill.replacing ? (await kill.replacing, performance.now()) : 0;
    const stored = await storedPages(rig.cluster.store(), end.id);
    const missing = site.allUrls().filter((u) => !stored.createdAt.has(u));
    const exactlyOnce = end.status === 'completed' && end.completed === FAULT_PAGES && end.failed === 0 && stored.rows === FAULT_PAGES && stored.urls === FAULT_PAGES && missing.length === 0;
    const recovery = killedAtMs ? recoveryMs(end.samples, killedAtMs, RECOVERY_WINDOW_MS, 0.8) : { ms: null, before: Number.NaN };
    const recoveryS = recovery.ms === null ? null : round1(recovery.ms / 1000);
    log(`\nfaults: ${end.status}, ${end.completed}/${FAULT_PAGES} pages, ${stored.rows} rows (${stored.urls} URLs, ${stored.rowsWritten} written), ${missing.length} missing; throughput back in ${recoveryS ?? 'never'} s (replacements running ${round1((replacedAtMs - killedAtMs) / 1000)} s after the kill)`);
    return {
      scenario: 'faults',
      pages: FAULT_PAGES,
      status: end.status,
      completed: end.completed,
      failed: end.failed,
      rows: stored.rows,
      distinct_urls: stored.urls,
      rows_written: stored.rowsWritten,
      missing: missing.length,
      site_requests: site.requests.length,
      exactly_once: exactlyOnce,
      rate_before_kill: round1(recovery.before),
      recovery_s: recoveryS,
      replacements_running_s: round1((replacedAtMs - killedAtMs) / 1000),
      seconds: round1((end.endMs - end.startMs) / 1000),
      target_recovery_s: TARGET_RECOVERY_S,
    };
  } finally {
    await site.close();
  }
}

async function main(): Promise<void> {
  const loadStart = load();
  const cluster = await startCluster({
    main: PRODUCTION_MAIN,
    kafkaPartitions: PARTITIONS,
    env: { FETCH_ALLOW_PRIVATE: 'true', JOB_STALL_MS: '20000', REQUEST_TIMEOUT_MS: '120000', KAFKA_FETCH_MAX_WAIT_MS: String(FETCH_WAIT_MS), ...STORE_BATCH_MS },
  });
  try {
    // Two processes at a time: more starting at once outlast a start's time limit on 2 cores.
    const [gatewayProcess, frontier] = await Promise.all([cluster.service('gateway'), cluster.service('frontier')]);
    const rig: Rig = { cluster, gateway: { url: gatewayProcess.url as string, apiKey: cluster.apiKey }, gatewayProcess, frontier, env: {}, pools: { fetcher: [], parser: [] } };
    await Promise.all([resize(rig, 'parser', 1), resize(rig, 'fetcher', 1)]);
    const lines: Record<string, unknown>[] = [];
    const idleLoad = load();
    const idle = await idleCpu(rig);
    log(`idle: CPU ms/s by process over ${IDLE_S} s: ${Object.entries(idle).map(([role, ms]) => `${role} ${ms}`).join(', ')} (load ${idleLoad})`);
    lines.push({ scenario: 'idle', seconds: IDLE_S, cpu_ms_per_s: idle, load: [idleLoad, load()] });
    if (SCENARIOS.has('fetchers')) lines.push(await fetchers(rig));
    if (SCENARIOS.has('parsers')) lines.push(await parsers(rig));
    if (SCENARIOS.has('faults')) lines.push(await faults(rig));
    // Last: it restarts the frontier with a stall time the faults scenario must not have.
    if (SCENARIOS.has('drain')) lines.push(await drain(rig));
    for (const line of lines) emit({ bench: 'scale', ...line });
    const of = (scenario: string) => lines.find((l) => l.scenario === scenario) ?? {};
    const efficiency = of('fetchers').scaling_efficiency as number | null | undefined;
    const ratio = of('parsers').parser_ratio as number | undefined;
    const drainRatio = of('drain').drain_ratio as number | undefined;
    const recovery = of('faults').recovery_s as number | null | undefined;
    emit({
      bench: 'scale',
      scenario: 'summary',
      scaling_efficiency: efficiency ?? null,
      parser_ratio: ratio ?? null,
      drain_ratio: drainRatio ?? null,
      recovery_s: recovery ?? null,
      exactly_once: of('faults').exactly_once ?? null,
      targets: { scaling_efficiency: TARGET_EFFICIENCY, parser_ratio: TARGET_PARSER_RATIO, recovery_s: TARGET_RECOVERY_S },
      meets: {
        scaling_efficiency: efficiency === undefined || efficiency === null ? null : efficiency >= TARGET_EFFICIENCY,
        parser_ratio: ratio === undefined ? null : ratio >= TARGET_PARSER_RATIO,
        drain_ratio: drainRatio === undefined ? null : drainRatio >= TARGET_PARSER_RATIO,
        recovery_s: recovery === undefined ? null : recovery !== null && recovery <= TARGET_RECOVERY_S,
      },
      partitions: PARTITIONS,
      load_avg_1m: [loadStart, load()],
    });
  } finally {
    await cluster.stop();
  }
}

await main();
