/**
 * The frontier's cost a page event on Redis state: how many state steps (each a Redis round
 * trip), how much CPU and how long the handler takes to settle a stored page and send the next,
 * the way one job's events are handled — one after another, as they come off the job's
 * partition. One job's rate is bounded by it (docs/scaling.md "Where it breaks first").
 *
 *   batch   a batch job's pages (no links)
 *   crawl   a crawl's pages, each with BENCH_FRONTIER_LINKS links in scope (default 25): a few
 *           new, the rest found before (one `queueAdmitMany` step a page)
 *
 * Each scenario creates a job (maxConcurrency 10, a key of the file registry: the embedded
 * one, so the key's costs stay out of it), handles its `started` event, then feeds back each
 * page it sends as a stored page: BENCH_FRONTIER_WARMUP events (default 100), then
 * BENCH_FRONTIER_PAGES measured (default 2,000). Counted through a proxy over the same
 * RedisState the frontier uses: state steps a page (by method), this process's CPU a page
 * (the handler and the Redis client), the Redis server's CPU a page (INFO's used_cpu, so run it
 * on a Redis nothing else uses), and wall time a page. Baseline, same run, same connection:
 * the same number of sequential round trips a page with nothing else (a GET each), so `ratio`
 * (baseline wall over the handler's) is the share of a page event that is its round trips.
 * `target_steps_a_page`: 8 (batch) and 10 (crawl), and 0.1 for the job's progress version (3
 * steps at most once a second) — test/actors/frontier.jobs.test.ts holds the batch figure.
 *
 * REDIS_URL (default redis://127.0.0.1:6379); a Redis that does not answer is reported as
 * `skipped`. One JSON line per scenario.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { handleJobEvent, type JobHandlerDeps } from '../actors/frontier/jobs/handler.js';
import { ALLOW_ALL } from '../actors/frontier/robots.js';
import type { SiteReader } from '../actors/frontier/jobs/site.js';
import type { AnyEmission } from '../pipeline/runtime/events.js';
import { jobEvent, jobPageSeq, newJobId } from '../pipeline/jobs/pages.js';
import { createJob } from '../pipeline/jobs/record.js';
import { FileKeyRegistry } from '../pipeline/keys/ledger-file.js';
import { createLogger } from '../pipeline/runtime/log.js';
import { RedisState } from '../pipeline/runtime/state/redis.js';
import type { State } from '../pipeline/runtime/state/state.js';
import { observedState } from '../test/helpers/state-calls.js';
import { emit, positiveInteger } from './lib.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const PAGES = positiveInteger('BENCH_FRONTIER_PAGES', 2000);
const WARMUP = positiveInteger('BENCH_FRONTIER_WARMUP', 100);
const LINKS = positiveInteger('BENCH_FRONTIER_LINKS', 25);
// 8 and 10 steps a page, and the job's progress version (3 steps) at most once a second.
const TARGET_STEPS = { batch: 8.1, crawl: 10.1 } as const;

type Kind = keyof typeof TARGET_STEPS;
type JobEventValue = Parameters<typeof handleJobEvent>[0];

/** The Redis server's CPU so far (ms), from INFO. */
async function redisCpuMs(redis: Redis): Promise<number> {
  const fields = new Map((await redis.info('cpu')).split(/\r?\n/).map((line) => line.split(':') as [string, string]));
  return (Number(fields.get('used_cpu_sys') ?? 0) + Number(fields.get('used_cpu_user') ?? 0)) * 1000;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function scenario(kind: Kind, state: RedisState, redis: Redis, keys: FileKeyRegistry): Promise<Record<string, unknown>> {
  const counts = new Map<string, number>();
  const site: SiteReader = { robots: async () => ALLOW_ALL, sitemapUrls: async () => undefined };
  const counted = observedState<State>(state, (name) => counts.set(name, (counts.get(name) ?? 0) + 1));
  const deps: JobHandlerDeps = { state: counted, keys, site, log: createLogger('silent'), writer: { write: async () => undefined, pending: () => 0 } };
  const { record } = await keys.create({ name: `bench-${kind}`, credits: 'unlimited' });
  const id = newJobId(kind);
  const pageCount = WARMUP + PAGES + 20;
  const url = (i: number) => `https://example.com/p${i % pageCount}`;
  const params =
    kind === 'batch'
      ? { urls: Array.from({ length: pageCount }, (_, i) => url(i)), maxConcurrency: 10 }
      : { url: 'https://example.com/', limit: pageCount, maxConcurrency: 10, maxDepth: 1_000, ignoreSitemap: true };
  await createJob(deps, { id, tenant: record.id, kind, params: JSON.stringify(params), nowMs: Date.now(), retentionMs: 3_600_000 });
  const signal = new AbortController().signal;
  const event = (type: string, data: object = {}) => jobEvent(record.id, id, type, data).value as JobEventValue;
  const sent: { seq: number; url: string }[] = [];
  const take = (out: Awaited<ReturnType<typeof handleJobEvent>>) => {
    for (const e of (out.kind === 'ack' ? out.emit : undefined) ?? ([] as AnyEmission[])) {
      const v = e.value as { requestId?: string; url?: string };
      const seq = typeof v.requestId === 'string' ? jobPageSeq(v.requestId, id) : null;
      if (seq !== null && typeof v.url === 'string') sent.push({ seq, url: v.url });
    }
  };
  // A crawl's page links LINKS pages: the next few new (what a crawl discovers), the rest seen.
  let next = 1;
  const links = () => (kind === 'batch' ? [] : Array.from({ length: LINKS }, (_, j) => url(j < 3 ? next++ : j)));
  take(await handleJobEvent(event('started'), deps, signal));

  let handled = 0;
  let start = { wall: 0, cpu: process.cpuUsage(), redis: 0 };
  while (handled < WARMUP + PAGES) {
    if (handled === WARMUP) {
      counts.clear();
      start = { wall: performance.now(), cpu: process.cpuUsage(), redis: await redisCpuMs(redis) };
    }
    const page = sent.shift();
    if (!page) throw new Error(`${kind}: the job sent no page to settle after ${handled} events`);
    take(await handleJobEvent(event('page', { seq: page.seq, url: page.url, statusCode: 200, credits: 1, links: links() }), deps, signal));
    handled++;
  }
  const wallMs = performance.now() - start.wall;
  const cpu = process.cpuUsage(start.cpu);
  const redisMs = (await redisCpuMs(redis)) - start.redis;
  const steps = [...counts.values()].reduce((a, b) => a + b, 0) / PAGES;

  // The baseline: as many sequential round trips a page, nothing else.
  const trips = Math.round(steps * PAGES);
  const floorStart = performance.now();
  for (let i = 0; i < trips; i++) await state.get(`bench:frontier:${id}:floor`);
  const floorMs = performance.now() - floorStart;

  return {
    bench: 'frontier',
    scenario: kind,
    pages: PAGES,
    links_a_page: kind === 'batch' ? 0 : LINKS,
    steps_a_page: round3(steps),
    steps_by_method: Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, round3(n / PAGES)])),
    wall_ms_a_page: round3(wallMs / PAGES),
    pages_per_s: Math.round((PAGES * 1000) / wallMs),
    cpu_ms_a_page: round3((cpu.user + cpu.system) / 1000 / PAGES),
    redis_cpu_ms_a_page: round3(redisMs / PAGES),
    baseline_wall_ms_a_page: round3(floorMs / PAGES),
    ratio: round3(floorMs / wallMs),
    target_steps_a_page: TARGET_STEPS[kind],
    meets_target: steps <= TARGET_STEPS[kind],
  };
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    for (const kind of Object.keys(TARGET_STEPS)) emit({ bench: 'frontier', scenario: kind, skipped: `no Redis at ${REDIS_URL}: ${(error as Error).message}` });
    return;
  }
  const namespace = `bench-frontier-${process.pid}-${Date.now()}`;
  const state = new RedisState({ url: REDIS_URL, namespace, log: createLogger('silent'), connectTimeoutMs: 2000 });
  const dir = mkdtempSync(join(tmpdir(), 'wds-bench-frontier-'));
  const keys = new FileKeyRegistry(dir);
  try {
    await state.connect();
    for (const kind of Object.keys(TARGET_STEPS) as Kind[]) emit(await scenario(kind, state, redis, keys));
  } finally {
    let cursor = '0';
    do {
      const [nextCursor, found] = await redis.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000);
      if (found.length) await redis.del(...found);
      cursor = nextCursor;
    } while (cursor !== '0');
    keys.close();
    await state.close();
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
