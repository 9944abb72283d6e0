/**
 * Driving and measuring one crawl of a scale site (scale-site.ts) through a distributed cluster
 * (cluster.ts), for bench/scale.ts and test/e2e/scale-faults.distributed.test.ts.
 *
 * - `startCrawl` posts the crawl: every page of the site within 2 links of host 1's `/`
 *   across hosts (`allowExternalLinks`), no robots.txt or sitemaps, markdown only, a fresh
 *   fetch of every page (`maxAge` 0 is the default), the API's largest `maxConcurrency` (50).
 * - `followCrawl` polls its status every `pollMs` until it ends, keeping each poll's
 *   `completed` as a sample (for throughput over time); it throws when the job makes no
 *   progress for `stallMs`, naming its last status.
 * - `cpuTicksMs` reads a process's CPU time (user + system, every thread) from /proc.
 * - `storedPages` reads the job's rows from `job_pages`: with FINAL (what a listing sees) and
 *   without (every row written, a page stored twice counted twice until a merge).
 * - `recoveryMs` is the time from an event (a kill) until throughput is back.
 */
import { readFileSync } from 'node:fs';
import type { Store } from '../../pipeline/runtime/store/store.js';

export interface CrawlSample {
  /** performance.now() of the poll. */
  readonly atMs: number;
  readonly completed: number;
}

export interface CrawlEnd {
  readonly id: string;
  readonly status: string;
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly samples: CrawlSample[];
}

type Body = Record<string, any>;

export interface Gateway {
  readonly url: string;
  readonly apiKey: string;
}

export async function api(gateway: Gateway, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${gateway.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

/**
 * Posts the crawl of `start` (limit `pages`); resolves with its id and when it was posted.
 * `scrapeOptions` adds to the pages' options (`formats: ['markdown']`).
 */
export async function startCrawl(gateway: Gateway, start: string, pages: number, scrapeOptions: Record<string, unknown> = {}): Promise<{ id: string; startMs: number }> {
  const startMs = performance.now();
  const res = await api(gateway, 'POST', '/v1/crawl', {
    url: start,
    limit: pages,
    maxDepth: 2,
    maxConcurrency: 50,
    allowExternalLinks: true,
    ignoreSitemap: true,
    respectRobots: false,
    scrapeOptions: { formats: ['markdown'], ...scrapeOptions },
  });
  if (res.status !== 200) throw new Error(`POST /v1/crawl answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { id: String(res.body.data.id), startMs };
}

export interface FollowOptions {
  readonly pollMs?: number;
  readonly stallMs?: number;
  /** Called after each poll while the crawl runs (e.g. to kill a process at some point). */
  readonly onSample?: (sample: CrawlSample, samples: readonly CrawlSample[]) => void | Promise<void>;
}

export async function followCrawl(gateway: Gateway, crawl: { id: string; startMs: number }, options: FollowOptions = {}): Promise<CrawlEnd> {
  const pollMs = options.pollMs ?? 500;
  const stallMs = options.stallMs ?? 120_000;
  const samples: CrawlSample[] = [{ atMs: crawl.startMs, completed: 0 }];
  let progressAt = performance.now();
  let progress = -1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    const res = await api(gateway, 'GET', `/v1/crawl/${crawl.id}?limit=1`);
    if (res.status !== 200) throw new Error(`GET /v1/crawl/${crawl.id} answered ${res.status}: ${JSON.stringify(res.body)}`);
    const d = res.body.data as Body;
    const sample = { atMs: performance.now(), completed: Number(d.completed) };
    samples.push(sample);
    const summary = () => JSON.stringify({ ...d, data: undefined, next: undefined });
    if (d.status !== 'scraping') {
      return { id: crawl.id, status: String(d.status), total: Number(d.total), completed: Number(d.completed), failed: Number(d.failed), startMs: crawl.startMs, endMs: sample.atMs, samples };
    }
    const settled = Number(d.completed) + Number(d.failed);
    if (settled !== progress) {
      progress = settled;
      progressAt = sample.atMs;
    } else if (sample.atMs - progressAt > stallMs) {
      throw new Error(`crawl ${crawl.id} made no progress for ${stallMs} ms: ${summary()}`);
    }
    await options.onSample?.(sample, samples);
  }
}

/** CPU time (user + system, all threads) of process `pid` so far, ms; 0 once it is gone. */
export function cpuTicksMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5) (utime, stime), counted here from field 3: in clock ticks (USER_HZ, 100).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

export interface StoredPages {
  /** Rows a listing sees (FINAL) and their distinct URLs. */
  readonly rows: number;
  readonly urls: number;
  /** Every row written (no FINAL): a page stored twice before a merge counts twice. */
  readonly rowsWritten: number;
  /** When each URL's row was written (its `created_at`, epoch ms). */
  readonly createdAt: Map<string, number>;
}

export async function storedPages(store: Store, jobId: string): Promise<StoredPages> {
  const [counts] = await store.query<{ n: string; urls: string }>('SELECT count() AS n, uniqExact(url) AS urls FROM job_pages FINAL WHERE job_id = {id:String}', { id: jobId });
  const [written] = await store.query<{ n: string }>('SELECT count() AS n FROM job_pages WHERE job_id = {id:String}', { id: jobId });
  const rows = await store.query<{ url: string; at: string }>(
    'SELECT url, toUnixTimestamp64Milli(created_at) AS at FROM job_pages FINAL WHERE job_id = {id:String}',
    { id: jobId },
  );
  return {
    rows: Number(counts?.n ?? 0),
    urls: Number(counts?.urls ?? 0),
    rowsWritten: Number(written?.n ?? 0),
    createdAt: new Map(rows.map((r) => [r.url, Number(r.at)])),
  };
}

/** The `q` quantile (0…1) of `values`, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** Pages a second over the samples within [fromMs, toMs]; NaN with fewer than two. */
export function rateBetween(samples: readonly CrawlSample[], fromMs: number, toMs: number): number {
  const inside = samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs);
  const first = inside[0];
  const last = inside[inside.length - 1];
  if (!first || !last || last.atMs <= first.atMs) return Number.NaN;
  return ((last.completed - first.completed) * 1000) / (last.atMs - first.atMs);
}

/**
 * When throughput is back after `eventMs`: the end of the first trailing window of `windowMs`
 * after it whose pages/s is at least `fraction` of the rate over the `windowMs` before it,
 * as ms after `eventMs`; null when it never came back before the crawl ended.
 */
export function recoveryMs(samples: readonly CrawlSample[], eventMs: number, windowMs: number, fraction: number): { ms: number | null; before: number } {
  const before = rateBetween(samples, eventMs - windowMs, eventMs);
  for (const s of samples) {
    if (s.atMs < eventMs + windowMs) continue;
    if (rateBetween(samples, s.atMs - windowMs, s.atMs) >= fraction * before) return { ms: Math.round(s.atMs - eventMs), before };
  }
  return { ms: null, before };
}
