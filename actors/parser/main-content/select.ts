/**
 * Choosing the main-content root on the pruned document. Two opinions are formed: the
 * semantic one (the first usual article-body container, by `ARTICLE_SELECTORS`, holding
 * enough prose) and the scored one (the best Readability-style candidate, lifted to a common
 * ancestor when the top candidates share one, then joined by its prose-bearing siblings).
 * The semantic choice wins when it holds a fair share of the scored choice's prose or
 * contains it; when both are poor, the whole body is the answer.
 */
import { type Element, type ParentNode, type TextStats, childElements, contains, descendants, detach, hintOf, isElement, linkDensity, tagOf } from './dom.js';
import { ARTICLE_SELECTORS, articleRanks } from './patterns.js';
import { isBlockElement, scoreCandidates } from './score.js';
import { textOf } from './text.js';

/** Non-link characters: the prose an element carries. */
export const proseOf = (s: TextStats | undefined): number => (s ? s.text - s.link : 0);

/** The first `ARTICLE_SELECTORS`, which match an article's body blocks rather than whole articles. */
const BODY_SELECTORS = 2;

/** An article split into body blocks has at least this many besides the first (an entry each). */
const MIN_PARTS = 3;

/** Minimum prose for a container to count as an article. */
const MIN_ARTICLE_PROSE = 250;

/**
 * The first article-body container (by selector priority) carrying enough prose, or null.
 * Among several matches of one selector, the first in document order holding at least
 * half the prose of the largest wins (an endless-scroll page lists the page's own article
 * first; teasers are smaller), unless it is one entry of a list article (`partsOf`).
 */
export function semanticCandidate(root: ParentNode, stats: Map<Element, TextStats>, total: number): Element | null {
  const min = Math.min(MIN_ARTICLE_PROSE, 0.3 * total);
  const bySelector = articleContainers(root);
  for (let i = 0; i < bySelector.length; i += 1) {
    const matches = (bySelector[i] as Element[]).filter((el) => linkDensity(stats.get(el)) < 0.5);
    const largest = Math.max(0, ...matches.map((el) => proseOf(stats.get(el))));
    if (largest < min) continue;
    const chosen = matches.find((el) => proseOf(stats.get(el)) >= Math.max(min, 0.5 * largest)) ?? null;
    // Only body blocks (itemprop, body classes) are parts of an article; `<article>`s in a `<main>` are its teasers.
    return chosen && i < BODY_SELECTORS ? partsOf(chosen, matches, bySelector.slice(i + 1), stats) ?? chosen : chosen;
  }
  return null;
}

/** WordPress names the post a page shows in its `<body>` classes (`single-post postid-1806`) and the post's element `post-1806`. */
const POST_ID = /(?:^|\s)postid-(\d+)(?=\s|$)/;
const POST_NAME = /(?:^|\s)post-(\d+)(?=\s|$)/;

/**
 * The post the page itself says it shows, when `chosen` holds it and another post too, or
 * null. An endless-scroll theme appends the next posts after the page's own, sometimes inside
 * it (unclosed tags), where neither the article sizes nor the scores tell them apart; the
 * `<body>` of a WordPress page names its post (`postid-N`), and the theme names each post's
 * element (`post-N`, id or class). The first element named the page's post with enough
 * prose is the answer when `chosen` also holds another post with enough prose.
 */
export function ownPost(body: Element, chosen: Element, stats: Map<Element, TextStats>): Element | null {
  const id = POST_ID.exec(body.attribs.class ?? '')?.[1];
  if (!id) return null;
  let own: Element | null = null;
  let other = false;
  for (const el of descendants(body)) {
    const n = POST_NAME.exec(el.attribs.class ?? '')?.[1] ?? POST_NAME.exec(el.attribs.id ?? '')?.[1];
    if (!n || proseOf(stats.get(el)) < MIN_ARTICLE_PROSE || linkDensity(stats.get(el)) >= 0.5) continue;
    if (n === id) own ??= el;
    else if (contains(chosen, el) && !(own && contains(own, el))) other = true;
  }
  return own && other && own !== chosen ? own : null;
}

/**
 * The article that `chosen` is one body block of, or null: when the innermost container of a
 * later selector (an `<article>`, `<main>`) around `chosen` holds at least MIN_PARTS other
 * blocks of the same selector with more prose together than `chosen` (a list article written
 * as one body block per entry), the lowest element holding them all. Pages that list several
 * articles, each in its own container, are not joined; nor is an article whose body is split
 * in two around an advertisement (its later part is found by expand.ts).
 */
function partsOf(chosen: Element, matches: readonly Element[], later: readonly Element[][], stats: Map<Element, TextStats>): Element | null {
  const own = proseOf(stats.get(chosen));
  for (const found of later) {
    let inner: Element | null = null;
    for (const el of found) if (el !== chosen && contains(el, chosen) && (!inner || contains(inner, el))) inner = el;
    if (!inner) continue;
    const parts = matches.filter((m) => m !== chosen && contains(inner as Element, m) && !contains(chosen, m) && !contains(m, chosen));
    let others = 0;
    for (const m of parts) others += proseOf(stats.get(m));
    return parts.length >= MIN_PARTS && others > own ? commonAncestor([chosen, ...parts]) : null;
  }
  return null;
}

/** The elements under `root` matching each of `ARTICLE_SELECTORS`, in document order: one walk, no selector engine. */
function articleContainers(root: ParentNode): Element[][] {
  const out: Element[][] = ARTICLE_SELECTORS.map(() => []);
  const walk = (node: ParentNode) => {
    for (const c of node.children) {
      if (!isElement(c)) continue;
      const bits = articleRanks(c.name, c.attribs);
      if (bits) for (let i = 0; i < out.length; i += 1) if (bits & (1 << i)) (out[i] as Element[]).push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** The lowest element containing all of `els`. */
function commonAncestor(els: Element[]): Element | null {
  const [first, ...rest] = els;
  for (let n: Element | null = first ?? null; n; n = isElement(n.parent) ? n.parent : null) {
    if (rest.every((e) => contains(n as Element, e))) return n;
  }
  return null;
}

/** A chosen root and the siblings to drop from it when it is a merge of siblings. */
export interface Choice {
  readonly root: Element;
  readonly drop: readonly Element[];
}

/** Detaches a choice's dropped siblings and returns its root. */
export function apply(choice: Choice): Element {
  for (const el of choice.drop) detach(el);
  return choice.root;
}

/** The scored candidate, with Readability's common-ancestor lift and sibling merge (not yet applied). */
export function scoredCandidate(body: Element, stats: Map<Element, TextStats>): Choice | null {
  const { scores, top } = scoreCandidates(body, stats);
  let best = top[0];
  if (!best) return null;
  const bestScore = scores.get(best) ?? 0;
  const close = top.slice(1).filter((el) => (scores.get(el) ?? 0) >= 0.75 * bestScore && !contains(el, best as Element) && !contains(best as Element, el));
  if (close.length >= 2) {
    const common = commonAncestor([best, ...close]);
    if (common && tagOf(common) !== 'html') best = common;
  }
  // Climb while the parent scores better (the article's paragraphs are split over blocks).
  let score = scores.get(best) ?? 0;
  for (let p = best.parent; isElement(p) && tagOf(p) !== 'body' && tagOf(p) !== 'html'; p = p.parent) {
    const ps = scores.get(p);
    if (ps === undefined) {
      if (childElements(p).length === 1) {
        best = p;
        continue;
      }
      break;
    }
    if (ps <= score) break;
    best = p;
    score = ps;
  }
  return mergeSiblings(best, scores, stats);
}

const NON_SPACE = /\S/;
/** A sentence's end inside a short paragraph: a full stop before a space or at the end. */
const FULL_STOP = /\.(?: |$)/;

/** Whether some element below `el` is a block. */
const holdsBlock = (el: Element): boolean => el.children.some((c) => isBlockElement(c) || (isElement(c) && holdsBlock(c)));

/**
 * Whether `el` reads as one paragraph: a `<p>`, or a `<div>` holding only inline content or
 * only one `<p>` (Readability turns both into a `<p>` before it merges siblings).
 */
function isParagraph(el: Element): boolean {
  const tag = tagOf(el);
  if (tag === 'p') return true;
  if (tag !== 'div') return false;
  const kids = childElements(el);
  if (kids.length === 1 && tagOf(kids[0]) === 'p' && !el.children.some((c) => c.type === 'text' && NON_SPACE.test(c.data))) return true;
  return !holdsBlock(el);
}

/** Adds prose-bearing siblings of `best`: their parent becomes the root, the other siblings are dropped. */
function mergeSiblings(best: Element, scores: Map<Element, number>, stats: Map<Element, TextStats>): Choice {
  const parent = best.parent;
  if (!isElement(parent) || tagOf(parent) === 'body' || tagOf(parent) === 'html') return { root: best, drop: [] };
  const bestScore = scores.get(best) ?? 0;
  const threshold = Math.max(10, bestScore * 0.2);
  const hint = hintOf(best);
  const keep = new Set<Element>([best]);
  for (const sib of childElements(parent)) {
    if (sib === best) continue;
    const s = stats.get(sib);
    const bonus = hint && hintOf(sib) === hint ? bestScore * 0.2 : 0;
    if ((scores.get(sib) ?? -Infinity) + bonus >= threshold) keep.add(sib);
    else if (s && isParagraph(sib)) {
      const ld = linkDensity(s);
      if (s.text > 80 && ld < 0.25) keep.add(sib);
      else if (s.text > 0 && s.text < 80 && s.link === 0 && FULL_STOP.test(textOf(sib))) keep.add(sib);
    }
  }
  if (keep.size === 1) return { root: best, drop: [] };
  return { root: parent, drop: childElements(parent).filter((sib) => !keep.has(sib)) };
}

