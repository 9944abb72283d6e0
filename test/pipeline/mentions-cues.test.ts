/**
 * The mention classifier's cross-source cues (pipeline/mentions/cues.ts): asking forms,
 * purchase intent, comparisons (also "-er than"), faults and the sentiment lexicon with
 * negation, read from `tokenize`'s tokens.
 */
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../pipeline/mentions/classifier.js';
import { postCues } from '../../pipeline/mentions/cues.js';

const cues = (text: string) => {
  const { tokens, starts } = tokenize(text);
  return postCues(tokens, starts).sort();
};

describe('pipeline/mentions/cues', () => {
  it('reads asking forms, an interrogative opening and interrogative sentence starts', () => {
    expect(cues('Is there a way to export the report')).toEqual(['ask', 'ask_open', 'ask_sentence']);
    expect(cues('Thanks. How do I turn it off')).toContain('ask');
    expect(cues('Thanks. How do I turn it off')).not.toContain('ask_open');
    expect(cues('Export works now')).not.toContain('ask');
  });

  it('reads purchase intent and comparisons, including "-er than" within three tokens', () => {
    expect(cues("We're evaluating Acme, pricing for 40 seats")).toContain('buy');
    expect(cues('Looking to buy one next week')).toContain('buy');
    expect(cues('Acme vs Globex')).toContain('compare');
    expect(cues('we switched from Globex last year')).toContain('compare');
    expect(cues('Acme is much faster than Globex')).toContain('compare');
    expect(cues('more stable than before')).toContain('compare');
    expect(cues('other than that it is fine')).not.toContain('compare');
  });

  it('reads faults and sentiment, marking a negated word', () => {
    expect(cues('The app keeps crashing, steps to reproduce below')).toContain('fault');
    expect(cues('Love it, great app')).toEqual(['pos', 'pos_only']);
    expect(cues('terrible support')).toEqual(['neg', 'neg_only']);
    expect(cues('not good at all, awful')).toEqual(['neg', 'pos', 'pos_negated']);
    expect(cues('')).toEqual([]);
  });

  it('stays linear on long and repetitive input', () => {
    const { tokens, starts } = tokenize('is there a way how do i '.repeat(400), 2_000);
    expect(postCues(tokens, starts)).toContain('ask');
  });
});
