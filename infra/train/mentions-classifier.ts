/**
 * Trains the offline mention classifier (pipeline/mentions/classifier.ts) and writes
 * pipeline/mentions/classifier-model.json:
 *
 *   npx tsx infra/train/mentions-classifier.ts
 *
 * Data: bench/data/mentions/train.jsonl (public labelled sets, SOURCES.md beside it); the
 * held-out bench/data/mentions/test.jsonl is only scored at the end, per category.
 *
 * Model: multinomial logistic regression on the classifier's hashed features, trained by
 * AdaGrad with L2 (applied to the weights an example touches), classes weighted by
 * n / (k · n_class) so each category counts alike, examples in an order shuffled by a seeded
 * generator: the same data gives the same weights, bit for bit. Buckets that fewer than
 * `minDocs` training posts have are left at zero (a feature seen once says nothing and would
 * only swell the file). The softmax temperature is fitted on a calibration slice of the
 * training set (a hash of the text picks one post in ten) by a model trained without it; the
 * shipped weights are then trained on the whole training set. Weights are quantised to int8
 * with one scale; buckets whose weights all round to zero are left out of the file.
 *
 * The file: metadata (classifier name and version, trained_at, data sources, feature settings,
 * labels, training settings, held-out scores) and the weights as base64 of rows sorted by
 * bucket, each a varint delta of the bucket then one int8 per label. Progress on stderr.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MENTION_CATEGORIES } from '../../schemas/api/monitoring.js';
import {
  CUE_BUCKETS, cue, decodeMentionModel, mentionFeatures, mentionProbabilities, wordBuckets, type MentionCategory, type MentionInput, type MentionModelFile,
  type PrecedenceRule,
} from '../../pipeline/mentions/classifier.js';

export interface LabelledMention {
  readonly text: string;
  readonly title?: string;
  readonly label: MentionCategory;
  readonly source: string;
  /** The watch's own term(s) in this post (a product, a project); `__brand__` in the features. */
  readonly brand?: string | readonly string[];
  readonly competitors?: readonly string[];
}

export interface TrainOptions {
  readonly bucketBits: number;
  readonly epochs: number;
  readonly learningRate: number;
  readonly l2: number;
  readonly minDocs: number;
  /**
   * Buckets that fewer than `minSources` training sources have are left at zero too: a word only
   * one data set uses says which data set a post came from, not what the post does, and the
   * model would learn that source's wording for its categories instead of what carries over.
   */
  readonly minSources: number;
  /** What each cue counts beside the post's words (which share a unit norm); see classifier.ts. */
  readonly cueValue: number;
  /**
   * How examples are weighted: `class`, n / (k · n_class), each category alike; `source`, each
   * category alike and within it each source alike, n / (k · sources_class · n_source_class), so
   * no one source's wording stands for a category.
   */
  readonly balance: 'class' | 'source';
  readonly seed: number;
  /**
   * Fixed logit bonuses the shipped classifier adds when a post has a cue (classifier.ts,
   * "Precedence"); written to the model file, not learned: the training fits the weights without
   * them, the temperature with them.
   */
  readonly precedence: readonly PrecedenceRule[];
  readonly trainedAt: string;
  readonly sources: readonly string[];
  /** Called as training goes (stage, done, total); the CLI draws a bar with it. */
  readonly progress?: (stage: string, done: number, total: number) => void;
}

export const DEFAULT_OPTIONS: TrainOptions = {
  bucketBits: 18, epochs: 12, learningRate: 0.25, l2: 1e-5, minDocs: 2, minSources: 1, cueValue: 0.3, balance: 'class', seed: 20240611,
  precedence: [{ cue: 'question_form', category: 'question', logit: 1 }, { cue: 'buy', category: 'buying_intent', logit: 2 }],
  trainedAt: new Date(0).toISOString(), sources: [],
};

const CLASSIFIER = 'linear-v4';
const LABELS: readonly MentionCategory[] = MENTION_CATEGORIES;

export function mentionInput(row: LabelledMention): MentionInput {
  return { text: row.text, title: row.title ?? null, brandTerms: row.brand === undefined ? [] : typeof row.brand === 'string' ? [row.brand] : row.brand, competitors: row.competitors ?? [] };
}

export function readMentions(path: string | URL): LabelledMention[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as LabelledMention);
}

/** mulberry32: a small seeded generator, so the shuffles are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A post's buckets, their values (words 1/sqrt(words), cues `cueValue`) and its class. */
interface Example { readonly buckets: Uint32Array; readonly values: Float64Array; readonly y: number; readonly source: string }

interface Dense { readonly w: Float64Array; readonly bias: Float64Array }

function examples(rows: readonly LabelledMention[], bucketBits: number, cueValue: number): Example[] {
  const cueBase = (1 << bucketBits) - CUE_BUCKETS;
  return rows.map((r) => {
    const buckets = mentionFeatures(mentionInput(r), bucketBits);
    const words = wordBuckets(buckets, cueBase);
    const values = Float64Array.from(buckets, (_, i) => (i < words ? 1 / Math.sqrt(words) : cueValue));
    return { buckets, values, y: LABELS.indexOf(r.label), source: r.source };
  });
}

/** Buckets that at least `minDocs` examples of at least `minSources` sources have. */
function keptBuckets(data: readonly Example[], bucketBits: number, minDocs: number, minSources: number): Uint8Array {
  const docs = new Uint16Array(1 << bucketBits);
  const ids = new Map<string, number>();
  for (const e of data) if (!ids.has(e.source)) ids.set(e.source, ids.size);
  // Each bucket's sources as bits while there are at most 32; with more, sources past the 32nd share the last bit (kept buckets can only grow).
  const seen = new Uint32Array(minSources > 1 ? 1 << bucketBits : 0);
  for (const e of data) {
    const bit = 1 << Math.min(ids.get(e.source) as number, 31);
    for (const b of e.buckets) {
      docs[b] = Math.min(65535, (docs[b] as number) + 1);
      if (minSources > 1) seen[b] = ((seen[b] as number) | bit) >>> 0;
    }
  }
  return Uint8Array.from(docs, (n, b) => (n >= minDocs && (minSources <= 1 || bitCount(seen[b] as number) >= minSources) ? 1 : 0));
}

function bitCount(n: number): number {
  let count = 0;
  for (let v = n >>> 0; v; v &= v - 1) count++;
  return count;
}

function logitsOf(model: Dense, e: Example, out: Float64Array): void {
  const k = LABELS.length;
  for (let c = 0; c < k; c++) out[c] = model.bias[c] as number;
  for (let i = 0; i < e.buckets.length; i++) {
    const b = e.buckets[i] as number;
    const value = e.values[i] as number;
    for (let c = 0; c < k; c++) out[c] = (out[c] as number) + (model.w[b * k + c] as number) * value;
  }
}

function softmaxInPlace(z: Float64Array, temperature = 1): void {
  let max = -Infinity;
  for (let c = 0; c < z.length; c++) max = Math.max(max, (z[c] as number) / temperature);
  let sum = 0;
  for (let c = 0; c < z.length; c++) sum += z[c] = Math.exp((z[c] as number) / temperature - max);
  for (let c = 0; c < z.length; c++) z[c] = (z[c] as number) / sum;
}

/** Each example's weight in the loss (see TrainOptions.balance). */
function exampleWeights(data: readonly Example[], balance: TrainOptions['balance']): Float64Array {
  const k = LABELS.length;
  const counts = new Array<number>(k).fill(0);
  const groups = new Map<string, number>();
  const sources = Array.from({ length: k }, () => new Set<string>());
  for (const e of data) {
    counts[e.y] = (counts[e.y] as number) + 1;
    groups.set(`${e.y} ${e.source}`, (groups.get(`${e.y} ${e.source}`) ?? 0) + 1);
    sources[e.y]?.add(e.source);
  }
  return Float64Array.from(data, (e) => balance === 'class'
    ? data.length / (k * (counts[e.y] as number))
    : data.length / (k * (sources[e.y] as Set<string>).size * (groups.get(`${e.y} ${e.source}`) as number)));
}

/** AdaGrad on the class-weighted softmax loss; deterministic for a given seed. */
function fit(data: readonly Example[], options: TrainOptions, stage: string): Dense {
  const k = LABELS.length;
  const size = 1 << options.bucketBits;
  const kept = keptBuckets(data, options.bucketBits, options.minDocs, options.minSources ?? 1);
  const model: Dense = { w: new Float64Array(size * k), bias: new Float64Array(k) };
  const g2 = new Float64Array(size * k);
  const b2 = new Float64Array(k);
  const weights = exampleWeights(data, options.balance);
  const order = data.map((_, i) => i);
  const random = seeded(options.seed);
  const p = new Float64Array(k);
  const total = options.epochs * data.length;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (let n = 0; n < order.length; n++) {
      const e = data[order[n] as number] as Example;
      logitsOf(model, e, p);
      softmaxInPlace(p);
      const cw = weights[order[n] as number] as number;
      for (let c = 0; c < k; c++) {
        const g = cw * ((p[c] as number) - (c === e.y ? 1 : 0));
        b2[c] = (b2[c] as number) + g * g;
        model.bias[c] = (model.bias[c] as number) - (options.learningRate * g) / (Math.sqrt(b2[c] as number) + 1e-8);
        for (let i = 0; i < e.buckets.length; i++) {
          const b = e.buckets[i] as number;
          if (!kept[b]) continue;
          const at = b * k + c;
          const grad = g * (e.values[i] as number) + options.l2 * (model.w[at] as number);
          g2[at] = (g2[at] as number) + grad * grad;
          model.w[at] = (model.w[at] as number) - (options.learningRate * grad) / (Math.sqrt(g2[at] as number) + 1e-8);
        }
      }
      const done = epoch * data.length + n + 1;
      if (done % Math.ceil(total / 100) === 0 || done === total) options.progress?.(stage, done, total);
    }
  }
  return model;
}

/** The temperature (0.25–4, step 0.05) that minimises the log loss of `model` on `data`, the precedence bonuses added as the classifier adds them. */
function fitTemperature(model: Dense, data: readonly Example[], options: TrainOptions): number {
  const cueBase = (1 << options.bucketBits) - CUE_BUCKETS;
  const logits = data.map((e) => {
    const z = new Float64Array(LABELS.length);
    logitsOf(model, e, z);
    for (const rule of options.precedence) {
      const c = LABELS.indexOf(rule.category);
      if (e.buckets.includes(cueBase + cue(rule.cue))) z[c] = (z[c] as number) + rule.logit;
    }
    return z;
  });
  let best = 1, bestLoss = Infinity;
  for (let t = 0.25; t <= 4.0001; t += 0.05) {
    let loss = 0;
    for (let i = 0; i < data.length; i++) {
      const z = Float64Array.from(logits[i] as Float64Array);
      softmaxInPlace(z, t);
      loss -= Math.log(Math.max(z[(data[i] as Example).y] as number, 1e-12));
    }
    if (loss < bestLoss) [best, bestLoss] = [Math.round(t * 100) / 100, loss];
  }
  return best;
}

function varint(n: number, out: number[]): void {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
}

/** Int8 weights with one scale; rows that are all zero are left out. */
function quantise(model: Dense, bucketBits: number): { scale: number; weights: string; rows: number } {
  const k = LABELS.length;
  let max = 0;
  for (const v of model.w) max = Math.max(max, Math.abs(v));
  const scale = max / 127 || 1;
  const bytes: number[] = [];
  let last = 0, rows = 0;
  const q = new Int8Array(k);
  for (let b = 0; b < 1 << bucketBits; b++) {
    let any = false;
    for (let c = 0; c < k; c++) {
      q[c] = Math.round((model.w[b * k + c] as number) / scale);
      if (q[c]) any = true;
    }
    if (!any) continue;
    varint(b - last, bytes);
    last = b;
    rows++;
    for (let c = 0; c < k; c++) bytes.push((q[c] as number) & 0xff);
  }
  return { scale, weights: Buffer.from(bytes).toString('base64'), rows };
}

function isCalibration(row: LabelledMention): boolean {
  let h = 0x811c9dc5;
  const key = `${row.title ?? ''} ${row.text}`;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return (h >>> 0) % 10 === 0;
}

/**
 * Trains on `rows` and returns the model file's content (deterministic for the same rows and
 * options). `skipCalibration` leaves the temperature at 1 and saves the calibration model's
 * training: for evaluations that only take the winning category, which the temperature never
 * changes.
 */
export function trainMentionClassifier(rows: readonly LabelledMention[], options: TrainOptions = DEFAULT_OPTIONS, skipCalibration = false): MentionModelFile {
  const all = examples(rows, options.bucketBits, options.cueValue);
  const calibration = all.filter((_, i) => isCalibration(rows[i] as LabelledMention));
  const rest = all.filter((_, i) => !isCalibration(rows[i] as LabelledMention));
  const temperature = !skipCalibration && calibration.length && rest.length ? fitTemperature(fit(rest, options, 'calibration'), calibration, options) : 1;
  const model = fit(all, options, 'training');
  const { scale, weights, rows: kept } = quantise(model, options.bucketBits);
  const counts = Object.fromEntries(LABELS.map((l) => [l, rows.filter((r) => r.label === l).length]));
  return {
    classifier: CLASSIFIER,
    version: 1,
    trained_at: options.trainedAt,
    labels: [...LABELS],
    data: { sources: options.sources, train_counts: counts, docs: 'bench/data/mentions/SOURCES.md' },
    features: {
      bucketBits: options.bucketBits, hash: 'fnv1a-32', tokens: 'unicode letter/digit runs, lower-cased', stems: 'porter (stemmer)',
      bigrams: true, placeholders: ['__brand__', '__competitor__'], normalisation: 'binary; words l2, each cue cueValue', maxTokens: 2000,
      cueBuckets: CUE_BUCKETS, cueValue: options.cueValue,
    },
    training: { method: 'multinomial logistic regression, AdaGrad + L2, class-weighted', balance: options.balance, epochs: options.epochs, learningRate: options.learningRate, l2: options.l2, minDocs: options.minDocs, minSources: options.minSources, seed: options.seed, buckets_kept: kept },
    temperature,
    precedence: options.precedence,
    scale,
    bias: Array.from(model.bias, (b) => Math.round(b * 1e6) / 1e6),
    weights,
  };
}

export interface CategoryScore { readonly precision: number; readonly recall: number; readonly f1: number; readonly support: number }

/** Per-category precision, recall, F1 and their macro-F1 (over the categories the gold labels have). */
export function scoreCategories(gold: readonly string[], predicted: readonly string[]): { macroF1: number; perCategory: Record<string, CategoryScore> } {
  const perCategory: Record<string, CategoryScore> = {};
  const present = LABELS.filter((l) => gold.includes(l));
  for (const label of present) {
    let tp = 0, fp = 0, fn = 0;
    for (let i = 0; i < gold.length; i++) {
      if (predicted[i] === label && gold[i] === label) tp++;
      else if (predicted[i] === label) fp++;
      else if (gold[i] === label) fn++;
    }
    const precision = tp + fp ? tp / (tp + fp) : 0;
    const recall = tp + fn ? tp / (tp + fn) : 0;
    perCategory[label] = { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0, support: tp + fn };
  }
  const macroF1 = present.reduce((s, l) => s + (perCategory[l] as CategoryScore).f1, 0) / (present.length || 1);
  return { macroF1, perCategory };
}

function bar(stage: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\rtrain/mentions ${stage} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}   `);
  if (done >= total) process.stderr.write('\n');
}

function main(): void {
  const data = new URL('../../bench/data/mentions/', import.meta.url);
  const train = readMentions(new URL('train.jsonl', data));
  const test = readMentions(new URL('test.jsonl', data));
  const sources = [...new Set(train.map((r) => r.source))].sort();
  const file = trainMentionClassifier(train, { ...DEFAULT_OPTIONS, trainedAt: new Date().toISOString(), sources, progress: bar });
  const model = decodeMentionModel(file);
  const predicted = test.map((r) => {
    const buckets = mentionFeatures(mentionInput(r), model.bucketBits);
    const p = mentionProbabilities(model, buckets);
    return model.labels[p.indexOf(Math.max(...p))] as string;
  });
  const heldOut = scoreCategories(test.map((r) => r.label), predicted);
  const out = { ...file, held_out: { items: test.length, macro_f1: round(heldOut.macroF1), f1: Object.fromEntries(Object.entries(heldOut.perCategory).map(([l, s]) => [l, round(s.f1)])) } };
  const target = fileURLToPath(new URL('../../pipeline/mentions/classifier-model.json', import.meta.url));
  writeFileSync(target, `${JSON.stringify(out, null, 1)}\n`);
  process.stderr.write(`wrote ${target} (${(JSON.stringify(out).length / 1024).toFixed(0)} KiB)\n`);
  process.stdout.write(`held-out (${test.length} posts): macro-F1 ${round(heldOut.macroF1)}\n`);
  for (const [label, s] of Object.entries(heldOut.perCategory)) {
    process.stdout.write(`  ${label.padEnd(14)} P ${round(s.precision)}  R ${round(s.recall)}  F1 ${round(s.f1)}  (${s.support})\n`);
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
