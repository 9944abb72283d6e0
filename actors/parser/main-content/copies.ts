/**
 * Copies inside the chosen root, read once: a long block the page renders twice (responsive
 * variants, a print copy), a paragraph it shows again in another kind of container (a
 * product's summary and its tab), and a reply's quote of a post already on the page.
 */
import { type Element, childElements, contains, detach, isElement, shapeOf, tagOf } from './dom.js';
import { NON_CONTENT_TAGS } from './patterns.js';
import { hasBlockChild, isBlockElement } from './score.js';
import { COLLAPSIBLE_SPACE, nonSpaceCount, plainText, textOf } from './text.js';

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
      if (!isBlockElement(c) || NON_CONTENT_TAGS.has(tagOf(c)) || hasBlockChild(c)) {
        walk(c);
        continue;
      }
      const length = nonSpaceCount(c);
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
