/**
 * The local search index (issue 16, pipeline/search/index/): query latency, queries/s and
 * index size on BENCH_SEARCH_PAGES (default 100,000) stored pages in chdb (embedded driver),
 * against a plain scan of the same text in the same store, in the same run.
 *
 *   index      LocalIndexProvider.search: BM25 over the postings of the query's terms, one
 *              result per URL, then the ten shown results (title, URL, snippet) — the path a
 *              POST /v1/search with SEARCH_PROVIDERS=local takes
 *   baseline   `scan_pages` (tenant, url, shareable, title, text ZSTD) holding each page's
 *              indexed text: `positionCaseInsensitiveUTF8(text, term) > 0` for each term (OR),
 *              visible rows only, the count and ten pages — every row's text is read and searched
 *   multi scan the same with `multiSearchAnyCaseInsensitiveUTF8(text, terms)` (one pass for all
 *              terms): the strongest plain scan, reported beside the target's baseline
 *
 * The pages: the corpus's 1,120 pages (trafilatura-eval and readability, `../shared/corpus/`),
 * each built by the parser (buildHtmlDocument, formats markdown) and read by pageIndexFacts,
 * then repeated with variations until there are BENCH_SEARCH_PAGES: sentences shuffled and
 * 60–100% of them kept, words of a Zipf-distributed (s = 1.1) synthetic vocabulary of 30,000
 * words added after sentences (0–3 each) and to the title (1–3), ten keys (80% of copies
 * shareable), a fetch time in the last 90 days, a publication time on 40%. Every page goes
 * through indexRows and is inserted in batches of BATCH_PAGES pages (one insert in flight while
 * the next batch is built); a progress bar on stderr shows the load.
 *
 * The queries: BENCH_SEARCH_QUERIES (default 240; a third each of 1, 2 and 3 terms), drawn
 * with a fixed seed from three bands of the loaded pages' own terms — common (the 300 most
 * frequent corpus words), middle (ranks 2,000–20,000) and rare (synthetic words) — as
 * index terms, searched by one of the ten keys, ten results each. Both sides run sequentially
 * (chdb runs bound statements one at a time per process) after a warm-up of 10 queries; the
 * scan runs every n-th query, BENCH_SEARCH_SCAN_QUERIES (default 60) of them (the multi scan
 * half as many). The tables are merged (OPTIMIZE FINAL) before measuring. Index size is bytes
 * on disk of the active parts (system.parts) of search_docs + search_postings + search_lengths +
 * search_shown per page.
 *
 * Also measured: the parser's cost of building a page's index rows (pageSearchRows) per corpus
 * page, beside what building its document costs.
 *
 * BENCH_SEARCH_DIR keeps the store in that directory instead of a temporary one: a run that finds
 * it already loaded with BENCH_SEARCH_PAGES pages skips the load (the pages are still drawn, so
 * the queries are the same) and measures at once; for A/B runs of the query side.
 *
 * Targets: ≥ 20× the scan's queries/s, p99 under the scan's p50. One JSON line on stdout; it
 * also gives each side's CPU time per query (this process: JS and the engine's threads) and
 * their ratio, steadier than queries/s when other work shares the machine (`load_avg_1m`).
 *
 *   npx tsx bench/search.ts            (alone; `npm run bench` runs it with the others)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHtmlDocument, resolveOptions, type ScrapeDocument } from '../actors/parser/document/index.js';
import { createStore, type Store } from '../pipeline/runtime/store/index.js';
import { createLogger } from '../pipeline/runtime/log.js';
import { indexRows, LocalIndexProvider, pageIndexFacts, pageSearchRows, tokenize, type IndexedPage, type PageFacts } from '../pipeline/search/index/index.js';
import type { SearchQuery } from '../pipeline/clients/web-search.js';
import { corpusDir, readabilityPages, readHtml, trafilaturaPages } from './corpus.js';
import { emit, median, positiveInteger } from './lib.js';
import { seededRandom as rng } from './seeded-random.js';

const PAGES = positiveInteger('BENCH_SEARCH_PAGES', 100_000);
const QUERIES = positiveInteger('BENCH_SEARCH_QUERIES', 240);
const SCAN_QUERIES = positiveInteger('BENCH_SEARCH_SCAN_QUERIES', 60);
const KEPT_DIR = process.env.BENCH_SEARCH_DIR || '';
const BATCH_PAGES = 2_000;
const TENANTS = Array.from({ length: 10 }, (_, i) => `bench-key-${i}`);
const VOCABULARY = 30_000;
const ZIPF_S = 1.1;
const WARMUP = 10;
const TARGET_QPS_RATIO = 20;
/** What a load fills: the index's tables and the baseline's. */
const INDEX_TABLES = ['search_docs', 'search_postings', 'search_lengths', 'search_shown', 'scan_pages'];
const NOW = Date.now();
const DAY = 86_400_000;

const random = rng(16);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'be', 'du', 'fa', 'go', 'hi', 'ju', 'ke', 'pu', 'ro', 'te', 'wa', 'xo'];
/** The synthetic word of Zipf rank `r`: syllables of r in base 20, at least three. */
function syntheticWord(r: number): string {
  let word = '';
  let n = r + 400;
  while (n > 0) {
    word += SYLLABLES[n % 20];
    n = Math.floor(n / 20);
  }
  return `${word}n`;
}
const zipfCdf = (() => {
  const cdf = new Float64Array(VOCABULARY);
  let sum = 0;
  for (let r = 0; r < VOCABULARY; r += 1) cdf[r] = sum += 1 / (r + 1) ** ZIPF_S;
  return cdf.map((v) => v / sum);
})();
function zipfWord(): string {
  const u = random();
  let lo = 0;
  let hi = VOCABULARY - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((zipfCdf[mid] as number) < u) lo = mid + 1;
    else hi = mid;
  }
  return syntheticWord(lo);
}
const zipfWords = (n: number) => Array.from({ length: n }, zipfWord).join(' ');

interface BasePage {
  readonly url: string;
  readonly facts: PageFacts;
  readonly sentences: readonly string[];
}

/** The corpus pages built by the parser, with the parser's cost of their index rows. */
function corpusPages(): { pages: BasePage[]; buildMsPerPage: number; rowsMsPerPage: number } | null {
  const sources = [
    ...(trafilaturaPages() ?? []).map((p) => ({ url: p.url, html: () => readHtml(p.path) })),
    ...(readabilityPages() ?? []).map((p) => ({ url: `https://readability.example/${p.name}`, html: () => readFileSync(p.sourcePath, 'utf8') })),
  ];
  if (sources.length === 0) return null;
  const options = resolveOptions({ formats: ['markdown'] });
  const built: { url: string; doc: ScrapeDocument }[] = [];
  let buildMs = 0;
  for (const source of sources) {
    const html = source.html();
    const start = performance.now();
    const doc = buildHtmlDocument(html, { url: source.url, finalUrl: source.url, statusCode: 200, contentType: 'text/html', headers: {} }, options);
    buildMs += performance.now() - start;
    built.push({ url: source.url, doc });
  }
  const passes: number[] = [];
  for (let pass = 0; pass < 3; pass += 1) {
    const start = performance.now();
    for (const { url, doc } of built) pageSearchRows({ tenant: 't', url, statusCode: 200, contentType: 'text/html', requestedAtMs: NOW, fetchedAtMs: NOW, cacheKey: '' }, doc, {});
    passes.push((performance.now() - start) / built.length);
  }
  const pages = built.map(({ url, doc }) => {
    const facts = pageIndexFacts(doc);
    return { url, facts, sentences: facts.text.split(/(?<=[.!?]) /) };
  });
  return { pages, buildMsPerPage: buildMs / built.length, rowsMsPerPage: median(passes) };
}

function variant(base: BasePage, i: number): IndexedPage {
  const sentences = [...base.sentences];
  for (let k = sentences.length - 1; k > 0; k -= 1) {
    const j = Math.floor(random() * (k + 1));
    [sentences[k], sentences[j]] = [sentences[j] as string, sentences[k] as string];
  }
  const kept = sentences.slice(0, Math.max(1, Math.ceil(sentences.length * (0.6 + 0.4 * random()))));
  const text = kept.map((s) => `${s} ${zipfWords(Math.floor(random() * 4))}`).join(' ');
  return {
    tenant: TENANTS[i % TENANTS.length] as string,
    url: `${base.url}${base.url.includes('?') ? '&' : '?'}v=${i}`,
    shareable: random() < 0.8,
    fetchedAtMs: NOW - Math.floor(random() * 90 * DAY),
    title: `${base.facts.title} ${zipfWords(1 + Math.floor(random() * 3))}`,
    description: base.facts.description,
    text,
    lang: base.facts.lang,
    publishedAtMs: random() < 0.4 ? NOW - Math.floor(random() * 3 * 365 * DAY) : base.facts.publishedAtMs,
  };
}

function progress(done: number, total: number, startedMs: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  const s = ((performance.now() - startedMs) / 1000).toFixed(1);
  process.stderr.write(`\rbench/search loading [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done.toLocaleString('en')}/${total.toLocaleString('en')} pages ${s} s`);
  if (done === total) process.stderr.write('\n');
}

const SCAN_TABLE = `CREATE TABLE IF NOT EXISTS scan_pages (tenant String, url String, shareable UInt8, title String, text String CODEC(ZSTD(3)))
ENGINE = MergeTree ORDER BY url`;

/** Loads PAGES variants into the index and the scan table; returns seconds taken and postings written. */
/** Whether the store already holds the loaded pages (a kept BENCH_SEARCH_DIR); a partial load is emptied. */
async function isLoaded(store: Store): Promise<boolean> {
  const [row] = await store.query<{ n: string }>('SELECT count() AS n FROM scan_pages');
  if (Number(row?.n ?? 0) === PAGES) return true;
  for (const table of INDEX_TABLES) await store.command(`TRUNCATE TABLE ${table}`);
  return false;
}

/** Draws the pages a load would (so the seeded queries after it are the same) without storing them; postings as stored. */
async function redraw(store: Store, base: readonly BasePage[]): Promise<{ seconds: number; postings: number }> {
  for (let i = 0; i < PAGES; i += 1) variant(base[i % base.length] as BasePage, i);
  const [row] = await store.query<{ n: string }>('SELECT count() AS n FROM search_postings');
  return { seconds: 0, postings: Number(row?.n ?? 0) };
}

async function load(store: Store, base: readonly BasePage[]): Promise<{ seconds: number; postings: number }> {
  const started = performance.now();
  let inFlight: Promise<unknown> = Promise.resolve();
  let postings = 0;
  for (let from = 0; from < PAGES; from += BATCH_PAGES) {
    const pages = Array.from({ length: Math.min(BATCH_PAGES, PAGES - from) }, (_, k) => variant(base[(from + k) % base.length] as BasePage, from + k));
    const rows = pages.map(indexRows);
    postings += rows.reduce((n, r) => n + (r.terms.terms as string[]).length, 0);
    const scan = pages.map((p) => ({ tenant: p.tenant, url: p.url, shareable: p.shareable ? 1 : 0, title: p.title, text: p.text.slice(0, 50_000) }));
    await inFlight;
    progress(from, PAGES, started);
    inFlight = Promise.all([
      store.insert('search_docs', rows.map((r) => r.doc)),
      store.insert('search_page_terms', rows.map((r) => r.terms)),
      store.insert('scan_pages', scan),
    ]);
  }
  await inFlight;
  progress(PAGES, PAGES, started);
  return { seconds: (performance.now() - started) / 1000, postings };
}

interface Asked {
  readonly text: string;
  readonly tenant: string;
}

/** `n` of `items`, evenly spread (every k-th). */
function spread<T>(items: readonly T[], n: number): T[] {
  const every = Math.max(1, Math.floor(items.length / n));
  return items.filter((_, i) => i % every === 0).slice(0, n);
}

/** The query texts: 1–3 words from the common, middle and rare bands, as a person types them. */
function queries(base: readonly BasePage[]): Asked[] {
  const counts = new Map<string, number>();
  for (const page of base) for (const term of tokenize(page.facts.text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  const ranked = [...counts].filter(([t]) => t.length > 3 && !/^\d+$/.test(t)).sort((a, b) => b[1] - a[1]).map(([t]) => t);
  const bands = [ranked.slice(0, 300), ranked.slice(2_000, 20_000), Array.from({ length: 5_000 }, (_, r) => syntheticWord(200 + r * 5))];
  return Array.from({ length: QUERIES }, (_, i) => {
    const words = Array.from({ length: 1 + (i % 3) }, () => pick(pick(bands)));
    return { text: words.join(' '), tenant: pick(TENANTS) };
  });
}

interface Measured {
  readonly queries: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly qps: number;
  /** This process's CPU time (JS and the engine's threads) per query: steadier than qps on a busy machine. */
  readonly cpu_ms_per_query: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Runs `run` on each query in turn, timing each; latency percentiles, queries/s and CPU per query. */
async function measure(queries: readonly Asked[], run: (q: Asked) => Promise<unknown>): Promise<Measured> {
  const ms: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (const q of queries) {
    const start = performance.now();
    await run(q);
    ms.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
  const total = ms.reduce((a, b) => a + b, 0);
  return {
    queries: ms.length,
    p50_ms: round2(at(0.5)),
    p99_ms: round2(at(0.99)),
    qps: round2((ms.length / total) * 1000),
    cpu_ms_per_query: round2((cpu.user + cpu.system) / 1000 / ms.length),
  };
}

/** The plain scan: every visible row's text searched for each term (`positionCaseInsensitiveUTF8 > 0`, OR). */
function scanSql(terms: number): string {
  const any = Array.from({ length: terms }, (_, i) => `positionCaseInsensitiveUTF8(text, {t${i}:String}) > 0`).join(' OR ');
  return `SELECT url, title, count() OVER () AS total FROM scan_pages WHERE (tenant = {tenant:String} OR shareable = 1) AND (${any}) LIMIT 10`;
}

/** The same with the engine's multi-needle search (one pass for all terms): the strongest plain scan. */
const MULTI_SCAN = `SELECT url, title, count() OVER () AS total FROM scan_pages
WHERE (tenant = {tenant:String} OR shareable = 1) AND multiSearchAnyCaseInsensitiveUTF8(text, {terms:Array(String)})
LIMIT 10`;

async function bytesPerPage(store: Store, table: string): Promise<number> {
  const [row] = await store.query<{ bytes: string }>('SELECT sum(bytes_on_disk) AS bytes FROM system.parts WHERE active AND database = currentDatabase() AND table = {table:String}', { table });
  return Math.round(Number(row?.bytes ?? 0) / PAGES);
}

async function main(): Promise<void> {
  const corpus = corpusPages();
  if (!corpus) {
    emit({ bench: 'search', skipped: `corpus not found under ${corpusDir()}` });
    return;
  }
  if (KEPT_DIR) mkdirSync(KEPT_DIR, { recursive: true });
  const dir = KEPT_DIR || mkdtempSync(join(tmpdir(), 'bench-search-'));
  const store = await createStore({ kind: 'chdb', dataDir: dir }, createLogger(process.env.BENCH_LOG_LEVEL || 'error'));
  try {
    await store.migrate();
    await store.command(SCAN_TABLE);
    const reused = await isLoaded(store);
    const loadedPages = reused ? await redraw(store, corpus.pages) : await load(store, corpus.pages);
    if (!reused) for (const table of INDEX_TABLES) await store.command(`OPTIMIZE TABLE ${table} FINAL`);
    const asked = queries(corpus.pages);
    const provider = new LocalIndexProvider(store);
    const search = (q: Asked) => {
      const sq: SearchQuery = { query: q.text, num: 10, page: 1, lang: null, country: null, location: null, tbs: null, timeRange: null, filter: null, device: 'desktop' };
      return provider.search(sq, { tenant: q.tenant, timeoutMs: 60_000, signal: new AbortController().signal });
    };
    const scan = (q: Asked) => {
      const terms = q.text.split(' ');
      return store.query(scanSql(terms.length), { tenant: q.tenant, ...Object.fromEntries(terms.map((t, i) => [`t${i}`, t])) });
    };
    const multiScan = (q: Asked) => store.query(MULTI_SCAN, { tenant: q.tenant, terms: q.text.split(' ') });
    for (const q of asked.slice(0, WARMUP)) await search(q);
    let found = 0;
    const index = await measure(asked, async (q) => void (found += (await search(q)).organic.length > 0 ? 1 : 0));
    const scanned = spread(asked, SCAN_QUERIES);
    await scan(scanned[0] as Asked);
    const baseline = await measure(scanned, scan);
    const multi = await measure(spread(asked, Math.ceil(SCAN_QUERIES / 2)), multiScan);
    const docsBytes = await bytesPerPage(store, 'search_docs');
    const postingsBytes = await bytesPerPage(store, 'search_postings');
    const lengthsBytes = await bytesPerPage(store, 'search_lengths');
    const shownBytes = await bytesPerPage(store, 'search_shown');
    emit({
      bench: 'search',
      pages: PAGES,
      postings: loadedPages.postings,
      reused_store: reused,
      load_s: round2(loadedPages.seconds),
      load_pages_per_s: reused ? null : Math.round(PAGES / loadedPages.seconds),
      queries_with_results: found,
      ...index,
      index_bytes_per_page: docsBytes + postingsBytes + lengthsBytes + shownBytes,
      docs_bytes_per_page: docsBytes,
      postings_bytes_per_page: postingsBytes,
      lengths_bytes_per_page: lengthsBytes,
      shown_bytes_per_page: shownBytes,
      baseline: 'scan_pages: positionCaseInsensitiveUTF8(text, term) > 0 for each term (OR) over every visible row',
      baseline_queries: baseline.queries,
      baseline_p50_ms: baseline.p50_ms,
      baseline_p99_ms: baseline.p99_ms,
      baseline_qps: baseline.qps,
      baseline_cpu_ms_per_query: baseline.cpu_ms_per_query,
      baseline_bytes_per_page: await bytesPerPage(store, 'scan_pages'),
      qps_ratio: round2(index.qps / baseline.qps),
      cpu_ratio: round2(baseline.cpu_ms_per_query / index.cpu_ms_per_query),
      p99_over_baseline_p50: round2(index.p99_ms / baseline.p50_ms),
      multi_scan_queries: multi.queries,
      multi_scan_p50_ms: multi.p50_ms,
      multi_scan_qps: multi.qps,
      multi_scan_cpu_ms_per_query: multi.cpu_ms_per_query,
      qps_ratio_vs_multi_scan: round2(index.qps / multi.qps),
      target_qps_ratio: TARGET_QPS_RATIO,
      meets_target: index.qps / baseline.qps >= TARGET_QPS_RATIO && index.p99_ms < baseline.p50_ms,
      load_avg_1m: round2(loadavg()[0] as number),
      parser_rows_ms_per_page: Math.round(corpus.rowsMsPerPage * 1000) / 1000,
      parser_build_ms_per_page: round2(corpus.buildMsPerPage),
      corpus_pages: corpus.pages.length,
    });
  } finally {
    await store.close();
    if (!KEPT_DIR) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
