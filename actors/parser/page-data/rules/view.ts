/**
 * The page as the page rules see it, built in ONE walk of the untouched tree (nothing is
 * moved or removed): every readable element with its position in the visible text (`start`,
 * `end`: characters of text before it and after its last descendant), its parent and the
 * furniture it sits in, plus the few element kinds the rules look up (h1s, times, images,
 * links, price, byline, date and rating hints, buttons, paragraphs, addresses, the first
 * `<main>`, `data-price` holders).
 *
 * Positions in the visible text are how "near the headline" is measured: a date 200
 * characters below the h1 is near it, one in the footer 20,000 characters on is not.
 *
 * Furniture, inherited down the tree (a bit set, `Ctx`): class-words.ts.
 * Walking skips `<script>`, `<style>`, `<template>`, `<svg>` and `<head>`'s non-title content;
 * `<noscript>` is walked for images only (lazy-loading fallbacks), not for text. The first
 * `<base href>` is noted on the way (skipped subtrees searched too), so no second walk finds it.
 *
 * Cost: this runs on every page asked for `json`, so the walk does as little per node as it
 * can. It allocates one `Node` per element and nothing per text node (the children being
 * walked and the position in them at each depth, no frames, no element map: a node links
 * its parent); one look-up per tag says what it is to the walk; the attributes are read in
 * one pass. Class and id are searched as written, case ignored, by one pattern for all
 * furniture words and one for all hint words (a match at a time: most hold none), and
 * `hint` is written out lower-cased only when a rule asks for it. A text's visible length is
 * counted on its whitespace runs made single spaces. A node notes whether it has a visible
 * direct text, so the rules that scan every element's own text (text.ts) pass over the many
 * that have none.
 */
import type { CheerioAPI } from 'cheerio';
import { visibleLength as loopLength } from '../../main-content/dom.js';
import type { AnyNode, Element, Text } from 'domhandler';
import { findFirst } from '../../formats/walk.js';
import { Ctx, HINT_WORD_AT, furnitureOf, hintOf, type HintWord } from './class-words.js';

export type { Element };
export { Ctx, FURNITURE, HINT_WORDS } from './class-words.js';

/** Candidates a rule looks at, at most (the nearest ones): bounds the work on hostile pages. */
export const MAX_CANDIDATES = 200;

export interface Node {
  readonly el: Element;
  readonly tag: string;
  /** Lower-cased `class` and `id`, space-joined ('' when neither). */
  readonly hint: string;
  readonly ctx: number;
  /** Characters of visible text before the element. */
  readonly start: number;
  /** Characters of visible text before the element's end. */
  end: number;
  /** Position in document order (in `all`). */
  readonly index: number;
  /** Position of the element's last descendant in `all` (its own when it has none). */
  last: number;
  /** The parent element's node (null for the root's children). */
  readonly parent: Node | null;
  /** Does a direct text child hold a visible character? (When not, the own text is ''.) */
  hasText: boolean;
  /** The own text, once read (text.ts `ownTextOf`). */
  own: string | null;
  /** The own text's first two characters lower-cased, as one number, once read (text.ts `ownTextHead`; -2 before). */
  head: number;
}

/** A node as the walk makes it: its hint is written out when a rule first asks for it. */
class ViewNode implements Node {
  end: number;
  last: number;
  hasText = false;
  own: string | null = null;
  head = -2;
  private written: string | null = null;

  constructor(
    readonly el: Element,
    readonly tag: string,
    readonly ctx: number,
    readonly start: number,
    readonly index: number,
    readonly parent: Node | null,
  ) {
    this.end = start;
    this.last = index;
  }

  get hint(): string {
    this.written ??= hintOf(this.el.attribs.class, this.el.attribs.id);
    return this.written;
  }
}

export interface PageView {
  readonly all: readonly Node[];
  readonly byTag: ReadonlyMap<string, readonly Node[]>;
  /** Elements whose class/id mentions one of the `HINT_WORDS` (key: the word). */
  readonly byHint: ReadonlyMap<string, readonly Node[]>;
  /** The first `<main>` or role=main element. */
  readonly main: Node | null;
  /** Elements with a `data-price` attribute, in document order. */
  readonly priced: readonly Node[];
  /** The first `<base href>` of the document, skipped subtrees included (as formats/urls.ts `baseOf` finds it). */
  readonly base: Element | null;
  readonly title: string;
  /** `<html lang>` lower-cased ('' when absent). */
  readonly lang: string;
}

const SKIPPED = new Set(['script', 'style', 'template', 'svg', 'math', 'head', 'iframe', 'object', 'select', 'textarea']);
const TAGS = new Set(['h1', 'h2', 'time', 'img', 'a', 'p', 'address', 'button', 'input', 's', 'del', 'strike', 'article', 'main', 'dt', 'th', 'li', 'footer']);

/** What the walk does with a tag, as bits (`TAG_KIND`): most tags are none of these. */
const Kind = { Skipped: 1, Listed: 2, Document: 4, Header: 8, InArticleFurniture: 16 } as const;
/** Context bits a tag sets by itself (`<footer>`/`<aside>` only outside an article, `<header>` see contextOf). */
const TAG_CTX: Readonly<Record<string, number>> = {
  article: Ctx.Article, main: Ctx.Main, noscript: Ctx.NoScript, table: Ctx.Table, li: Ctx.ListItem, figure: Ctx.Figure,
  footer: Ctx.Footer, nav: Ctx.Nav, aside: Ctx.Aside,
};
/** Per tag: its `Kind` bits and the context bits it sets. One look-up per element. */
const TAG_KIND: ReadonlyMap<string, { readonly kind: number; readonly ctx: number }> = (() => {
  const kinds = new Map<string, { kind: number; ctx: number }>();
  const add = (tag: string, kind: number, ctx = 0) => {
    const known = kinds.get(tag) ?? { kind: 0, ctx: 0 };
    kinds.set(tag, { kind: known.kind | kind, ctx: known.ctx | ctx });
  };
  for (const tag of SKIPPED) add(tag, Kind.Skipped);
  for (const tag of TAGS) add(tag, Kind.Listed);
  for (const tag of ['html', 'head', 'title']) add(tag, Kind.Document);
  for (const [tag, ctx] of Object.entries(TAG_CTX)) add(tag, 0, ctx);
  add('footer', Kind.InArticleFurniture);
  add('aside', Kind.InArticleFurniture);
  add('header', Kind.Header);
  return kinds;
})();

/** Furniture and places an element adds to the context it inherits (`furniture`: its class and id's). */
function contextOf(tagCtx: number, kind: number, furniture: number, ctx: number, role: string): number {
  const inArticle = (ctx & Ctx.Article) !== 0;
  let c = ctx | (kind & Kind.InArticleFurniture && inArticle ? 0 : tagCtx);
  if (role) {
    if (role === 'main') c |= Ctx.Main;
    else if (role === 'contentinfo') c |= Ctx.Footer;
    else if (role === 'navigation' || role === 'menu' || role === 'menubar') c |= Ctx.Nav;
    else if (role === 'complementary') c |= Ctx.Aside;
    else if (role === 'banner') c |= Ctx.Header;
  }
  if (kind & Kind.Header && !inArticle && !(c & Ctx.Main)) c |= Ctx.Header;
  return c | furniture;
}

export const isElement = (node: AnyNode | null | undefined): node is Element =>
  !!node && (node.type === 'tag' || node.type === 'script' || node.type === 'style');

const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** Files `node` under each hint word its class or id holds (once per word). */
function fileByHint(byHint: Map<string, Node[]>, hint: string | undefined, node: Node): void {
  if (!hint) return;
  HINT_WORD_AT.lastIndex = 0;
  for (let m = HINT_WORD_AT.exec(hint); m; m = HINT_WORD_AT.exec(hint)) {
    const word = m[0].toLowerCase();
    const list = byHint.get(word);
    if (!list) byHint.set(word, [node]);
    else if (list[list.length - 1] !== node) list.push(node);
    HINT_WORD_AT.lastIndex = m.index + 1;
  }
}

/** Whitespace a reader does not see as written: runs of two or more, and breaks or tabs alone. */
const UNSEEN_SPACE = /[ \t\n\f\r\u00a0]{2,}|[\t\n\f\r\u00a0]/g;

/**
 * Text length as a reader counts it: a whitespace run counts as one character, a leading
 * one as none. Counted on the text with its runs made single spaces (a regular expression
 * does this faster than a loop over characters, and returns a text with no such run as it is).
 */
function visibleLength(data: string): number {
  if (data.length < SHORT_TEXT) return loopLength(data);
  const seen = data.replace(UNSEEN_SPACE, ' ');
  return seen.charCodeAt(0) === 32 ? seen.length - 1 : seen.length;
}

/** Below this many characters (a line break, a few tabs) a loop is cheaper than a replace; at 16 it is already slower. */
const SHORT_TEXT = 6;

/** The text children of an element, joined (a `<title>` holds only text). */
const textData = (el: Element): string => el.children.map((t) => (t.type === 'text' ? (t as Text).data : '')).join('');

/** The text of the first `<title>` among the head's children. */
function titleIn(head: Element): string {
  for (const c of head.children) if (isElement(c) && c.name === 'title') return textData(c);
  return '';
}

/** The view under construction: what the walk collects. */
interface Builder {
  readonly all: Node[];
  readonly byTag: Map<string, Node[]>;
  readonly byHint: Map<string, Node[]>;
  readonly priced: Node[];
  main: Node | null;
  base: Element | null;
  title: string;
  lang: string;
}

/** The node of one readable element, filed under its tag and hint words. */
function addNode(b: Builder, el: Element, kind: number, tagCtx: number, parent: Node | null, offset: number): Node {
  const tag = el.name;
  // One pass over the attributes (most elements have none or one) rather than a look-up of each.
  const attribs = el.attribs;
  let cls: string | undefined;
  let id: string | undefined;
  let role = '';
  let priced = false;
  for (const name in attribs) {
    if (name === 'class') cls = attribs[name];
    else if (name === 'id') id = attribs[name];
    else if (name === 'role') role = (attribs[name] as string).toLowerCase();
    else if (name === 'data-price') priced = true;
  }
  const ctx = contextOf(tagCtx, kind, furnitureOf(cls) | furnitureOf(id), parent ? parent.ctx : 0, role);
  const node = new ViewNode(el, tag, ctx, offset, b.all.length, parent);
  b.all.push(node);
  if (kind & Kind.Listed) push(b.byTag, tag, node);
  fileByHint(b.byHint, cls, node);
  fileByHint(b.byHint, id, node);
  if (!b.main && (tag === 'main' || role === 'main')) b.main = node;
  if (priced) b.priced.push(node);
  return node;
}

/** Reads the language and title from `<html>`, `<head>` and `<title>`. */
function noteDocument(b: Builder, el: Element): void {
  const tag = el.name;
  if (tag === 'html') b.lang = (el.attribs.lang ?? el.attribs['xml:lang'] ?? '').trim().toLowerCase();
  if (tag === 'head') b.title ||= titleIn(el);
  else if (tag === 'title') b.title ||= textData(el);
}

const NO_KIND = { kind: 0, ctx: 0 } as const;

const isBase = (el: Element): boolean => el.name === 'base' && el.attribs.href !== undefined;

/** Has the element an element child (a `<script>` or `<style>` has its text only)? */
const holdsElements = (el: Element): boolean => el.children.some(isElement);

/**
 * Builds the view (see the file comment). Iterative, so a deeply nested page cannot overflow
 * the stack: `lists[d]`/`positions[d]` are the children being walked at depth d and the next
 * one's position, `open[d]` the element they belong to (null at the root).
 */
export function viewOf($: CheerioAPI): PageView {
  const b: Builder = { all: [], byTag: new Map(), byHint: new Map(), priced: [], main: null, base: null, title: '', lang: '' };
  const root = $.root()[0];
  const lists: Array<readonly AnyNode[]> = [];
  const positions: number[] = [];
  const open: Array<Node | null> = [];
  let offset = 0;
  let depth = -1;
  let list: readonly AnyNode[] = root ? root.children : [];
  let at = 0;
  let parent: Node | null = null;
  for (;;) {
    if (at >= list.length) {
      if (parent) {
        parent.end = offset;
        parent.last = b.all.length - 1;
      }
      if (depth < 0) break;
      list = lists[depth] as readonly AnyNode[];
      at = positions[depth] as number;
      parent = open[depth] ?? null;
      depth -= 1;
      continue;
    }
    const child = list[at] as AnyNode;
    at += 1;
    if (child.type === 'text') {
      const length = visibleLength((child as Text).data);
      if (length && parent) {
        parent.hasText = true;
        if (!(parent.ctx & Ctx.NoScript)) offset += length;
      } else if (!parent) offset += length;
      continue;
    }
    if (!isElement(child)) continue;
    const { kind, ctx: tagCtx } = TAG_KIND.get(child.name) ?? NO_KIND;
    if (kind & Kind.Document) noteDocument(b, child);
    if (!b.base) b.base = isBase(child) ? child : kind & Kind.Skipped && holdsElements(child) ? (findFirst(child, isBase) ?? null) : null;
    if (kind & Kind.Skipped) continue;
    const node = addNode(b, child, kind, tagCtx, parent, offset);
    if (!child.children.length) {
      node.last = node.index;
      continue;
    }
    depth += 1;
    lists[depth] = list;
    positions[depth] = at;
    open[depth] = parent;
    list = child.children;
    at = 0;
    parent = node;
  }
  const { all, byTag, byHint, main, priced, base, lang } = b;
  return { all, byTag, byHint, main, priced, base, title: b.title.replace(/\s+/g, ' ').trim(), lang };
}

export const tagged = (view: PageView, tag: string): readonly Node[] => view.byTag.get(tag) ?? [];
export const hinted = (view: PageView, w: HintWord): readonly Node[] => view.byHint.get(w) ?? [];

/** Is `inner` inside `outer` (or the same element)? Constant time: by document-order positions. */
export const inside = (inner: Node, outer: Node): boolean => inner.index >= outer.index && inner.index <= outer.last;

/** The nearest ancestor (or self) of `node` whose tag is `tag`. */
export function closest(node: Node, tag: string): Node | null {
  for (let p: Node | null = node; p; p = p.parent) if (p.tag === tag) return p;
  return null;
}
