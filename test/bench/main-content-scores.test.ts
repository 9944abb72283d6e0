/**
 * The broader main-content benchmarks' metrics (bench/main-content-scores.ts) on hand-made
 * examples whose figures are worked out below, and their loaders on the committed data (the
 * scrapinghub set and WCXB's seven-page sample).
 */
import { describe, expect, it } from 'vitest';
import {
  WCXB_SAMPLE_DIR, WCXB_TYPES, exactTokens, meanPrf, scrapinghubMetrics, scrapinghubPages, shingleMatch, wcxbPages, wordF1, wordTokens,
} from '../../bench/main-content-scores.js';

describe('main-content benchmark metrics', () => {
  it("tokenizes as Python's \\w+ does: letters and digits of any script and _, marks split", () => {
    expect(wordTokens("naïve café, x_y 3.5 l'été")).toEqual(['naïve', 'café', 'x_y', '3', '5', 'l', 'été']);
    expect(wordTokens('e\u0301t')).toEqual(['e', 't']);
  });

  it('scores WCXB word F1 as a bag of lower-cased words', () => {
    // reference: the cat sat on the mat (6 words); prediction: The cat sat, menu home (5 words).
    // overlap: the, cat, sat = 3 → P 3/5, R 3/6, F1 2·0.6·0.5/1.1.
    const m = wordF1('The cat sat, menu home', 'the cat sat on the mat');
    expect(m.precision).toBeCloseTo(0.6, 10);
    expect(m.recall).toBeCloseTo(0.5, 10);
    expect(m.f1).toBeCloseTo(0.6 / 1.1, 10);
    // A repeated word counts only as often as the reference has it: "the the the" against "the cat" → 1 of 3, 1 of 2.
    expect(wordF1('the the the', 'the cat').precision).toBeCloseTo(1 / 3, 10);
    expect(wordF1('the the the', 'the cat').recall).toBeCloseTo(0.5, 10);
    // Empty cases, as evaluate.py: empty reference → 1 only for an empty prediction.
    expect(wordF1('', '').f1).toBe(1);
    expect(wordF1('x', '').f1).toBe(0);
    expect(wordF1('', 'x').f1).toBe(0);
    // The aggregate is the mean of per-page figures, not of summed counts.
    expect(meanPrf([m, wordF1('a b', 'a b')]).f1).toBeCloseTo((0.6 / 1.1 + 1) / 2, 10);
  });

  it('scores the article benchmark by word-4-gram shingles, means of P and R, F1 of the means', () => {
    // truth a b c d e (shingles abcd, bcde); prediction a b c d x (abcd, bcdx):
    // tp 1, fp 1, fn 1 → normalized 1/3 each; P = R = 0.5.
    const page1 = shingleMatch('a b c d e', 'a b c d x');
    expect(page1.map((x) => Number(x.toFixed(6)))).toEqual([0.333333, 0.333333, 0.333333]);
    // Exact match: fp = fn = 0 → P = R = 1.
    const page2 = shingleMatch('one two three four', 'one two three four');
    expect(page2).toEqual([1, 0, 0]);
    // Nothing predicted: tp = fp = 0 → left out of the precision mean, recall 0.
    const page3 = shingleMatch('p q r s', '');
    expect(page3).toEqual([0, 0, 1]);
    const m = scrapinghubMetrics([page1, page2, page3]);
    expect(m.precision).toBeCloseTo((0.5 + 1) / 2, 10);
    expect(m.recall).toBeCloseTo((0.5 + 1 + 0) / 3, 10);
    expect(m.f1).toBeCloseTo((2 * 0.75 * 0.5) / 1.25, 10);
    // Case is kept (the tokens are not lower-cased) and a text shorter than 4 tokens is one shingle.
    expect(shingleMatch('A b', 'a b')).toEqual([0, 0.5, 0.5]);
    expect(exactTokens('Hello, world!', 'Hello world')).toBe(true);
    expect(exactTokens('Hello world', 'hello world')).toBe(false);
  });

  it('reads the committed data: 181 scrapinghub articles and the WCXB sample with its page types', () => {
    const sh = scrapinghubPages();
    expect(sh).toHaveLength(181);
    expect(sh?.every((p) => p.path.endsWith('.html.gz') && p.url.startsWith('http'))).toBe(true);
    const sample = wcxbPages('dev', WCXB_SAMPLE_DIR);
    expect(sample?.map((p) => p.pageType).sort()).toEqual([...WCXB_TYPES].sort());
    expect(sample?.every((p) => p.mainContent.length > 100)).toBe(true);
    expect(wcxbPages('test', WCXB_SAMPLE_DIR)).toBeNull();
  });
});
