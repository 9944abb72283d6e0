/**
 * The mention classifier's cross-source cues (pipeline/mentions/cues.ts): asking forms,
 * purchase intent, comparisons (also "-er than"), faults, the sentiment lexicon and the
 * Opinion Lexicon's counts with negation, read from `tokenize`'s tokens.
 */
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../pipeline/mentions/classifier.js';
import { asksInForm, postCues } from '../../pipeline/mentions/cues.js';

const cues = (text: string) => {
  const { tokens, starts } = tokenize(text);
  return postCues(tokens, starts).sort();
};

describe('pipeline/mentions/cues', () => {
  it('reads asking forms, an interrogative opening and interrogative sentence starts', () => {
    expect(cues('Is there a way to export the report')).toEqual(['ask', 'ask_open', 'ask_sentence', 'lex_none']);
    expect(cues('Thanks. How do I turn it off')).toContain('ask');
    expect(cues('Thanks. How do I turn it off')).not.toContain('ask_open');
    expect(cues('Export works now')).not.toContain('ask');
    expect(asksInForm(tokenize('Can vanilla pods be blended into a paste').tokens)).toBe(true);
    expect(asksInForm(tokenize('Anyone know a good replacement for the charger').tokens)).toBe(true);
    expect(asksInForm(tokenize('Knife sharpening equipment').tokens)).toBe(false);
  });

  it('reads purchase intent and comparisons, including "-er than" within three tokens', () => {
    expect(cues("We're evaluating Acme, pricing for 40 seats")).toContain('buy');
    expect(cues('Looking to buy one next week')).toContain('buy');
    expect(cues('I want an iPhone so bad')).toContain('buy');
    expect(cues('might have to get one before the trip')).toContain('buy');
    expect(cues('The app works as described')).not.toContain('buy');
    expect(cues('Acme vs Globex')).toContain('compare');
    expect(cues('we switched from Globex last year')).toContain('compare');
    expect(cues('Acme is much faster than Globex')).toContain('compare');
    expect(cues('more stable than before')).toContain('compare');
    expect(cues('other than that it is fine')).not.toContain('compare');
  });

  it('reads faults and sentiment, marking a negated word', () => {
    expect(cues('The app keeps crashing, steps to reproduce below')).toContain('fault');
    expect(cues('Love it, great app')).toEqual(['lex_pos_2', 'lex_positive', 'pos', 'pos_only']);
    expect(cues('terrible service')).toEqual(['lex_neg_1', 'lex_negative', 'neg', 'neg_only']);
    // "good" negated counts on the negative side of the Opinion Lexicon's tally: two negative words.
    expect(cues('not good at all, awful')).toEqual(['lex_neg_2', 'lex_negative', 'neg', 'pos', 'pos_negated']);
    // Words only the larger lexicon has, and a post with no opinion word at all.
    expect(cues('a splendid, flawless and intuitive layout')).toEqual(['lex_pos_3', 'lex_positive']);
    expect(cues('the bezel is flimsy')).toEqual(['lex_neg_1', 'lex_negative']);
    expect(cues('The meeting is on Tuesday')).toEqual(['lex_none']);
    expect(cues('')).toEqual(['lex_none']);
  });

  it('stays linear on long and repetitive input', () => {
    const { tokens, starts } = tokenize('is there a way how do i '.repeat(400), 2_000);
    expect(postCues(tokens, starts)).toContain('ask');
  });
});
