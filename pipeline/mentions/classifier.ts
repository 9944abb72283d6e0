/**
 * The offline mention classifier: sorts a post into one of the seven MENTION_CATEGORIES with no
 * model provider, by a linear model (multinomial logistic regression) trained offline on public
 * labelled data (bench/data/mentions/SOURCES.md) by infra/train/mentions-classifier.ts and
 * shipped as classifier-model.json beside this file.
 *
 * Features (`mentionFeatures`), hashed into a fixed space of `2^bucketBits` buckets:
 * - Tokens: runs of Unicode letters and digits, lower-cased, read by one linear scan (no regular
 *   expression touches the post). At most MAX_TOKENS per post: the start of a 20 KB post says
 *   what it is, and the cost stays bounded.
 * - Placeholders first: a run of tokens equal to one of the watch's own terms becomes
 *   `__brand__`, one of its competitors' names `__competitor__` (longest match, own terms win a
 *   tie), so the model learns "compared with a named competitor", not product names.
 *   `__brand__` counts only in bigrams ("buy __brand__"): alone it would say nothing but
 *   "some training source named its product".
 * - Porter stems (the `stemmer` package) of the tokens, stem bigrams, and a sentence-start
 *   marker bigram; the title's stems once more in their own namespace.
 * - Cues: ends with '?', any '?', a question word starting a sentence, negation, first person,
 *   '!', a competitor placeholder present, a competitor placeholder together with a
 *   comparative word, a title present, the length in tokens (log2 bucket), and the
 *   cross-source cues of cues.ts (asking forms, purchase intent, comparisons, faults, sentiment).
 *   Cues have their own region, the last CUE_BUCKETS buckets; the words hash into the rest.
 * Each post's features are binary; the words share a unit (L2) norm, and each cue counts
 * `cueValue` (a setting of the model file) whatever the post's length, so a question mark weighs
 * the same in a tweet and in a long issue.
 *
 * Precedence (`precedence` in the model file): a few cues that carry across sources add a fixed
 * amount to one category's logit on top of what the model learned, a prior the training does not
 * see: the post in question form (`question_form`: a title that asks, else a text that ends with
 * '?', opens with an interrogative or holds an asking phrase) toward `question`, first-person
 * purchase intent (`buy`, cues.ts) toward `buying_intent`. The model learns these cues too, but
 * from the few sources that label those categories it learns each source's wording instead;
 * the fixed amounts were chosen on the leave-one-source-out evaluation (bench/README.md,
 * Mentions). The one fixed answer is for a post with no letter or digit at all (emoji only,
 * empty): `other`, score 1.
 *
 * The score is the winning class's softmax probability at the temperature fitted on data kept
 * out of training (calibration). `classifier` is the model's name and version, `linear-v4`.
 * The weights load once, lazily and synchronously, on the first call.
 */
import { readFileSync } from 'node:fs';
import { stemmer } from 'stemmer';
import { MENTION_CATEGORIES, type MentionCategory } from '../../schemas/api/monitoring.js';
import { asksInForm, postCues } from './cues.js';

export type { MentionCategory };

export interface MentionInput {
  readonly text: string;
  readonly title?: string | null;
  /** The watch's own terms (product names, keywords): each occurrence becomes `__brand__`. */
  readonly brandTerms: readonly string[];
  /** Its competitors' names: each occurrence becomes `__competitor__`. */
  readonly competitors: readonly string[];
}

export interface MentionClassification {
  readonly category: MentionCategory;
  /** The category's probability, in (0, 1]. */
  readonly score: number;
  readonly classifier: string;
}

/** A decoded model: dense quantised weights, `bucket * labels.length + class`. */
export interface MentionModel {
  readonly classifier: string;
  readonly labels: readonly MentionCategory[];
  readonly bucketBits: number;
  readonly weights: Int8Array;
  readonly scale: number;
  readonly bias: readonly number[];
  readonly temperature: number;
  /** Buckets from `cueBase` up hold the cues, each worth `cueValue` whatever the post's length. */
  readonly cueBase: number;
  readonly cueValue: number;
  /** Fixed logit bonuses: when the post has the cue in `bucket`, `logit` is added to class `label` (an index of `labels`). */
  readonly precedence: readonly { readonly bucket: number; readonly label: number; readonly logit: number }[];
}

/** A precedence rule as the model file names it: a cue of `mentionFeatures`, the category it favours, the logit it adds. */
export interface PrecedenceRule { readonly cue: string; readonly category: MentionCategory; readonly logit: number }

/** What classifier-model.json holds; the training script writes it (see its doc for the rest). */
export interface MentionModelFile {
  readonly classifier: string;
  readonly labels: readonly string[];
  readonly features: { readonly bucketBits: number; readonly [setting: string]: unknown };
  readonly scale: number;
  readonly bias: readonly number[];
  readonly temperature: number;
  readonly precedence?: readonly PrecedenceRule[];
  /** base64 of rows sorted by bucket: varint bucket delta, then one int8 per label. */
  readonly weights: string;
  readonly [meta: string]: unknown;
}

/**
 * Type-only, so nothing loads at import; but it puts the JSON in tsc's program, which is what
 * makes `npm run build` copy it to dist/ beside this module for the runtime read below.
 */
type ModelJson = typeof import('./classifier-model.json', { with: { type: 'json' } });

export const MAX_TOKENS = 2_000;
export const BRAND = '__brand__';
export const COMPETITOR = '__competitor__';

const QUESTION_WORDS = new Set(['what', 'how', 'why', 'when', 'where', 'who', 'which', 'can', 'could', 'does', 'do', 'did', 'is', 'are', 'should', 'would', 'will', 'any', 'anyone', 'has', 'have', 'was']);
const NEGATIONS = new Set(['not', 'no', 'never', 'nothing', 'nobody', 'none', 'cannot', 'without', 't', 'dont', 'doesnt', 'didnt', 'cant', 'wont', 'isnt']);
const FIRST_PERSON = new Set(['i', 'me', 'my', 'mine', 'we', 'our', 'us', 'im']);
const COMPARATIVES = new Set(['better', 'worse', 'than', 'vs', 'versus', 'compared', 'compare', 'alternative', 'alternatives', 'switch', 'switched', 'switching', 'instead', 'prefer', 'unlike', 'beats', 'faster', 'slower', 'cheaper']);

// ---- tokens ----------------------------------------------------------------------------------

function isAsciiWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Tokens of `text` (lower-cased letter/digit runs) and where sentences start, by one linear scan. */
export function tokenize(text: string, limit = MAX_TOKENS): { tokens: string[]; starts: boolean[] } {
  const tokens: string[] = [];
  const starts: boolean[] = [];
  let begin = -1;
  let sentenceStart = true;
  for (let i = 0; i <= text.length && tokens.length < limit; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const word = c < 128 ? isAsciiWordChar(c) : WORD_CHAR.test(String.fromCodePoint(text.codePointAt(i) ?? 32));
    if (word) {
      if (begin < 0) begin = i;
      if (c >= 0xd800 && c <= 0xdbff) i++;
      continue;
    }
    if (begin >= 0) {
      tokens.push(text.slice(begin, i).toLowerCase());
      starts.push(sentenceStart);
      sentenceStart = false;
      begin = -1;
    }
    if (c === 46 || c === 33 || c === 63 || c === 10) sentenceStart = true;
  }
  return { tokens, starts };
}

/** Replaces runs of tokens equal to a term's tokens with `replacement` (longest first); `tokens` is changed in place. */
function placeTerms(tokens: string[], starts: boolean[], terms: readonly string[], replacement: string): void {
  const byFirst = new Map<string, string[][]>();
  for (const term of terms) {
    const seq = tokenize(term, 16).tokens;
    if (seq.length === 0) continue;
    const list = byFirst.get(seq[0] as string) ?? [];
    list.push(seq);
    byFirst.set(seq[0] as string, list);
  }
  if (byFirst.size === 0) return;
  for (const list of byFirst.values()) list.sort((a, b) => b.length - a.length);
  let w = 0;
  for (let r = 0; r < tokens.length; ) {
    const match = byFirst.get(tokens[r] as string)?.find((seq) => seq.every((t, j) => tokens[r + j] === t));
    starts[w] = starts[r] as boolean;
    if (match) {
      tokens[w++] = replacement;
      r += match.length;
    } else {
      tokens[w++] = tokens[r++] as string;
    }
  }
  tokens.length = w;
  starts.length = w;
}

// ---- hashing ---------------------------------------------------------------------------------

function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function combine(a: number, b: number, salt: number): number {
  return Math.imul(Math.imul(a ^ salt, 0x9e3779b1) ^ b, 16777619) >>> 0;
}

const SALT_BIGRAM = 0x2545f491;
const SALT_START = 0x68e31da4;
const SALT_TITLE = 0x1b873593;
const START = fnv1a('<s>');

/** Stem hashes by token; bounded, then cleared (words repeat across posts). */
const stemHashes = new Map<string, number>();
const MAX_CACHED_STEMS = 100_000;

function stemHash(token: string): number {
  let h = stemHashes.get(token);
  if (h === undefined) {
    const plain = token === BRAND || token === COMPETITOR || !/^[a-z]+$/.test(token) ? token : stemmer(token);
    h = fnv1a(plain);
    if (stemHashes.size >= MAX_CACHED_STEMS) stemHashes.clear();
    stemHashes.set(token, h);
  }
  return h;
}

/** The cue region: the last CUE_BUCKETS buckets of the space, apart from the hashed words. */
export const CUE_BUCKETS = 512;
/** A cue's place in the cue region (an offset from its start). */
export const cue = (name: string) => fnv1a(`cue:${name}`) % CUE_BUCKETS;
const CUES = {
  questionEnd: cue('q_end'), questionAny: cue('q_any'), questionStart: cue('q_start'), negation: cue('neg'),
  firstPerson: cue('first_person'), exclamation: cue('exclaim'), competitor: cue('competitor'),
  comparative: cue('competitor_comparative'), title: cue('title'), questionForm: cue('question_form'),
};
const LENGTH_CUES = Array.from({ length: 12 }, (_, i) => cue(`len_${i}`));

/**
 * The post's feature buckets (sorted, distinct) in `2^bucketBits`; their value is
 * 1/sqrt(count) each. Empty when the post has no letter or digit.
 */
export function mentionFeatures(input: MentionInput, bucketBits: number): Uint32Array {
  const title = input.title ?? '';
  const head = tokenize(title);
  const body = tokenize(input.text, MAX_TOKENS - head.tokens.length);
  const tokens = head.tokens.concat(body.tokens);
  const starts = head.starts.concat(body.starts);
  if (tokens.length === 0) return new Uint32Array(0);
  placeTerms(tokens, starts, input.brandTerms, BRAND);
  placeTerms(tokens, starts, input.competitors, COMPETITOR);
  const titleLength = Math.min(head.tokens.length, tokens.length);

  const out: number[] = [];
  const cues: number[] = [];
  let prev = START;
  let hasCompetitor = false, comparative = false, negation = false, firstPerson = false, questionStart = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const h = stemHash(token);
    const start = starts[i] as boolean;
    // `__brand__` alone is no feature: every real mention has it, while most training posts name no product (its bigrams stay).
    if (token !== BRAND) out.push(h);
    out.push(combine(start ? START : prev, h, start ? SALT_START : SALT_BIGRAM));
    if (i < titleLength) out.push(combine(h, 0, SALT_TITLE));
    prev = h;
    if (token === COMPETITOR) hasCompetitor = true;
    if (COMPARATIVES.has(token)) comparative = true;
    if (NEGATIONS.has(token)) negation = true;
    if (FIRST_PERSON.has(token)) firstPerson = true;
    if (start && QUESTION_WORDS.has(token)) questionStart = true;
  }
  const trimmed = input.text.trimEnd();
  const found = postCues(tokens, starts);
  // Question form: a post with a title asks when its title does (an issue's body says much else), else when its text does.
  const questionForm = head.tokens.length > 0
    ? title.trimEnd().endsWith('?') || asksInForm(head.tokens)
    : trimmed.endsWith('?') || found.includes('ask_open') || found.includes('ask');
  if (questionForm) cues.push(CUES.questionForm);
  if (trimmed.endsWith('?') || title.trimEnd().endsWith('?')) cues.push(CUES.questionEnd);
  if (input.text.includes('?') || title.includes('?')) cues.push(CUES.questionAny);
  if (input.text.includes('!') || title.includes('!')) cues.push(CUES.exclamation);
  if (questionStart) cues.push(CUES.questionStart);
  if (negation) cues.push(CUES.negation);
  if (firstPerson) cues.push(CUES.firstPerson);
  if (hasCompetitor) cues.push(CUES.competitor);
  if (hasCompetitor && comparative) cues.push(CUES.comparative);
  if (titleLength > 0) cues.push(CUES.title);
  cues.push(LENGTH_CUES[Math.min(Math.floor(Math.log2(tokens.length + 1)), 11)] as number);
  for (const name of found) cues.push(cue(name));

  // The hashed words fill the space below the cue region, the cues that region.
  const cueBase = (1 << bucketBits) - CUE_BUCKETS;
  const buckets = new Uint32Array(out.length + cues.length);
  for (let i = 0; i < out.length; i++) buckets[i] = (out[i] as number) % cueBase;
  for (let i = 0; i < cues.length; i++) buckets[out.length + i] = cueBase + (cues[i] as number);
  buckets.sort();
  let n = 0;
  for (let i = 0; i < buckets.length; i++) if (i === 0 || buckets[i] !== buckets[i - 1]) buckets[n++] = buckets[i] as number;
  return buckets.subarray(0, n);
}

// ---- the model -------------------------------------------------------------------------------

/** Decodes the file's weights (see MentionModelFile) into a dense array. */
export function decodeMentionModel(file: MentionModelFile): MentionModel {
  const labels = file.labels.map((l) => {
    if (!(MENTION_CATEGORIES as readonly string[]).includes(l)) throw new Error(`mention model: unknown label ${l}`);
    return l as MentionCategory;
  });
  const k = labels.length;
  const weights = new Int8Array((1 << file.features.bucketBits) * k);
  const bytes = Buffer.from(file.weights, 'base64');
  let bucket = 0;
  for (let at = 0; at < bytes.length; ) {
    let delta = 0, shift = 0, byte = 0;
    do {
      byte = bytes[at++] as number;
      delta += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    bucket += delta;
    for (let c = 0; c < k; c++) weights[bucket * k + c] = ((bytes[at++] as number) << 24) >> 24;
  }
  const cueValue = typeof file.features.cueValue === 'number' ? file.features.cueValue : 0;
  const cueBase = (1 << file.features.bucketBits) - CUE_BUCKETS;
  const precedence = (file.precedence ?? []).map((rule) => {
    const label = labels.indexOf(rule.category);
    if (label < 0 || !Number.isFinite(rule.logit)) throw new Error(`mention model: bad precedence rule ${JSON.stringify(rule)}`);
    return { bucket: cueBase + cue(rule.cue), label, logit: rule.logit };
  });
  return { classifier: file.classifier, labels, bucketBits: file.features.bucketBits, weights, scale: file.scale, bias: file.bias, temperature: file.temperature, cueBase, cueValue, precedence };
}

/** How many of `buckets` (sorted) are words rather than cues: the words share a unit norm, each cue counts `cueValue`. */
export function wordBuckets(buckets: Uint32Array, cueBase: number): number {
  let n = buckets.length;
  while (n > 0 && (buckets[n - 1] as number) >= cueBase) n--;
  return n;
}

let shipped: MentionModel | null = null;

/** The shipped model, read and decoded on the first call. */
export function loadMentionModel(): MentionModel {
  if (!shipped) {
    const file = JSON.parse(readFileSync(new URL('./classifier-model.json', import.meta.url), 'utf8')) as ModelJson & MentionModelFile;
    shipped = decodeMentionModel(file);
  }
  return shipped;
}

/** Class probabilities of `buckets` under `model` (softmax at the model's temperature). */
export function mentionProbabilities(model: MentionModel, buckets: Uint32Array): Float64Array {
  const k = model.labels.length;
  const logits = new Float64Array(k);
  const cues = new Float64Array(k);
  const words = wordBuckets(buckets, model.cueBase);
  const value = words ? 1 / Math.sqrt(words) : 0;
  for (let i = 0; i < buckets.length; i++) {
    const base = (buckets[i] as number) * k;
    const sum = i < words ? logits : cues;
    for (let c = 0; c < k; c++) sum[c] = (sum[c] as number) + (model.weights[base + c] as number);
  }
  const bonus = new Float64Array(k);
  for (const rule of model.precedence) {
    for (let i = words; i < buckets.length; i++) {
      if (buckets[i] === rule.bucket) bonus[rule.label] = (bonus[rule.label] as number) + rule.logit;
    }
  }
  let max = -Infinity;
  for (let c = 0; c < k; c++) {
    const raw = (logits[c] as number) * value + (cues[c] as number) * model.cueValue;
    logits[c] = (raw * model.scale + (model.bias[c] as number) + (bonus[c] as number)) / model.temperature;
    max = Math.max(max, logits[c] as number);
  }
  let sum = 0;
  for (let c = 0; c < k; c++) sum += logits[c] = Math.exp((logits[c] as number) - max);
  for (let c = 0; c < k; c++) logits[c] = (logits[c] as number) / sum;
  return logits;
}

/** Classifies one post with `model` (the shipped one unless given). */
export function classifyMention(input: MentionInput, model: MentionModel = loadMentionModel()): MentionClassification {
  const buckets = mentionFeatures(input, model.bucketBits);
  if (buckets.length === 0) return { category: 'other', score: 1, classifier: model.classifier };
  const p = mentionProbabilities(model, buckets);
  let best = 0;
  for (let c = 1; c < p.length; c++) if ((p[c] as number) > (p[best] as number)) best = c;
  return { category: model.labels[best] as MentionCategory, score: p[best] as number, classifier: model.classifier };
}
