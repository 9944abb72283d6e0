/**
 * Leave-one-source-out (LOSO) evaluation of the offline mention classifier: for each source of
 * the labelled data (bench/data/mentions/SOURCES.md), train on every other source with the same
 * training code as the shipped model (`trainMentionClassifier`), then classify the held-out
 * source's posts. Every post of the held-out source is scored (its train and test halves
 * alike: none of them was trained on in that fold).
 *
 * The models are trained without the temperature's calibration step, which only rescales the
 * scores and never changes the winning category, the one thing scored here.
 *
 * Scores per held-out source are macro-F1 over the categories that source has (a source labels
 * only some of the seven: compsent19 only `competitor` / `other`, iphonex-pi and adidas21 only
 * `buying_intent`, for which F1 is 2R / (1 + R) as nothing else is scored). Two summaries:
 * - `meanMacroF1`: the mean of the per-source macro-F1 (every source counts alike);
 * - `pooled`: every post's held-out prediction pooled, then per-category F1 over the pool, so a
 *   category's precision also counts the posts of other sources wrongly put in it.
 * A category that only one source has (`competitor`) is never seen in training when that
 * source is held out: its held-out F1 measures what carries over from the other categories'
 * features, which is the point of the evaluation.
 */
import { classifyMention, decodeMentionModel } from '../../pipeline/mentions/classifier.js';
import {
  DEFAULT_OPTIONS, mentionInput, scoreCategories, trainMentionClassifier, type CategoryScore, type LabelledMention, type TrainOptions,
} from './mentions-classifier.js';

export interface SourceFold {
  readonly source: string;
  readonly train: readonly LabelledMention[];
  readonly heldOut: readonly LabelledMention[];
}

export interface FoldScore {
  readonly source: string;
  readonly items: number;
  readonly trainItems: number;
  readonly macroF1: number;
  readonly perCategory: Record<string, CategoryScore>;
}

export interface LosoResult {
  readonly folds: readonly FoldScore[];
  readonly meanMacroF1: number;
  readonly pooled: { readonly macroF1: number; readonly perCategory: Record<string, CategoryScore> };
}

/** One fold per source (sorted by name): its posts held out, every other source's posts to train on. */
export function sourceFolds(rows: readonly LabelledMention[]): SourceFold[] {
  const sources = [...new Set(rows.map((r) => r.source))].sort();
  return sources.map((source) => ({
    source,
    train: rows.filter((r) => r.source !== source),
    heldOut: rows.filter((r) => r.source === source),
  }));
}

/** Trains on each fold's other sources and scores its held-out source; `onFold` sees each fold as it ends. */
export function leaveOneSourceOut(
  rows: readonly LabelledMention[],
  options: TrainOptions = DEFAULT_OPTIONS,
  onFold?: (score: FoldScore, index: number, total: number) => void,
): LosoResult {
  const folds = sourceFolds(rows);
  const scores: FoldScore[] = [];
  const gold: string[] = [];
  const predicted: string[] = [];
  for (const [index, fold] of folds.entries()) {
    const sources = [...new Set(fold.train.map((r) => r.source))].sort();
    const model = decodeMentionModel(trainMentionClassifier(fold.train, { ...options, sources, progress: undefined }, true));
    const labels = fold.heldOut.map((r) => r.label as string);
    const guesses = fold.heldOut.map((r) => classifyMention(mentionInput(r), model).category as string);
    const { macroF1, perCategory } = scoreCategories(labels, guesses);
    const score = { source: fold.source, items: fold.heldOut.length, trainItems: fold.train.length, macroF1, perCategory };
    scores.push(score);
    gold.push(...labels);
    predicted.push(...guesses);
    onFold?.(score, index + 1, folds.length);
  }
  const meanMacroF1 = scores.reduce((s, f) => s + f.macroF1, 0) / (scores.length || 1);
  return { folds: scores, meanMacroF1, pooled: scoreCategories(gold, predicted) };
}
