/**
 * Cues of the mention classifier that carry across sources: what a post does (asks, means to
 * buy, compares, reports a fault, praises, complains) rather than the words one data set
 * happens to use. Read from the tokens of `tokenize` (lower-cased letter/digit runs, sentence
 * starts marked), by a walk over the tokens and a look-up of short token sequences: no regular
 * expression touches the post, and the cost is linear in its length.
 *
 * Families, each a cue name `<family>` when any of its phrases occurs:
 * - `ask`: asking forms ("how do i", "is there a way", "does anyone", "any idea", …);
 * - `ask_open`: the post (title or text) opens with an interrogative word;
 * - `buy`: first-person purchase intent and buying words ("looking to buy", "want to buy",
 *   "pricing", "we are evaluating", "pre order", "i want a", "have to get", "on sale", …);
 * - `compare`: comparison forms ("vs", "better than", "switched from", "alternative to", and any
 *   "-er than" / "more … than" within three tokens);
 * - `fault`: malfunction words ("crash", "error", "not working", "steps to reproduce", …);
 * - `pos` / `neg`: a small sentiment lexicon, with `pos_only` / `neg_only` when only one side
 *   occurs, and `neg_negated` / `pos_negated` when a negation is one or two tokens before;
 * - `lex_pos_<n>` / `lex_neg_<n>` (n 1, 2, 3 for three or more), `lex_positive`, `lex_negative`,
 *   `lex_none`: the opinion words of Bing Liu's Opinion Lexicon (sentiment-lexicon.ts, CC BY 4.0;
 *   about 6,500 words against the few dozen above), a negated word counted on the other side, and
 *   which side has more.
 */
import { NEGATIVE_WORDS, POSITIVE_WORDS } from './sentiment-lexicon.js';

const phrases = (list: readonly string[]) => list.map((p) => p.split(' '));

const ASK = phrases([
  'how do i', 'how do you', 'how can i', 'how to', 'how does', 'how would', 'is there a way', 'is there any', 'is it possible',
  'does anyone', 'does anybody', 'anyone know', 'anybody know', 'any idea', 'any ideas', 'can someone', 'can anyone', 'can anybody',
  'could someone', 'could anyone', 'what is the best', 'what s the best', 'why does', 'why is', 'why do', 'i wonder', 'wondering',
  'please help', 'need help', 'help me', 'what should i', 'should i', 'where do i', 'where can i find', 'what am i', 'am i missing',
]);
const ASK_OPENERS = new Set(['what', 'how', 'why', 'when', 'where', 'who', 'which', 'can', 'could', 'does', 'do', 'did', 'is', 'are', 'should', 'would', 'will', 'any', 'anyone', 'anybody', 'has', 'have', 'was', 'were', 'whats', 'hows', 'shall']);
const BUY = phrases([
  'looking to buy', 'want to buy', 'wanna buy', 'going to buy', 'gonna buy', 'about to buy', 'thinking of buying', 'thinking about buying',
  'planning to buy', 'plan to buy', 'where can i buy', 'where to buy', 'should i buy', 'need to buy', 'want to get', 'going to get',
  'gonna get', 'wanna get', 'need a new', 'want a new', 'getting a new', 'i want the', 'i need the', 'i want one', 'i need one',
  'pricing', 'price of', 'prices for', 'pricing for', 'how much', 'we are evaluating', 'we re evaluating', 'evaluating', 'considering buying',
  'pre order', 'preorder', 'preordered', 'pre ordered', 'can t wait to get', 'cant wait to get', 'buy', 'buying', 'purchase', 'purchasing',
  'quote for', 'free trial', 'upgrade to', 'take my money', 'saving up', 'order one', 'ordered', 'add to cart', 'in stock', 'for sale',
  'i want an', 'i want a', 'all i want', 'i need that', 'i need an', 'need that', 'have to get', 'gotta get', 'got to get', 'get my', 'getting my',
  'getting one', 'getting the', 'considering getting', 'thinking about getting', 'thinking of getting', 'might get', 'cop', 'grab one', 'pick one up',
  'on sale', 'sale', 'discount', 'afford', 'order', 'ordering', 'wish list', 'wishlist', 'where did you get', 'where can i get', 'where do i get',
  'want one', 'need one', 'worth the money', 'worth buying', 'should i get', 'which one should i',
]);
const COMPARE = phrases([
  'vs', 'versus', 'better than', 'worse than', 'compared to', 'compared with', 'comparison', 'switched from', 'switched to', 'switching to',
  'switching from', 'moved from', 'moved to', 'alternative to', 'alternatives to', 'instead of', 'rather than', 'prefer', 'superior to',
  'inferior to', 'outperforms', 'beats', 'unlike', 'as good as', 'same as', 'similar to', 'whereas',
]);
const FAULT = phrases([
  'crash', 'crashes', 'crashed', 'crashing', 'error', 'errors', 'exception', 'bug', 'bugs', 'glitch', 'not working', 'doesn t work',
  'does not work', 'doesnt work', 'stopped working', 'won t open', 'can t open', 'fails', 'failed', 'failing', 'freeze', 'freezes', 'frozen',
  'stuck', 'broken', 'hangs', 'steps to reproduce', 'reproduce', 'expected behavior', 'expected behaviour', 'actual behavior', 'stack trace',
  'traceback', 'force close', 'force closes', 'keeps closing', 'won t load', 'doesn t load', 'black screen', 'no sound', 'not responding',
]);
const POSITIVE = new Set([
  'love', 'loved', 'loves', 'great', 'awesome', 'amazing', 'excellent', 'perfect', 'best', 'good', 'nice', 'fantastic', 'wonderful',
  'happy', 'recommend', 'recommended', 'easy', 'helpful', 'brilliant', 'superb', 'fast', 'useful', 'impressed', 'beautiful', 'favorite',
  'favourite', 'thanks', 'thank', 'enjoy', 'enjoyed', 'cool', 'solid', 'reliable', 'smooth', 'works', 'glad', 'pleased', 'outstanding',
]);
const NEGATIVE = new Set([
  'bad', 'terrible', 'awful', 'worst', 'horrible', 'hate', 'hated', 'poor', 'useless', 'waste', 'disappointed', 'disappointing',
  'annoying', 'slow', 'sucks', 'crap', 'garbage', 'rubbish', 'frustrating', 'frustrated', 'angry', 'ridiculous', 'unacceptable',
  'pathetic', 'refund', 'scam', 'overpriced', 'expensive', 'fail', 'wrong', 'problem', 'problems', 'issue', 'issues', 'rude', 'never',
  'worse', 'junk', 'unhappy', 'lousy', 'mediocre', 'boring', 'ugly', 'stupid',
]);
const NEGATIONS = new Set(['not', 'no', 'never', 'don', 'doesn', 'didn', 'isn', 'wasn', 'aren', 'won', 'can', 'cannot', 'dont', 'doesnt', 'didnt', 'isnt', 'wasnt', 'cant', 'wont', 'nothing', 'hardly']);

/** Sentiment bits of a word: the small lists above and the Opinion Lexicon's sides. */
const SMALL_POS = 1, SMALL_NEG = 2, LEX_POS = 4, LEX_NEG = 8;

/** Every sentiment word with its bits, built on first use, so that a token costs one look-up. */
let sentiment: Map<string, number> | null = null;
function sentimentWords(): Map<string, number> {
  if (sentiment) return sentiment;
  const words = new Map<string, number>();
  const add = (list: Iterable<string>, bit: number) => {
    for (const w of list) if (w) words.set(w, (words.get(w) ?? 0) | bit);
  };
  add(POSITIVE, SMALL_POS);
  add(NEGATIVE, SMALL_NEG);
  add(POSITIVE_WORDS.split(/\s+/), LEX_POS);
  add(NEGATIVE_WORDS.split(/\s+/), LEX_NEG);
  sentiment = words;
  return words;
}

/** Phrase lists by their first token, longest first, for one look-up per token. */
function index(list: readonly (readonly string[])[]): Map<string, (readonly string[])[]> {
  const byFirst = new Map<string, (readonly string[])[]>();
  for (const seq of list) byFirst.set(seq[0] as string, [...(byFirst.get(seq[0] as string) ?? []), seq]);
  for (const seqs of byFirst.values()) seqs.sort((a, b) => b.length - a.length);
  return byFirst;
}

const FAMILIES = [['ask', index(ASK)], ['buy', index(BUY)], ['compare', index(COMPARE)], ['fault', index(FAULT)]] as const;

function matchesAt(tokens: readonly string[], at: number, seq: readonly string[]): boolean {
  for (let j = 0; j < seq.length; j++) if (tokens[at + j] !== seq[j]) return false;
  return true;
}

/** Words ending in -er that are no comparative ("other than that"). */
const NOT_COMPARATIVE = new Set(['other', 'others', 'whether', 'either', 'neither', 'never', 'however', 'over', 'under', 'after', 'user', 'users', 'number', 'order', 'ever', 'later', 'power', 'player', 'server', 'folder', 'driver', 'browser', 'computer', 'filter', 'member', 'paper', 'water']);

/** True when "-er than" or "more/less … than" ends at `than` (index `at`), within three tokens. */
function comparativeBefore(tokens: readonly string[], at: number): boolean {
  for (let j = Math.max(0, at - 3); j < at; j++) {
    const t = tokens[j] as string;
    if (t === 'more' || t === 'less' || (t.length > 4 && t.endsWith('er') && !NOT_COMPARATIVE.has(t))) return true;
  }
  return false;
}

/** True when the tokens open with an interrogative word or hold an asking phrase: a title or post in question form. */
export function asksInForm(tokens: readonly string[]): boolean {
  if (tokens.length && ASK_OPENERS.has(tokens[0] as string)) return true;
  const byFirst = FAMILIES[0][1];
  for (let i = 0; i < tokens.length; i++) if (byFirst.get(tokens[i] as string)?.some((seq) => matchesAt(tokens, i, seq))) return true;
  return false;
}

/** The cue names (distinct) of a post's tokens; `starts[i]` marks a token that opens a sentence. */
export function postCues(tokens: readonly string[], starts: readonly boolean[]): string[] {
  const found = new Set<string>();
  let pos = 0, neg = 0, lexPos = 0, lexNeg = 0;
  const words = sentimentWords();
  if (tokens.length && ASK_OPENERS.has(tokens[0] as string)) found.add('ask_open');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    for (let f = 0; f < FAMILIES.length; f++) {
      const [name, byFirst] = FAMILIES[f] as (typeof FAMILIES)[number];
      const seqs = byFirst.get(token);
      if (seqs && !found.has(name) && seqs.some((seq) => matchesAt(tokens, i, seq))) found.add(name);
    }
    if (token === 'than' && comparativeBefore(tokens, i)) found.add('compare');
    if (starts[i] && ASK_OPENERS.has(token)) found.add('ask_sentence');
    const bits = words.get(token);
    if (bits === undefined) continue;
    const negated = NEGATIONS.has(tokens[i - 1] as string) || NEGATIONS.has(tokens[i - 2] as string);
    if (bits & SMALL_POS) {
      pos++;
      if (negated) found.add('pos_negated');
    }
    if (bits & SMALL_NEG) {
      neg++;
      if (negated) found.add('neg_negated');
    }
    if (bits & LEX_POS) {
      if (negated) lexNeg++;
      else lexPos++;
    }
    if (bits & LEX_NEG) {
      if (negated) lexPos++;
      else lexNeg++;
    }
  }
  if (lexPos) found.add(`lex_pos_${Math.min(lexPos, 3)}`);
  if (lexNeg) found.add(`lex_neg_${Math.min(lexNeg, 3)}`);
  if (lexPos > lexNeg) found.add('lex_positive');
  if (lexNeg > lexPos) found.add('lex_negative');
  if (!lexPos && !lexNeg) found.add('lex_none');
  if (pos) found.add('pos');
  if (neg) found.add('neg');
  if (pos && !neg) found.add('pos_only');
  if (neg && !pos) found.add('neg_only');
  return [...found];
}
