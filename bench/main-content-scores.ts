/**
 * The broader main-content benchmarks' data and each one's own metric, written after its
 * published evaluation script so that our figures sit beside the published ones. Used by
 * bench/main-content-broad.ts and test/bench/main-content-scores.test.ts; nothing runs on
 * import.
 *
 *   scrapinghub  article-extraction-benchmark (181 news/blog articles, `evaluate.py`): per
 *                page, the multiset of word-4-gram shingles (tokens `\w+`, case kept) of the
 *                prediction against the `articleBody`'s gives tp/fp/fn, normalized to sum 1;
 *                precision is the mean over pages with tp+fp > 0, recall the mean over pages
 *                with tp+fn > 0 (a page with fp = fn = 0 scores 1 on both), and F1 is the
 *                harmonic mean of the two means. `accuracy`: share of pages whose token list
 *                equals the truth's exactly.
 *   wcxb         WCXB (2,008 pages, 7 page types, `evaluate.py`): per page, bag-of-words
 *                overlap of lower-cased `\w+` tokens of the prediction and `main_content`,
 *                P = overlap / predicted, R = overlap / reference, F1 per page; the figure is
 *                the mean of per-page P, R and F1 (overall and per page type). An empty
 *                reference scores 1 when the prediction is empty too, else 0.
 *
 * `\w` is Python's Unicode word class (`str.isalnum()` or `_`): letters and numbers of any
 * script and `_`; combining marks split words there, and so they do here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Python's `re.findall(r'\w+', text)` on a str: runs of Unicode word characters. */
const WORD = /[\p{L}\p{N}_]+/gu;

export function wordTokens(text: string): string[] {
  return text.match(WORD) ?? [];
}

// ---- scrapinghub article-extraction-benchmark ------------------------------------------

export type TpFpFn = readonly [tp: number, fp: number, fn: number];

/** Multiset of `n`-token shingles of `text` (a text shorter than `n` tokens is one shingle). */
function shingles(text: string, n: number): Map<string, number> {
  const tokens = wordTokens(text);
  const out = new Map<string, number>();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last; i += 1) {
    const s = tokens.slice(i, i + n);
    if (!s.length) continue;
    const key = s.join('\u0000');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** One page's tp/fp/fn over word-4-gram shingles, normalized to sum 1 (all 0 when both are empty). */
export function shingleMatch(truth: string, pred: string, n = 4): TpFpFn {
  const t = shingles(truth, n);
  const p = shingles(pred, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...t.keys(), ...p.keys()])) {
    const tc = t.get(key) ?? 0;
    const pc = p.get(key) ?? 0;
    tp += Math.min(tc, pc);
    fp += Math.max(0, pc - tc);
    fn += Math.max(0, tc - pc);
  }
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [0, 0, 0];
}

const precisionScore = ([tp, fp, fn]: TpFpFn): number => (fp === 0 && fn === 0 ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp));
const recallScore = ([tp, fp, fn]: TpFpFn): number => (fp === 0 && fn === 0 ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn));
const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** evaluate.py's `metrics_from_tp_fp_fns`: mean precision and recall over pages, F1 of the means. */
export function scrapinghubMetrics(pages: readonly TpFpFn[]): { f1: number; precision: number; recall: number } {
  const precision = mean(pages.filter(([tp, fp]) => tp + fp > 0).map(precisionScore));
  const recall = mean(pages.filter(([tp, , fn]) => tp + fn > 0).map(recallScore));
  return { f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0, precision, recall };
}

/** evaluate.py's `get_accuracy`: the token lists are equal. */
export function exactTokens(truth: string, pred: string): boolean {
  const a = wordTokens(truth);
  const b = wordTokens(pred);
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

export interface ScrapinghubPage {
  readonly id: string;
  readonly url: string;
  readonly path: string;
  readonly articleBody: string;
}

export const SCRAPINGHUB_DIR = join(HERE, 'data', 'scrapinghub');

/** The 181 pages of bench/data/scrapinghub (ground-truth.json order), or null when absent. */
export function scrapinghubPages(dir = SCRAPINGHUB_DIR): ScrapinghubPage[] | null {
  const file = join(dir, 'ground-truth.json');
  if (!existsSync(file)) return null;
  const truth = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { articleBody?: string; url: string }>;
  return Object.entries(truth).map(([id, t]) => ({ id, url: t.url, path: join(dir, 'html', `${id}.html.gz`), articleBody: t.articleBody ?? '' }));
}

// ---- WCXB ---------------------------------------------------------------------------------

export interface Prf {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

/** evaluate.py's `word_f1`: bag-of-words overlap of lower-cased `\w+` tokens. */
export function wordF1(pred: string, reference: string): Prf {
  const p = wordTokens(pred.toLowerCase());
  const r = wordTokens(reference.toLowerCase());
  if (!r.length) return p.length ? { precision: 0, recall: 0, f1: 0 } : { precision: 1, recall: 1, f1: 1 };
  if (!p.length) return { precision: 0, recall: 0, f1: 0 };
  const counts = new Map<string, number>();
  for (const t of r) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      overlap += 1;
      counts.set(t, c - 1);
    }
  }
  const precision = overlap / p.length;
  const recall = overlap / r.length;
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

/** Mean per-page precision, recall and F1 (evaluate.py's aggregate). */
export function meanPrf(pages: readonly Prf[]): Prf {
  return { precision: mean(pages.map((p) => p.precision)), recall: mean(pages.map((p) => p.recall)), f1: mean(pages.map((p) => p.f1)) };
}

export const WCXB_TYPES = ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'] as const;

export interface WcxbPage {
  readonly id: string;
  readonly url: string;
  readonly path: string;
  readonly pageType: string;
  readonly mainContent: string;
}

/** Where the full WCXB lives once bench/data/wcxb/fetch.sh has run (gitignored). */
export const WCXB_DIR = join(HERE, 'data', 'wcxb', 'full');
/** Seven dev pages (one per page type) committed for the tests. */
export const WCXB_SAMPLE_DIR = join(HERE, 'data', 'wcxb', 'sample');

/** The pages of one WCXB split (`dev` or `test`) under `dir`, by file id, or null when absent. Page type as evaluate.py reads it. */
export function wcxbPages(split: 'dev' | 'test', dir = WCXB_DIR): WcxbPage[] | null {
  const gtDir = join(dir, split, 'ground-truth');
  if (!existsSync(gtDir)) return null;
  const out: WcxbPage[] = [];
  for (const f of readdirSync(gtDir).filter((n) => n.endsWith('.json')).sort()) {
    const data = JSON.parse(readFileSync(join(gtDir, f), 'utf8')) as {
      url?: string;
      ground_truth?: unknown;
      _internal?: { page_type?: { primary?: string } | string } | null;
    };
    const gt = data.ground_truth;
    if (!gt || typeof gt !== 'object' || Array.isArray(gt)) continue;
    const pt = data._internal?.page_type;
    const primary = typeof pt === 'string' ? pt : pt && typeof pt === 'object' ? pt.primary ?? 'article' : 'article';
    const id = f.slice(0, -'.json'.length);
    out.push({
      id,
      url: data.url ?? 'http://localhost/',
      path: join(dir, split, 'html', `${id}.html.gz`),
      pageType: primary === 'category' ? 'collection' : primary,
      mainContent: String((gt as { main_content?: unknown }).main_content ?? ''),
    });
  }
  return out;
}
