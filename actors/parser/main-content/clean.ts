/**
 * Second pass, inside the chosen root: drop what slipped through the first pass because it
 * sat inside the article container — link lists, blocks whose class/id says boilerplate and
 * whose text agrees (link-heavy or short), and sections headed by a boilerplate heading
 * ("Related articles", "Comments", "Teilen:", …) together with what follows them. Short
 * furniture lines (datelines, bylines, credits, teasers) are lines.ts's; copies of blocks,
 * paragraphs and quoted posts copies.ts's.
 */
import { type AnyNode, type Element, type TextStats, childElements, contains, detach, isElement, linkDensity, measure, shapeOf, tagOf, visibleLength } from './dom.js';
import { BLOCK_TAGS, BOILERPLATE_HEADINGS, HEADING_TAGS } from './patterns.js';
import { embedHolders } from './prune.js';
import { classWeight, layoutWords } from './score.js';
import { proseOf } from './select.js';
import { nonSpaceCount, textOf } from './text.js';

/** A block whose removed link blocks leave at least this much prose is judged on what is left. */
const LEFT_PARAGRAPH = 100;
/**
 * Blocks of one tag and one class attribute, at least this many and none inside another,
 * that together hold most of the root's prose are its records (a listing's
 * `<div class="meta">` per entry): their class says what each record is, not furniture.
 */
const RECORD_COUNT = 3;
/** A root with less prose than this is too short for its class words to be its layout (see score.ts `layoutWords`). */
const MIN_LAYOUT_PROSE = 1000;
const CONDITIONAL_TAGS = new Set(['div', 'section', 'ul', 'ol', 'dl', 'table', 'form', 'aside', 'header', 'span', 'figure']);
const HEADING_LIKE = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div', 'li', 'dt', 'section']);

/**
 * Removes link-dense and boilerplate-classed blocks under `root` (bottom-up), in place. A
 * block is judged on all its text, the links of removed children included (a box that held
 * a link list and its heading is still a link box), unless what is left of it once its
 * link blocks are gone is a real paragraph and its class/id does not say boilerplate: then
 * it is judged on what is left, so a few "download" links beside a paragraph do not take
 * the paragraph with them. An inline `<span>` is judged only when it is a whole line. The
 * class of the root's records (see `recordShapes`) is not read as boilerplate.
 */
export function removeLinkBlocks(root: Element, protect?: Element): void {
  const stats = measure(root);
  const records = recordShapes(root, stats);
  let layout: ReadonlySet<string> | undefined;
  const rootProse = proseOf(stats.get(root));
  const embeds = embedHolders(root, stats);
  const visit = (el: Element): TextStats | undefined => {
    let gone: TextStats | undefined;
    for (const c of childElements(el)) {
      const g = visit(c);
      if (g) gone = gone ? addStats(gone, g) : { ...g };
    }
    if (el === root || !CONDITIONAL_TAGS.has(tagOf(el)) || !el.parent || (protect && contains(el, protect)) || embeds.has(el)) return gone;
    // An inline span is judged only as a whole line: inside a sentence or a link it is text.
    if (tagOf(el) === 'span' && !holdsBlock(el) && !wholeLine(el, stats)) return gone;
    const all = stats.get(el);
    if (!all) return gone;
    // Most roots have no records: then no element's shape is built.
    let weight = records.size > 0 && records.has(shapeOf(el)) ? 0 : classWeight(el);
    // A boilerplate word the root uses for its layout (a page builder's `widget` on
    // every block) says nothing, as in pruning (prune.ts); a root of a few lines has no layout.
    if (weight < 0 && rootProse >= MIN_LAYOUT_PROSE) weight = classWeight(el, (layout ??= layoutWords(root, stats, 'boilerplate')));
    const left = gone ? { text: all.text - gone.text, link: all.link - gone.link, commas: all.commas } : all;
    const s = weight >= 0 && left.text - left.link >= LEFT_PARAGRAPH ? left : all;
    const ld = linkDensity(s);
    const prose = s.text - s.link;
    const list = tagOf(el) === 'ul' || tagOf(el) === 'ol';
    if ((ld > 0.5 && prose < 300) || (list && ld > 0.6) || (weight < 0 && (ld > 0.25 || prose < 200))) {
      detach(el);
      return all;
    }
    return gone;
  };
  visit(root);
}

/**
 * The shapes (see `shapeOf`) of the root's records: classed blocks of one shape, at least
 * RECORD_COUNT of them outside one another, holding more than half the root's prose.
 */
function recordShapes(root: Element, stats: Map<Element, TextStats>): ReadonlySet<string> {
  const prose = (el: Element) => proseOf(stats.get(el));
  const total = prose(root);
  if (total <= 0) return NO_SHAPES;
  const found = new Map<string, { count: number; prose: number }>();
  // The shapes of the blocks the walk is inside: a block inside one of its own shape is part of that record.
  const open = new Set<string>();
  const walk = (el: Element) => {
    for (const c of childElements(el)) {
      const shape = c.attribs.class ? shapeOf(c) : null;
      const outer = shape !== null && !open.has(shape);
      if (outer) {
        const f = found.get(shape);
        if (f) {
          f.count += 1;
          f.prose += prose(c);
        } else found.set(shape, { count: 1, prose: prose(c) });
        open.add(shape);
      }
      walk(c);
      if (outer) open.delete(shape as string);
    }
  };
  walk(root);
  const out = new Set<string>();
  for (const [shape, f] of found) if (f.count >= RECORD_COUNT && f.prose > 0.5 * total) out.add(shape);
  return out;
}

const NO_SHAPES: ReadonlySet<string> = new Set();

const holdsBlock = (el: Element): boolean => childElements(el).some((c) => BLOCK_TAGS.has(tagOf(c)) || holdsBlock(c));

/** Whether an inline element carries (nearly) all the text of the block it sits in. */
function wholeLine(el: Element, stats: Map<Element, TextStats>): boolean {
  let block: Element | null = null;
  for (let p = el.parent; isElement(p); p = p.parent) {
    if (tagOf(p) === 'a') return false;
    if (BLOCK_TAGS.has(tagOf(p))) {
      block = p;
      break;
    }
  }
  const own = stats.get(el)?.text ?? 0;
  const all = block ? stats.get(block)?.text ?? 0 : 0;
  return own >= 0.8 * all;
}

const addStats = (a: TextStats, b: TextStats): TextStats => {
  a.text += b.text;
  a.link += b.link;
  a.commas += b.commas;
  return a;
};

/** Whether `el` is a short block whose whole text reads as a boilerplate heading. */
function isBoilerplateHeading(el: Element): boolean {
  if (!HEADING_LIKE.has(tagOf(el)) || !fewCharacters(el, 60)) return false;
  const text = textOf(el);
  return text.length > 0 && text.length <= 60 && BOILERPLATE_HEADINGS.test(text.replace(/[:.!?…›»]+$/, '').trim());
}

/**
 * Whether `el` holds at most `max` characters other than whitespace (as `textOf` reads it):
 * a block with more cannot be a short heading, and its text is not built to find that out.
 */
const fewCharacters = (el: Element, max: number): boolean => nonSpaceCount(el, max) <= max;

/**
 * Removes boilerplate headings under `root`; a heading also takes its following siblings,
 * and a heading that opens its container takes the container.
 */
export function removeBoilerplateSections(root: Element, protect?: Element): void {
  const found: Element[] = [];
  const walk = (el: Element) => {
    for (const c of childElements(el)) {
      if (protect && contains(c, protect)) walk(c);
      else if (isBoilerplateHeading(c)) found.push(c);
      else walk(c);
    }
  };
  walk(root);
  if (!found.length) return;
  const stats = measure(root);
  const prose = (el: Element) => {
    const s = stats.get(el);
    return s ? s.text - s.link : 0;
  };
  const limit = 0.5 * prose(root);
  for (const heading of found) {
    if (!heading.parent) continue;
    let target: Element = heading;
    // A heading that opens its container (with nothing before it) names the container.
    while (
      isElement(target.parent) &&
      target.parent !== root &&
      firstElementChild(target.parent) === target &&
      prose(target.parent) < limit &&
      !(protect && contains(target.parent, protect))
    ) {
      target = target.parent;
    }
    // A section that ends the article takes what follows it; one near the top does not. A
    // heading written as a plain block ("<p><strong>Read more?</strong></p>") must sit
    // closer to the end.
    const headed = HEADING_TAGS.has(tagOf(heading)) || target !== heading;
    if (proseAfter(target, root, prose) < (headed ? 0.5 : 0.2) * prose(root)) {
      for (let n: AnyNode | null = target.next; n && !(protect && contains(n, protect)); ) {
        const next: AnyNode | null = n.next;
        detach(n);
        n = next;
      }
    } else {
      // In the middle of the text, the heading takes only the link list it introduces
      // ("Don't miss" and a paragraph of links), not the text after it.
      const list = nextElement(target);
      if (list && !HEADING_TAGS.has(tagOf(list)) && !(protect && contains(list, protect)) && isLinkList(stats.get(list))) detach(list);
    }
    detach(target);
  }
}

/** The element after `el` among its siblings (only whitespace between), or null. */
function nextElement(el: Element): Element | null {
  for (let n: AnyNode | null = el.next; n; n = n.next) {
    if (isElement(n)) return n;
    if (n.type === 'text' && (n as unknown as { data: string }).data.trim()) return null;
  }
  return null;
}

/** Mostly links, little prose of its own: a list of teasers written as a block. */
const isLinkList = (s: TextStats | undefined): boolean => !!s && s.link > 0 && linkDensity(s) >= 0.6 && s.text - s.link < 150;

/**
 * Prose after `el` in document order, up to the end of `root`: the elements' and the loose
 * text's (an article written as text and `<br><br>` in one block).
 */
function proseAfter(el: Element, root: Element, prose: (el: Element) => number): number {
  let sum = 0;
  for (let n: Element = el; n !== root && isElement(n.parent); n = n.parent) {
    for (let s: AnyNode | null = n.next; s; s = s.next) {
      if (isElement(s)) sum += prose(s);
      else if (s.type === 'text') sum += visibleLength((s as unknown as { data: string }).data);
    }
  }
  return sum;
}

function firstElementChild(el: Element): Element | undefined {
  for (const c of el.children) {
    if (isElement(c)) return c;
    if (c.type === 'text' && (c as unknown as { data: string }).data.trim()) return undefined;
  }
  return undefined;
}
