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
 * Furniture, inherited down the tree (a bit set, `Ctx`):
 *   footer   `<footer>` outside an article, role=contentinfo, class/id words footer,
 *            colophon, copyright, site-info;
 *   nav      `<nav>`, role=navigation/menu/menubar, class/id words nav, navbar, menu,
 *            breadcrumb(s);
 *   aside    `<aside>` outside an article, role=complementary, class/id words sidebar,
 *            widget(-area);
 *   header   `<header>` outside an article, role=banner, class/id words masthead,
 *            site-header, topbar;
 *   comments class/id words comment(s), comment-list, respond, disqus, reviews-list;
 *   related  class/id words related, recommended, more-stories, read-more,
 *            popular, trending, carousel, upsell, cross-sell;
 *   article  inside `<article>`;  main  inside `<main>` or role=main;  also inside a
 *   `<table>`, an `<li>`, a `<figure>` (so no rule walks up the tree to ask).
 * Walking skips `<script>`, `<style>`, `<template>`, `<svg>` and `<head>`'s non-title content;
 * `<noscript>` is walked for images only (lazy-loading fallbacks), not for text.
 *
 * Cost: this runs on every page asked for `json`, so the walk allocates one `Node` per
 * element and nothing per text node (a stack of child lists and positions, no frames, no
 * element map: a node links its parent). Most class/id hints name no furniture and no hint
 * word: one combined pattern says so before the six furniture patterns or the per-word
 * look-ups run. A node notes whether it has a visible direct text, so the rules that scan
 * every element's own text (`ownTextOf`, computed once per node and kept) skip the many
 * that have none.
 */
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';

export type { Element };

export const Ctx = {
  Footer: 1,
  Nav: 2,
  Aside: 4,
  Header: 8,
  Comments: 16,
  Related: 32,
  Article: 64,
  Main: 128,
  NoScript: 256,
  Table: 512,
  ListItem: 1024,
  Figure: 2048,
} as const;

/** Candidates a rule looks at, at most (the nearest ones): bounds the work on hostile pages. */
export const MAX_CANDIDATES = 200;

/** Furniture a reader skips when looking for the page's own facts. */
export const FURNITURE = Ctx.Footer | Ctx.Nav | Ctx.Aside | Ctx.Header | Ctx.Comments | Ctx.Related;

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
  readonly title: string;
  /** `<html lang>` lower-cased ('' when absent). */
  readonly lang: string;
}

const SKIPPED = new Set(['script', 'style', 'template', 'svg', 'math', 'head', 'iframe', 'object', 'select', 'textarea']);
const TAGS = new Set(['h1', 'h2', 'time', 'img', 'a', 'p', 'address', 'button', 'input', 's', 'del', 'strike', 'article', 'main', 'dt', 'th', 'li', 'footer']);
/** Substrings of class/id the rules look up (`byHint`). */
export const HINT_WORDS = [
  'author', 'byline', 'date', 'time', 'publish', 'posted', 'updated', 'modified', 'price', 'stock', 'availab',
  'rating', 'stars', 'review', 'address', 'adresse', 'contact', 'cart', 'basket', 'buy', 'lead', 'intro', 'standfirst',
  'summary', 'excerpt', 'teaser', 'subtitle', 'subhead', 'dek', 'deck', 'title', 'headline', 'meta', 'info',
] as const;
type HintWord = (typeof HINT_WORDS)[number];
/** Does a hint hold any of the `HINT_WORDS`? (Most do not; then no word is looked up.) */
const ANY_HINT_WORD = new RegExp(HINT_WORDS.join('|'));

const FURNITURE_WORDS = {
  footer: 'footer|site-?footer|colophon|copyright|site-?info|page-?footer|global-?footer',
  nav: 'nav|navbar|navigation|menu|main-?menu|breadcrumbs?|skip-?links?',
  aside: 'sidebar|side-?bar|widget-?area|rail|right-?rail',
  header: 'masthead|site-?header|topbar|top-?bar|global-?header|page-?header-?nav',
  comments: 'comments?|comment-?list|commentlist|respond|disqus|reviews-?list|user-?reviews',
  related:
    'related|related-?(?:posts|articles|stories|products|content)|recommend(?:ed|ations)?|more-?(?:stories|articles|news)|read-?more|popular|trending|carousel|upsells?|cross-?sells?|also-?bought|outbrain|taboola',
} as const;
const word = (words: string): RegExp => new RegExp(`(?:^|[\\s_-])(?:${words})(?=$|[\\s_-])`);
/** All furniture words at once: a hint failing it names no furniture (the six below are its parts). */
const ANY_FURNITURE = word(Object.values(FURNITURE_WORDS).join('|'));
const HINT_FURNITURE: ReadonlyArray<readonly [RegExp, number]> = [
  [word(FURNITURE_WORDS.footer), Ctx.Footer],
  [word(FURNITURE_WORDS.nav), Ctx.Nav],
  [word(FURNITURE_WORDS.aside), Ctx.Aside],
  [word(FURNITURE_WORDS.header), Ctx.Header],
  [word(FURNITURE_WORDS.comments), Ctx.Comments],
  [word(FURNITURE_WORDS.related), Ctx.Related],
];

/** What a class/id hint says: the furniture it names and the `HINT_WORDS` it holds. */
interface HintFacts {
  readonly hint: string;
  readonly furniture: number;
  readonly words: readonly HintWord[];
}

const NO_HINT: HintFacts = { hint: '', furniture: 0, words: [] };

function readHint(hint: string): HintFacts {
  if (!hint) return NO_HINT;
  let furniture = 0;
  if (ANY_FURNITURE.test(hint)) for (const [pattern, bit] of HINT_FURNITURE) if (pattern.test(hint)) furniture |= bit;
  const words = ANY_HINT_WORD.test(hint) ? HINT_WORDS.filter((w) => hint.includes(w)) : NO_HINT.words;
  return { hint, furniture, words };
}

/**
 * `class` attributes read lately and what they say: pages repeat their classes (a site's
 * pages most of all), so most are read once. Bounded: at most `MEMO_SIZE` classes of at
 * most `MEMO_KEY` characters, forgotten all at once when full.
 */
const CLASS_MEMO = new Map<string, HintFacts>();
const MEMO_SIZE = 2048;
const MEMO_KEY = 200;

/** The hint of an element: lower-cased `class` and `id`, space-joined (see `Node.hint`), read. */
function hintOf(el: Element): HintFacts {
  const cls = el.attribs.class;
  const id = el.attribs.id;
  if (!cls && !id) return NO_HINT;
  if (id !== undefined || cls === undefined) return readHint(`${cls ?? ''} ${id ?? ''}`.toLowerCase().trim());
  let facts = CLASS_MEMO.get(cls);
  if (facts) return facts;
  facts = readHint(cls.toLowerCase().trim());
  if (cls.length <= MEMO_KEY) {
    if (CLASS_MEMO.size >= MEMO_SIZE) CLASS_MEMO.clear();
    CLASS_MEMO.set(cls, facts);
  }
  return facts;
}

/** Furniture and places an element adds to the context it inherits (`furniture`: its hint's). */
function contextOf(tag: string, furniture: number, ctx: number, role: string): number {
  let c = ctx;
  const inArticle = (c & Ctx.Article) !== 0;
  switch (tag) {
    case 'article': c |= Ctx.Article; break;
    case 'main': c |= Ctx.Main; break;
    case 'noscript': c |= Ctx.NoScript; break;
    case 'table': c |= Ctx.Table; break;
    case 'li': c |= Ctx.ListItem; break;
    case 'figure': c |= Ctx.Figure; break;
    case 'footer': if (!inArticle) c |= Ctx.Footer; break;
    case 'nav': c |= Ctx.Nav; break;
    case 'aside': if (!inArticle) c |= Ctx.Aside; break;
    default: break;
  }
  if (role) {
    if (role === 'main') c |= Ctx.Main;
    else if (role === 'contentinfo') c |= Ctx.Footer;
    else if (role === 'navigation' || role === 'menu' || role === 'menubar') c |= Ctx.Nav;
    else if (role === 'complementary') c |= Ctx.Aside;
    else if (role === 'banner') c |= Ctx.Header;
  }
  if (tag === 'header' && !inArticle && !(c & Ctx.Main)) c |= Ctx.Header;
  return c | furniture;
}

export const isElement = (node: AnyNode | null | undefined): node is Element =>
  !!node && (node.type === 'tag' || node.type === 'script' || node.type === 'style');

const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** Text length as a reader counts it: whitespace runs count as one. */
function visibleLength(data: string): number {
  let n = 0;
  let space = true;
  for (let i = 0; i < data.length; i += 1) {
    const code = data.charCodeAt(i);
    const ws = code === 32 || code === 10 || code === 9 || code === 13 || code === 12 || code === 160;
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
  title: string;
  lang: string;
}

/** The node of one readable element, filed under its tag and hint words. */
function addNode(b: Builder, el: Element, parent: Node | null, offset: number): Node {
  const tag = el.name;
  const { hint, furniture, words } = hintOf(el);
  const role = el.attribs.role === undefined ? '' : el.attribs.role.toLowerCase();
  const ctx = contextOf(tag, furniture, parent ? parent.ctx : 0, role);
  const index = b.all.length;
  const node: Node = { el, tag, hint, ctx, start: offset, end: offset, index, last: index, parent, hasText: false, own: null };
  b.all.push(node);
  if (TAGS.has(tag)) push(b.byTag, tag, node);
  for (const w of words) push(b.byHint, w, node);
  if (!b.main && (tag === 'main' || role === 'main')) b.main = node;
  if (el.attribs['data-price'] !== undefined) b.priced.push(node);
  return node;
}

/** Reads what the rules want of an element that is not walked into (the `<head>`) or before walking it. */
function noteDocument(b: Builder, el: Element): void {
  const tag = el.name;
  if (tag === 'html') b.lang = (el.attribs.lang ?? el.attribs['xml:lang'] ?? '').trim().toLowerCase();
  if (tag === 'head') b.title ||= titleIn(el);
  else if (tag === 'title') b.title ||= textData(el);
}

/**
 * Builds the view (see the file comment). Iterative, so a deeply nested page cannot overflow
 * the stack: `lists[d]`/`positions[d]` are the children being walked at depth d and the next
 * one's position, `open[d]` the element they belong to (null at the root).
 */
export function viewOf($: CheerioAPI): PageView {
  const b: Builder = { all: [], byTag: new Map(), byHint: new Map(), priced: [], main: null, title: '', lang: '' };
  const root = $.root()[0];
  const lists: Array<readonly AnyNode[]> = root ? [root.children] : [];
  const positions: number[] = [0];
  const open: Array<Node | null> = [null];
  let offset = 0;
  let depth = lists.length - 1;
  while (depth >= 0) {
    const list = lists[depth] as readonly AnyNode[];
    const at = positions[depth] as number;
    const parent = open[depth] ?? null;
    if (at >= list.length) {
      if (parent) {
        parent.end = offset;
        parent.last = b.all.length - 1;
      }
      depth -= 1;
      continue;
    }
    positions[depth] = at + 1;
    const child = list[at] as AnyNode;
    if (child.type === 'text') {
      const length = visibleLength((child as Text).data);
      if (length && parent) {
        parent.hasText = true;
        if (!(parent.ctx & Ctx.NoScript)) offset += length;
      } else if (!parent) offset += length;
      continue;
    }
    if (!isElement(child)) continue;
    noteDocument(b, child);
    if (SKIPPED.has(child.name)) continue;
    const node = addNode(b, child, parent, offset);
    if (!child.children.length) continue;
    depth += 1;
    lists[depth] = child.children;
    positions[depth] = 0;
    open[depth] = node;
  }
  const { all, byTag, byHint, main, priced, lang } = b;
  return { all, byTag, byHint, main, priced, title: b.title.replace(/\s+/g, ' ').trim(), lang };
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
