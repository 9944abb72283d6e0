/**
 * Leave-one-source-out evaluation (infra/train/mentions-loso.ts): no fold trains on a post of the
 * source it holds out, every post is held out exactly once, and the scores are the held-out
 * source's own (macro-F1 over the categories it has; pooled F1 over all held-out predictions).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, readMentions, type LabelledMention } from '../../infra/train/mentions-classifier.js';
import { leaveOneSourceOut, sourceFolds } from '../../infra/train/mentions-loso.js';

const data = new URL('../../bench/data/mentions/', import.meta.url);
const rows = readMentions(new URL('test.jsonl', data)).concat(readMentions(new URL('train.jsonl', data)));

describe('infra/train/mentions-loso', () => {
  it('holds each source out once and never trains on the held-out source', () => {
    const folds = sourceFolds(rows);
    const sources = [...new Set(rows.map((r) => r.source))].sort();
    expect(folds.map((f) => f.source)).toEqual(sources);
    expect(sources.length).toBeGreaterThan(5);
    for (const fold of folds) {
      expect(fold.heldOut.length).toBeGreaterThan(0);
      expect(fold.heldOut.every((r) => r.source === fold.source)).toBe(true);
      expect(fold.train.some((r) => r.source === fold.source)).toBe(false);
      const heldTexts = new Set(fold.heldOut);
      expect(fold.train.some((r) => heldTexts.has(r))).toBe(false);
      expect(fold.train.length + fold.heldOut.length).toBe(rows.length);
    }
    expect(folds.reduce((n, f) => n + f.heldOut.length, 0)).toBe(rows.length);
  });

  it('scores each held-out source over the categories it has, and pools every held-out prediction', () => {
    const slice: LabelledMention[] = rows.filter((_, i) => i % 25 === 0);
    const seen: string[] = [];
    const result = leaveOneSourceOut(slice, { ...DEFAULT_OPTIONS, bucketBits: 14, epochs: 2 }, (fold) => seen.push(fold.source));
    expect(seen).toEqual(sourceFolds(slice).map((f) => f.source));
    for (const fold of result.folds) {
      const labels = new Set(slice.filter((r) => r.source === fold.source).map((r) => r.label));
      expect(Object.keys(fold.perCategory).sort()).toEqual([...labels].sort());
      expect(fold.items).toBe(slice.filter((r) => r.source === fold.source).length);
      expect(fold.trainItems).toBe(slice.length - fold.items);
      expect(fold.macroF1).toBeGreaterThanOrEqual(0);
      expect(fold.macroF1).toBeLessThanOrEqual(1);
    }
    const mean = result.folds.reduce((s, f) => s + f.macroF1, 0) / result.folds.length;
    expect(result.meanMacroF1).toBeCloseTo(mean, 12);
    const support = Object.values(result.pooled.perCategory).reduce((n, s) => n + s.support, 0);
    expect(support).toBe(slice.length);
  });
});
