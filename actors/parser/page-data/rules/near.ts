/**
 * "Near the headline": the anchor the byline, date and price rules measure from, and the
 * window around it. Distances are characters of visible text (view.ts), so they do not
 * depend on how deeply a site nests its markup.
 *
 * A fact is near when it starts at most `before` characters before the anchor starts or
 * `after` characters after it ends. Without an anchor (no heading on the page) the window
 * is the first `after` characters of the first `<article>`/`<main>`, else of the page.
 * Facts inside furniture (footer, nav, sidebar, comments, related boxes) are never near,
 * except the furniture the anchor itself is in (a headline in a site header, or in a
 * layout wrapper named like a sidebar, "c-fixed-sidebar-layout").
 *
 * The scans of every element near the anchor (`nearestInOrder` over the view's document
 * order) find the window by halving and merge its two sides nearest first, so their cost
 * is the window's, not the page's.
 */
import { type Node, type PageView, Ctx, FURNITURE, MAX_CANDIDATES, tagged } from './view.js';

export interface Anchor {
  readonly start: number;
  readonly end: number;
  /** Furniture bits a fact may carry and still count (the anchor's own header). */
  readonly allowed: number;
}

/** How many of all elements near the anchor a scan of short texts looks at. */
export const ALL_NEAR = 2000;

export function anchorOf(view: PageView, heading: Node | null): Anchor {
  if (heading) return { start: heading.start, end: heading.end, allowed: heading.ctx & FURNITURE };
  const container = tagged(view, 'article')[0] ?? tagged(view, 'main')[0];
  const start = container?.start ?? 0;
  return { start, end: start, allowed: 0 };
}

export const inFurniture = (node: Node, anchor: Anchor): boolean => (node.ctx & FURNITURE & ~anchor.allowed) !== 0;

/** Characters between the anchor and the node (0 when they overlap); negative before. */
export function offset(node: Node, anchor: Anchor): number {
  if (node.start < anchor.start) return node.start - anchor.start;
  return node.start > anchor.end ? node.start - anchor.end : 0;
}

export function isNear(node: Node, anchor: Anchor, before: number, after: number): boolean {
  if (inFurniture(node, anchor) || node.ctx & Ctx.NoScript) return false;
  const d = offset(node, anchor);
  return d >= -before && d <= after;
}

/**
 * The nodes near the anchor, nearest first (ties in document order), at most `limit`
 * (MAX_CANDIDATES; ALL_NEAR for scans of every element): a page of thousands of nested
 * date-classed elements is read no further.
 */
export function nearest(nodes: Iterable<Node>, anchor: Anchor, before: number, after: number, limit = MAX_CANDIDATES): Node[] {
  const out: Node[] = [];
  for (const n of nodes) if (isNear(n, anchor, before, after)) out.push(n);
  out.sort((a, b) => Math.abs(offset(a, anchor)) - Math.abs(offset(b, anchor)) || a.index - b.index);
  return out.length > limit ? out.slice(0, limit) : out;
}

/** The first position in `nodes` (document order) whose offset from the anchor is at least `min`. */
function firstFrom(nodes: readonly Node[], anchor: Anchor, min: number): number {
  let lo = 0;
  let hi = nodes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offset(nodes[mid] as Node, anchor) < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `nearest` for nodes in document order (`view.all`, one tag's list): the same nodes in the
 * same order, without looking at the others or sorting. Positions never decrease in
 * document order, so the nodes within reach are one run of the list (found by halving):
 * first those overlapping the anchor, then nearest first a merge of the part before it, read
 * backwards (nodes starting at the same position kept in document order), with the part
 * after it; on a tie the earlier node, the one before, comes first.
 */
export function nearestInOrder(nodes: readonly Node[], anchor: Anchor, before: number, after: number, limit = MAX_CANDIDATES): Node[] {
  const out: Node[] = [];
  const lo = firstFrom(nodes, anchor, -before);
  const hi = firstFrom(nodes, anchor, after + 1);
  const overlapping = firstFrom(nodes, anchor, 0);
  const following = firstFrom(nodes, anchor, 1);
  const take = (n: Node): boolean => {
    if (!inFurniture(n, anchor) && !(n.ctx & Ctx.NoScript)) out.push(n);
    return out.length >= limit;
  };
  for (let k = overlapping; k < following; k += 1) if (take(nodes[k] as Node)) return out;
  let i = Math.max(overlapping, lo) - 1;
  let j = Math.min(following, hi);
  while (i >= lo || j < hi) {
    const back = i >= lo ? -offset(nodes[i] as Node, anchor) : Infinity;
    const ahead = j < hi ? offset(nodes[j] as Node, anchor) : Infinity;
    if (ahead < back) {
      if (take(nodes[j] as Node)) return out;
      j += 1;
      continue;
    }
    const start = (nodes[i] as Node).start;
    let first = i;
    while (first > lo && (nodes[first - 1] as Node).start === start) first -= 1;
    for (let k = first; k <= i; k += 1) if (take(nodes[k] as Node)) return out;
    i = first - 1;
  }
  return out;
}
