/**
 * Markdown conversion speed: the parser's production HTML path beside plain turndown, on the
 * same decoded pages, in this process, in this run.
 *
 *   ours      `buildHtmlDocument` with formats ['markdown'] — what POST /v1/scrape runs on
 *             a fetched HTML page once its bytes are decoded: htmlparser2 load, metadata,
 *             excludeTags, cleaning, main content (or the whole body), absolute URLs,
 *             markdown — once with onlyMainContent true (the API default), once false
 *   baseline  `new TurndownService()` with turndown-plugin-gfm, `turndown(html)` on the
 *             whole page: what a plain script does
 *
 * Corpora: trafilatura-eval (990 pages) and mozilla/readability's test pages, from
 * `../shared/corpus/` (or `CORPUS_DIR`); an absent one is reported as skipped. Each
 * converter first runs over a warm-up sample; then every page goes through the three in
 * turn (the order rotating from page to page, so load from other processes falls on all
 * three alike) and each call is timed on its own, in wall-clock and in CPU time (the process's,
 * garbage collection included: less swayed than wall-clock by other load on the machine).
 * Prints one JSON line per mode and corpus (pages/s, the baseline's pages/s, ratio,
 * cpu_ratio) and a summary line; the target is ratio >= 2 for both modes.
 *
 * Settings: BENCH_MARKDOWN_PAGES caps the pages read from each corpus (default all),
 * BENCH_MARKDOWN_WARMUP the warm-up sample (default 60 pages).
 */
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { buildHtmlDocument, resolveOptions, type ResponseFacts } from '../actors/parser/document/index.js';
import { corpusDir, readHtml, readabilityPages, trafilaturaPages } from './corpus.js';
import { emit, positiveInteger } from './lib.js';

const TARGET_RATIO = 2;


const MAX_PAGES = positiveInteger('BENCH_MARKDOWN_PAGES', Number.MAX_SAFE_INTEGER);
const WARMUP_PAGES = positiveInteger('BENCH_MARKDOWN_WARMUP', 60);

interface Page {
  readonly url: string;
  readonly html: string;
}

type Converter = (page: Page) => string;

const facts = (url: string): ResponseFacts => ({ url, finalUrl: url, statusCode: 200, contentType: 'text/html; charset=utf-8', headers: {} });

function ours(onlyMainContent: boolean): Converter {
  const options = resolveOptions({ formats: ['markdown'], onlyMainContent });
  return (page) => buildHtmlDocument(page.html, facts(page.url), options).markdown ?? '';
}

function plainTurndown(): Converter {
  const service = new TurndownService();
  service.use(gfm);
  return (page) => service.turndown(page.html);
}

const CONVERTERS = {
  main_content: ours(true),
  full_page: ours(false),
  turndown: plainTurndown(),
} as const;

type Name = keyof typeof CONVERTERS;
const NAMES = Object.keys(CONVERTERS) as Name[];

interface Totals {
  ms: number;
  cpuUs: number;
  chars: number;
  failures: number;
}

const zero = (): Totals => ({ ms: 0, cpuUs: 0, chars: 0, failures: 0 });

function timeOne(convert: Converter, page: Page, into: Totals): void {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let out = '';
  try {
    out = convert(page);
  } catch {
    into.failures += 1;
  }
  into.ms += performance.now() - start;
  const used = process.cpuUsage(cpu);
  into.cpuUs += used.user + used.system;
  into.chars += out.length;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;

function measure(corpus: string, pages: readonly Page[]): number[] {
  const step = Math.max(1, Math.floor(pages.length / WARMUP_PAGES));
  const warmup = pages.filter((_, i) => i % step === 0).slice(0, WARMUP_PAGES);
  for (const name of NAMES) for (const page of warmup) timeOne(CONVERTERS[name], page, zero());

  const totals = Object.fromEntries(NAMES.map((n) => [n, zero()])) as Record<Name, Totals>;
  pages.forEach((page, i) => {
    for (let k = 0; k < NAMES.length; k += 1) {
      const name = NAMES[(i + k) % NAMES.length] as Name;
      timeOne(CONVERTERS[name], page, totals[name]);
    }
  });

  const rate = (t: Totals) => pages.length / (t.ms / 1000);
  const baseline = totals.turndown;
  const ratios: number[] = [];
  for (const name of ['main_content', 'full_page'] as const) {
    const t = totals[name];
    const ratio = round3(baseline.ms / t.ms);
    ratios.push(ratio);
    emit({
      bench: 'markdown',
      corpus,
      scenario: name === 'main_content' ? 'onlyMainContent=true' : 'onlyMainContent=false',
      pages: pages.length,
      pages_per_s: round1(rate(t)),
      ms_per_page: round3(t.ms / pages.length),
      turndown_pages_per_s: round1(rate(baseline)),
      turndown_ms_per_page: round3(baseline.ms / pages.length),
      ratio,
      cpu_ms_per_page: round3(t.cpuUs / 1000 / pages.length),
      turndown_cpu_ms_per_page: round3(baseline.cpuUs / 1000 / pages.length),
      cpu_ratio: round3(baseline.cpuUs / t.cpuUs),
      markdown_kb: Math.round(t.chars / 1024),
      turndown_markdown_kb: Math.round(baseline.chars / 1024),
      failures: t.failures,
      turndown_failures: baseline.failures,
    });
  }
  return ratios;
}

function load(paths: ReadonlyArray<{ url: string; path: string }>): Page[] {
  return paths.slice(0, MAX_PAGES).map((p) => ({ url: p.url, html: readHtml(p.path) }));
}

const ratios: number[] = [];
const trafilatura = trafilaturaPages();
if (trafilatura) ratios.push(...measure('trafilatura-eval', load(trafilatura)));
else emit({ bench: 'markdown', corpus: 'trafilatura-eval', skipped: `corpus not found under ${corpusDir()}` });

const readability = readabilityPages();
if (readability) ratios.push(...measure('readability', load(readability.map((p) => ({ url: 'http://fakehost/test/page.html', path: p.sourcePath })))));
else emit({ bench: 'markdown', corpus: 'readability', skipped: `corpus not found under ${corpusDir()}` });

if (ratios.length) {
  const minRatio = Math.min(...ratios);
  emit({ bench: 'markdown', summary: true, measurements: ratios.length, min_ratio: minRatio, target_ratio: TARGET_RATIO, meets_target: minRatio >= TARGET_RATIO });
}
