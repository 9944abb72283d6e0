/**
 * Visible text of an element, read without touching the tree and BOUNDED: collection stops
 * once `limit` characters are gathered, so a 200 KB price element costs no more than a short
 * one. `textOf` collapses whitespace to one line; `linesOf` keeps block and `<br>` breaks
 * (an address's lines). Script, style, template, svg and noscript content is never text; a
 * `skip` test leaves out chosen subtrees (struck-through prices).
 *
 * An element's own text (its direct text only) is read once per view node and kept
 * (`ownTextOf`). The rules that look at every element's own text for a label or a byline
 * word first compare how it opens (`ownTextHead`: every such word opens with two letters)
 * and read the whole text of the few that may hold one; the availability scan, which wants
 * short texts only, reads no more of a text than that (`ownTextStart`).
 */
import type { AnyNode, Element, Text } from 'domhandler';
import { findFirst } from '../../formats/walk.js';
import { type Node, isElement } from './view.js';

const NOT_TEXT = new Set(['script', 'style', 'template', 'svg', 'math', 'noscript', 'head', 'iframe', 'select', 'textarea']);
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table',
  'tr', 'td', 'th', 'ul', 'br',
]);
/** Soft hyphens and zero-width characters: invisible to readers, they split words. */
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;

/**
 * Whitespace a collapse rewrites: runs of two or more, and single whitespace that is not a
 * space. The same result as replacing every `\s+` run by a space, without rewriting the
 * single spaces between words (most of a text), which is most of the cost.
 */
const UNCOLLAPSED = /\s{2,}|[^\S ]/g;

export const collapse = (text: string): string => text.replace(INVISIBLE, '').replace(UNCOLLAPSED, ' ').trim();

/** Nodes one read visits at most: a subtree of thousands of empty elements costs no more than this. */
const MAX_VISITS = 1500;

/** A line break on the walk's stack (the end of a block element). */
const BREAK = Symbol('break');
/** A word break on the walk's stack (the end of any element, in `spaced` mode). */
const SPACE = Symbol('space');

/**
 * How element boundaries show in gathered text: not at all (`inline`, as a browser joins
 * inline elements), as a space (`spaced`: a byline's name and the "Last updated" after it
 * in separate spans stay apart), or, for block elements, as a line break (`lines`).
 */
type Mode = 'inline' | 'spaced' | 'lines';

/** Walks `el`'s text in document order until `limit` raw characters are seen (or MAX_VISITS nodes). */
function gather(el: Element, limit: number, skip: ((el: Element) => boolean) | undefined, mode: Mode): string {
  const parts: string[] = [];
  let size = 0;
  const stack: Array<AnyNode | typeof BREAK | typeof SPACE> = [el];
  let visits = 0;
  while (stack.length && size < limit && visits < MAX_VISITS) {
    visits += 1;
    const node = stack.pop() as AnyNode | typeof BREAK | typeof SPACE;
    if (node === BREAK || node === SPACE) {
      parts.push(node === BREAK ? '\n' : ' ');
      continue;
    }
    if (node.type === 'text') {
      const data = (node as Text).data;
      const piece = data.length > limit - size ? data.slice(0, limit - size) : data;
      parts.push(piece);
      size += piece.length;
      continue;
    }
    if (!isElement(node) || NOT_TEXT.has(node.name) || (node !== el && skip?.(node))) continue;
    const block = mode === 'lines' && BLOCKS.has(node.name);
    if (block) stack.push(BREAK);
    else if (mode === 'spaced') stack.push(SPACE);
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as AnyNode);
    if (block) parts.push('\n');
    else if (mode === 'spaced') parts.push(' ');
  }
  return parts.join('');
}

/** One line of visible text (at most about `limit` characters read). */
export function textOf(el: Element, limit = 2000, skip?: (el: Element) => boolean): string {
  return collapse(gather(el, limit, skip, 'inline'));
}

/** One line of visible text with a space at every element boundary (words in separate elements kept apart). */
export function spacedTextOf(el: Element, limit = 2000): string {
  return collapse(gather(el, limit, undefined, 'spaced'));
}

/** Visible text lines (block elements and `<br>` break lines), empty lines dropped. */
export function linesOf(el: Element, limit = 2000): string[] {
  return gather(el, limit, undefined, 'lines')
    .split('\n')
    .map(collapse)
    .filter(Boolean);
}

/** Characters of direct text an own text reads at most. */
const OWN_LIMIT = 500;

/** The element's own text: its direct text children only (label cells, short labels). */
export function ownText(el: Element): string {
  let out = '';
  for (const c of el.children) if (c.type === 'text') out += (c as Text).data;
  return collapse(out.slice(0, OWN_LIMIT));
}

/** Does the element hold a descendant of these tags (a heading wrapping an image logo)? */
export const hasDescendant = (el: Element, tags: ReadonlySet<string>): boolean => !!findFirst(el, (d) => tags.has(d.name));

/** A view node's own text (`ownText`), read once and kept; '' at once when it has no visible direct text. */
export function ownTextOf(node: Node): string {
  if (!node.hasText) return '';
  node.own ??= ownText(node.el);
  return node.own;
}

/**
 * The two characters opening a text as its own text reads it: whitespace and invisible
 * characters before them, invisible ones only between them (a space between would make the
 * second a space). Each part excludes the next, so the match never backtracks.
 */
const OPENING_PAIR = /^[\s\u00ad\u200b-\u200d\u2060]*([^\s\u00ad\u200b-\u200d\u2060])[\u00ad\u200b-\u200d\u2060\ufeff]*([^\s\u00ad\u200b-\u200d\u2060])/;

/**
 * How a view node's own text opens: its first two characters lower-cased, as one number
 * (`first * 0x10000 + second`), when both are visible; -1 when the text is shorter or its
 * second character is a space. What the rules that scan every element for a label or a
 * byline word compare first (every word they look for opens with two letters): a text
 * opening otherwise holds none. Read from the direct text as written, once per node.
 */
export function ownTextHead(node: Node): number {
  if (node.head === -2) {
    let text = '';
    if (node.hasText) for (const c of node.el.children) if (c.type === 'text') text += (c as Text).data;
    const m = OPENING_PAIR.exec(text);
    node.head = m && m[0].length <= OWN_LIMIT ? pairCode((m[1] as string).charCodeAt(0), (m[2] as string).charCodeAt(0)) : -1;
  }
  return node.head;
}

/** Two characters lower-cased as one number (ASCII without a string). */
function pairCode(first: number, second: number): number {
  if (first < 128 && second < 128) {
    const a = first >= 65 && first <= 90 ? first + 32 : first;
    const b = second >= 65 && second <= 90 ? second + 32 : second;
    return a * 0x10000 + b;
  }
  const lower = String.fromCharCode(first, second).toLowerCase();
  return lower.charCodeAt(0) * 0x10000 + lower.charCodeAt(1);
}

/** How each word opens (`ownTextHead`'s numbers): the set a text's opening is looked up in. */
export const headsOf = (words: readonly string[]): ReadonlySet<number> => new Set(words.map((w) => pairCode(w.charCodeAt(0), w.charCodeAt(1))));

/** Is the character `\s` (what `collapse` turns into a space and `trim` drops)? */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return code === 160 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 ||
    code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** Is the character one `collapse` removes (`INVISIBLE`)? */
const isInvisible = (code: number): boolean =>
  code === 0xad || (code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff;

/**
 * The first `n` characters of a view node's own text (`ownTextOf(node).slice(0, n)`), read
 * from the start of its text without collapsing the rest: a scan that wants short texts
 * learns that a text is long from its first `n` characters.
 */
export function ownTextStart(node: Node, n: number): string {
  if (node.own !== null || !node.hasText) return ownTextOf(node).slice(0, n);
  let out = '';
  let space = false;
  let left = OWN_LIMIT;
  for (const c of node.el.children) {
    if (c.type !== 'text') continue;
    const data = (c as Text).data;
    const end = Math.min(data.length, left);
    left -= end;
    // Runs of visible characters are copied whole (the last when the text ends); a space stands
    // for each whitespace run between them; invisible characters are dropped.
    let run = 0;
    for (let i = 0; i <= end; i += 1) {
      const code = i < end ? data.charCodeAt(i) : -1;
      if (code > 32 && code < 160) continue;
      const invisible = isInvisible(code);
      const blank = !invisible && isSpace(code);
      if (code !== -1 && !blank && !invisible) continue;
      if (i > run) {
        if (space) out += ' ';
        out += data.slice(run, i);
        space = false;
        if (out.length >= n) return out.slice(0, n);
      }
      if (blank && out !== '') space = true;
      run = i + 1;
    }
    if (left === 0) break;
  }
  return out.slice(0, n);
}
