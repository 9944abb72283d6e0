/**
 * The extractive summary: the few sentences of a page's main content that say most of what
 * it says, picked, not written — the `summary` format when no model is available.
 *
 * 1. Text. The main content's markdown is read paragraph by paragraph: fenced and indented
 *    code, headings (ATX and setext), list items, tables, horizontal rules and HTML-only
 *    lines are not prose and are left out; in what is left, images are dropped, links and
 *    reference links become their text, autolinks and bare URLs are dropped, emphasis, code
 *    spans, HTML tags and backslash escapes are unwrapped. Every pattern is a bounded
 *    sequence (no nested quantifiers), so a hostile page costs linear time.
 * 2. Sentences. Each paragraph is split by `Intl.Segmenter(language, {granularity:
 *    'sentence'})` — ICU's rules, which know `。！？` as well as `. ! ?` — so a sentence never
 *    runs across paragraphs. Fragments with fewer than three words (or, in scripts without
 *    spaces, eight characters) are not candidates. At most the first 400 sentences are ranked.
 * 3. Words. `Intl.Segmenter(language, {granularity: 'word'})` word-like segments, lower
 *    case (ICU's dictionaries split Chinese, Japanese and Thai), stop words left out
 *    (stop-words.ts: en, de, fr, es, it, nl, pt; all of them when the language is unknown),
 *    and one-character words left out (CJK particles, stray letters).
 * 4. Ranking: TextRank (Mihalcea & Tarau, 2004) — PageRank over the graph whose edges are
 *    the sentences' word overlap, |Si ∩ Sj| / (log |Si| + log |Sj|), damping 0.85, iterated
 *    to convergence (at most 50 rounds). Chosen because it needs nothing but the page: a
 *    TF-IDF weighting needs document frequencies from a reference corpus, per language,
 *    which one page cannot give; centrality rewards the sentences the rest of the text keeps
 *    coming back to, which is what a summary should say. A small lead bonus (×(1 + 0.3 /
 *    (1 + position))) breaks near-ties in favour of the opening, where news and reference
 *    texts put their point.
 * 5. Choice. Sentences in rank order (ties: earlier first), a sentence whose words mostly
 *    (Jaccard ≥ 0.6) repeat a chosen one skipped, each taken only if the summary stays within
 *    `maxChars`; at most `maxSentences`. They are returned in the page's order, joined by a
 *    space. When even the best sentence is longer than `maxChars`, it is cut at a word
 *    boundary with "…". A text with no more sentences than asked for, within `maxChars`,
 *    is returned whole; an empty one gives ''.
 * Deterministic: no randomness, and ties are broken by position.
 */
import { stopWordsFor } from './stop-words.js';

export interface ExtractiveSummary {
  readonly summary: string;
  readonly sentences: number;
  readonly language: string | null;
}

export interface SummaryOptions {
  readonly language?: string | null;
  /** Default 3. */
  readonly maxSentences?: number;
  /** Default 600. */
  readonly maxChars?: number;
}

const MAX_CANDIDATES = 400;
const DAMPING = 0.85;
const ROUNDS = 50;
const EPSILON = 1e-6;
const DUPLICATE = 0.6;
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

// ------------------------------------------------------------------ markdown → paragraphs

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const SKIPPED_LINE = /^\s{0,3}(?:#{1,6}(?:\s|$)|[-*+]\s|\d{1,9}[.)]\s|\||[-*_](?:\s{0,2}[-*_]){2,200}\s{0,20}$|<\/?[a-zA-Z][^>]{0,500}>\s*$|\[[^\]]{1,200}\]:\s)/;
const SETEXT = /^\s{0,3}(?:={2,}|-{2,})\s*$/;
const INDENTED_CODE = /^(?: {4}|\t)/;

/** Inline markdown → plain text (see the file comment, step 1). */
export function inlineText(text: string): string {
  return text
    .replace(/!\[[^[\]]{0,500}\]\([^()\s]{0,2000}(?:\s"[^"]{0,300}")?\)/g, ' ')
    .replace(/!\[[^[\]]{0,500}\]\[[^[\]]{0,200}\]/g, ' ')
    .replace(/\[([^[\]]{0,500})\]\([^()\s]{0,2000}(?:\s"[^"]{0,300}")?\)/g, '$1')
    .replace(/\[([^[\]]{0,500})\]\[[^[\]]{0,200}\]/g, '$1')
    .replace(/<(?:https?|mailto|ftp):[^<>\s]{0,2000}>/gi, ' ')
    .replace(/\bhttps?:\/\/\S{1,2000}/gi, ' ')
    .replace(/<\/?[a-zA-Z][^<>]{0,500}>/g, ' ')
    .replace(/`{1,3}([^`]{0,1000})`{1,3}/g, '$1')
    .replace(/(\*{1,3})([^*\s][^*]{0,300}?)\1/g, '$2')
    .replace(/(?<![\p{L}\p{N}_])(_{1,3})([^_\s][^_]{0,300}?)\1(?![\p{L}\p{N}_])/gu, '$2')
    .replace(/~~([^~]{0,1000})~~/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The prose paragraphs of a markdown text, as plain text. */
export function proseParagraphs(markdown: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    const text = inlineText(current.join(' '));
    if (text) out.push(text);
    current = [];
  };
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.replace(/^\s{0,3}>\s?/, '').replace(/^\s{0,3}>\s?/, '');
    const fenceMark = FENCE.exec(line)?.[1];
    if (fence) {
      if (fenceMark && fenceMark.charAt(0) === fence.charAt(0) && fenceMark.length >= fence.length) fence = null;
      continue;
    }
    if (fenceMark) {
      flush();
      fence = fenceMark;
    } else if (!line.trim()) flush();
    else if (SETEXT.test(line)) current = [];
    else if (SKIPPED_LINE.test(line) || (!current.length && INDENTED_CODE.test(raw))) flush();
    else current.push(line.trim());
  }
  flush();
  return out;
}

// ------------------------------------------------------------------ sentences and words

interface Sentence {
  readonly text: string;
  readonly position: number;
  readonly words: ReadonlySet<string>;
}

function segmenter(language: string | null, granularity: 'sentence' | 'word'): Intl.Segmenter {
  try {
    return new Intl.Segmenter(language ?? undefined, { granularity });
  } catch {
    return new Intl.Segmenter(undefined, { granularity });
  }
}

/** A valid BCP 47 tag, canonical, or null. */
function canonicalLanguage(language: string | null | undefined): string | null {
  if (!language) return null;
  try {
    return Intl.getCanonicalLocales(language)[0] ?? null;
  } catch {
    return null;
  }
}

function sentencesOf(paragraphs: readonly string[], language: string | null): string[] {
  const splitter = segmenter(language, 'sentence');
  const out: string[] = [];
  for (const p of paragraphs) {
    for (const { segment } of splitter.segment(p)) {
      const s = segment.trim();
      if (s) out.push(s);
    }
  }
  return out;
}

/** The sentence's content words, and how many words it has in all. */
function wordsOf(text: string, words: Intl.Segmenter, stop: ReadonlySet<string>): { content: string[]; total: number } {
  const content: string[] = [];
  let total = 0;
  for (const s of words.segment(text.toLowerCase())) {
    if (!s.isWordLike) continue;
    total += 1;
    if (s.segment.length >= 2 && !stop.has(s.segment)) content.push(s.segment);
  }
  return { content, total };
}

/** Long enough to say something: three words, or eight characters in a script without spaces. */
function substantial(text: string, wordCount: number): boolean {
  return NO_SPACES.test(text) ? text.length >= 8 : wordCount >= 3;
}

// ------------------------------------------------------------------ ranking

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size < 2 || b.size < 2) return 0;
  let common = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const w of small) if (large.has(w)) common += 1;
  return common ? common / (Math.log(a.size) + Math.log(b.size)) : 0;
}

/** TextRank scores with the lead bonus (see the file comment, step 4). */
function rank(sentences: readonly Sentence[]): number[] {
  const n = sentences.length;
  const weights: number[][] = sentences.map(() => new Array<number>(n).fill(0));
  const totals = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 1; j < n; j += 1) {
      const w = overlap((sentences[i] as Sentence).words, (sentences[j] as Sentence).words);
      if (!w) continue;
      (weights[i] as number[])[j] = w;
      (weights[j] as number[])[i] = w;
      totals[i] = (totals[i] ?? 0) + w;
      totals[j] = (totals[j] ?? 0) + w;
    }
  }
  let scores = new Array<number>(n).fill(1);
  for (let round = 0; round < ROUNDS; round += 1) {
    const next = new Array<number>(n).fill(1 - DAMPING);
    for (let j = 0; j < n; j += 1) {
      const total = totals[j] ?? 0;
      if (!total) continue;
      const share = (scores[j] ?? 0) / total;
      const row = weights[j] as number[];
      for (let i = 0; i < n; i += 1) if (row[i]) next[i] = (next[i] ?? 0) + DAMPING * (row[i] as number) * share;
    }
    const change = next.reduce((sum, v, i) => sum + Math.abs(v - (scores[i] ?? 0)), 0);
    scores = next;
    if (change < EPSILON) break;
  }
  return scores.map((s, i) => s * (1 + 0.3 / (1 + i)));
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size || !b.size) return 0;
  let common = 0;
  for (const w of a) if (b.has(w)) common += 1;
  return common / (a.size + b.size - common);
}

/** `text` cut at a word boundary to fit `max` characters, with "…". */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return text.slice(0, Math.max(0, max));
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

function choose(sentences: readonly Sentence[], scores: readonly number[], maxSentences: number, maxChars: number): Sentence[] {
  const order = sentences.map((_, i) => i).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
  const chosen: Sentence[] = [];
  let length = 0;
  for (const i of order) {
    if (chosen.length >= maxSentences) break;
    const s = sentences[i] as Sentence;
    if (chosen.some((c) => jaccard(c.words, s.words) >= DUPLICATE)) continue;
    const added = s.text.length + (chosen.length ? 1 : 0);
    if (length + added > maxChars) continue;
    chosen.push(s);
    length += added;
  }
  return chosen.sort((a, b) => a.position - b.position);
}

/** The extractive summary of a page's main-content markdown (see the file comment). */
export function extractiveSummary(markdown: string, options: SummaryOptions = {}): ExtractiveSummary {
  const language = canonicalLanguage(options.language);
  const maxSentences = Math.max(1, Math.floor(options.maxSentences ?? 3));
  const maxChars = Math.max(1, Math.floor(options.maxChars ?? 600));
  const texts = sentencesOf(proseParagraphs(markdown), language);
  if (!texts.length) return { summary: '', sentences: 0, language };
  const whole = texts.join(' ');
  if (texts.length <= maxSentences && whole.length <= maxChars) return { summary: whole, sentences: texts.length, language };

  const words = segmenter(language, 'word');
  const stop = stopWordsFor(language);
  const candidates: Sentence[] = [];
  for (const text of texts) {
    if (candidates.length >= MAX_CANDIDATES) break;
    const { content, total } = wordsOf(text, words, stop);
    if (substantial(text, total)) candidates.push({ text, position: candidates.length, words: new Set(content) });
  }
  const pool = candidates.length ? candidates : texts.slice(0, MAX_CANDIDATES).map((text, position) => ({ text, position, words: new Set<string>() }));
  const chosen = choose(pool, rank(pool), maxSentences, maxChars);
  if (chosen.length) return { summary: chosen.map((s) => s.text).join(' '), sentences: chosen.length, language };
  return { summary: cut(pool[0]?.text ?? '', maxChars), sentences: 1, language };
}
