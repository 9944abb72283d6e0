/**
 * Main-content quality and speed: our extraction (actors/parser/main-content) beside Mozilla
 * Readability.js (through jsdom, its `textContent`), both measured in this run on the same
 * decoded HTML.
 *
 *   trafilatura-eval  990 human-annotated pages, scored as its SOURCE.md says (substring
 *                     matches of `with`/`without` chunks in whitespace-normalized text,
 *                     counts summed, F1 = 2tp/(2tp+fp+fn)); one line for all pages, one for
 *                     the held-out split (index % 5 === 0, never used for tuning) and one
 *                     for the tuning split
 *   readability       130 pages of mozilla/readability's tests: mean word-4-gram F1 of the
 *                     main text against the expected article's text (a regression check;
 *                     Readability.js is scored the same way)
 *   speed             pages/s of parse + extraction + text over trafilatura-eval
 *
 * The corpora live in `../shared/corpus/` from the repository root (or `CORPUS_DIR`); when
 * absent, one line says so and the scenario exits 0. Prints one JSON line per measurement.
 *
 * Readability.js runs after ours, in child processes of `BASELINE_CHUNK` pages each (jsdom
 * holds on to memory across hundreds of documents); each page is timed on its own, so the
 * pages/s of both sides are parse + extraction time only. Expect a few minutes: jsdom is
 * the slow part. BENCH_MAIN_CONTENT_PAGES caps the pages read from each corpus (default all;
 * `npm run bench:quick` reads a few).
 */
import { load } from 'cheerio';
import { readFileSync } from 'node:fs';
import { loadHtml } from '../actors/parser/formats/load-html.js';
import { extractMainContent, mainText, plainText } from '../actors/parser/main-content/index.js';
import {
  type Counts, addCounts, corpusDir, isHeldOut, ngramF1, readHtml, readabilityPages, scorePage, summarize,
  trafilaturaPages, zeroCounts,
} from './corpus.js';
import { emit, positiveInteger } from './lib.js';
import { readabilityTexts, type Result } from './readability-js.js';

/** Pages read from each corpus (BENCH_MAIN_CONTENT_PAGES, default all): the first ones, so the held-out split keeps its share. */
const MAX_PAGES = positiveInteger('BENCH_MAIN_CONTENT_PAGES', Number.MAX_SAFE_INTEGER);

/** trafilatura's published F1 on the same 990 pages (docs/evaluation.rst), for reference only. */
const PUBLISHED = { 'trafilatura 2.2.0': 0.924, 'readability-lxml 0.8.4.1': 0.826 };

/** Pages per Readability.js child process. */
const BASELINE_CHUNK = 100;

/** Our main text: parse as the parser does (formats/load-html.ts), extract, plain text. */
function ours(html: string): string {
  return mainText(extractMainContent(loadHtml(html)));
}

/** Runs `fn`, returning its result (null when it throws) and the elapsed milliseconds. */
function timed<T>(fn: () => T): { value: T | null; ms: number } {
  const start = performance.now();
  let value: T | null = null;
  try {
    value = fn();
  } catch {
    value = null;
  }
  return { value, ms: performance.now() - start };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function trafilaturaEval(): Promise<void> {
  const pages = trafilaturaPages()?.slice(0, MAX_PAGES);
  if (!pages) {
    emit({ bench: 'main-content', corpus: 'trafilatura-eval', skipped: `corpus not found under ${corpusDir()}` });
    return;
  }
  const oursResults: Result[] = pages.map((page) => {
    const html = readHtml(page.path);
    const r = timed(() => ours(html));
    return { text: r.value, ms: r.ms };
  });
  const theirs = await readabilityTexts(pages, BASELINE_CHUNK);
  const sums: Record<'all' | 'held-out' | 'tuning', { ours: Counts; readability: Counts }> = {
    all: { ours: zeroCounts(), readability: zeroCounts() },
    'held-out': { ours: zeroCounts(), readability: zeroCounts() },
    tuning: { ours: zeroCounts(), readability: zeroCounts() },
  };
  pages.forEach((page, i) => {
    const ca = scorePage(oursResults[i]?.text ?? null, page);
    const cb = scorePage(theirs[i]?.text ?? null, page);
    for (const split of ['all', isHeldOut(page) ? 'held-out' : 'tuning'] as const) {
      addCounts(sums[split].ours, ca);
      addCounts(sums[split].readability, cb);
    }
  });
  for (const [split, s] of Object.entries(sums)) {
    const o = summarize(s.ours);
    const r = summarize(s.readability);
    emit({
      bench: 'main-content',
      corpus: 'trafilatura-eval',
      split,
      pages: split === 'all' ? pages.length : pages.filter((p) => isHeldOut(p) === (split === 'held-out')).length,
      ...o,
      readability_js: r,
      f1_ratio: round3(o.f1 / r.f1),
      ...(split === 'all' ? { published_f1: PUBLISHED } : {}),
    });
  }
  const oursMs = oursResults.reduce((a, r) => a + r.ms, 0);
  const theirMs = theirs.reduce((a, r) => a + r.ms, 0);
  emit({
    bench: 'main-content',
    scenario: 'speed',
    corpus: 'trafilatura-eval',
    pages: pages.length,
    pages_per_s: round3(pages.length / (oursMs / 1000)),
    readability_js_pages_per_s: round3(pages.length / (theirMs / 1000)),
    ratio: round3(theirMs / oursMs),
  });
}

async function readabilityCorpus(): Promise<void> {
  const pages = readabilityPages()?.slice(0, MAX_PAGES);
  if (!pages) {
    emit({ bench: 'main-content', corpus: 'readability', skipped: `corpus not found under ${corpusDir()}` });
    return;
  }
  const theirs = await readabilityTexts(pages.map((p) => ({ path: p.sourcePath, url: 'http://fakehost/test/page.html' })));
  let oursSum = 0;
  let readabilitySum = 0;
  pages.forEach((page, i) => {
    const expected = plainText(load(readFileSync(page.expectedPath, 'utf8')).root().toArray());
    const html = readHtml(page.sourcePath);
    oursSum += ngramF1(timed(() => ours(html)).value ?? '', expected);
    readabilitySum += ngramF1(theirs[i]?.text ?? '', expected);
  });
  const o = oursSum / pages.length;
  const r = readabilitySum / pages.length;
  emit({
    bench: 'main-content',
    corpus: 'readability',
    metric: 'mean word-4-gram F1 vs expected article text',
    pages: pages.length,
    ngram4_f1: round3(o),
    readability_js_ngram4_f1: round3(r),
    ratio: round3(o / r),
  });
}

await trafilaturaEval();
await readabilityCorpus();
