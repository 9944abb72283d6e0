/**
 * Main content beyond the article benchmark: our extraction beside Mozilla Readability.js
 * (same run, same decoded HTML) on public labelled benchmarks, each scored with its own
 * metric (bench/main-content-scores.ts), each printed beside the figures its maintainers
 * publish. trafilatura itself is Python and does not install here (no PyPI, no Debian
 * package), so its figures are the published ones only.
 *
 *   scrapinghub       the article-extraction benchmark, 181 articles (bench/data/scrapinghub,
 *                     committed): shingle F1 as its evaluate.py computes it
 *   wcxb-dev          WCXB's development set, 1,497 pages over 7 page types; mean per-page
 *                     word F1 as its evaluate.py computes it, overall and per page type
 *   wcxb-test         WCXB's held-out test set, 511 pages (never looked at while tuning)
 *   trafilatura-eval  trafilatura's 990-page evaluation (the shared corpus, as in
 *                     bench/main-content.ts): `with`/`without` chunk F1
 *
 * WCXB is ~115 MB: `sh bench/data/wcxb/fetch.sh` puts it in bench/data/wcxb/full/
 * (gitignored); without it those lines say skipped. Ours is the parser's own path: the page
 * decoded as a scrape decodes it, loaded as the parser loads it (formats/load-html.ts),
 * `extractMainContent`, then its plain text; `pages_per_s` is that, summed per page.
 * `document_pages_per_s` is the whole scrape document (`buildHtmlDocument`, markdown,
 * `onlyMainContent`: what POST /v1/scrape runs after the fetch) over the same pages.
 *
 * Settings: BENCH_MAIN_CONTENT_BROAD_PAGES caps the pages of each set (the first ones);
 * BENCH_MAIN_CONTENT_BROAD_SETS picks sets (comma-separated, default all);
 * BENCH_MAIN_CONTENT_BROAD_BASELINE=0 skips Readability.js (minutes on WCXB);
 * BENCH_MAIN_CONTENT_BROAD_DUMP=<file> writes our per-page scores as JSON lines.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { buildHtmlDocument, resolveOptions } from '../actors/parser/document/index.js';
import { loadHtml } from '../actors/parser/formats/load-html.js';
import { extractMainContent, mainText } from '../actors/parser/main-content/index.js';
import { corpusDir, readHtml, scorePage, summarize, trafilaturaPages, addCounts, zeroCounts } from './corpus.js';
import { emit, positiveInteger } from './lib.js';
import {
  type Prf, type TpFpFn, WCXB_DIR, WCXB_TYPES, exactTokens, meanPrf, scrapinghubMetrics, scrapinghubPages, shingleMatch, wcxbPages, wordF1,
} from './main-content-scores.js';
import { type Result, readabilityTexts } from './readability-js.js';

const MAX_PAGES = positiveInteger('BENCH_MAIN_CONTENT_BROAD_PAGES', Number.MAX_SAFE_INTEGER);
const SETS = new Set((process.env.BENCH_MAIN_CONTENT_BROAD_SETS || 'scrapinghub,wcxb-dev,wcxb-test,trafilatura-eval').split(',').map((s) => s.trim()));
const BASELINE = process.env.BENCH_MAIN_CONTENT_BROAD_BASELINE !== '0';
const DUMP = process.env.BENCH_MAIN_CONTENT_BROAD_DUMP;

/** Published figures, for reference only (README of each benchmark, read 2026-11-29). */
const PUBLISHED = {
  scrapinghub: { rs_trafilatura: 0.970, 'AutoExtract (2019)': 0.970, go_trafilatura: 0.960, 'trafilatura 2.0.0': 0.958, 'readability_js 0.6.0': 0.947 },
  'wcxb-dev': { 'rs-trafilatura': 0.859, 'MinerU-HTML': 0.827, Trafilatura: 0.791, 'dom-smoothie': 0.762, Readability: 0.675 },
  'wcxb-test': { 'rs-trafilatura': 0.893, Trafilatura: 0.833, 'dom-smoothie': 0.808, Readability: 0.726 },
  'trafilatura-eval': { 'trafilatura 2.2.0': 0.924, 'readability-lxml 0.8.4.1': 0.826 },
} as const;

/** WCXB's published dev F1 by page type: rs-trafilatura, Trafilatura, Readability. */
const PUBLISHED_WCXB_DEV_TYPES: Record<string, { 'rs-trafilatura': number; Trafilatura: number; Readability: number }> = {
  article: { 'rs-trafilatura': 0.932, Trafilatura: 0.926, Readability: 0.825 },
  documentation: { 'rs-trafilatura': 0.932, Trafilatura: 0.888, Readability: 0.736 },
  service: { 'rs-trafilatura': 0.844, Trafilatura: 0.763, Readability: 0.604 },
  forum: { 'rs-trafilatura': 0.808, Trafilatura: 0.585, Readability: 0.466 },
  collection: { 'rs-trafilatura': 0.716, Trafilatura: 0.553, Readability: 0.445 },
  listing: { 'rs-trafilatura': 0.707, Trafilatura: 0.589, Readability: 0.496 },
  product: { 'rs-trafilatura': 0.641, Trafilatura: 0.567, Readability: 0.407 },
};

const r3 = (n: number) => Math.round(n * 1000) / 1000;
const prf3 = (m: Prf) => ({ f1: r3(m.f1), precision: r3(m.precision), recall: r3(m.recall) });

interface Page {
  readonly id: string;
  readonly url: string;
  readonly path: string;
}

interface Ours extends Result {
  readonly documentMs: number;
}

const documentOptions = resolveOptions({ formats: ['markdown'], onlyMainContent: true });

/** Our main text of each page (the parser's path) and the time of it, plus the whole scrape document's time. */
function ours(pages: readonly Page[]): Ours[] {
  return pages.map((page) => {
    const html = readHtml(page.path);
    let start = performance.now();
    let text: string | null = null;
    try {
      text = mainText(extractMainContent(loadHtml(html)));
    } catch {
      text = null;
    }
    const ms = performance.now() - start;
    start = performance.now();
    buildHtmlDocument(html, { url: page.url, finalUrl: page.url, statusCode: 200, contentType: 'text/html; charset=utf-8', headers: {} }, documentOptions);
    return { text, ms, documentMs: performance.now() - start };
  });
}

const perSecond = (n: number, results: readonly { ms: number }[]) => r3(n / (results.reduce((a, r) => a + r.ms, 0) / 1000));

async function theirs(pages: readonly Page[]): Promise<Result[] | null> {
  return BASELINE ? readabilityTexts(pages.map((p) => ({ path: p.path, url: p.url }))) : null;
}

function speed(pages: readonly Page[], o: readonly Ours[], t: readonly Result[] | null) {
  return {
    pages_per_s: perSecond(pages.length, o),
    document_pages_per_s: perSecond(pages.length, o.map((r) => ({ ms: r.documentMs }))),
    ...(t ? { readability_js_pages_per_s: perSecond(pages.length, t) } : {}),
  };
}

function dump(set: string, rows: readonly Record<string, unknown>[]): void {
  if (!DUMP) return;
  appendFileSync(DUMP, rows.map((r) => JSON.stringify({ set, ...r })).join('\n') + '\n');
}

async function scrapinghub(): Promise<void> {
  const pages = scrapinghubPages()?.slice(0, MAX_PAGES);
  if (!pages) {
    emit({ bench: 'main-content-broad', benchmark: 'scrapinghub', skipped: 'bench/data/scrapinghub not found' });
    return;
  }
  const o = ours(pages);
  const t = await theirs(pages);
  const score = (texts: readonly (string | null)[]) => {
    const counts: TpFpFn[] = pages.map((p, i) => shingleMatch(p.articleBody, texts[i] ?? ''));
    const m = scrapinghubMetrics(counts);
    const accuracy = pages.filter((p, i) => exactTokens(p.articleBody, texts[i] ?? '')).length / pages.length;
    return { m: { ...prf3(m), accuracy: r3(accuracy) }, counts };
  };
  const mine = score(o.map((r) => r.text));
  dump('scrapinghub', pages.map((p, i) => {
    const [tp, fp, fn] = mine.counts[i] as TpFpFn;
    return { id: p.id, url: p.url, precision: r3(tp / (tp + fp || 1)), recall: r3(tp / (tp + fn || 1)) };
  }));
  emit({
    bench: 'main-content-broad',
    benchmark: 'scrapinghub',
    metric: 'word-4-gram shingle F1 (evaluate.py: mean P and R over pages, F1 of the means)',
    pages: pages.length,
    ...mine.m,
    ...(t ? { readability_js: score(t.map((r) => r.text)).m } : {}),
    published_f1: PUBLISHED.scrapinghub,
    ...speed(pages, o, t),
  });
}

async function wcxb(split: 'dev' | 'test'): Promise<void> {
  const benchmark = `wcxb-${split}` as const;
  const pages = wcxbPages(split)?.slice(0, MAX_PAGES);
  if (!pages) {
    emit({ bench: 'main-content-broad', benchmark, skipped: `${WCXB_DIR} not found: run sh bench/data/wcxb/fetch.sh` });
    return;
  }
  const o = ours(pages);
  const t = await theirs(pages);
  const mine = pages.map((p, i) => wordF1(o[i]?.text ?? '', p.mainContent));
  const base = t ? pages.map((p, i) => wordF1(t[i]?.text ?? '', p.mainContent)) : null;
  dump(benchmark, pages.map((p, i) => ({ id: p.id, url: p.url, type: p.pageType, ...prf3(mine[i] as Prf) })));
  const types = [...WCXB_TYPES, ...new Set(pages.map((p) => p.pageType).filter((x) => !(WCXB_TYPES as readonly string[]).includes(x)))];
  const perType: Record<string, unknown> = {};
  for (const type of types) {
    const idx = pages.flatMap((p, i) => (p.pageType === type ? [i] : []));
    if (!idx.length) continue;
    perType[type] = {
      pages: idx.length,
      ...prf3(meanPrf(idx.map((i) => mine[i] as Prf))),
      ...(base ? { readability_js_f1: r3(meanPrf(idx.map((i) => base[i] as Prf)).f1) } : {}),
      ...(split === 'dev' && PUBLISHED_WCXB_DEV_TYPES[type] ? { published_f1: PUBLISHED_WCXB_DEV_TYPES[type] } : {}),
    };
  }
  emit({
    bench: 'main-content-broad',
    benchmark,
    metric: 'mean per-page word F1 (evaluate.py: lower-cased \\w+ bag-of-words overlap)',
    pages: pages.length,
    ...prf3(meanPrf(mine)),
    ...(base ? { readability_js: prf3(meanPrf(base)) } : {}),
    published_f1: PUBLISHED[benchmark],
    per_type: perType,
    ...speed(pages, o, t),
  });
}

async function trafilaturaEval(): Promise<void> {
  const all = trafilaturaPages();
  if (!all) {
    emit({ bench: 'main-content-broad', benchmark: 'trafilatura-eval', skipped: `corpus not found under ${corpusDir()}` });
    return;
  }
  const pages = all.slice(0, MAX_PAGES).map((p) => ({ ...p, id: String(p.index) }));
  const o = ours(pages);
  const t = await theirs(pages);
  const sum = (texts: readonly (string | null)[]) => summarize(pages.reduce((c, p, i) => addCounts(c, scorePage(texts[i] ?? null, p)), zeroCounts()));
  const m = sum(o.map((r) => r.text));
  emit({
    bench: 'main-content-broad',
    benchmark: 'trafilatura-eval',
    metric: 'with/without chunk F1, counts summed over pages (its SOURCE.md)',
    pages: pages.length,
    f1: r3(m.f1),
    precision: r3(m.precision),
    recall: r3(m.recall),
    ...(t ? { readability_js: { f1: r3(sum(t.map((r) => r.text)).f1) } } : {}),
    published_f1: PUBLISHED['trafilatura-eval'],
    ...speed(pages, o, t),
  });
}

if (DUMP) writeFileSync(DUMP, '');
if (SETS.has('scrapinghub')) await scrapinghub();
if (SETS.has('wcxb-dev')) await wcxb('dev');
if (SETS.has('wcxb-test')) await wcxb('test');
if (SETS.has('trafilatura-eval')) await trafilaturaEval();
