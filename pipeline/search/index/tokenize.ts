/**
 * The local index's tokenizer: text → index terms. ONE function for documents and queries, so
 * a query term matches exactly the document terms that fold to the same string.
 *
 * Rules, in order, for every run of letters, marks and digits (`[\p{L}\p{M}\p{N}]+`) in the text
 * as written (everything else — spaces, punctuation, apostrophes, hyphens, symbols — separates):
 *   1. NFKC (full-width and ligature forms become their plain letters), lower case;
 *   2. diacritics stripped (NFD, the combining marks U+0300–U+036F removed, NFC again), and
 *      ß → ss, æ → ae, œ → oe, ø → o, ł → l, đ/ð → d, þ → th, ı → i: `Café` and `cafe`,
 *      `Straße` and `strasse` are one term;
 *   3. Chinese and Japanese runs (Han, Hiragana, Katakana: no spaces between words) become
 *      overlapping character bigrams (`東京都` → `東京`, `京都`; a lone character stays one
 *      term), the usual index-time segmentation for CJK without a dictionary;
 *   4. a light English plural rule on ASCII terms of 4+ characters: `-ies` → `-y` (`cities`),
 *      `-sses`/`-xes`/`-zes`/`-ches`/`-shes` lose `-es` (`boxes`), any other `-s` is dropped
 *      unless the word ends in `ss`, `us` or `is` (`pages` → `page`; `class`, `status`,
 *      `analysis` stay). No other stemming;
 *   5. terms longer than 40 characters are cut to 40 (hashes and glued junk stay bounded);
 *   6. dropped: one-character terms other than a digit or a CJK character, and the stop words
 *      below (the commonest function words of English, German, French and Spanish, in their
 *      folded form, whatever the page's language).
 *
 * How runs are found: a scan of character codes. A run of ASCII letters and digits ended by an
 * ASCII character (or the end) is folded on the spot: lower case, then rules 4–6, no lookup.
 * A run holding any other character goes to the regular expression, and folding it is
 * memoized (such words repeat, and NFKC/NFD are dear), in a map cleared at 200,000 entries.
 * Both give the runs of the pattern above; most of a page's words take the first way, which
 * allocates nothing but the term and keeps no page's words alive in a map.
 *
 * Why not `Intl.Segmenter` (word granularity): on the corpus pages' text (1,120 pages,
 * 7.8 MB) the regular-expression tokenizer ran at 10–14 MB/s, while the segmenter alone,
 * before any folding, runs 3–4× slower; CJK, the one place the segmenter's dictionary helps,
 * is covered by bigrams. The pattern is a single character class with `+`: linear, no
 * backtracking.
 */

/** A run's pattern, matched where a run starts (sticky), and one such character. */
const RUN_AT = /[\p{L}\p{M}\p{N}]+/uy;
const WORD_AT = /[\p{L}\p{M}\p{N}]/uy;
const NON_ASCII = /[^\x00-\x7f]/;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;
const COMBINING_DIACRITICS = /[\u0300-\u036f]/g;
const SPECIAL_LETTERS = /[ßæœøłđðþı]/g;
const SPECIAL_FOLDS: Readonly<Record<string, string>> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

/** Longest term kept; longer ones are cut. */
export const MAX_TERM_LENGTH = 40;

// prettier-ignore
export const STOP_WORDS: ReadonlySet<string> = new Set([
  // English
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'been', 'but', 'by', 'for', 'from', 'had', 'has', 'have', 'he', 'her', 'his',
  'if', 'in', 'into', 'is', 'it', 'its', 'of', 'on', 'or', 'our', 'she', 'so', 'than', 'that', 'the', 'their', 'them',
  'then', 'there', 'these', 'they', 'this', 'those', 'to', 'was', 'we', 'were', 'which', 'who', 'will', 'with', 'you', 'your',
  // German
  'auch', 'auf', 'aus', 'bei', 'das', 'dass', 'dem', 'den', 'der', 'des', 'die', 'ein', 'eine', 'einem', 'einen', 'einer',
  'eines', 'er', 'es', 'fur', 'ich', 'im', 'ist', 'mit', 'nicht', 'noch', 'oder', 'sich', 'sie', 'sind', 'und', 'von',
  'wie', 'wir', 'zu', 'zum', 'zur', 'uber',
  // French
  'au', 'aux', 'ce', 'ces', 'cette', 'dans', 'du', 'elle', 'et', 'est', 'il', 'ils', 'la', 'le', 'les', 'leur', 'mais',
  'ne', 'nous', 'par', 'pas', 'pour', 'qui', 'que', 'se', 'ses', 'son', 'sur', 'un', 'une', 'vous',
  // Spanish
  'al', 'como', 'con', 'del', 'el', 'en', 'las', 'lo', 'los', 'para', 'por', 'se', 'su', 'sus', 'una', 'unas', 'unos', 'y',
]);

const isDigit = (c: number) => c >= 48 && c <= 57;

/** Rules 1–2: NFKC, lower case, diacritics and special letters folded. */
function fold(raw: string): string {
  if (!NON_ASCII.test(raw)) return raw.toLowerCase();
  const lower = raw.normalize('NFKC').toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  return lower.normalize('NFD').replace(COMBINING_DIACRITICS, '').normalize('NFC').replace(SPECIAL_LETTERS, (c) => SPECIAL_FOLDS[c] ?? c);
}

/** Rule 4, on an ASCII lower-case term. */
function singular(term: string): string {
  const n = term.length;
  if (n < 4 || term.charCodeAt(n - 1) !== 115 /* s */) return term;
  if (term.endsWith('ies') && n > 4) return `${term.slice(0, -3)}y`;
  if (/(?:ss|x|z|ch|sh)es$/.test(term)) return term.slice(0, -2);
  if (term.endsWith('ss') || term.endsWith('us') || term.endsWith('is')) return term;
  return term.slice(0, -1);
}

/** Rules 4–6 on one folded, non-CJK term; '' when it is dropped (a stop word before or after rule 4). */
function finish(term: string): string {
  if (STOP_WORDS.has(term)) return '';
  const plain = NON_ASCII.test(term) ? term : singular(term);
  const cut = plain.length > MAX_TERM_LENGTH ? plain.slice(0, MAX_TERM_LENGTH) : plain;
  if (cut.length === 1 && !isDigit(cut.charCodeAt(0))) return '';
  return STOP_WORDS.has(cut) ? '' : cut;
}

/** Rule 3: a folded run holding CJK characters → its terms (bigrams of CJK stretches, the rest as usual). */
function cjkTerms(run: string, out: (term: string) => void): void {
  const chars = [...run];
  let i = 0;
  while (i < chars.length) {
    const cjk = CJK_CHAR.test(chars[i] as string);
    let j = i + 1;
    while (j < chars.length && CJK_CHAR.test(chars[j] as string) === cjk) j += 1;
    if (!cjk) {
      const term = finish(chars.slice(i, j).join(''));
      if (term) out(term);
    } else if (j - i === 1) {
      out(chars[i] as string);
    } else {
      for (let k = i; k + 1 < j; k += 1) out(`${chars[k] as string}${chars[k + 1] as string}`);
    }
    i = j;
  }
}

/** The terms of one run: [] when dropped, one term, or CJK bigrams. */
function foldRun(raw: string): readonly string[] {
  const folded = fold(raw);
  if (NON_ASCII.test(folded) && CJK.test(folded)) {
    const terms: string[] = [];
    cjkTerms(folded, (term) => terms.push(term));
    return terms;
  }
  const term = finish(folded);
  return term ? [term] : [];
}

/**
 * Memoized foldRun for runs of at most MEMO_RUN_LENGTH characters (most words: they repeat,
 * a page has a few hundred distinct ones for thousands of occurrences). Longer runs are not
 * kept: V8 keeps a substring of 13+ characters as a view of the whole text it was cut from,
 * so keeping it would keep the page. The memo is cleared at MEMO_LIMIT entries.
 */
function runTerms(raw: string): readonly string[] {
  if (raw.length > MEMO_RUN_LENGTH) return foldRun(raw);
  const known = memo.get(raw);
  if (known) return known;
  const terms = foldRun(raw);
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(raw, terms);
  return terms;
}

const MEMO_RUN_LENGTH = 12;
const MEMO_LIMIT = 200_000;
const memo = new Map<string, readonly string[]>();

/**
 * Calls `out` with each term of `text`, in order, with the offsets of the run it came from;
 * stops early when `out` returns true (a search that found what it looked for).
 */
export function eachTerm(text: string, out: (term: string, start: number, end: number) => boolean | void): void {
  const run = new RegExp(RUN_AT);
  const wordAt = new RegExp(WORD_AT);
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const start = i;
    if (c < 128) {
      if (!isAsciiWord(c)) {
        i += 1;
        continue;
      }
      i += 1;
      while (i < n && isAsciiWord(text.charCodeAt(i))) i += 1;
      if (i === n || text.charCodeAt(i) < 128 || !isWordAt(wordAt, text, i)) {
        const term = finish(text.slice(start, i).toLowerCase());
        if (term && out(term, start, i) === true) return;
        continue;
      }
      // The run goes on past ASCII: the regular expression reads it whole, from its start.
    } else if (!isWordAt(wordAt, text, i)) {
      i += isSurrogatePair(text, i) ? 2 : 1;
      continue;
    }
    // Sticky: the match starts at `start`, where a run's first character was found.
    run.lastIndex = start;
    const match = run.exec(text) as RegExpExecArray;
    i = run.lastIndex;
    for (const term of runTerms(match[0])) if (out(term, start, i) === true) return;
  }
}

/** A letter or digit of ASCII: what the pattern's class holds below U+0080. */
function isAsciiWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** Whether the character (code point) at `i` is a letter, mark or digit. */
function isWordAt(wordAt: RegExp, text: string, i: number): boolean {
  wordAt.lastIndex = i;
  return wordAt.test(text);
}

function isSurrogatePair(text: string, i: number): boolean {
  const high = text.charCodeAt(i);
  const low = text.charCodeAt(i + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/** The terms of `text`, in order, repeats kept (documents count them; queries dedupe them). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  eachTerm(text, (term) => {
    terms.push(term);
  });
  return terms;
}
