/**
 * The shared main-content corpora (`../shared/corpus/` from the repository root, or
 * `CORPUS_DIR`) and their scoring, used by bench/main-content.ts and the corpus regression
 * test. Nothing here runs on import.
 *
 * trafilatura-eval is scored exactly as its SOURCE.md describes: the extractor's plain text
 * is whitespace-normalized; each `with` chunk found as a substring is a true positive (else a
 * false negative), each `without` chunk found is a false positive (else a true negative);
 * counts are summed over pages; an empty output or a crash scores the page as all misses.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { decodeBody } from '../pipeline/runtime/net/charset.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The corpus folder: `CORPUS_DIR` when set, else `<repo>/../shared/corpus`. */
export function corpusDir(): string {
  return process.env.CORPUS_DIR || resolve(ROOT, '..', 'shared', 'corpus');
}

export interface EvalPage {
  /** Position in evaldata.json (0-based); `index % 5 === 0` is the held-out split. */
  readonly index: number;
  readonly url: string;
  readonly path: string;
  readonly with: readonly string[];
  readonly without: readonly string[];
}

/** The trafilatura-eval pages, or null when the corpus is absent. */
export function trafilaturaPages(dir = corpusDir()): EvalPage[] | null {
  const base = join(dir, 'trafilatura-eval');
  const file = join(base, 'evaldata.json');
  if (!existsSync(file)) return null;
  const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { file: string; with: string[]; without: string[] }>;
  return Object.entries(data).map(([url, entry], index) => {
    const cached = join(base, 'cache', entry.file);
    return {
      index,
      url,
      path: existsSync(cached) ? cached : join(base, 'eval', entry.file),
      with: entry.with,
      without: entry.without,
    };
  });
}

/** Whether a page belongs to the fixed held-out split (never looked at while tuning). */
export const isHeldOut = (page: { index: number }): boolean => page.index % 5 === 0;

/** Reads and decodes a page as a scraper would (charset from the markup, else UTF-8); a `.gz` file is gunzipped first. */
export function readHtml(path: string): string {
  const raw = readFileSync(path);
  return decodeBody(path.endsWith('.gz') ? gunzipSync(raw) : raw).text;
}

export interface Counts {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
}

export const zeroCounts = (): Counts => ({ tp: 0, fp: 0, tn: 0, fn: 0 });

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Scores one page's output; `null` (crash) or empty text is all misses. */
export function scorePage(text: string | null, page: Pick<EvalPage, 'with' | 'without'>): Counts {
  const out = text === null ? '' : normalize(text);
  const c = zeroCounts();
  if (!out) {
    c.fn += page.with.length;
    c.fp += page.without.length;
    return c;
  }
  for (const chunk of page.with) {
    if (out.includes(normalize(chunk))) c.tp += 1;
    else c.fn += 1;
  }
  for (const chunk of page.without) {
    if (out.includes(normalize(chunk))) c.fp += 1;
    else c.tn += 1;
  }
  return c;
}

export function addCounts(into: Counts, c: Counts): Counts {
  into.tp += c.tp;
  into.fp += c.fp;
  into.tn += c.tn;
  into.fn += c.fn;
  return into;
}

const round4 = (n: number) => Math.round(n * 10000) / 10000;

/** Precision, recall, accuracy and F1 (= 2tp / (2tp + fp + fn)) of summed counts. */
export function summarize(c: Counts): { f1: number; precision: number; recall: number; accuracy: number } {
  const all = c.tp + c.fp + c.tn + c.fn;
  return {
    f1: round4((2 * c.tp) / (2 * c.tp + c.fp + c.fn || 1)),
    precision: round4(c.tp / (c.tp + c.fp || 1)),
    recall: round4(c.tp / (c.tp + c.fn || 1)),
    accuracy: round4((c.tp + c.tn) / (all || 1)),
  };
}

export interface ReadabilityPage {
  readonly name: string;
  readonly sourcePath: string;
  readonly expectedPath: string;
}

/** The mozilla/readability test pages, or null when absent. */
export function readabilityPages(dir = corpusDir()): ReadabilityPage[] | null {
  const base = join(dir, 'readability');
  if (!existsSync(base)) return null;
  return readdirSync(base, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(base, d.name, 'expected.html')))
    .map((d) => ({
      name: d.name,
      sourcePath: join(base, d.name, 'source.html'),
      expectedPath: join(base, d.name, 'expected.html'),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function ngrams(text: string, n: number): Map<string, number> {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const grams = new Map<string, number>();
  for (let i = 0; i + n <= words.length; i += 1) {
    const g = words.slice(i, i + n).join(' ');
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

/** F1 of word n-gram multisets (default 4-grams) of `actual` against `expected`. */
export function ngramF1(actual: string, expected: string, n = 4): number {
  const a = ngrams(actual, n);
  const e = ngrams(expected, n);
  let overlap = 0;
  let sizeA = 0;
  let sizeE = 0;
  for (const v of a.values()) sizeA += v;
  for (const [g, v] of e) {
    sizeE += v;
    overlap += Math.min(v, a.get(g) ?? 0);
  }
  if (!sizeA || !sizeE) return sizeA === sizeE ? 1 : 0;
  const p = overlap / sizeA;
  const r = overlap / sizeE;
  return p + r ? (2 * p * r) / (p + r) : 0;
}
