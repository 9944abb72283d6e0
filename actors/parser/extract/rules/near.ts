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
