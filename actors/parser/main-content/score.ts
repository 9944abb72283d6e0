/**
 * Readability-style candidate scoring. Every run of prose (a `<p>`, `<pre>`, `<td>`, a
 * block holding only inline content, or the loose inline text of a mixed block; a blank
 * line, `<br><br>`, ends a run) of at least 25 characters earns points for its length and
 * commas; the points flow to its container (in full), the container's parent (half) and
 * further ancestors (a third per level), each seeded with a tag and class/id prior. Class/id
 * words the page uses for layout (on blocks holding most of its prose) carry no prior. A
 * candidate's final score is discounted by its link density. The best candidate is usually
 * the article's container.
 */
import { type AnyNode, type Element, type ParentNode, type TextStats, commaCount, hintOf, isElement, linkDensity, tagOf, visibleLength } from './dom.js';
import { BLOCK_TAGS, BOILERPLATE_CLASS, POSITIVE, STRONG_NEGATIVE, WEAK_NEGATIVE } from './patterns.js';

const PARAGRAPH_TAGS = new Set(['p', 'pre', 'td', 'blockquote', 'dd', 'li', 'h2', 'h3', 'h4']);
const MIN_PARAGRAPH = 25;
const MAX_LEVELS = 5;

const STRONG_WORDS = new RegExp(STRONG_NEGATIVE.source, 'g');
const WEAK_WORDS = new RegExp(WEAK_NEGATIVE.source, 'g');
/** `BOILERPLATE_CLASS` as a global pattern, for `wordsOf`. */
export const BOILERPLATE_WORDS = new RegExp(BOILERPLATE_CLASS.source, 'g');

/** The boilerplate words (by `re`, a global copy of a class/id pattern) in a hint. */
export const wordsOf = (hint: string, re: RegExp): string[] => [...hint.matchAll(re)].map((m) => m[0].replace(/^[\s_-]/, ''));

/**
 * +25 for article-like class/id words, -25 for boilerplate ones (both may apply). Words in
 * `layout` (see `layoutWords`) do not count as boilerplate.
 */
export function classWeight(el: Element, layout?: ReadonlySet<string>): number {
  const hint = hintOf(el);
  if (!hint) return 0;
  const says = (re: RegExp, global: RegExp) =>
    layout?.size ? re.test(hint) && wordsOf(hint, global).some((w) => !layout.has(w)) : re.test(hint);
  let w = 0;
  if (says(STRONG_NEGATIVE, STRONG_WORDS)) w -= 25;
  else if (says(WEAK_NEGATIVE, WEAK_WORDS)) w -= 10;
  if (POSITIVE.test(hint)) w += 25;
  return w;
}

const NO_WORDS: readonly string[] = [];

/** Words that say what a block is (comments, related links, ads, captions and credits), not where it sits: never layout. */
const KIND_WORD = /^(?:comment|commentlist|disqus|respond|reply|related|relateds|relatedposts|share|shares|sharing|sharedaddy|social|newsletter|cookie|consent|gdpr|cmp|advert|ads|ad-|sponsor|promo|paywall|subscri|signup|outbrain|taboola|caption|credit|byline|dateline|copyright)/;

/**
 * Boilerplate class/id words that this page uses for layout: the elements carrying one hold
 * more than half of the page's prose (page builders put `widget` on every block, themes wrap
 * the article in `content-sidebar-wrap`). Such a word says nothing about a block. A word's
 * share does not depend on the other words, so `only: 'boilerplate'` (the words of
 * `BOILERPLATE_CLASS`, all that pruning asks about) gives the same words of that kind, sooner.
 */
export function layoutWords(root: Element, stats: Map<Element, TextStats>, only: 'all' | 'boilerplate' = 'all'): Set<string> {
  const prose = (el: Element) => {
    const s = stats.get(el);
    return s ? s.text - s.link : 0;
  };
  const total = prose(root);
  const out = new Set<string>();
  if (total <= 0) return out;
  const cover = new Map<string, number>();
  // A page repeats its class lists: each one is matched once.
  const wordsByHint = new Map<string, readonly string[]>();
  const negativeWords = (hint: string): readonly string[] => {
    let words = wordsByHint.get(hint);
    if (!words) {
      if (only === 'boilerplate') words = BOILERPLATE_CLASS.test(hint) ? wordsOf(hint, BOILERPLATE_WORDS) : NO_WORDS;
      else words = STRONG_NEGATIVE.test(hint) || WEAK_NEGATIVE.test(hint) ? [...wordsOf(hint, STRONG_WORDS), ...wordsOf(hint, WEAK_WORDS)] : NO_WORDS;
      wordsByHint.set(hint, words);
    }
    return words;
  };
  const walk = (el: Element, active: ReadonlySet<string>) => {
    const hint = hintOf(el);
    let next = active;
    const found = hint ? negativeWords(hint) : NO_WORDS;
    if (found.length) {
      const words = found.filter((w) => !active.has(w));
      if (words.length) {
        const p = prose(el);
        for (const w of new Set(words)) cover.set(w, (cover.get(w) ?? 0) + p);
        next = new Set([...active, ...words]);
      }
    }
    for (const c of el.children) if (isElement(c) && c.type === 'tag') walk(c, next);
  };
  walk(root, new Set());
  for (const [w, p] of cover) if (p > 0.5 * total && !KIND_WORD.test(w)) out.add(w);
  return out;
}

function tagPrior(tag: string): number {
  switch (tag) {
    case 'div': case 'article': case 'main': case 'section':
      return 5;
    case 'pre': case 'td': case 'blockquote':
      return 3;
    case 'address': case 'ol': case 'ul': case 'dl': case 'dd': case 'dt': case 'li': case 'form':
      return -3;
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': case 'th':
      return -5;
    default:
      return 0;
  }
}

/** Whether a node is a block-level element (a `<br>` only breaks a line). */
export const isBlockElement = (c: AnyNode): boolean => isElement(c) && tagOf(c) !== 'br' && BLOCK_TAGS.has(tagOf(c));

/** Whether an element holds block children. */
export const hasBlockChild = (el: Element): boolean => el.children.some(isBlockElement);

/** Any character but whitespace (the set `trim` takes off): a text node with words. */
const NON_SPACE = /\S/;

const NO_RUNS: readonly TextStats[] = [];

/**
 * The runs of prose among an element's direct children: inline content (text and inline
 * elements) up to a block child or a blank line (two `<br>`s with nothing but white space
 * between them), each with its visible length, commas and link length. A `<div>` written as
 * text with `<br><br>` between paragraphs thus counts as several paragraphs, as a reader
 * sees it. Called for most elements of a page, so it allocates only the runs it returns.
 */
function inlineRuns(el: Element, stats: Map<Element, TextStats>): readonly TextStats[] {
  let runs: TextStats[] | null = null;
  // The open run's measures, as numbers (no closure over them: that would be a heap context a call).
  let text = 0;
  let link = 0;
  let commas = 0;
  let brs = 0;
  for (const c of el.children as AnyNode[]) {
    let ends = false;
    if (c.type === 'text') {
      const data = (c as unknown as { data: string }).data;
      const n = visibleLength(data);
      if (n && NON_SPACE.test(data)) {
        text += n;
        commas += commaCount(data);
        brs = 0;
      }
    } else if (isElement(c)) {
      const tag = tagOf(c);
      if (tag === 'br') {
        brs += 1;
        ends = brs >= 2;
      } else if (BLOCK_TAGS.has(tag)) {
        ends = true;
      } else {
        const cs = stats.get(c);
        if (cs) {
          text += cs.text;
          link += cs.link;
          commas += cs.commas;
        }
        brs = 0;
      }
    }
    if (ends) {
      if (text) (runs ??= []).push({ text, link, commas });
      text = link = commas = brs = 0;
    }
  }
  if (text) (runs ??= []).push({ text, link, commas });
  return runs ?? NO_RUNS;
}

export interface Scores {
  /** Final (link-density-discounted) score of every scored candidate. */
  readonly scores: Map<Element, number>;
  /** The best candidates, best first (at most 5). */
  readonly top: Element[];
}

/** Scores the candidates under `root` given text measures of its elements. */
export function scoreCandidates(root: Element, stats: Map<Element, TextStats>): Scores {
  const layout = layoutWords(root, stats);
  const raw = new Map<Element, number>();
  const add = (el: Element, points: number) => {
    let s = raw.get(el);
    if (s === undefined) s = tagPrior(tagOf(el)) + classWeight(el, layout);
    raw.set(el, s + points);
  };
  const stack: Element[] = [];
  for (const c of root.children) if (isElement(c)) stack.push(c);
  while (stack.length) {
    const el = stack.pop() as Element;
    const tag = tagOf(el);
    let units: readonly TextStats[] = NO_RUNS;
    let target: ParentNode | null = null;
    if (hasBlockChild(el)) {
      units = inlineRuns(el, stats);
      target = el;
      for (const c of el.children) if (isElement(c)) stack.push(c);
    } else if (PARAGRAPH_TAGS.has(tag) || BLOCK_TAGS.has(tag)) {
      units = inlineRuns(el, stats);
      target = el.parent;
    }
    for (const unit of units) {
      if (unit.text < MIN_PARAGRAPH) continue;
      const ld = unit.link / unit.text;
      const points = (1 + unit.commas + Math.min(Math.floor(unit.text / 100), 3)) * (1 - ld);
      let level = 0;
      for (let n: ParentNode | null = target; n && isElement(n) && level < MAX_LEVELS; n = n.parent, level += 1) {
        if (tagOf(n) === 'body' || tagOf(n) === 'html') break;
        add(n, level === 0 ? points : level === 1 ? points / 2 : points / (level * 3));
      }
    }
  }
  const scores = new Map<Element, number>();
  for (const [el, s] of raw) scores.set(el, s * (1 - linkDensity(stats.get(el))));
  const top = [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([el]) => el);
  return { scores, top };
}
