/**
 * End-to-end scraping: pages/s, latency and peak memory of POST /v1/scrape through the whole
 * service, beside a plain script doing the same job, on the same pages in the same run.
 *
 *   service   embedded mode in a child process (bench/servers/scrape-service.ts: gateway →
 *             memory bus → fetcher (got-scraping) → parser → chdb batch writer → reply),
 *             driven from this process with `{url}` bodies (markdown, main content: the
 *             API defaults), BENCH_SCRAPE_CONCURRENCY requests in flight (default 16)
 *   baseline  a plain script in its own child process (bench/servers/plain-scraper.ts:
 *             fetch, cheerio, turndown + GFM) scraping the same URLs, as many in flight
 *
 * The pages: BENCH_SCRAPE_PAGES (default 300) trafilatura-eval pages spread over the corpus
 * (`../shared/corpus/` or `CORPUS_DIR`; absent, one line says so and the scenario exits 0),
 * served from this process on 127.0.0.1 as the bytes on file, each with its content type
 * (`text/html` and the charset its markup declares, as servers send it). Every request
 * carries a query string of its own, so no page is ever a cache hit.
 *
 * Each side gets a warm-up pass (BENCH_SCRAPE_WARMUP pages, default 48, discarded), then a
 * measured pass over every page; with BENCH_ROUNDS > 1 the sides alternate and medians are
 * kept. Latency is per page from the client's side (the service) or the script's own
 * (fetch to markdown). Peak RSS is each child's getrusage maximum at the end (so it includes
 * start-up: chdb for the service). One JSON line; the target is ratio >= 0.7.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { detectCharset } from '../pipeline/runtime/net/charset.js';
import { corpusDir, trafilaturaPages } from './corpus.js';
import { SETTINGS, cpuMs, emit, positiveInteger, startChild, startServer, type Child } from './lib.js';
import { drive, type DriveResult } from './servers/drive.js';
import { medianSide, passUrls, round1, round3, side, startSite, type Side, type SitePage } from './servers/site.js';

const TARGET_RATIO = 0.7;


const PAGES = positiveInteger('BENCH_SCRAPE_PAGES', 300);
const CONCURRENCY = positiveInteger('BENCH_SCRAPE_CONCURRENCY', 16);
const WARMUP = positiveInteger('BENCH_SCRAPE_WARMUP', 48);
const logLevel = process.env.BENCH_LOG_LEVEL || 'info';
const script = (name: string) => fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));

async function main(): Promise<void> {
  const corpus = trafilaturaPages();
  if (!corpus) {
    emit({ bench: 'scrape', skipped: `corpus not found under ${corpusDir()}` });
    return;
  }
  const step = Math.max(1, Math.floor(corpus.length / PAGES));
  const pages: SitePage[] = corpus
    .filter((_, i) => i % step === 0)
    .slice(0, PAGES)
    .map((p) => {
      const body = readFileSync(p.path);
      return { body, contentType: `text/html; charset=${detectCharset(body).charset}` };
    });
  const site = await startSite(pages);
  /** Every page once (or the first `n`), each URL never asked before. */
  const urls = passUrls(site.origin, pages.length);

  const children: Child[] = [];
  try {
    const service = await startServer(script('scrape-service'), { LOG_LEVEL: logLevel });
    children.push(service);
    const plain = await startChild(script('plain-scraper'));
    children.push(plain);
    const headers = { authorization: `Bearer ${String(service.ready.key)}`, 'content-type': 'application/json' };
    const scrape = async (url: string) => {
      const res = await fetch(`${service.url}/v1/scrape`, { method: 'POST', headers, body: JSON.stringify({ url }) });
      const body = (await res.json()) as { success?: boolean; data?: { markdown?: unknown }; error?: { code?: string } };
      if (res.status !== 200 || !body.success || typeof body.data?.markdown !== 'string') {
        throw new Error(`${url}: ${res.status} ${body.error?.code ?? JSON.stringify(body).slice(0, 200)}`);
      }
    };
    const runPlain = async (list: string[]) =>
      (await plain.ask({ type: 'run', urls: list, concurrency: CONCURRENCY }, 30 * 60_000)) as unknown as DriveResult;

    const ours: Side[] = [];
    const theirs: Side[] = [];
    for (let round = 0; round < SETTINGS.rounds; round += 1) {
      await drive(urls(WARMUP), CONCURRENCY, scrape);
      let cpu = await cpuMs(service);
      const s = await drive(urls(), CONCURRENCY, scrape);
      ours.push(side(s, (await cpuMs(service)) - cpu));

      await runPlain(urls(WARMUP));
      cpu = await cpuMs(plain);
      const b = await runPlain(urls());
      theirs.push(side(b, (await cpuMs(plain)) - cpu));
    }
    const rssMb = async (child: Child) => round1(Number((await child.ask({ type: 'memory' })).maxRssKb) / 1024);
    const o = medianSide(ours);
    const t = medianSide(theirs);
    const ratio = round3(o.pages_per_s / t.pages_per_s);
    emit({
      bench: 'scrape',
      pages: pages.length,
      concurrency: CONCURRENCY,
      ...o,
      peak_rss_mb: await rssMb(service),
      baseline: 'fetch + cheerio + turndown (GFM)',
      baseline_pages_per_s: t.pages_per_s,
      baseline_p50_ms: t.p50_ms,
      baseline_p99_ms: t.p99_ms,
      baseline_cpu_ms_per_page: t.cpu_ms_per_page,
      baseline_peak_rss_mb: await rssMb(plain),
      baseline_errors: t.errors,
      ...(t.first_error ? { baseline_first_error: t.first_error } : {}),
      ratio,
      cpu_ratio: round3(t.cpu_ms_per_page / o.cpu_ms_per_page),
      target_ratio: TARGET_RATIO,
      meets_target: ratio >= TARGET_RATIO,
      log_level: logLevel,
      rounds: SETTINGS.rounds,
    });
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await site.close();
  }
}

await main();
