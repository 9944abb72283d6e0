/**
 * Small helpers over the domhandler nodes cheerio builds: node kinds, tag names, the
 * class+id "hint" string, children walks, detaching, and text measures (visible text length
 * and the part of it inside links) computed in one bottom-up pass.
 *
 * Types come from `domhandler`, cheerio's own node library (type-only imports).
 */
import type { AnyNode, Element, ParentNode } from 'domhandler';

export type { AnyNode, Element, ParentNode };

export const isElement = (node: AnyNode | null | undefined): node is Element =>
  !!node && (node.type === 'tag' || node.type === 'script' || node.type === 'style');

/** Lower-case tag name ('' for non-elements). */
export const tagOf = (node: AnyNode | null | undefined): string => (isElement(node) ? node.name.toLowerCase() : '');

/** An element's tag and class attribute: the shape the items of a list or the posts of a thread share. */
export const shapeOf = (el: Element): string => `${tagOf(el)}.${el.attribs.class ?? ''}`;

/**
 * Class names that carry a site's taxonomy (WordPress `category-news`, `tag-social-media`,
 * Drupal `taxonomy-term-…`), not layout: left out of hints, or a post tagged "newsletter"
 * would read as a newsletter box.
 */
const TAXONOMY_PREFIXES = '(?:category|categories|tag|tags|post_tag|post-tag|topic|label|taxonomy|term|anlass|rubrik|ressort|kategorie)[-_]';
const TAXONOMY_CLASS = new RegExp(`^${TAXONOMY_PREFIXES}`);
/** TAXONOMY_CLASS at the start of any word of a class list whose words are one space apart. */
const TAXONOMY_WORD = new RegExp(`(?:^| )${TAXONOMY_PREFIXES}`);

/**
 * Whether a lower-cased class list is already what splitting it on whitespace and joining the
 * words with one space gives: ASCII, words one space apart, no space at either end (most are).
 */
function plainClassList(cls: string): boolean {
  let space = true;
  for (let i = 0; i < cls.length; i += 1) {
    const c = cls.charCodeAt(i);
    if (c > 127 || (c >= 9 && c <= 13)) return false;
    if (c === 32 && space) return false;
    space = c === 32;
  }
  return !space || cls.length === 0;
}

/**
 * `class` and `id` lower-cased and joined (taxonomy classes left out): what class/id patterns
 * are matched against. Every element's hint is read several times a page, so a plain class
 * list without a taxonomy class (nearly all) is used as it is, without splitting it into words.
 */
export function hintOf(el: Element): string {
  const cls = el.attribs.class ?? '';
  const id = el.attribs.id ?? '';
  if (!cls && !id) return '';
  const lower = cls.toLowerCase();
  const kept =
    plainClassList(lower) && !TAXONOMY_WORD.test(lower)
      ? lower
      : lower
          .split(/\s+/)
          .filter((c) => c && !TAXONOMY_CLASS.test(c))
          .join(' ');
  return `${kept} ${id.toLowerCase()}`;
}

/** Element children of a node. */
export function childElements(node: ParentNode): Element[] {
  const out: Element[] = [];
  for (const c of node.children) if (isElement(c)) out.push(c);
  return out;
}

/** A node `detach` removed, and where it was. */
interface Removal {
  readonly node: AnyNode;
  readonly parent: ParentNode;
  readonly index: number;
}

/** A removal, or the removal list of an `undoable` call made inside another (undone with it). */
type Entry = Removal | Entry[];

/** The removals of the running `undoable` call (extraction is synchronous: one at a time). */
let journal: Entry[] | null = null;

/**
 * Runs `fn`, noting every `detach` it makes, and returns its result with a function that
 * puts the removed nodes back where they were (an extraction pass that removed too much is
 * redone on the same tree, with no copy of the page made beforehand). Calls nest: undoing
 * the outer call also puts back what an inner call removed and did not undo.
 */
export function undoable<T>(fn: () => T): { result: T; undo: () => void } {
  const outer = journal;
  const removals: Entry[] = [];
  outer?.push(removals);
  journal = removals;
  try {
    return { result: fn(), undo: () => restore(removals) };
  } finally {
    journal = outer;
  }
}

function restore(entries: Entry[]): void {
  for (let k = entries.length - 1; k >= 0; k -= 1) {
    const entry = entries[k] as Entry;
    if (Array.isArray(entry)) {
      restore(entry);
      continue;
    }
    const { node, parent, index } = entry;
    const children = parent.children as AnyNode[];
    children.splice(index, 0, node);
    const prev = children[index - 1] ?? null;
    const next = children[index + 1] ?? null;
    node.parent = parent;
    node.prev = prev as never;
    node.next = next as never;
    if (prev) prev.next = node as never;
    if (next) next.prev = node as never;
  }
  entries.length = 0;
}

/** The measures `detach` keeps exact while `keepCounted` runs (extraction is synchronous: one at a time). */
let counted: Map<Element, TextStats> | null = null;

/**
 * Runs `fn` with `stats` (a `measure` of a subtree) kept exact: every `detach` it makes
 * takes the removed node's counts off its measured ancestors, so the measures still equal
 * a fresh `measure` of what is left and the subtree need not be walked again. (Measures of
 * removed nodes stay as they were; an `undoable` call's undo does not restore counts.)
 */
export function keepCounted<T>(stats: Map<Element, TextStats>, fn: () => T): T {
  const outer = counted;
  counted = stats;
  try {
    return fn();
  } finally {
    counted = outer;
  }
}

/** Takes `node`'s counts off its ancestors in `stats`. */
function uncount(node: AnyNode, stats: Map<Element, TextStats>): void {
  let s: TextStats | undefined;
  if (node.type === 'text') {
    const data = (node as unknown as { data: string }).data;
    let inLink = false;
    for (let p = node.parent; isElement(p) && stats.has(p); p = p.parent) if (p.name === 'a') inLink = true;
    const text = visibleLength(data);
    s = { text, link: inLink ? text : 0, commas: commaCount(data) };
  } else if (isElement(node)) s = stats.get(node);
  if (!s || (!s.text && !s.commas)) return;
  for (let p = node.parent; isElement(p); p = p.parent) {
    const ps = stats.get(p);
    if (!ps) break;
    ps.text -= s.text;
    ps.link -= s.link;
    ps.commas -= s.commas;
  }
}

/** Removes a node from its parent (no-op when detached). */
export function detach(node: AnyNode): void {
  const parent = node.parent;
  if (!parent) return;
  const i = parent.children.indexOf(node as never);
  if (i < 0) return;
  if (counted) uncount(node, counted);
  parent.children.splice(i, 1);
  journal?.push({ node, parent, index: i });
  if (node.prev) node.prev.next = node.next;
  if (node.next) node.next.prev = node.prev;
  node.parent = null;
  node.prev = null;
  node.next = null;
}

/** All elements under `root` (excluding it) in document order. */
export function descendants(root: ParentNode): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length) {
    const node = stack.pop() as AnyNode;
    if (!isElement(node)) continue;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i] as AnyNode);
  }
  return out;
}

/** Whether `ancestor` contains `node` (or is it). */
export function contains(ancestor: AnyNode, node: AnyNode): boolean {
  for (let n: AnyNode | null = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** Number of visible characters of a text run with whitespace runs counted as one. */
export function visibleLength(text: string): number {
  let n = 0;
  let space = true;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    const ws = c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 160;
    if (ws) {
      if (!space) n += 1;
      space = true;
    } else {
      n += 1;
      space = false;
    }
  }
  return n;
}

export interface TextStats {
  /** Visible characters under the element. */
  text: number;
  /** Visible characters inside `<a>` elements under it. */
  link: number;
  /** Commas (any script) in its text: a sign of prose. */
  commas: number;
}

const ANY_COMMA = /[,，、،]/;
const COMMAS = /[,，、،]/g;

/** How many commas (`,`, `，`, `、`, `،`) `text` holds; a text without one (most) costs a scan and no match array. */
export function commaCount(text: string): number {
  return ANY_COMMA.test(text) ? (text.match(COMMAS)?.length ?? 0) : 0;
}

/** Text measures of `root` (when an element) and every element under it, computed bottom-up in one pass. */
export function measure(root: ParentNode): Map<Element, TextStats> {
  const stats = new Map<Element, TextStats>();
  measureInto(root, stats);
  return stats;
}

/** `root`'s own text measures, as `measure(root).get(root)` gives them, without a record for every element under it. */
export function measureOne(root: Element): TextStats {
  const s: TextStats = { text: 0, link: 0, commas: 0 };
  measureInto(root, null, s);
  return s;
}

/**
 * Adds the measures under `root` to `total` (when given) and, with `stats`, records every
 * element's own measures there.
 */
function measureInto(root: ParentNode, stats: Map<Element, TextStats> | null, total: TextStats | null = null): void {
  // Adds `node`'s measures to `into`: an element gets its own record, a text node none.
  const visit = (node: AnyNode, inLink: boolean, into: TextStats | null): void => {
    if (node.type === 'text') {
      if (!into) return;
      const data = (node as unknown as { data: string }).data;
      const text = visibleLength(data);
      into.text += text;
      if (inLink) into.link += text;
      into.commas += commaCount(data);
      return;
    }
    if (!isElement(node) || node.type !== 'tag') return;
    const link = inLink || node.name === 'a';
    if (!stats) {
      // No records: the element's text goes straight into its ancestor's measures.
      for (const c of node.children) visit(c, link, into);
      return;
    }
    const s: TextStats = { text: 0, link: 0, commas: 0 };
    for (const c of node.children) visit(c, link, s);
    stats.set(node, s);
    if (into) {
      into.text += s.text;
      into.link += s.link;
      into.commas += s.commas;
    }
  };
  if (isElement(root as AnyNode)) visit(root as Element, false, total);
  else for (const c of root.children) visit(c, false, total);
}

/** Link density: link characters over text characters (0 for empty). */
export const linkDensity = (s: TextStats | undefined): number => (s && s.text ? s.link / s.text : 0);
