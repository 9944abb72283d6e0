/**
 * Whether a post a connector found (pipeline/clients/social/types.ts) is a mention for a watch
 * (schemas/api/monitoring.ts `watchFields`), without a model: pure, no I/O. A watch is compiled
 * once (`compileWatch`) and then matched against many posts (`matchPost`); the checks run
 * cheapest first and the first that fails names the `reason`.
 *
 * 1. Keywords (`no_keyword`): the post (title and text) contains at least one. Both sides are
 *    normalised (`normalizeText`: NFKC, lower case, every run of whitespace one space), so case,
 *    full-width forms and line breaks inside a multi-word keyword do not matter; diacritics do
 *    ("café" is not "cafe"). A keyword edge that is a letter, digit or `_` must meet a word
 *    boundary ("Go" is not found in "good", "acme" not in "acmecorp"); an edge that is anything
 *    else is matched as written ("C++", "@acme", "#acme", "acme.io"). Next to Han, kana, Hangul,
 *    Thai, Lao, Khmer or Myanmar letters there is no boundary to ask for (those scripts do not
 *    put spaces between words, and Korean particles attach to nouns), so "Acme는" and
 *    "アクメの" match. Matching is `indexOf` plus boundary checks: no keyword ever becomes a
 *    regular expression, and a post costs (keywords × its length).
 * 2. Exclusions (`excluded`): any exclude keyword present, matched the same way, drops the post.
 * 3. Languages (`language`), when the watch names some: the platform's declared `lang`, else
 *    tinyld's detection on the post's first 1,000 characters, compared on the primary subtag
 *    ("en-US" is "en"; legacy codes iw/in/ji and Norwegian nb/nn are read as he/id/yi/no). A
 *    text with fewer than 12 letters, or whose best guess tinyld gives less than 0.3 confidence,
 *    has no language (`lang` null) and is KEPT: short posts ("Acme is down again") are where
 *    detection guesses wrong, and dropping a real mention costs more than keeping a foreign
 *    one. Detection (~0.1–0.2 ms a post) runs only for a watch with languages and a post that
 *    declares none; otherwise `lang` is the declared one or null.
 * 4. Context (`context`), when the watch has one: the word-overlap rule. Context terms are the
 *    context's words, lower-cased, stop words (a short English list) dropped, stemmed (Porter,
 *    `stemmer`), the keywords' own words removed. The post's terms are read the same way from
 *    the text within 250 characters of each keyword occurrence (the whole post when short).
 *    `contextScore` is the share of context terms the post has (0–1, three decimals). The post
 *    is kept when ANY of these holds, else dropped as a namesake:
 *    a. it shares at least one context term ("switched our startup's banking to Mercury" with
 *       context "Mercury is a bank for startups…": startup, bank);
 *    b. it names a competitor of the watch (a comparison is about the product);
 *    c. a keyword it matched is distinctive by its shape, so it has no common-word namesakes:
 *       several words ("Mercury Bank"), a digit or a sign ("C++", "@mercury", "mercury.com"),
 *       or a capital inside the word ("GitHub", "iPhone");
 *    d. it talks about the keyword as a product: one of PRODUCT_WORDS (app, pricing, support,
 *       outage, subscription, alternative …) near it.
 *    "Mercury retrograde is ruining my week" and "Freddie Mercury live at Wembley" meet none
 *    and are dropped. Limits: the lists and stems are English; a post in another language
 *    survives through (a) when it shares a loan word, else needs a model (judge-model.ts). A
 *    context that is only stop words and keywords is no context (`contextScore` null).
 */
import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';
import type { detectAll as DetectAll } from 'tinyld';
import type { FoundPost } from '../clients/social/types.js';

/** The watch fields matching reads (schemas/api/monitoring.ts `watchFields`). */
export interface WatchTerms {
  readonly keywords: readonly string[];
  readonly excludeKeywords?: readonly string[] | null;
  readonly competitors?: readonly string[] | null;
  /** BCP 47 codes; null or empty: every language. */
  readonly languages?: readonly string[] | null;
  /** What the product is; null: no context rule. */
  readonly context?: string | null;
}

export type MatchReason = 'matched' | 'no_keyword' | 'excluded' | 'language' | 'context';

export interface Match {
  readonly keep: boolean;
  readonly reason: MatchReason;
  /** The watch's keywords found, as the watch spells them, in the watch's order. */
  readonly matchedKeywords: string[];
  /** The watch's competitors the post names (read once the keywords matched). */
  readonly matchedCompetitors: string[];
  /** The post's language (primary subtag), declared or detected; null when unknown or not asked. */
  readonly lang: string | null;
  /** The context rule's overlap share, 0–1; null without a context or before the rule ran. */
  readonly contextScore: number | null;
}

/** A keyword, exclusion or competitor ready to be searched for. */
export interface Term {
  /** As the watch wrote it. */
  readonly source: string;
  /** Normalised (normalizeText). */
  readonly text: string;
  readonly startBoundary: boolean;
  readonly endBoundary: boolean;
  /** No common-word namesakes by its shape (rule 4c). */
  readonly distinctive: boolean;
}

export interface CompiledWatch {
  readonly keywords: readonly Term[];
  readonly excludes: readonly Term[];
  readonly competitors: readonly Term[];
  /** Primary subtags; null: no language filter. */
  readonly languages: ReadonlySet<string> | null;
  /** The context's stemmed content terms; null: no context rule. */
  readonly context: ReadonlySet<string> | null;
  /** The keywords' own stemmed words, left out of both sides of the context rule. */
  readonly keywordWords: ReadonlySet<string>;
}

const FIELD_BREAK = ' \u0001 '; // neither a word character nor whitespace: no phrase spans title and text
const WINDOW_CHARS = 250;
const MAX_WINDOWS_PER_KEYWORD = 10;
const MIN_LETTERS = 12;
const MIN_CONFIDENCE = 0.3;
const DETECT_CHARS = 1000;
const STEM_CACHE_MAX = 50_000;

const WORD_CHAR = /^[\p{L}\p{M}\p{N}\p{Pc}]$/u;
const SPACELESS = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]$/u;
const LETTER = /\p{L}/u;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const CAPITAL_INSIDE = /\p{Ll}\p{Lu}/u;
const NOT_LETTER_OR_SPACE = /[^\p{L}\p{M}\s]/u;
const DIGITS = /^\p{N}+$/u;
const SPACES = /\s+/gu;

const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are aren as at be because been before being below between both but by
  can cannot could couldn did didn do does doesn doing don down during each else even every few for from further get gets got had hadn has
  hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself just let like ll make makes made
  many me more most much must my myself new no nor not now of off on once one only or other our ours ourselves out over own re really
  same she should shouldn so some such than that the their theirs them themselves then there these they this those through to too
  under until up us use used uses using ve very was wasn we were weren what when where which while who whom why will with won would
  wouldn you your yours yourself yourselves best better good great way well want thing things lot`.split(/\s+/),
);

/** Words that make a post about the keyword as a product or company (rule 4d), stemmed at load. */
const PRODUCT_WORDS = new Set(
  `app apps account api bug bugs customer customers dashboard download feature features integration install login onboarding outage
  downtime pricing price prices plan plans subscription subscribe support signup software saas sdk docs documentation release upgrade
  update version refund trial alternative alternatives competitor vendor startup company product`
    .split(/\s+/)
    .map((word) => stemmer(word)),
);

const LEGACY_LANGUAGES: Readonly<Record<string, string>> = { iw: 'he', in: 'id', ji: 'yi', nb: 'no', nn: 'no' };

// ---- text and terms --------------------------------------------------------------------------

/** NFKC, lower case, whitespace runs as one space, trimmed: the form every search runs on. */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(SPACES, ' ').trim();
}

/** A term ready for `findTerm`; null when it normalises to nothing. */
export function compileTerm(source: string): Term | null {
  const text = normalizeText(source);
  if (text === '') return null;
  const shown = source.normalize('NFKC').trim();
  const distinctive = text.includes(' ') || NOT_LETTER_OR_SPACE.test(shown) || CAPITAL_INSIDE.test(shown);
  return { source, text, startBoundary: isWordChar(firstChar(text, 0)), endBoundary: isWordChar(lastChar(text, text.length)), distinctive };
}

/** Where `term` next occurs in the normalised `text` at or after `from`, on its boundaries; -1 when nowhere. */
export function findTerm(text: string, term: Term, from = 0): number {
  let at = text.indexOf(term.text, from);
  while (at >= 0) {
    const end = at + term.text.length;
    const startOk = !term.startBoundary || isBoundary(firstChar(term.text, 0), lastChar(text, at));
    const endOk = !term.endBoundary || isBoundary(lastChar(term.text, term.text.length), firstChar(text, end));
    if (startOk && endOk) return at;
    at = text.indexOf(term.text, at + 1);
  }
  return -1;
}

/** Whether `text` (raw) contains `term` (raw) under the keyword rules. */
export function containsTerm(text: string, term: string): boolean {
  const compiled = compileTerm(term);
  return compiled !== null && findTerm(normalizeText(text), compiled) >= 0;
}

function isWordChar(char: string): boolean {
  return char !== '' && WORD_CHAR.test(char);
}

/** Whether a word-character keyword edge may sit next to `neighbour`. */
function isBoundary(edge: string, neighbour: string): boolean {
  if (!isWordChar(neighbour)) return true;
  return SPACELESS.test(edge) || SPACELESS.test(neighbour);
}

/** The code point starting at `index` ('' past the end). */
function firstChar(text: string, index: number): string {
  const code = text.codePointAt(index);
  return code === undefined ? '' : String.fromCodePoint(code);
}

/** The code point ending just before `index` ('' at the start). */
function lastChar(text: string, index: number): string {
  if (index <= 0) return '';
  const low = text.charCodeAt(index - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? index - 2 : index - 1;
  return firstChar(text, start);
}

function compileTerms(sources: readonly string[] | null | undefined): Term[] {
  const seen = new Set<string>();
  const terms: Term[] = [];
  for (const source of sources ?? []) {
    const term = compileTerm(source);
    if (term === null || seen.has(term.text)) continue;
    seen.add(term.text);
    terms.push(term);
  }
  return terms;
}

// ---- the watch -------------------------------------------------------------------------------

const compiledByFields = new WeakMap<WatchTerms, CompiledWatch>();

export function compileWatch(fields: WatchTerms): CompiledWatch {
  const keywords = compileTerms(fields.keywords);
  const keywordWords = new Set(keywords.flatMap((term) => contentTerms(term.text, new Set())));
  const languages = (fields.languages ?? []).map(primaryLanguage).filter((lang): lang is string => lang !== null);
  const context = fields.context ? new Set(contentTerms(normalizeText(fields.context), keywordWords)) : null;
  return {
    keywords,
    excludes: compileTerms(fields.excludeKeywords),
    competitors: compileTerms(fields.competitors),
    languages: languages.length > 0 ? new Set(languages) : null,
    context: context !== null && context.size > 0 ? context : null,
    keywordWords,
  };
}

function isCompiled(watch: WatchTerms | CompiledWatch): watch is CompiledWatch {
  return 'excludes' in watch;
}

/** Compiled once per fields object: a WatchTerms passed again (unchanged) is not compiled again. */
function compiledFor(watch: WatchTerms | CompiledWatch): CompiledWatch {
  if (isCompiled(watch)) return watch;
  let compiled = compiledByFields.get(watch);
  if (!compiled) {
    compiled = compileWatch(watch);
    compiledByFields.set(watch, compiled);
  }
  return compiled;
}

// ---- matching --------------------------------------------------------------------------------

export function matchPost(post: FoundPost, watch: WatchTerms | CompiledWatch): Match {
  const compiled = compiledFor(watch);
  const text = post.title ? `${normalizeText(post.title)}${FIELD_BREAK}${normalizeText(post.text)}` : normalizeText(post.text);
  const found = compiled.keywords.filter((term) => findTerm(text, term) >= 0);
  const declared = post.lang ? primaryLanguage(post.lang) : null;
  const base = { matchedKeywords: found.map((term) => term.source), matchedCompetitors: [] as string[], lang: declared, contextScore: null };
  if (found.length === 0) return { ...base, keep: false, reason: 'no_keyword' };
  if (compiled.excludes.some((term) => findTerm(text, term) >= 0)) return { ...base, keep: false, reason: 'excluded' };

  const lang = declared ?? (compiled.languages ? detectLanguage(post) : null);
  const matchedCompetitors = compiled.competitors.filter((term) => findTerm(text, term) >= 0).map((term) => term.source);
  const known = { ...base, lang, matchedCompetitors };
  if (compiled.languages && lang !== null && !compiled.languages.has(lang)) return { ...known, keep: false, reason: 'language' };
  if (compiled.context === null) return { ...known, keep: true, reason: 'matched' };

  const near = new Set(contentTerms(windowsAround(text, found), compiled.keywordWords));
  const shared = countShared(compiled.context, near);
  const contextScore = Math.round((shared / compiled.context.size) * 1000) / 1000;
  const onTopic = shared > 0 || matchedCompetitors.length > 0 || found.some((term) => term.distinctive) || hasProductWord(near);
  return { ...known, contextScore, keep: onTopic, reason: onTopic ? 'matched' : 'context' };
}

// ---- languages -------------------------------------------------------------------------------

/** The primary subtag of a BCP 47 code, lower-cased, legacy codes mapped; null for none or `und`. */
export function primaryLanguage(tag: string): string | null {
  const primary = tag.trim().toLowerCase().split(/[-_]/, 1)[0] ?? '';
  if (primary === '' || primary === 'und' || primary === 'zxx') return null;
  return LEGACY_LANGUAGES[primary] ?? primary;
}

let detectAll: typeof DetectAll | undefined;

/**
 * tinyld, loaded by the first post that needs its language read: its language profiles are
 * ~8 MB of heap, which every process that runs the searcher's pool (the embedded service) would
 * otherwise hold from start, whether or not a watch ever names a language. Synchronous (its
 * CommonJS build through `require`) so that matching stays a plain function.
 */
function languageDetector(): typeof DetectAll {
  detectAll ??= (createRequire(import.meta.url)('tinyld') as { detectAll: typeof DetectAll }).detectAll;
  return detectAll;
}

/** tinyld's reading of the post, or null when too short or too unsure (rule 3). */
export function detectLanguage(post: Pick<FoundPost, 'title' | 'text'>): string | null {
  const sample = (post.title ? `${post.title}\n${post.text}` : post.text).slice(0, DETECT_CHARS);
  if (!hasLetters(sample, MIN_LETTERS)) return null;
  const best = languageDetector()(sample)[0];
  if (!best || best.accuracy < MIN_CONFIDENCE) return null;
  return primaryLanguage(best.lang);
}

function hasLetters(text: string, wanted: number): boolean {
  let count = 0;
  for (const char of text) if (LETTER.test(char) && ++count >= wanted) return true;
  return false;
}

// ---- the context rule ------------------------------------------------------------------------

/** The text within WINDOW_CHARS of the keywords' occurrences, windows merged. */
function windowsAround(text: string, terms: readonly Term[]): string {
  const spans: [number, number][] = [];
  for (const term of terms) {
    let at = findTerm(text, term);
    for (let n = 0; at >= 0 && n < MAX_WINDOWS_PER_KEYWORD; n++) {
      spans.push([Math.max(0, at - WINDOW_CHARS), Math.min(text.length, at + term.text.length + WINDOW_CHARS)]);
      at = findTerm(text, term, at + term.text.length);
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  const parts = merged.map(([from, to]) => text.slice(from, to));
  return parts.join(' ');
}

/** Stemmed content words of normalised text: stop words, one-letter words, numbers and `without` left out. */
function contentTerms(text: string, without: ReadonlySet<string>): string[] {
  const terms: string[] = [];
  for (const [word] of text.matchAll(WORD)) {
    if (word.length < 2 || STOP_WORDS.has(word) || DIGITS.test(word)) continue;
    const stem = stemOf(word);
    if (!without.has(stem)) terms.push(stem);
  }
  return terms;
}

const stems = new Map<string, string>();

/** Porter stems, remembered: posts repeat the same words, and a stem costs far more than a lookup. */
function stemOf(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= STEM_CACHE_MAX) stems.clear();
    stem = stemmer(word);
    stems.set(word, stem);
  }
  return stem;
}

function countShared(context: ReadonlySet<string>, near: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of context) if (near.has(term)) shared++;
  return shared;
}

function hasProductWord(near: ReadonlySet<string>): boolean {
  for (const term of near) if (PRODUCT_WORDS.has(term)) return true;
  return false;
}
