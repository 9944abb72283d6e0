/**
 * Page monitors (issue 17): how many checks a second the service runs, how late they start,
 * what a check costs beside a plain scrape, and whether a check reports real changes and only
 * them, against naive comparisons of the same pages in the same run.
 *
 *   site      bench/servers/monitor-site.ts in its own child process on 127.0.0.1:
 *             BENCH_MONITORS product pages (default 2,000) with a "Last updated" line, times,
 *             an image and links with cache-busting queries. Between rounds it edits
 *             BENCH_MONITORS_CHANGED_PCT of them for real (default 10: a price, the stock, a
 *             sentence, an added paragraph), BENCH_MONITORS_NOISE_PCT only by noise (default
 *             20: new times, new cache-busting values, other whitespace) and makes
 *             BENCH_MONITORS_REMOVED_PCT answer 404 (default 1), and says which it did
 *   service   embedded mode in this process (`startService` with the production actors, chdb
 *             in a temporary DATA_DIR removed at the end, memory state; the environment's
 *             MONITOR_* and POOL_CONCURRENCY apply), so process.cpuUsage() is the service's
 *             CPU (the site's is its own child's); its runtime is captured to read the store
 *             and the schedule
 *
 * Round 1, the creation burst: one monitor per page (POST /v1/monitor, intervalMinutes 10,080,
 * BENCH_MONITORS_CREATE_CONCURRENCY at a time, default 16); each is due at once, and the
 * frontier starts them at MONITOR_STARTS_PER_SECOND: "1,000 monitors due at once do not
 * start at once", so its lateness is reported on its own. Its checks/s is the capacity.
 * Rounds 2 to BENCH_MONITORS_ROUNDS (default 3), the steady state: the site changes, then
 * every monitor is put back on the schedule through the production module (scheduleMonitor,
 * pipeline/monitors/schedule.ts), due times spread evenly over one interval,
 * BENCH_MONITORS_STEADY_INTERVAL_S (default 300: issue 26's 2,000 monitors every 5 minutes),
 * or over monitors / (BENCH_MONITORS_LOAD_PCT% × capacity) (default 60%) when that is longer,
 * so checks arrive under capacity.
 * The frontier's reconcile re-derives every due time from the store each minute (one interval
 * after the last scheduled check), which undoes the bench's: the bench puts back the due
 * times it moved (`due_times_restored`). The interval is a week, not 5 minutes, so that a
 * monitor's own next check never falls inside the run: a round here can last longer than 5
 * minutes, and between rounds a reconcile's due time (the last round's + 5 minutes) could be
 * past already and start a check at once, outside the bench's plan (extra checks, overlaps).
 * What a check costs does not depend on its interval.
 *
 * A round ends when every monitor's check of it is final: watched as the service inserts its
 * final rows, then confirmed from `monitor_checks FINAL` (polling that query every 2 s put
 * 0.1–0.3 FINAL queries a check in the round's CPU); a round stalled for
 * BENCH_MONITORS_STALL_S seconds, default 120, fails with its counts.
 * checks/s: checks over the time from the round's first due time to its last finish. Lateness:
 * started_at − scheduled_at of each check row. CPU per check: this process's CPU over the
 * round over its checks. Detection, steady rounds only: precision and recall of `changed`
 * against the site's real edits; noise-only pages must be `same`, 404s `removed` (once: a page
 * still gone is `same`).
 *
 * Baselines, same run: after each round's checks, every page is read again with the site
 * unchanged, (1) by a plain GET, compared by byte equality of the HTML with the last round's,
 * and (2) by POST /v1/scrape `{url, formats: ['markdown'], maxAge: 0}`
 * (BENCH_MONITORS_SCRAPE_CONCURRENCY at a time, default 16), compared by markdown equality
 * without noise normalisation (comparePages without ignoreNoise). Their precision shows what
 * the noise normalisation is for; the scrapes' CPU per page (this process: the service and the
 * client's requests) is the cost a check is set against (`check_cpu_ratio`, check / scrape).
 * After the last round, BENCH_MONITORS_PACED pages (default 400) are scraped again at the
 * steady rounds' pace, one at a time as checks arrive (`check_cpu_ratio_paced`): the store's
 * statements are most of both costs, and at full speed the batch writer packs a scrape's rows
 * with others' while at a check's pace it has little to pack.
 *
 * Every phase (the burst, each round, each scrape pass) waits until the engine runs no
 * background merge before its CPU is read (BENCH_MONITORS_SETTLE_S at most, default 120): the
 * merges of the parts a phase inserted count in that phase, not the next. Store calls per
 * check are in `store_calls_per_check`; BENCH_MONITORS_TALLY=1 also prints them by statement
 * and the CPU of each of the process's threads (the engine's merge and query threads apart
 * from JavaScript's) on stderr.
 *
 * Targets (issue 17): precision and recall 1.0 on real changes, every noise-only page `same`,
 * steady lateness p99 under 5 s. One JSON line on stdout; progress bars on stderr.
 *
 *   npx tsx bench/monitors.ts          (alone; `npm run bench` runs it with the others)
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService, type Service } from '../main.js';
import { runtimeCapturingActors } from '../test/helpers/capture-runtime.js';
import { scheduledMonitor, scheduleMonitor } from '../pipeline/monitors/schedule.js';
import { comparePages, type PageSnapshot } from '../pipeline/pages/changes.js';
import { loadConfig, type Config, type ServiceRuntime } from '../pipeline/service/config.js';
import { createLogger } from '../pipeline/runtime/log.js';
import { emit, median, positiveInteger, startServer, type ServerChild } from './lib.js';
import { drive } from './servers/drive.js';
import type { PageKind } from './servers/monitor-site.js';

const MONITORS = positiveInteger('BENCH_MONITORS', 2_000);
const ROUNDS = positiveInteger('BENCH_MONITORS_ROUNDS', 3);
const CHANGED_PCT = positiveInteger('BENCH_MONITORS_CHANGED_PCT', 10);
const NOISE_PCT = positiveInteger('BENCH_MONITORS_NOISE_PCT', 20);
const REMOVED_PCT = positiveInteger('BENCH_MONITORS_REMOVED_PCT', 1);
const LOAD_PCT = positiveInteger('BENCH_MONITORS_LOAD_PCT', 60);
/** The steady rounds' schedule: every monitor once in this many seconds (issue 26: 2,000 monitors every 5 minutes). */
const STEADY_INTERVAL_S = positiveInteger('BENCH_MONITORS_STEADY_INTERVAL_S', 300);
/** Scrapes in the paced baseline (at the steady rounds' rate). */
const PACED = positiveInteger('BENCH_MONITORS_PACED', 400);
/** Longest wait for the engine's background merges to end after a phase. */
const SETTLE_S = positiveInteger('BENCH_MONITORS_SETTLE_S', 120);
const CREATE_CONCURRENCY = positiveInteger('BENCH_MONITORS_CREATE_CONCURRENCY', 16);
const SCRAPE_CONCURRENCY = positiveInteger('BENCH_MONITORS_SCRAPE_CONCURRENCY', 16);
const STALL_S = positiveInteger('BENCH_MONITORS_STALL_S', 120);
const logLevel = process.env.BENCH_LOG_LEVEL || 'warn';

/** A week, the API's longest: see the module doc. */
const INTERVAL_MINUTES = 10_080;
const TARGET_LATENESS_P99_MS = 5_000;
const POLL_MS = 2_000;
/** How often the bench looks whether the frontier's reconcile moved its due times. */
const WATCH_MS = 250;
/** The first due time of a steady round is this far after its schedule is written. */
const LEAD_MS = 1_000;
const KEY = 'bench-monitors-key-0123456789';

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const cpuMsSince = (before: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
};

function progress(label: string, done: number, total: number, startedMs: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  const s = ((performance.now() - startedMs) / 1000).toFixed(1);
  process.stderr.write(`\rbench/monitors ${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${s} s   `);
  if (done >= total) process.stderr.write('\n');
}

interface Embedded {
  readonly base: string;
  readonly runtime: ServiceRuntime;
  readonly config: Config;
  readonly service: Service;
}

/**
 * Store calls by statement, so a round's count per check can be read beside its CPU: chdb's
 * queries and inserts are most of a check's cost. Wraps the captured runtime's store in place
 * (the actors hold the same object).
 */
class StoreTally {
  private counts = new Map<string, number>();
  constructor(store: ServiceRuntime['store']) {
    const target = store as unknown as Record<'query' | 'insert' | 'command', (...args: unknown[]) => Promise<unknown>>;
    for (const method of ['query', 'insert', 'command'] as const) {
      const original = target[method].bind(store);
      target[method] = (...args: unknown[]) => {
        if (method === 'query' && String(args[0]).includes('system.merges')) return original(...args);
        const what = method === 'insert' ? `insert ${String(args[0])}` : `${method} ${String(args[0]).replace(/\s+/g, ' ').trim().slice(0, 90)}`;
        this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
        return original(...args);
      };
    }
  }
  /** The calls since the last take, by statement, most first. */
  take(): [string, number][] {
    const out = [...this.counts].sort((a, b) => b[1] - a[1]);
    this.counts = new Map();
    return out;
  }
}

/** CPU ms of this process's threads by name (Linux /proc), to tell the engine's threads from JavaScript's. */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  const tick = 10; // USER_HZ: 100 on Linux
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim().replace(/[0-9]+$/, '#');
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * tick;
      const key = tid === String(process.pid) ? 'main (JavaScript)' : name;
      out.set(key, (out.get(key) ?? 0) + ms);
    } catch {
      // The thread ended.
    }
  }
  return out;
}

function threadCpuSince(before: Map<string, number>, per: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, ms] of threadCpu()) {
    const d = (ms - (before.get(name) ?? 0)) / per;
    if (d >= 0.05) out[name] = round3(d);
  }
  return out;
}

/** The service with the production actors in this process, its runtime captured. */
async function startEmbedded(dataDir: string): Promise<Embedded> {
  const built = runtimeCapturingActors();
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: logLevel,
    API_KEY: KEY,
    FETCH_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_PER_MINUTE: '0',
  });
  const service = await startService({ config, log: createLogger(logLevel, process.stderr), role: 'all', actors: built.actors });
  const address = service.app?.server.address();
  if (!address || typeof address !== 'object') throw new Error('the embedded service did not start its gateway');
  return { base: `http://127.0.0.1:${address.port}`, runtime: built.runtime(), config, service };
}

async function call(svc: Embedded, path: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${svc.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { success?: boolean; data?: Record<string, any>; error?: { code?: string; message?: string } };
  if (res.status !== 200 || !json.success || !json.data) throw new Error(`POST ${path}: ${res.status} ${json.error?.code ?? ''} ${json.error?.message ?? ''}`);
  return json.data;
}

/** Runs `work` on every index, `concurrency` at a time, with a progress bar; throws on the first failure. */
async function eachPage(label: string, concurrency: number, work: (i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let done = 0;
  const result = await drive(Array.from({ length: MONITORS }, (_, i) => i), concurrency, async (i) => {
    await work(i);
    done += 1;
    if (done % 50 === 0 || done === MONITORS) progress(label, done, MONITORS, started);
  });
  if (result.errors > 0) throw new Error(`${label}: ${result.errors} failed, the first: ${result.firstError}`);
  return result.elapsedMs / 1000;
}

/**
 * The due times the bench wants, held against the frontier's reconcile. The reconcile moves
 * every monitor at once, so one monitor (the one due last) is watched every WATCH_MS; when it
 * moved, every monitor whose due time moved is put back (`restored`). A monitor the frontier
 * started (its next due time is then one interval later) is let go.
 */
class DueTimes {
  private readonly planned = new Map<string, number>();
  private canary: string | null = null;
  restored = 0;
  sweepMs = 0;
  private sweeping: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly runtime: ServiceRuntime) {
    this.timer = setInterval(() => void this.watch(), WATCH_MS);
  }

  /** Puts each monitor on the schedule at its due time and holds it there until it starts. */
  async plan(dues: ReadonlyMap<string, number>): Promise<void> {
    await this.sweeping;
    this.planned.clear();
    for (const [id, dueMs] of dues) {
      const scheduled = await scheduledMonitor(this.runtime.state, id);
      if (!scheduled) throw new Error(`monitor ${id} is not on the schedule`);
      this.planned.set(id, dueMs);
      await scheduleMonitor(this.runtime.state, scheduled, dueMs);
    }
    this.canary = this.latest();
  }

  private latest(): string | null {
    let latest: [string, number] | null = null;
    for (const entry of this.planned) if (!latest || entry[1] > latest[1]) latest = entry;
    return latest?.[0] ?? null;
  }

  private async watch(): Promise<void> {
    if (this.sweeping || this.canary === null) return;
    const scheduled = await scheduledMonitor(this.runtime.state, this.canary);
    if (scheduled?.nextCheckAt !== this.planned.get(this.canary)) await (this.sweeping ??= this.sweep().finally(() => (this.sweeping = null)));
  }

  private async sweep(): Promise<void> {
    const started = performance.now();
    for (const [id, dueMs] of this.planned) {
      const scheduled = await scheduledMonitor(this.runtime.state, id);
      if (scheduled?.nextCheckAt === dueMs) continue;
      if (!scheduled || scheduled.nextCheckAt >= dueMs + scheduled.intervalMs) {
        this.planned.delete(id);
        continue;
      }
      await scheduleMonitor(this.runtime.state, scheduled, dueMs);
      this.restored += 1;
    }
    this.canary = this.latest();
    this.sweepMs += performance.now() - started;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }
}

interface CheckRow {
  readonly monitor_id: string;
  readonly check_status: string;
  readonly scheduled_ms: string | number;
  readonly started_ms: string | number | null;
  readonly finished_ms: string | number | null;
  readonly page_status: string;
}

const ROUND_CHECKS = `trigger = 'scheduled' AND toUnixTimestamp64Milli(scheduled_at) BETWEEN {from:Int64} AND {to:Int64}`;

const ROUND_STATUSES = `SELECT status, uniqExact(monitor_id) AS n FROM monitor_checks FINAL WHERE ${ROUND_CHECKS} GROUP BY status`;

const ROUND_ROWS = `
SELECT c.monitor_id AS monitor_id, c.status AS check_status, toUnixTimestamp64Milli(c.scheduled_at) AS scheduled_ms,
  toUnixTimestamp64Milli(c.started_at) AS started_ms, toUnixTimestamp64Milli(c.finished_at) AS finished_ms, p.status AS page_status
FROM (SELECT * FROM monitor_checks FINAL WHERE ${ROUND_CHECKS}) AS c
LEFT JOIN (SELECT check_id, status FROM monitor_check_pages FINAL) AS p ON p.check_id = c.id`;

const FINAL_STATUSES = new Set(['completed', 'skipped_overlap', 'skipped_no_credits', 'skipped_deleted']);

/**
 * The scheduled checks' final rows as the service inserts them (the captured runtime's store
 * wrapped in place, like StoreTally): a round's progress without querying the store, whose
 * `monitor_checks FINAL` polls every POLL_MS were 0.1–0.3 queries a check in the round's CPU.
 */
class FinalRows {
  /** monitor id → the due times (epoch ms) of its checks with a final row. */
  private readonly finals = new Map<string, number[]>();
  constructor(store: ServiceRuntime['store']) {
    const target = store as unknown as { insert: (table: string, rows: readonly Record<string, unknown>[]) => Promise<unknown> };
    const original = target.insert.bind(store);
    target.insert = (table, rows) => {
      const inserted = original(table, rows);
      if (table === 'monitor_checks') {
        void inserted.then(() => {
          for (const row of rows) {
            if (row.trigger !== 'scheduled' || !FINAL_STATUSES.has(String(row.status))) continue;
            const id = String(row.monitor_id);
            this.finals.set(id, [...(this.finals.get(id) ?? []), (row.scheduled_at as Date).getTime()]);
          }
        }, () => undefined);
      }
      return inserted;
    };
  }
  /** Monitors with a final check due in [from, to]. */
  count(from: number, to: number): number {
    let n = 0;
    for (const dues of this.finals.values()) if (dues.some((ms) => ms >= from && ms <= to)) n += 1;
    return n;
  }
}

/**
 * Waits until every monitor has a final check scheduled in [from, to] (watched as its rows are
 * inserted, then confirmed from the store); their rows.
 */
async function roundRows(svc: Embedded, finals: FinalRows, label: string, from: number, to: number): Promise<CheckRow[]> {
  const started = performance.now();
  let final = -1;
  let progressAt = performance.now();
  for (;;) {
    const seen = finals.count(from, to);
    progress(label, Math.min(seen, MONITORS), MONITORS, started);
    if (seen >= MONITORS) {
      const counts = await svc.runtime.store.query<{ status: string; n: string | number }>(ROUND_STATUSES, { from, to });
      if (counts.filter((c) => FINAL_STATUSES.has(c.status)).reduce((sum, c) => sum + Number(c.n), 0) >= MONITORS) break;
    }
    if (seen !== final) {
      final = seen;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > STALL_S * 1000) {
      const counts = await svc.runtime.store.query<{ status: string; n: string | number }>(ROUND_STATUSES, { from, to });
      throw new Error(`${label}: no check finished for ${STALL_S} s; checks by status: ${JSON.stringify(counts)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return svc.runtime.store.query<CheckRow>(ROUND_ROWS, { from, to });
}

/**
 * Waits until the engine runs no background merge (four looks in a row, 250 ms apart), so a
 * phase's CPU includes merging the parts its own inserts made rather than leaving them to the
 * next phase. Returns the milliseconds waited.
 */
async function settleMerges(svc: Embedded): Promise<number> {
  const started = performance.now();
  let idle = 0;
  while (idle < 4 && performance.now() - started < SETTLE_S * 1000) {
    const [row] = await svc.runtime.store.query<{ n: string | number }>('SELECT count() AS n FROM system.merges');
    idle = Number(row?.n ?? 0) === 0 ? idle + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return Math.round(performance.now() - started);
}

/** A phase's store calls per check (or per scrape): in all, and by statement when BENCH_MONITORS_TALLY is set. */
function callsPer(calls: readonly [string, number][], per: number): { total: Record<string, number>; by: [string, number][] } {
  const total: Record<string, number> = {};
  for (const [what, n] of calls) {
    const kind = what.split(' ')[0] as string;
    total[kind] = round3((total[kind] ?? 0) + n / per);
  }
  const by = calls.map(([what, n]): [string, number] => [what, round3(n / per)]);
  if (process.env.BENCH_MONITORS_TALLY) process.stderr.write(`\nstore calls per item:\n${by.map(([w, n]) => `  ${n}\t${w}`).join('\n')}\n`);
  return { total, by };
}

function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

interface Timing {
  readonly checksPerS: number;
  readonly lateMs: number[];
  /** From the first start to the last finish: what the service ran through, not how fast checks arrived. */
  readonly busyS: number;
}

function timing(rows: readonly CheckRow[]): Timing {
  const scheduled = rows.map((r) => Number(r.scheduled_ms));
  const started = rows.map((r) => Number(r.started_ms ?? r.finished_ms));
  const finished = rows.map((r) => Number(r.finished_ms));
  const last = Math.max(...finished);
  return {
    checksPerS: round1(rows.length / ((last - Math.min(...scheduled)) / 1000)),
    lateMs: rows.map((_, i) => (started[i] as number) - (scheduled[i] as number)),
    busyS: (last - Math.min(...started)) / 1000,
  };
}

/** Every page's judgement in a round, by page index (one page per monitor). */
function statusesOf(rows: readonly CheckRow[], indexOf: ReadonlyMap<string, number>): string[] {
  const out = new Array<string>(MONITORS).fill('missing');
  for (const row of rows) {
    const i = indexOf.get(row.monitor_id);
    if (i !== undefined) out[i] = row.check_status === 'completed' ? row.page_status : row.check_status;
  }
  return out;
}

interface Tally {
  tp: number;
  fp: number;
  fn: number;
}
const tally = (): Tally => ({ tp: 0, fp: 0, fn: 0 });
function count(t: Tally, real: boolean, flagged: boolean): void {
  if (real && flagged) t.tp += 1;
  else if (flagged) t.fp += 1;
  else if (real) t.fn += 1;
}
const precision = (t: Tally) => round3(t.tp / Math.max(1, t.tp + t.fp));
const recall = (t: Tally) => round3(t.tp / Math.max(1, t.tp + t.fn));

/** What a naive monitor reads of a page: the raw bytes' hash, the scrape's markdown and status. */
interface Reading {
  readonly htmlHash: string;
  readonly snapshot: PageSnapshot;
}

/** Every page by a plain GET and by POST /v1/scrape; the scrapes' CPU per page and pages/s. */
async function readSite(svc: Embedded, site: ServerChild, label: string): Promise<{ readings: Reading[]; cpuMsPerPage: number; pagesPerS: number; settleMs: number }> {
  const url = (i: number) => `${site.url}/p/${i}`;
  const hashes = new Array<string>(MONITORS);
  await eachPage(`${label} GET`, SCRAPE_CONCURRENCY, async (i) => {
    const res = await fetch(url(i));
    hashes[i] = `${res.status}:${createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex')}`;
  });
  const snapshots = new Array<PageSnapshot>(MONITORS);
  const cpu = process.cpuUsage();
  const threads = threadCpu();
  const seconds = await eachPage(`${label} scrape`, SCRAPE_CONCURRENCY, async (i) => {
    const data = await call(svc, '/v1/scrape', { url: url(i), formats: ['markdown'], maxAge: 0 });
    snapshots[i] = { scrapedAt: Date.now(), statusCode: Number(data.metadata?.statusCode ?? 0), markdown: String(data.markdown ?? ''), json: null };
  });
  const settleMs = await settleMerges(svc);
  if (process.env.BENCH_MONITORS_TALLY) process.stderr.write(`\nthread CPU ms per scrape: ${JSON.stringify(threadCpuSince(threads, MONITORS))}\n`);
  return {
    readings: snapshots.map((snapshot, i) => ({ htmlHash: hashes[i] as string, snapshot })),
    cpuMsPerPage: cpuMsSince(cpu) / MONITORS,
    pagesPerS: MONITORS / seconds,
    settleMs,
  };
}

/**
 * Plain scrapes of the same pages at the steady rounds' pace (one every 1/rate s, each on its
 * own, as checks arrive), merges waited out: what a scrape costs at the rate a check runs,
 * where the batch writer has little to batch. BENCH_MONITORS_PACED pages (default 400).
 */
async function pacedScrapes(svc: Embedded, site: ServerChild, perS: number): Promise<{ pages: number; perS: number; cpuMsPerPage: number }> {
  const pages = Math.min(MONITORS, PACED);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < pages; i += 1) {
    const due = started + (i * 1000) / perS;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(call(svc, '/v1/scrape', { url: `${site.url}/p/${i}`, formats: ['markdown'], maxAge: 0 }));
    if ((i + 1) % 50 === 0 || i + 1 === pages) progress('paced scrapes', i + 1, pages, started);
  }
  await Promise.all(pending);
  const elapsedS = (performance.now() - started) / 1000;
  await settleMerges(svc);
  return { pages, perS: pages / elapsedS, cpuMsPerPage: cpuMsSince(cpu) / pages };
}

const flaggedByBytes = (before: Reading, after: Reading) => after.snapshot.statusCode === 200 && before.snapshot.statusCode === 200 && before.htmlHash !== after.htmlHash;
const flaggedByMarkdown = (before: Reading, after: Reading) => comparePages(before.snapshot, after.snapshot, []).tracking.changeStatus === 'changed';

/** The status a check must report for what the site did to the page. */
const EXPECTED: Readonly<Record<PageKind, string>> = { changed: 'changed', removed: 'removed', noise: 'same', unchanged: 'same', gone: 'same' };
const noKinds = (): Record<PageKind, number> => ({ changed: 0, removed: 0, noise: 0, unchanged: 0, gone: 0 });

interface Scores {
  readonly ours: Tally;
  readonly bytes: Tally;
  readonly markdown: Tally;
  /** Pages by what the site did, and how many of each the checks judged as expected. */
  readonly pages: Record<PageKind, number>;
  readonly asExpected: Record<PageKind, number>;
  /** `<what the site did>→<what the check said>` for every page judged otherwise. */
  readonly misjudged: Record<string, number>;
  errors: number;
}

/** Adds one steady round: the checks' statuses and both baselines' against the site's truth. */
function score(s: Scores, kinds: readonly PageKind[], statuses: readonly string[], before: readonly Reading[], after: readonly Reading[]): void {
  kinds.forEach((kind, i) => {
    const status = statuses[i] as string;
    const real = kind === 'changed';
    count(s.ours, real, status === 'changed');
    count(s.bytes, real, flaggedByBytes(before[i] as Reading, after[i] as Reading));
    count(s.markdown, real, flaggedByMarkdown(before[i] as Reading, after[i] as Reading));
    s.pages[kind] += 1;
    if (status === EXPECTED[kind]) s.asExpected[kind] += 1;
    else s.misjudged[`${kind}→${status}`] = (s.misjudged[`${kind}→${status}`] ?? 0) + 1;
    if (status === 'error') s.errors += 1;
  });
}

/** The whole measurement: the burst, the steady rounds, the baselines; the JSON line's fields. */
async function measure(site: ServerChild, svc: Embedded, dues: DueTimes): Promise<Record<string, unknown>> {
  const load = [round1(loadavg()[0] ?? 0)];
  const finals = new FinalRows(svc.runtime.store);
  const calls = new StoreTally(svc.runtime.store);
  const settled: number[] = [];
  const perCall: Record<string, ReturnType<typeof callsPer>> = {};
  const ids = new Array<string>(MONITORS);

  // Round 1: the creation burst.
  const benchStart = Date.now();
  let cpu = process.cpuUsage();
  const createS = await eachPage('create', CREATE_CONCURRENCY, async (i) => {
    ids[i] = String((await call(svc, '/v1/monitor', { name: `Product ${i}`, url: `${site.url}/p/${i}`, intervalMinutes: INTERVAL_MINUTES })).id);
  });
  const burstRows = await roundRows(svc, finals, 'round 1 (burst)', benchStart, Date.now());
  settled.push(await settleMerges(svc));
  const burstCpu = cpuMsSince(cpu);
  perCall['burst'] = callsPer(calls.take(), MONITORS);
  load.push(round1(loadavg()[0] ?? 0));
  const indexOf = new Map(ids.map((id, i) => [id, i]));
  const burst = timing(burstRows);
  const burstStatuses = statusesOf(burstRows, indexOf);
  const capacity = MONITORS / burst.busyS;
  const windowMs = Math.max(STEADY_INTERVAL_S * 1000, Math.round((MONITORS / ((LOAD_PCT / 100) * capacity)) * 1000));
  let previous = await readSite(svc, site, 'round 1');
  settled.push(previous.settleMs);
  perCall['scrape 1'] = callsPer(calls.take(), MONITORS);
  const scrapeCpu = [previous.cpuMsPerPage];
  const scrapeRates = [previous.pagesPerS];

  const steady: { timing: Timing; cpuMsPerCheck: number }[] = [];
  const scores: Scores = { ours: tally(), bytes: tally(), markdown: tally(), pages: noKinds(), asExpected: noKinds(), misjudged: {}, errors: 0 };
  for (let round = 2; round <= ROUNDS; round += 1) {
    const { kinds } = (await site.ask({ type: 'change', round, changedPct: CHANGED_PCT, noisePct: NOISE_PCT, removedPct: REMOVED_PCT })) as { kinds: PageKind[] };
    const first = Date.now() + LEAD_MS;
    const plan = new Map(ids.map((id, i) => [id, first + Math.floor((i * windowMs) / MONITORS)]));
    cpu = process.cpuUsage();
    const threads = threadCpu();
    await dues.plan(plan);
    const rows = await roundRows(svc, finals, `round ${round}`, first, first + windowMs);
    settled.push(await settleMerges(svc));
    const roundCpu = cpuMsSince(cpu);
    perCall[`round ${round}`] = callsPer(calls.take(), rows.length);
    if (process.env.BENCH_MONITORS_TALLY) process.stderr.write(`\nthread CPU ms per check: ${JSON.stringify(threadCpuSince(threads, rows.length))}\n`);
      load.push(round1(loadavg()[0] ?? 0));
    steady.push({ timing: timing(rows), cpuMsPerCheck: roundCpu / rows.length });
    const current = await readSite(svc, site, `round ${round}`);
    settled.push(current.settleMs);
    perCall[`scrape ${round}`] = callsPer(calls.take(), MONITORS);
    scrapeCpu.push(current.cpuMsPerPage);
    scrapeRates.push(current.pagesPerS);
    score(scores, kinds, statusesOf(rows, indexOf), previous.readings, current.readings);
    previous = current;
  }
  const paced = await pacedScrapes(svc, site, MONITORS / (windowMs / 1000));
  perCall['paced scrapes'] = callsPer(calls.take(), paced.pages);

  const late = steady.flatMap((s) => s.timing.lateMs).sort((a, b) => a - b);
  const burstLate = [...burst.lateMs].sort((a, b) => a - b);
  const [{ n: allChecks }] = (await svc.runtime.store.query<{ n: string | number }>(`SELECT count() AS n FROM monitor_checks FINAL WHERE trigger = 'scheduled'`)) as [{ n: string | number }];
  const cpuPerCheck = median(steady.map((s) => s.cpuMsPerCheck));
  const scrapeCpuPerPage = median(scrapeCpu);
  const latenessP99 = percentile(late, 99);
  const { ours, bytes, markdown, pages, asExpected } = scores;
  const meets = precision(ours) === 1 && recall(ours) === 1 && asExpected.noise === pages.noise && latenessP99 < TARGET_LATENESS_P99_MS;
  return {
    bench: 'monitors',
    monitors: MONITORS,
    rounds: ROUNDS,
    interval_minutes: INTERVAL_MINUTES,
    changed_pct: CHANGED_PCT,
    noise_pct: NOISE_PCT,
    removed_pct: REMOVED_PCT,
    starts_per_second: svc.config.monitorStartsPerSecond,
    pool_concurrency: svc.config.poolConcurrency,
    create_s: round1(createS),
    creates_per_s: round1(MONITORS / createS),
    burst_checks_per_s: burst.checksPerS,
    burst_capacity_checks_per_s: round1(capacity),
    burst_lateness_p50_ms: percentile(burstLate, 50),
    burst_lateness_p99_ms: percentile(burstLate, 99),
    burst_lateness_max_ms: burstLate.at(-1) ?? 0,
    burst_cpu_ms_per_check: round3(burstCpu / burstRows.length),
    burst_new: burstStatuses.filter((s) => s === 'new').length,
    load_pct: LOAD_PCT,
    window_s: round1(windowMs / 1000),
    checks_per_s: median(steady.map((s) => s.timing.checksPerS)),
    round_checks_per_s: steady.map((s) => s.timing.checksPerS),
    lateness_p50_ms: percentile(late, 50),
    lateness_p99_ms: latenessP99,
    lateness_max_ms: late.at(-1) ?? 0,
    cpu_ms_per_check: round3(cpuPerCheck),
    round_cpu_ms_per_check: steady.map((s) => round3(s.cpuMsPerCheck)),
    real_changes: ours.tp + ours.fn,
    precision: precision(ours),
    recall: recall(ours),
    noise_pages: pages.noise,
    noise_same: asExpected.noise,
    unchanged_pages: pages.unchanged,
    unchanged_same: asExpected.unchanged,
    removed_pages: pages.removed,
    removed_detected: asExpected.removed,
    still_gone_pages: pages.gone,
    still_gone_same: asExpected.gone,
    errors: scores.errors,
    misjudged: scores.misjudged,
    baseline: 'the same pages read again after each round: raw HTML byte equality; markdown (POST /v1/scrape, maxAge 0) equality without noise normalisation',
    baseline_bytes_precision: precision(bytes),
    baseline_bytes_recall: recall(bytes),
    baseline_markdown_precision: precision(markdown),
    baseline_markdown_recall: recall(markdown),
    scrape_cpu_ms_per_page: round3(scrapeCpuPerPage),
    scrape_pages_per_s: round1(median(scrapeRates)),
    check_cpu_ratio: round3(cpuPerCheck / scrapeCpuPerPage),
    paced_scrape_pages: paced.pages,
    paced_scrape_per_s: round1(paced.perS),
    paced_scrape_cpu_ms_per_page: round3(paced.cpuMsPerPage),
    check_cpu_ratio_paced: round3(cpuPerCheck / paced.cpuMsPerPage),
    store_calls_per_check: Object.fromEntries(Object.entries(perCall).map(([phase, calls]) => [phase, calls.total])),
    extra_checks: Number(allChecks) - MONITORS * ROUNDS,
    merges_settled_ms: settled,
    due_times_restored: dues.restored,
    due_time_sweeps_ms: Math.round(dues.sweepMs),
    target_precision: 1,
    target_recall: 1,
    target_lateness_p99_ms: TARGET_LATENESS_P99_MS,
    meets_target: meets,
    load_avg_1m: load,
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-monitors-'));
  let site: ServerChild | null = null;
  let svc: Embedded | null = null;
  let dues: DueTimes | null = null;
  try {
    site = await startServer(fileURLToPath(new URL('./servers/monitor-site.ts', import.meta.url)), { MONITOR_SITE_PAGES: String(MONITORS) });
    svc = await startEmbedded(dataDir);
    dues = new DueTimes(svc.runtime);
    emit(await measure(site, svc, dues));
  } finally {
    await dues?.stop();
    await svc?.service.stop();
    await site?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
