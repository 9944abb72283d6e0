/**
 * Readability-style candidate scoring. Every run of prose (a `<p>`, `<pre>`, `<td>`, a
 * block holding only inline content, or the loose inline text of a mixed block) of at least
 * 25 characters earns points for its length and commas; the points flow to its container
 * (in full), the container's parent (half) and further ancestors (a third per level), each
 * seeded with a tag and class/id prior. A candidate's final score is discounted by its link
 * density. The best candidate is usually the article's container.
 */
import { type AnyNode, type Element, type ParentNode, type TextStats, hintOf, isElement, linkDensity, tagOf, visibleLength } from './dom.js';
import { BLOCK_TAGS, POSITIVE, STRONG_NEGATIVE, WEAK_NEGATIVE } from './patterns.js';

const PARAGRAPH_TAGS = new Set(['p', 'pre', 'td', 'blockquote', 'dd', 'li', 'h2', 'h3', 'h4']);
const MIN_PARAGRAPH = 25;
const MAX_LEVELS = 5;

/** +25 for article-like class/id words, -25 for boilerplate ones (both may apply). */
export function classWeight(el: Element): number {
  const hint = hintOf(el);
  if (!hint) return 0;
  let w = 0;
  if (STRONG_NEGATIVE.test(hint)) w -= 25;
  else if (WEAK_NEGATIVE.test(hint)) w -= 10;
  if (POSITIVE.test(hint)) w += 25;
  return w;
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

const hasBlockChild = (el: Element) => el.children.some((c) => isElement(c) && BLOCK_TAGS.has(tagOf(c)));

/** Visible length, commas and link length of an element's direct inline content. */
function looseInline(el: Element, stats: Map<Element, TextStats>): TextStats {
  const s: TextStats = { text: 0, link: 0, commas: 0 };
  for (const c of el.children as AnyNode[]) {
    if (c.type === 'text') {
      const data = (c as unknown as { data: string }).data;
      s.text += visibleLength(data);
      s.commas += data.match(/[,，、،]/g)?.length ?? 0;
    } else if (isElement(c) && !BLOCK_TAGS.has(tagOf(c))) {
      const cs = stats.get(c);
      if (cs) {
        s.text += cs.text;
        s.link += cs.link;
        s.commas += cs.commas;
      }
    }
  }
  return s;
}

export interface Scores {
  /** Final (link-density-discounted) score of every scored candidate. */
  readonly scores: Map<Element, number>;
  /** The best candidates, best first (at most 5). */
  readonly top: Element[];
}

/** Scores the candidates under `root` given text measures of its elements. */
export function scoreCandidates(root: ParentNode, stats: Map<Element, TextStats>): Scores {
  const raw = new Map<Element, number>();
  const add = (el: Element, points: number) => {
    let s = raw.get(el);
    if (s === undefined) s = tagPrior(tagOf(el)) + classWeight(el);
    raw.set(el, s + points);
  };
  const stack: Element[] = [];
  for (const c of root.children) if (isElement(c)) stack.push(c);
  while (stack.length) {
    const el = stack.pop() as Element;
    const tag = tagOf(el);
    const blocks = hasBlockChild(el);
    let unit: TextStats | undefined;
    let target: ParentNode | null = null;
    if (blocks) {
      unit = looseInline(el, stats);
      target = el;
      for (const c of el.children) if (isElement(c)) stack.push(c);
    } else if (PARAGRAPH_TAGS.has(tag) || BLOCK_TAGS.has(tag)) {
      unit = stats.get(el);
      target = el.parent;
    }
    if (unit && unit.text >= MIN_PARAGRAPH) {
      const ld = unit.text ? unit.link / unit.text : 0;
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
