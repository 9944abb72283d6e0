/**
 * Second pass, inside the chosen root: drop what slipped through the first pass because it
 * sat inside the article container — link lists, blocks whose class/id says boilerplate and
 * whose text agrees (link-heavy or short), and sections headed by a boilerplate heading
 * ("Related articles", "Comments", "Teilen:", …) together with what follows them. Short
 * furniture lines (datelines, bylines, credits, teasers) are lines.ts's.
 */
import { type AnyNode, type Element, type TextStats, childElements, contains, detach, isElement, linkDensity, measure, shapeOf, tagOf, visibleLength } from './dom.js';
import { BLOCK_TAGS, BOILERPLATE_HEADINGS, HEADING_TAGS, NON_CONTENT_TAGS } from './patterns.js';
import { embedHolders } from './prune.js';
import { classWeight, isBlockElement, layoutWords } from './score.js';
import { proseOf } from './select.js';
import { COLLAPSIBLE_SPACE, plainText, textOf } from './text.js';

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
function fewCharacters(el: Element, max: number): boolean {
  let n = 0;
  const walk = (node: AnyNode): boolean => {
    if (node.type === 'text') {
      const data = (node as unknown as { data: string }).data;
      for (let i = 0; i < data.length; i += 1) {
        const c = data.charCodeAt(i);
        if (c !== 32 && c !== 10 && c !== 9 && c !== 13 && c !== 12 && c !== 11 && c !== 160 && !(c >= 0x2000 && c <= 0x200a) && c !== 0x1680 && c !== 0x2028 && c !== 0x2029 && c !== 0x202f && c !== 0x205f && c !== 0x3000 && c !== 0xfeff && ++n > max) return false;
      }
      return true;
    }
    if (isElement(node) && !NON_CONTENT_TAGS.has(tagOf(node))) for (const c of node.children) if (!walk(c)) return false;
    return true;
  };
  return walk(el);
}

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

/** A block must hold this much text (characters as written) for a second copy of it to be dropped. */
const MIN_REPEATED_TEXT = 500;

/**
 * Removes the second and later copies of a long block under `root`, in place: a page that
 * renders its content once per screen size (a site builder's responsive variants, only one
 * shown by the style sheet) or twice (a print copy) is read once. Only blocks of two or more
 * blocks are copies here; a single paragraph's copies are `removeRepeatedLines`'. Blocks are compared
 * by the length of their text first, and only blocks of equal length by their text; one
 * inside the other is never a copy. A quote of a whole earlier post (a `<blockquote>`, or
 * inside one) is left to `removeEchoedQuotes`, which drops the quote, not the post.
 */
export function removeRepeatedBlocks(root: Element): void {
  // Blocks by the length of their text as written (a cheaper walk than `measure`), children first.
  const byLength = new Map<number, Element[]>();
  const walk = (el: Element): number => {
    let length = 0;
    for (const c of el.children) {
      if (c.type === 'text') length += (c as unknown as { data: string }).data.length;
      else if (isElement(c) && !NON_CONTENT_TAGS.has(tagOf(c))) length += walk(c);
    }
    if (length >= MIN_REPEATED_TEXT && el !== root && blockChildren(el) >= 2) {
      const same = byLength.get(length);
      if (same) same.push(el);
      else byLength.set(length, [el]);
    }
    return length;
  };
  walk(root);
  for (const group of byLength.values()) {
    if (group.length < 2) continue;
    // Texts are read only for blocks outside one another (a wrapper of one block measures as
    // the block does, and is no copy of it).
    const kept: { el: Element; text?: string }[] = [];
    // The walk lists children first, so blocks outside one another come in document order: the first copy stays.
    for (const el of group) {
      // A block no longer under `root` went with a copy that held it.
      if (!contains(root, el) || insideQuote(el, root)) continue;
      const apart = kept.filter((k) => !contains(k.el, el) && !contains(el, k.el));
      const text = apart.length ? textOf(el) : undefined;
      if (apart.some((k) => (k.text ??= textOf(k.el)) === text)) detach(el);
      else kept.push({ el, text });
    }
  }
}

/** A paragraph-like block must hold this many characters other than whitespace for a later copy of it to be dropped. */
const MIN_REPEATED_LINE = 100;

/**
 * Removes later word-for-word copies of a paragraph-like block (one with no block inside it,
 * of `MIN_REPEATED_LINE` characters or more) that stand in a container of another shape than
 * the first copy's: a product's description in its summary and again in its tab, a notice
 * rendered once per screen size. Copies that are siblings, or whose containers share a shape
 * (the cards of a list, the days of a meal plan), are the author's and stay; so do quotes.
 */
export function removeRepeatedLines(root: Element): void {
  // Paragraph-like blocks by how many characters they hold other than whitespace (no text built), in document order.
  const byLength = new Map<number, Element[]>();
  const walk = (el: Element) => {
    for (const c of childElements(el)) {
      if (!isBlockElement(c) || NON_CONTENT_TAGS.has(tagOf(c)) || c.children.some(isBlockElement)) {
        walk(c);
        continue;
      }
      const length = visibleText(c);
      if (length < MIN_REPEATED_LINE) continue;
      const same = byLength.get(length);
      if (same) same.push(c);
      else byLength.set(length, [c]);
    }
  };
  walk(root);
  const copies: Element[] = [];
  for (const group of byLength.values()) {
    if (group.length < 2) continue;
    const first = new Map<string, Element>();
    for (const c of group) {
      if (insideQuote(c, root)) continue;
      const text = textOf(c);
      const earlier = first.get(text);
      if (!earlier) first.set(text, c);
      else if (earlier.parent !== c.parent && !(isElement(earlier.parent) && isElement(c.parent) && shapeOf(earlier.parent) === shapeOf(c.parent))) copies.push(c);
    }
  }
  for (const el of copies) detach(el);
}

/** How many characters other than whitespace the text under `el` holds (scripts and styles left out): the same for two copies however they are indented. */
function visibleText(el: Element): number {
  let n = 0;
  for (const c of el.children) {
    if (c.type === 'text') {
      const data = (c as unknown as { data: string }).data;
      for (let i = 0; i < data.length; i += 1) {
        const ch = data.charCodeAt(i);
        if (ch !== 32 && ch !== 10 && ch !== 9 && ch !== 13 && ch !== 12 && ch !== 160) n += 1;
      }
    } else if (isElement(c) && !NON_CONTENT_TAGS.has(tagOf(c))) n += visibleText(c);
  }
  return n;
}

/** Block-level element children of `el`: a copy of a page's part holds several; a paragraph written twice is the author's. */
function blockChildren(el: Element): number {
  let n = 0;
  for (const c of el.children) if (isBlockElement(c)) n += 1;
  return n;
}

function insideQuote(el: Element, root: Element): boolean {
  for (let n: Element | null = el; n && n !== root; n = isElement(n.parent) ? n.parent : null) if (tagOf(n) === 'blockquote') return true;
  return false;
}

/** A quote is an echo when its longest line, at least this long, is written outside the quotes. */
const MIN_ECHO_LINE = 40;

/**
 * Removes the quotes (`<blockquote>`) under `root` whose text the root already holds outside
 * its quotes, in place: a reply that quotes an earlier post of the thread repeats it ("X
 * said: …"), and the post is read once, where it was written. A quote of a post not on the
 * page, or of a source outside it, stays. A quote is judged by its longest line (a reply
 * quotes a post whole or in part; its attribution and "Click to expand…" lines are not in
 * the post).
 */
export function removeEchoedQuotes(root: Element): void {
  const quotes: Element[] = [];
  const find = (el: Element) => {
    for (const c of el.children) {
      if (!isElement(c)) continue;
      if (tagOf(c) === 'blockquote') quotes.push(c);
      else find(c);
    }
  };
  find(root);
  // Most roots hold no quote: then no text is built.
  if (!quotes.length) return;
  const parts: string[] = [];
  const walk = (el: Element) => {
    for (const c of el.children) {
      if (c.type === 'text') parts.push((c as unknown as { data: string }).data);
      else if (!isElement(c) || NON_CONTENT_TAGS.has(tagOf(c))) continue;
      else if (tagOf(c) === 'blockquote') parts.push('\n');
      else walk(c);
    }
  };
  walk(root);
  const outside = parts.join('').replace(COLLAPSIBLE_SPACE, ' ');
  for (const quote of quotes) {
    let longest = '';
    for (const line of plainText([quote]).split('\n')) if (line.length > longest.length) longest = line;
    if (longest.length >= MIN_ECHO_LINE && outside.includes(longest)) detach(quote);
  }
}
