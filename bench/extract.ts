/**
 * Extraction speed (issue 15, bench/extract (b)): pages/s of POST /v1/scrape asking for the
 * `json` format with the `article` template, answered from the pages' own markup, against a
 * plain `markdown` scrape of the same pages, through the same service in the same run.
 *
 *   markdown  `{url, formats: ["markdown"]}`: the plain scrape (fetcher → parser)
 *   json      `{url, formats: [{type: "json", template: "article"}]}`: the same, plus reading
 *             the page's structured markup and visible facts, filling the template, validating
 *             it and the extractive work; no model is configured, so nothing leaves the parser
 *
 * The pages: up to BENCH_EXTRACT_PAGES (default 200) corpus pages (trafilatura-eval) that carry
 * JSON-LD, served on 127.0.0.1 as the bytes on file; every request carries a query string of its
 * own, so no page is a cache hit. Each side gets a warm-up pass, then a measured pass; with
 * BENCH_ROUNDS > 1 the sides alternate and medians are kept. One JSON line: `overhead` is the
 * plain scrape's pages/s over the json scrape's (the issue's target: at most 1.2), and how many
 * json answers held a `title`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { detectCharset } from '../pipeline/runtime/net/charset.js';
import { corpusDir, trafilaturaPages } from './corpus.js';
import { SETTINGS, cpuMs, emit, positiveInteger, startServer, type Child } from './lib.js';
import { drive } from './servers/drive.js';
import { medianSide, passUrls, round1, round3, side, startSite, type Side, type SitePage } from './servers/site.js';

const TARGET_OVERHEAD = 1.2;
const PAGES = positiveInteger('BENCH_EXTRACT_PAGES', 200);
const CONCURRENCY = positiveInteger('BENCH_SCRAPE_CONCURRENCY', 16);
const WARMUP = positiveInteger('BENCH_SCRAPE_WARMUP', 48);
const script = (name: string) => fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));

const LD_JSON = /<script[^>]{0,200}application\/ld\+json/i;

async function main(): Promise<void> {
  const corpus = trafilaturaPages();
  if (!corpus) {
    emit({ bench: 'extract', skipped: `corpus not found under ${corpusDir()}` });
    return;
  }
  const pages: SitePage[] = [];
  for (const p of corpus) {
    if (pages.length >= PAGES) break;
    const body = readFileSync(p.path);
    if (LD_JSON.test(body.toString('latin1'))) pages.push({ body, contentType: `text/html; charset=${detectCharset(body).charset}` });
  }
  const site = await startSite(pages);
  /** Every page once (or the first `n`), each URL never asked before. */
  const urls = passUrls(site.origin, pages.length);
  const children: Child[] = [];
  try {
    const service = await startServer(script('scrape-service'), { LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn' });
    children.push(service);
    const headers = { authorization: `Bearer ${String(service.ready.key)}`, 'content-type': 'application/json' };
    let titled = 0;
    const scrapeWith = (formats: unknown[], check: (data: Record<string, unknown>) => void) => async (url: string) => {
      const res = await fetch(`${service.url}/v1/scrape`, { method: 'POST', headers, body: JSON.stringify({ url, formats }) });
      const body = (await res.json()) as { success?: boolean; data?: Record<string, unknown>; error?: { code?: string } };
      if (res.status !== 200 || !body.success || !body.data) throw new Error(`${url}: ${res.status} ${body.error?.code ?? JSON.stringify(body).slice(0, 200)}`);
      check(body.data);
    };
    const markdown = scrapeWith(['markdown'], (data) => {
      if (typeof data.markdown !== 'string') throw new Error('no markdown');
    });
    const json = scrapeWith([{ type: 'json', template: 'article' }], (data) => {
      const answer = data.json as Record<string, unknown> | undefined;
      if (!answer || typeof answer !== 'object') throw new Error('no json');
      if (typeof answer.title === 'string') titled += 1;
    });
    const plainRounds: Side[] = [];
    const jsonRounds: Side[] = [];
    for (let round = 0; round < SETTINGS.rounds; round += 1) {
      await drive(urls(WARMUP), CONCURRENCY, markdown);
      let cpu = await cpuMs(service);
      plainRounds.push(side(await drive(urls(), CONCURRENCY, markdown), (await cpuMs(service)) - cpu));
      await drive(urls(WARMUP), CONCURRENCY, json);
      titled = 0;
      cpu = await cpuMs(service);
      jsonRounds.push(side(await drive(urls(), CONCURRENCY, json), (await cpuMs(service)) - cpu));
    }
    const plain = medianSide(plainRounds);
    const withJson = medianSide(jsonRounds);
    const overhead = round3(plain.pages_per_s / withJson.pages_per_s);
    emit({
      bench: 'extract',
      pages: pages.length,
      concurrency: CONCURRENCY,
      json_template: 'article',
      ...withJson,
      json_with_title: titled,
      baseline: 'the same service, formats ["markdown"]',
      baseline_pages_per_s: plain.pages_per_s,
      baseline_p50_ms: plain.p50_ms,
      baseline_cpu_ms_per_page: plain.cpu_ms_per_page,
      overhead,
      cpu_overhead: round3(withJson.cpu_ms_per_page / plain.cpu_ms_per_page),
      target_overhead: TARGET_OVERHEAD,
      meets_target: overhead <= TARGET_OVERHEAD,
      rounds: SETTINGS.rounds,
      peak_rss_mb: round1(Number((await service.ask({ type: 'memory' })).maxRssKb) / 1024),
    });
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await site.close();
  }
}

await main();
