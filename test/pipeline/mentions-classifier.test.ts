/**
 * The offline mention classifier with its shipped model (pipeline/mentions/classifier-model.json):
 * held-out quality (deterministic: same model, same split), placeholders, scores, odd input,
 * and that training is deterministic (infra/train/mentions-classifier.ts on a small slice).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyMention, decodeMentionModel, loadMentionModel, mentionFeatures, mentionProbabilities, tokenize, wordBuckets, type MentionModelFile } from '../../pipeline/mentions/classifier.js';
import { DEFAULT_OPTIONS, mentionInput, readMentions, scoreCategories, trainMentionClassifier } from '../../infra/train/mentions-classifier.js';

const data = new URL('../../bench/data/mentions/', import.meta.url);
const test = readMentions(new URL('test.jsonl', data));

describe('pipeline/mentions/classifier', () => {
  it('scores macro-F1 above 0.75 on the held-out split, every category present', () => {
    const predicted = test.map((r) => classifyMention(mentionInput(r)).category);
    const { macroF1, perCategory } = scoreCategories(test.map((r) => r.label), predicted);
    expect(Object.keys(perCategory).sort()).toEqual(['bug_report', 'buying_intent', 'competitor', 'complaint', 'other', 'praise', 'question']);
    expect(macroF1).toBeGreaterThan(0.75);
  });

  it('ships no source restricted to non-commercial use, in the data files or in the model (SOURCES.md)', () => {
    const nonCommercial = ['nps08'];
    const rows = test.concat(readMentions(new URL('train.jsonl', data)));
    expect(rows.filter((r) => nonCommercial.includes(r.source))).toEqual([]);
    const model = JSON.parse(readFileSync(new URL('../../pipeline/mentions/classifier-model.json', import.meta.url), 'utf8')) as { data: { sources: string[] } };
    expect(model.data.sources).toEqual([...new Set(rows.map((r) => r.source))].sort());
    expect(model.data.sources.filter((s) => nonCommercial.includes(s))).toEqual([]);
  });

  it('names the classifier and gives a score in (0, 1] for every held-out post', () => {
    for (const row of test) {
      const { score, classifier } = classifyMention(mentionInput(row));
      expect(classifier).toBe('linear-v4');
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('reads a compared competitor through its placeholder: naming it as a competitor decides, its name does not', () => {
    const compared = test.filter((r) => r.source === 'compsent19' && r.label === 'competitor');
    const share = (withCompetitor: boolean) =>
      compared.filter((r) => classifyMention({ ...mentionInput(r), competitors: withCompetitor ? (r.competitors ?? []) : [] }).category === 'competitor').length / compared.length;
    expect(compared.length).toBeGreaterThan(100);
    expect(share(true)).toBeGreaterThan(0.75);
    expect(share(false)).toBeLessThan(share(true) - 0.4);

    const bits = loadMentionModel().bucketBits;
    const named = (name: string) => mentionFeatures({ text: `Honestly ${name} runs better than Acme here.`, brandTerms: ['Acme'], competitors: [name] }, bits);
    expect(Array.from(named('Globex Cloud'))).toEqual(Array.from(named('Initech')));
    expect(Array.from(named('Initech'))).not.toEqual(Array.from(mentionFeatures({ text: 'Honestly Initech runs better than Acme here.', brandTerms: ['Acme'], competitors: [] }, bits)));
  });

  it('adds the model file\'s precedence bonuses: question form toward question, purchase intent toward buying_intent', () => {
    const model = loadMentionModel();
    const at = (label: string) => model.labels.indexOf(label as never);
    expect(model.precedence.map((r) => [model.labels[r.label], r.logit])).toEqual([['question', 1], ['buying_intent', 2]]);
    const plain = { ...model, precedence: [] };
    // The log-odds of the favoured category against any other move by exactly the bonus (over the temperature).
    const shift = (text: string, title: string | null, favoured: string) => {
      const buckets = mentionFeatures({ text, title, brandTerms: ['Acme'], competitors: [] }, model.bucketBits);
      const [p, q] = [mentionProbabilities(model, buckets), mentionProbabilities(plain, buckets)];
      const other = at('praise');
      return Math.log((p[at(favoured)] as number) / (p[other] as number)) - Math.log((q[at(favoured)] as number) / (q[other] as number));
    };
    expect(shift('Does Acme sync with Outlook calendars', null, 'question')).toBeCloseTo(1 / model.temperature, 6);
    expect(shift('Anyone know if it runs offline', null, 'question')).toBeCloseTo(1 / model.temperature, 6);
    // An issue asks when its title does, whatever its body says.
    expect(shift('Steps: open the app. Expected: it opens?', 'Crash on start', 'question')).toBeCloseTo(0, 6);
    expect(shift('Crashes on start, log below.', 'How do I get Acme to start?', 'question')).toBeCloseTo(1 / model.temperature, 6);
    expect(shift('I want an Acme so bad', null, 'buying_intent')).toBeCloseTo(2 / model.temperature, 6);
    expect(shift('Acme keeps my files in order', null, 'question')).toBeCloseTo(0, 6);

    const file = JSON.parse(readFileSync(new URL('../../pipeline/mentions/classifier-model.json', import.meta.url), 'utf8')) as MentionModelFile;
    expect(() => decodeMentionModel({ ...file, precedence: [{ cue: 'buy', category: 'leads' as never, logit: 1 }] })).toThrow(/precedence/);
    expect(decodeMentionModel({ ...file, precedence: undefined }).precedence).toEqual([]);
  });

  it('tokenizes Unicode letters and digits in one scan and marks sentence starts', () => {
    expect(tokenize('Ça plante!  Why? 東京 v2.0 — ok')).toEqual({
      tokens: ['ça', 'plante', 'why', '東京', 'v2', '0', 'ok'],
      starts: [true, false, true, true, false, true, false],
    });
  });

  it('takes empty, emoji-only, broken and very long input without throwing', () => {
    const odd = [
      { text: '', title: null },
      { text: '😀🎉🔥', title: '🙂' },
      { text: '\ud800 lone surrogate \udfff', title: undefined },
      { text: 'this app keeps crashing '.repeat(900), title: 'x'.repeat(5000) },
    ];
    for (const post of odd) {
      const result = classifyMention({ ...post, brandTerms: ['', '  ', 'Acme'], competitors: ['!!', 'Globex'] });
      expect(result.score).toBeGreaterThan(0);
      expect(result.score).toBeLessThanOrEqual(1);
    }
    expect(classifyMention({ text: '😀🎉🔥', brandTerms: [], competitors: [] })).toEqual({ category: 'other', score: 1, classifier: 'linear-v4' });
    expect(classifyMention({ text: 'this app keeps crashing '.repeat(900), brandTerms: [], competitors: [] }).category).toBe('bug_report');
  });

  it('trains to the same weights twice on the same data', () => {
    const slice = readMentions(new URL('train.jsonl', data)).filter((_, i) => i % 40 === 0);
    const options = { ...DEFAULT_OPTIONS, bucketBits: 14, epochs: 2 };
    const first = trainMentionClassifier(slice, options);
    const second = trainMentionClassifier(slice, options);
    expect(first.weights.length).toBeGreaterThan(100);
    expect(second.weights).toBe(first.weights);
    expect(second.bias).toEqual(first.bias);
    expect(second.temperature).toBe(first.temperature);
  });

  it('leaves a word at zero when fewer than minSources training sources have it', () => {
    const bits = 14;
    const rows = [
      ...Array.from({ length: 6 }, (_, i) => ({ text: `zorblax works great ${i}`, label: 'praise' as const, source: 'a' })),
      ...Array.from({ length: 6 }, (_, i) => ({ text: `great stuff here ${i}`, label: 'praise' as const, source: 'b' })),
      ...Array.from({ length: 6 }, (_, i) => ({ text: `terrible stuff here ${i}`, label: 'complaint' as const, source: 'b' })),
    ];
    // The weights of a word's buckets (its stem and its bigram with the sentence start), the cues left out.
    const weightsOf = (minSources: number, word: string) => {
      const model = decodeMentionModel(trainMentionClassifier(rows, { ...DEFAULT_OPTIONS, bucketBits: bits, epochs: 2, minSources }, true));
      const buckets = mentionFeatures({ text: word, brandTerms: [], competitors: [] }, bits);
      const k = model.labels.length;
      return Array.from(buckets.subarray(0, wordBuckets(buckets, model.cueBase))).flatMap((b) => Array.from(model.weights.subarray(b * k, (b + 1) * k)));
    };
    // "zorblax" is source a's alone; "great" both sources'.
    expect(weightsOf(1, 'zorblax').some((w) => w !== 0)).toBe(true);
    expect(weightsOf(2, 'zorblax').every((w) => w === 0)).toBe(true);
    expect(weightsOf(2, 'great').some((w) => w !== 0)).toBe(true);
  });
});
