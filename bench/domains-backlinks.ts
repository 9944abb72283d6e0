/**
 * The link graph's backlinks read (issue 29 item 7; pipeline/intel/links.ts, 0010_link_graph):
 * "the referring domains of T, busiest first" on a graph of BENCH_BACKLINKS_EDGES edges
 * (default 10,000,000) in chdb (embedded driver), against a plain table of the same edges in
 * the same store, in the same run.
 *
 *   backlinks  links.ts `backlinks(store, T, 100)`: the 100 busiest referring domains of T from
 *              `link_domains` (one row per target and referring domain), their total, and the
 *              graph's coverage (`link_coverage`) — what the domain lookup asks
 *   baseline   `bench_link_edges`, a MergeTree of the raw edges ordered by (target_domain,
 *              source_domain, source_url, target_url), filled by a view from the same inserts:
 *              T's edges grouped by referring domain with exact distinct counts (the same
 *              figures: links, pages, first and last seen, the total), the 100 busiest — what
 *              the read would cost without the aggregate table
 *
 * The graph: pages of 10 links each (BENCH_BACKLINKS_EDGES / 10 pages) inserted into
 * `link_page_edges` (the parser's table, so every view of 0010 runs) by INSERT … SELECT from
 * numbers(), in blocks of BENCH_BACKLINKS_BATCH pages. A page belongs to one of 50,000 source
 * domains (`site<n>.com`, uniform: 20 pages each at 10 million edges). Five of its links are
 * its site's own (the same five targets and URLs on every page of the domain: navigation,
 * footer, blogroll), five its own. Each link's target is one of 1,000,000 domains (`d<n>.com`)
 * drawn from a power law: rank ⌊1,000,000^u⌋ for u uniform in [0, 1), P(rank k) ≈ 1/(k·ln N),
 * Zipf with s = 1 (the busiest target gets ~5% of all edges); a page's own link goes to one of
 * 20 pages of the target. The tables are merged (OPTIMIZE FINAL) before measuring; `pairs` is
 * how many (target, referring domain) rows that leaves.
 *
 * The queries: BENCH_BACKLINKS_QUERIES targets (default 200), half drawn with the edges' own
 * power law (popular: mostly the top ranks), half uniform over the million ranks (rare: most
 * have 0 to 3 edges), with a fixed seed; both sides read every target in turn after a warm-up
 * of 10, one at a time (chdb runs bound statements one at a time per process). Reported: p50
 * and p99 of each side, over all targets and per band, and baseline ÷ backlinks (higher is
 * better); the coverage statement's own p50 (part of every backlinks read, not of the baseline's);
 * `linkingPages(T, 20)` (the report's sample of pages to check) over the same targets; bytes on disk per edge of the graph's tables and of the raw table; load time; and
 * how many answers differ from the baseline's (the `uniq` counts are exact below 65,536).
 *
 * BENCH_BACKLINKS_DIR keeps the store in that directory instead of a temporary one: a run that
 * finds it loaded with as many edges skips the load and measures at once (`load_s` 0).
 *
 * `benchBacklinks` is the function bench/domains.ts calls; alone:
 *
 *   npx tsx bench/domains-backlinks.ts      (BENCH_BACKLINKS_EDGES, BENCH_BACKLINKS_QUERIES,
 *                                            BENCH_BACKLINKS_BATCH pages per insert, BENCH_BACKLINKS_DIR)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backlinks, linkGraphCoverage, linkingPages, type Backlinks } from '../pipeline/intel/links.js';
import { createLogger } from '../pipeline/runtime/log.js';
import { createStore, type Store } from '../pipeline/runtime/store/index.js';
import { emit, median, positiveInteger } from './lib.js';
import { seededRandom } from './seeded-random.js';

export interface BacklinksBenchOptions {
  /** Edges in the graph (a multiple of 10: pages of 10 links). */
  readonly edges: number;
  /** Targets read by each side. */
  readonly queries: number;
  /** Pages per INSERT … SELECT. */
  readonly batchPages?: number;
  /** A migrated chdb store to load into (its link graph tables are emptied first); default: one in a temporary directory. */
  readonly store?: Store;
  /** Instead of a temporary directory, a kept one: a store already loaded with as many edges is measured at once (A/B runs of the read side). */
  readonly keptDir?: string;
  /** Progress lines (default: stderr). */
  readonly progress?: (line: string) => void;
}

export interface LatencyFigures {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface BacklinksBenchResult {
  readonly bench: 'domains-backlinks';
  readonly edges: number;
  /** Rows of link_domains once merged: (target, referring domain) pairs. */
  readonly pairs: number;
  readonly pages: number;
  readonly target_domains: number;
  readonly source_domains: number;
  readonly queries: number;
  readonly load_s: number;
  readonly graph_bytes_per_edge: number;
  readonly raw_bytes_per_edge: number;
  readonly backlinks: LatencyFigures;
  readonly baseline: LatencyFigures;
  /** The coverage statement alone, which every backlinks read includes. */
  readonly coverage_p50_ms: number;
  /** linkingPages(T, 20) over the same targets, and over the popular half. */
  readonly linking_pages: LatencyFigures;
  readonly linking_pages_popular: LatencyFigures;
  readonly popular: { readonly backlinks: LatencyFigures; readonly baseline: LatencyFigures; readonly referring_domains_p50: number; readonly referring_domains_max: number };
  readonly rare: { readonly backlinks: LatencyFigures; readonly baseline: LatencyFigures; readonly referring_domains_p50: number };
  /** baseline p50 ÷ backlinks p50, and the same of p99. */
  readonly ratio: number;
  readonly p99_ratio: number;
  /** Targets whose answer differs from the baseline's (counts, order or total). */
  readonly mismatches: number;
  readonly load_avg_1m: number;
}

const SOURCE_DOMAINS = 50_000;
/** Links of a page that are its site's (the same on every page of its domain); the rest are its own. */
const SITE_LINKS = 5;
const TARGET_DOMAINS = 1_000_000;
const LINKS_PER_PAGE = 10;
const PAGES_PER_TARGET = 20;
const LIMIT = 100;
/** Linking pages asked of each target (the report's default verifyLinks is 20). */
const LINKING_PAGES = 20;
const WARMUP = 10;
/** The first page's time; page n is seen n seconds later (a fixed time: no clock in the SQL). */
const T0_MS = Date.UTC(2024, 0, 1);

const GRAPH_TABLES = ['link_domains', 'link_samples', 'link_coverage'];
const RAW_TABLE = `CREATE TABLE IF NOT EXISTS bench_link_edges
(target_domain String, source_domain String, source_url String, target_url String, seen_at DateTime64(3, 'UTC'))
ENGINE = MergeTree ORDER BY (target_domain, source_domain, source_url, target_url)`;
const RAW_VIEW = `CREATE MATERIALIZED VIEW IF NOT EXISTS bench_link_edges_view TO bench_link_edges AS
SELECT target_domain, source_domain, source_url, target_url, seen_at
FROM link_page_edges ARRAY JOIN target_domains AS target_domain, target_urls AS target_url`;

/**
 * Pages [from, from + count) as link_page_edges rows. Link i of page n on site s: its seed is
 * (s, i) for the first SITE_LINKS links, else (n, i); the target's rank is ⌊N^u⌋ with u from
 * cityHash64(seed), its page one of PAGES_PER_TARGET from cityHash64(seed, 1).
 */
const GENERATE = `
INSERT INTO link_page_edges
SELECT concat('site', toString(site), '.com') AS source_domain,
       concat('https://', source_domain, '/p', toString(number)) AS source_url,
       fromUnixTimestamp64Milli(toInt64({t0:Int64} + number * 1000)) AS seen_at,
       arrayMap(i -> concat('d', toString(toUInt64(floor(pow({targets:Float64}, (cityHash64(if(i < {siteLinks:UInt8}, site, number + 1000000000000), i) % 1000000007) / 1000000007.0)))), '.com'), range({links:UInt8})) AS target_domains,
       arrayMap((d, i) -> concat('https://', d, '/', toString(cityHash64(if(i < {siteLinks:UInt8}, site, number + 1000000000000), i, 1) % {pagesPerTarget:UInt32})), target_domains, range({links:UInt8})) AS target_urls
FROM
(
    SELECT number, cityHash64(number, 7) % {sources:UInt32} AS site
    FROM numbers({from:UInt64}, {count:UInt64})
)`;

const BASELINE = `
SELECT source_domain AS domain, uniqExact(source_url, target_url) AS links, uniqExact(source_url) AS pages,
       toUnixTimestamp64Milli(min(seen_at)) AS first_ms, toUnixTimestamp64Milli(max(seen_at)) AS last_ms,
       count() OVER () AS total
FROM bench_link_edges
WHERE target_domain = {target:String}
GROUP BY source_domain
ORDER BY links DESC, pages DESC, domain
LIMIT {limit:UInt32}`;

interface BaselineRow {
  readonly domain: string;
  readonly links: string;
  readonly pages: string;
  readonly first_ms: string;
  readonly last_ms: string;
  readonly total: string;
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
};
const figures = (ms: readonly number[]): LatencyFigures => ({ p50Ms: round(percentile(ms, 50)), p99Ms: round(percentile(ms, 99)) });
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

async function bytesOnDisk(store: Store, tables: readonly string[]): Promise<number> {
  const [row] = await store.query<{ bytes: string }>(
    'SELECT sum(bytes_on_disk) AS bytes FROM system.parts WHERE active AND database = currentDatabase() AND has({tables:Array(String)}, table)',
    { tables: [...tables] },
  );
  return Number(row?.bytes ?? 0);
}

/** Loads the graph (and the raw table beside it) through link_page_edges. */
async function load(store: Store, pages: number, batchPages: number, progress: (line: string) => void): Promise<number> {
  for (const table of [...GRAPH_TABLES, 'bench_link_edges']) await store.command(`TRUNCATE TABLE IF EXISTS ${table}`);
  await store.command(RAW_TABLE);
  await store.command(RAW_VIEW);
  const started = performance.now();
  for (let from = 0; from < pages; from += batchPages) {
    const count = Math.min(batchPages, pages - from);
    await store.command(GENERATE, {
      t0: T0_MS,
      targets: TARGET_DOMAINS,
      links: LINKS_PER_PAGE,
      pagesPerTarget: PAGES_PER_TARGET,
      sources: SOURCE_DOMAINS,
      siteLinks: SITE_LINKS,
      from,
      count,
    });
    progress(`bench/domains-backlinks loading ${(from + count).toLocaleString('en')}/${pages.toLocaleString('en')} pages ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  for (const table of [...GRAPH_TABLES, 'bench_link_edges']) await store.command(`OPTIMIZE TABLE ${table} FINAL`);
  await store.command('DROP VIEW IF EXISTS bench_link_edges_view');
  return (performance.now() - started) / 1000;
}

/** Whether a kept store holds the graph of `pages` pages already (its raw table counts every edge). */
async function isLoaded(store: Store, pages: number): Promise<boolean> {
  const [table] = await store.query<{ n: string }>("SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'bench_link_edges'");
  if (Number(table?.n ?? 0) === 0) return false;
  const [row] = await store.query<{ n: string }>('SELECT count() AS n FROM bench_link_edges');
  return Number(row?.n ?? 0) === pages * LINKS_PER_PAGE;
}

/** The query targets: half popular (the edges' own power law), half rare (uniform ranks). */
function targets(queries: number): { popular: string[]; rare: string[] } {
  const random = seededRandom(29);
  const popular = Array.from({ length: Math.ceil(queries / 2) }, () => `d${Math.floor(TARGET_DOMAINS ** random())}.com`);
  const rare = Array.from({ length: Math.floor(queries / 2) }, () => `d${1 + Math.floor(random() * (TARGET_DOMAINS - 1))}.com`);
  return { popular, rare };
}

const same = (a: Backlinks, b: readonly BaselineRow[]): boolean =>
  a.totalReferringDomains === Number(b[0]?.total ?? 0) &&
  a.referringDomains.length === b.length &&
  a.referringDomains.every((r, i) => {
    const row = b[i] as BaselineRow;
    return r.domain === row.domain && r.links === Number(row.links) && r.pages === Number(row.pages) && Date.parse(r.firstSeen) === Number(row.first_ms) && Date.parse(r.lastSeen) === Number(row.last_ms);
  });

/** Builds the graph and measures both reads; see the header. */
export async function benchBacklinks(options: BacklinksBenchOptions): Promise<BacklinksBenchResult> {
  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pages = Math.max(1, Math.floor(options.edges / LINKS_PER_PAGE));
  const own = options.store ? null : options.keptDir || mkdtempSync(join(tmpdir(), 'bench-backlinks-'));
  const store = options.store ?? (await createStore({ kind: 'chdb', dataDir: own as string }, createLogger('silent')));
  try {
    if (own) await store.migrate();
    const loaded = options.keptDir ? await isLoaded(store, pages) : false;
    const loadS = loaded ? 0 : await load(store, pages, options.batchPages ?? 200_000, progress);
    const [counted] = await store.query<{ edges: string }>('SELECT count() AS edges FROM bench_link_edges');
    const edges = Number(counted?.edges ?? 0);
    const [paired] = await store.query<{ pairs: string }>('SELECT count() AS pairs FROM link_domains');
    const { popular, rare } = targets(options.queries);

    const side = { backlinks: new Map<string, number>(), baseline: new Map<string, number>(), linking: new Map<string, number>() };
    const referring = new Map<string, number>();
    let mismatches = 0;
    const readOne = async (target: string, record: boolean) => {
      let start = performance.now();
      const answer = await backlinks(store, target, LIMIT);
      const graphMs = performance.now() - start;
      start = performance.now();
      const rows = await store.query<BaselineRow>(BASELINE, { target, limit: LIMIT });
      const rawMs = performance.now() - start;
      start = performance.now();
      await linkingPages(store, target, LINKING_PAGES);
      const linkingMs = performance.now() - start;
      if (!record) return;
      side.backlinks.set(target, graphMs);
      side.baseline.set(target, rawMs);
      side.linking.set(target, linkingMs);
      referring.set(target, answer.totalReferringDomains);
      if (!same(answer, rows)) mismatches += 1;
    };
    for (const target of [...popular, ...rare].slice(0, WARMUP)) await readOne(target, false);
    const all = [...popular, ...rare];
    for (const target of all) await readOne(target, true);

    // The coverage alone (one statement of every backlinks read, the same for every target).
    const coverageMs: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const start = performance.now();
      await linkGraphCoverage(store);
      coverageMs.push(performance.now() - start);
    }

    const msOf = (list: readonly string[], s: Map<string, number>) => list.map((t) => s.get(t) as number);
    const backlinksAll = figures(msOf(all, side.backlinks));
    const baselineAll = figures(msOf(all, side.baseline));
    return {
      bench: 'domains-backlinks',
      edges,
      pairs: Number(paired?.pairs ?? 0),
      pages,
      target_domains: TARGET_DOMAINS,
      source_domains: SOURCE_DOMAINS,
      queries: all.length,
      load_s: round(loadS, 1),
      graph_bytes_per_edge: round((await bytesOnDisk(store, GRAPH_TABLES)) / Math.max(1, edges)),
      raw_bytes_per_edge: round((await bytesOnDisk(store, ['bench_link_edges'])) / Math.max(1, edges)),
      backlinks: backlinksAll,
      baseline: baselineAll,
      coverage_p50_ms: round(median(coverageMs)),
      linking_pages: figures(msOf(all, side.linking)),
      linking_pages_popular: figures(msOf(popular, side.linking)),
      popular: {
        backlinks: figures(msOf(popular, side.backlinks)),
        baseline: figures(msOf(popular, side.baseline)),
        referring_domains_p50: median(popular.map((t) => referring.get(t) as number)),
        referring_domains_max: Math.max(...popular.map((t) => referring.get(t) as number)),
      },
      rare: {
        backlinks: figures(msOf(rare, side.backlinks)),
        baseline: figures(msOf(rare, side.baseline)),
        referring_domains_p50: median(rare.map((t) => referring.get(t) as number)),
      },
      ratio: round(baselineAll.p50Ms / backlinksAll.p50Ms),
      p99_ratio: round(baselineAll.p99Ms / backlinksAll.p99Ms),
      mismatches,
      load_avg_1m: round(loadavg()[0] ?? 0),
    };
  } finally {
    if (own) {
      await store.close();
      if (!options.keptDir) rmSync(own, { recursive: true, force: true });
    }
  }
}

async function main(): Promise<void> {
  const result = await benchBacklinks({
    edges: positiveInteger('BENCH_BACKLINKS_EDGES', 10_000_000),
    queries: positiveInteger('BENCH_BACKLINKS_QUERIES', 200),
    batchPages: positiveInteger('BENCH_BACKLINKS_BATCH', 200_000),
    ...(process.env.BENCH_BACKLINKS_DIR ? { keptDir: process.env.BENCH_BACKLINKS_DIR } : {}),
  });
  emit(result as unknown as Record<string, unknown>);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
