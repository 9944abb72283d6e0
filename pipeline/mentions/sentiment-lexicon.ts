/**
 * The opinion words of the mention classifier's sentiment cues (cues.ts): Bing Liu's Opinion
 * Lexicon, "Opinion Lexicon by Bing Liu [http://www.cs.uic.edu/~liub] is licensed under CC BY 4.0
 * International [http://creativecommons.org/licenses/by/4.0/]", read from nltk_data
 * (`packages/corpora/opinion_lexicon.zip`, commit 5db857e6f7df11eabb5e5665836db9ec8df07e28; SOURCES.md
 * in bench/data/mentions/). Only its single-word entries (letters and digits, as the classifier's
 * tokens are), lower-cased: 1,904 positive and 4,659 negative words, kept as data in
 * sentiment-lexicon.json beside this file (with the source, licence and citation) and read on
 * first use, as the model is (classifier.ts).
 * Citation: Hu, Liu. *Mining and Summarizing Customer Reviews.* KDD 2004.
 */
import { readFileSync } from 'node:fs';

/**
 * Type-only, so nothing loads at import; but it puts the JSON in tsc's program, which is what
 * makes `npm run build` copy it to dist/ beside this module for the runtime read below.
 */
type LexiconJson = typeof import('./sentiment-lexicon.json', { with: { type: 'json' } });

export interface OpinionLexicon {
  readonly positive: readonly string[];
  readonly negative: readonly string[];
}

let lexicon: OpinionLexicon | null = null;

/** The lexicon's two word lists, read on the first call. */
export function opinionLexicon(): OpinionLexicon {
  if (!lexicon) {
    const file = JSON.parse(readFileSync(new URL('./sentiment-lexicon.json', import.meta.url), 'utf8')) as LexiconJson;
    lexicon = { positive: file.positive, negative: file.negative };
  }
  return lexicon;
}
