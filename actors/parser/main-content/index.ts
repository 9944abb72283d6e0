/**
 * Main-content extraction (`onlyMainContent`): finds the part of a page a reader came for
 * and drops navigation, headers, footers, cookie banners, sidebars, comments, share widgets
 * and related-links boxes. Pure functions over a cheerio document; no network, no globals.
 *
 * `extractMainContent` prunes the document IN PLACE and returns one element, the root of
 * the main content, still attached to the document where possible. A later step turns that
 * root into markdown, HTML, links or media; `mainText` turns it into plain text.
 *
 * The steps, each in its own file:
 *   1. prune.ts   — drop non-content tags, hidden elements and self-declared furniture
 *                   (tags, ARIA roles, class/id words), sparing what carries the prose;
 *   2. select.ts  — pick the core: a semantic article container vs. the best
 *                   Readability-style scored candidate (score.ts), with sibling merging;
 *   3. clean.ts   — inside the core, drop link lists, boilerplate-headed sections
 *                   ("Related", "Comments", …), datelines, bylines and "read also" lines;
 *   4. expand.ts  — widen the core to ancestors that add more of the same content (a lead
 *                   outside the body container, recipe parts), keeping only real
 *                   paragraphs, content lists/tables and their headings from the additions;
 *   5. fallbacks  — a root with little prose gives way to the cleaned body; a page left
 *                   with too little is redone from the unpruned body with less pruning.
 *
 * Decoding raw bytes to a string (charset from BOM, header, markup) is pipeline/runtime/net/charset.ts.
 */
import type { Cheerio, CheerioAPI } from 'cheerio';
import { type Element, type ParentNode, type TextStats, contains, hintOf, isElement, keepCounted, measure, measureOne, shapeOf, undoable } from './dom.js';
import { removeBoilerplateSections, removeLinkBlocks } from './clean.js';
import { removeEchoedQuotes, removeRepeatedBlocks, removeRepeatedLines } from './copies.js';
import { removeMetaLines } from './lines.js';
import { type FurnitureLevel, removeFurniture, removeHidden, removeNonContent } from './prune.js';
import { COMMENT_CLASS } from './patterns.js';
import { type Choice, apply, ownPost, proseOf, scoredCandidate, semanticCandidate } from './select.js';
import { expandRoot, trimAroundCore } from './expand.js';
import { plainText } from './text.js';
import { bodyOf } from '../formats/load-html.js';

export { plainText } from './text.js';

export interface MainContentOptions {
  /**
   * CSS selectors of elements to keep even outside the main content (the API's
   * `includeTags`). Each match found in the original page that does not survive inside the
   * root is added, as it was before pruning, next to the root in document order.
   */
  readonly includeTags?: readonly string[];
}

/** Below this much prose (characters outside links) a chosen root is poor and the body is used. */
const MIN_ROOT_PROSE = 200;

/** Chooses between the semantic container and the scored candidate (see select.ts). */
function choose(semantic: Element | null, scored: Choice | null, stats: Map<Element, TextStats>): Choice | null {
  if (!semantic) return scored;
  if (!scored) return { root: semantic, drop: [] };
  const sp = proseOf(stats.get(semantic));
  // The scored root's prose is what stays of it: a sibling merge's dropped blocks do not count.
  let cp = proseOf(stats.get(scored.root));
  for (const el of scored.drop) cp -= proseOf(stats.get(el));
  if (contains(semantic, scored.root)) return cp >= 0.9 * sp ? scored : { root: semantic, drop: [] };
  if (sp >= 0.5 * cp) return { root: semantic, drop: [] };
  return scored;
}

/** Second-pass cleaning of `root`; nothing holding `protect` (the already-cleaned core) is removed. */
function clean(root: Element, protect?: Element): void {
  removeBoilerplateSections(root, protect);
  removeLinkBlocks(root, protect);
  if (!protect) removeMetaLines(root);
}

/**
 * Finds the main content of the document loaded in `$`, pruning the document in place.
 * Returns a one-element selection: the main-content root (the `<body>` when no part of the
 * page stands out), or, when `includeTags` matches outside it, a new detached `<div>`
 * holding those elements and the root in document order.
 */
export function extractMainContent($: CheerioAPI, options: MainContentOptions = {}): Cheerio<Element> {
  const includes = collectIncludes($, options.includeTags);
  const docRoot = $.root()[0];
  if (!docRoot) return $('body');
  removeNonContent(docRoot, false);
  const body = bodyOf($) ?? ($('html')[0] as Element | undefined);
  if (!body) return $('body');
  let hidden = 0;
  const visible = undoable(() => {
    hidden = removeHidden(docRoot);
    return extractFromBody($, body);
  });
  let root = visible.result;
  if (hidden >= MIN_HIDDEN_PROSE) {
    // The page hides what it has to say until a script shows it (a tab, a "read more", a
    // gate): when what is visible gives little and the hidden part holds much more, the
    // page is read with its hidden elements.
    const prose = proseOf(measureOne(root));
    if (prose < MAX_HIDDEN_ROOT_PROSE && hidden >= HIDDEN_GROWTH * Math.max(prose, MIN_ROOT_PROSE)) {
      visible.undo();
      root = extractFromBody($, body);
    }
  }
  removeRepeatedBlocks(root);
  removeRepeatedLines(root);
  removeEchoedQuotes(root);
  return $(withIncludes($, root, includes));
}

/** Hidden elements holding less prose than this are never read. */
const MIN_HIDDEN_PROSE = 500;
/** Below this much prose a result may be missing what the page hides. */
const MAX_HIDDEN_ROOT_PROSE = 1000;
/** The hidden elements must hold this many times the prose of the result to be read. */
const HIDDEN_GROWTH = 3;

/** The extraction once the non-content tags are gone: passes of less and less pruning, then the fallbacks. */
function extractFromBody($: CheerioAPI, body: Element): Element {
  // The body's text before any pruning: a bound on what the region fallback can find.
  const bodyText = measureOne(body).text;
  let level: FurnitureLevel = 'full';
  let pass = undoable(() => extractFrom($, body, level));
  for (const next of RETRY_LEVELS) {
    if (proseOf(pass.result.stats.get(pass.result.root)) >= MIN_ROOT_PROSE) break;
    // Too little survived: start again from the unpruned body, removing less.
    pass.undo();
    level = next;
    pass = undoable(() => extractFrom($, body, level));
  }
  let root = pass.result.root;
  const kept = root;
  const found = pass.result.stats.get(root);
  const prose = proseOf(found);
  const text = found?.text ?? 0;
  const short = text < MAX_LISTING_ROOT_TEXT;
  const growth = short ? LISTING_GROWTH : LONG_LISTING_GROWTH;
  const mayList = bodyText > growth * text && (short || (text < MAX_LONG_LISTING_ROOT_TEXT && hasTwin(root)));
  // A longer first post may still head a thread, when the pass swept away as comments
  // several times its prose (a cheap tally: the thread check measures the whole body).
  const threadLike = prose < MAX_THREAD_ROOT_PROSE || (prose < MAX_LONG_THREAD_ROOT_PROSE && pass.result.comments >= LONG_THREAD_GROWTH * prose);
  if (threadLike || mayList) {
    // Little left. Either every pass took the content away as links (a listing, a product
    // grid: the link-block cleaning removes its cards), or the content is a thread of posts
    // that the page marks as comments (a forum), or the pass kept a listing's introduction
    // and dropped its items. Then the page's furniture-free main region (or body) is the
    // answer, when it holds more text than the pass did (for a listing: much more, mostly
    // in repeated items).
    pass.undo();
    const kind: FurnitureLevel | null = prose < MIN_ROOT_PROSE ? 'full' : threadLike && isThread(body, prose) ? 'thread' : null;
    const region = kind || mayList ? undoable(() => regionFrom(body, kind ?? 'full')) : null;
    const stats = region && measure(region.result);
    // A longer result gives way only to a region of more, and more repeated, text.
    const more = !!region && (stats?.get(region.result)?.text ?? 0) > (kind ? 1 : growth) * text;
    if (region && stats && more && (kind || (short ? isListing(region.result, stats, LISTING_MIN_SHARE) : isListing(region.result, stats, LONG_LISTING_MIN_SHARE, kept)))) root = region.result;
    else {
      region?.undo();
      root = extractFrom($, body, level).root;
    }
  }
  return root;
}

/** Below this much prose a result may be the first post of a thread whose replies were taken for comments. */
const MAX_THREAD_ROOT_PROSE = 1000;
/** Up to this much prose, a result is still checked for a thread when the pass removed `LONG_THREAD_GROWTH` times as much prose as comments. */
const MAX_LONG_THREAD_ROOT_PROSE = 3000;
const LONG_THREAD_GROWTH = 3;

/**
 * Whether the page is a thread of posts marked as comments: its comment-classed blocks hold
 * at least three times the prose the extraction kept, in at least three posts (separate
 * blocks, or the repeated items of one block: `postsIn`).
 */
function isThread(body: Element, kept: number): boolean {
  const stats = measure(body);
  let prose = 0;
  let blocks = 0;
  const walk = (el: Element) => {
    for (const c of el.children) {
      if (!isElement(c)) continue;
      const hint = hintOf(c);
      if (hint && COMMENT_CLASS.test(hint)) {
        const p = proseOf(stats.get(c));
        prose += p;
        if (p >= 100) blocks += Math.max(1, postsIn(c, stats));
      } else walk(c);
    }
  };
  walk(body);
  return prose >= 3 * Math.max(kept, MIN_ROOT_PROSE) && blocks >= 3;
}

/** Below this much text (characters) a result may be a listing's introduction without its items. */
const MAX_LISTING_ROOT_TEXT = 1500;
/** A listing's region holds at least this many times the text of the pass's result. */
const LISTING_GROWTH = 3;
/** Up to this much text, a result may still be part of a listing, when the region holds `LONG_LISTING_GROWTH` times as much, `LONG_LISTING_MIN_SHARE` of it in items. */
const MAX_LONG_LISTING_ROOT_TEXT = 5000;
const LONG_LISTING_GROWTH = 4;
const LONG_LISTING_MIN_SHARE = 0.8;

/**
 * Whether `region` reads as a listing: at least `LISTING_MIN_ITEMS` items (sibling elements
 * of one tag and class, each with some text) hold at least `minShare` of its text, and,
 * when `within` is given, one of them holds `within` (the pass kept one item of many).
 */
function isListing(region: Element, stats: Map<Element, TextStats>, minShare: number, within?: Element): boolean {
  const total = stats.get(region)?.text ?? 0;
  if (!total) return false;
  let repeated = 0;
  let items = 0;
  let inItem = false;
  const walk = (el: Element) => {
    const groups = new Map<string, Element[]>();
    for (const c of el.children) {
      if (!isElement(c)) continue;
      const key = shapeOf(c);
      const group = groups.get(key);
      if (group) group.push(c);
      else groups.set(key, [c]);
    }
    const counted = new Set<Element>();
    for (const group of groups.values()) {
      let filled = 0;
      for (const c of group) if ((stats.get(c)?.text ?? 0) >= LISTING_ITEM_TEXT) filled += 1;
      if (filled < 3) continue;
      items += filled;
      for (const c of group) {
        repeated += stats.get(c)?.text ?? 0;
        counted.add(c);
        if (within && !inItem && contains(c, within)) inItem = true;
      }
    }
    for (const c of el.children) if (isElement(c) && !counted.has(c)) walk(c);
  };
  walk(region);
  return items >= LISTING_MIN_ITEMS && repeated >= minShare * total && (!within || inItem);
}

/** Whether `el` or an ancestor below the body has a sibling of its tag and class: it may be one item of many (checked before the region is built). */
function hasTwin(el: Element): boolean {
  for (let n: Element | null = el; n && n.name !== 'body'; n = isElement(n.parent) ? n.parent : null) {
    const cls = n.attribs.class ?? '';
    for (const sib of n.parent?.children ?? []) if (sib !== n && isElement(sib) && sib.name === n.name && (sib.attribs.class ?? '') === cls) return true;
  }
  return false;
}

/** An item of a listing holds at least this much text. */
const LISTING_ITEM_TEXT = 15;
const LISTING_MIN_ITEMS = 5;
const LISTING_MIN_SHARE = 0.3;

/**
 * The posts of a block (a forum that wraps its whole thread in one `#comments` block): the
 * members (with at least 100 characters of prose) of the first group of at least three
 * same-tag, same-class siblings met top-down, when they are `<article>`s (a post marked up
 * as one); 0 otherwise (a blog's comment list, `<li class="comment">`, stays one block).
 */
function postsIn(block: Element, stats: Map<Element, TextStats>): number {
  const queue: Element[] = [block];
  for (let i = 0; i < queue.length && i < 200; i += 1) {
    const el = queue[i] as Element;
    const groups = new Map<string, number>();
    for (const c of el.children) {
      if (!isElement(c)) continue;
      queue.push(c);
      if (proseOf(stats.get(c)) < 100) continue;
      const key = shapeOf(c);
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    for (const [key, n] of groups) if (n >= 3) return key.startsWith('article.') ? n : 0;
  }
  return 0;
}

/** The body without furniture (at `level`), narrowed to its main region when that holds most of it. */
function regionFrom(body: Element, level: FurnitureLevel): Element {
  const stats = removeFurniture(body, level);
  const total = stats.get(body)?.text ?? 0;
  let found: Element | null = null;
  const walk = (el: Element) => {
    for (const c of el.children) {
      if (found || !isElement(c)) continue;
      if (c.name === 'main' || c.attribs.role === 'main') found = c;
      else walk(c);
    }
  };
  walk(body);
  const main = found as Element | null;
  return main && (stats.get(main)?.text ?? 0) >= 0.5 * total ? main : body;
}

/** The less aggressive passes tried, in order, when a pass leaves too little prose. */
const RETRY_LEVELS: readonly FurnitureLevel[] = ['tags', 'none'];

/** A pass's root and the measures of the body it leaves (exact: see `keepCounted`). */
interface Pass {
  readonly root: Element;
  readonly stats: Map<Element, TextStats>;
  /** The prose of the comment-classed blocks the furniture sweep removed. */
  readonly comments: number;
}

/**
 * One extraction pass over `body` (pruned in place at the given furniture level). The body
 * is measured once: every removal after that takes its counts off the measures.
 */
function extractFrom($: CheerioAPI, body: Element, level: FurnitureLevel): Pass {
  const tally = { comments: 0 };
  const stats = removeFurniture(body, level, 0.5, tally);
  const root = keepCounted(stats, () => {
    const total = proseOf(stats.get(body));
    const chosen = choose(semanticCandidate($.root()[0] as ParentNode, stats, total), scoredCandidate(body, stats), stats);
    const own = chosen && ownPost(body, chosen.root, stats);
    const choice = own ? { root: own, drop: [] } : chosen;
    const core = choice ? apply(choice) : body;
    clean(core);
    // The post the page names is whole: widening it would take in the posts appended after it.
    const widened = own ? core : expandRoot(core, stats);
    if (widened !== core) {
      trimAroundCore(widened, core, stats);
      clean(widened, core);
    }
    if (widened !== body && proseOf(stats.get(widened)) < MIN_ROOT_PROSE) {
      clean(body, widened);
      return body;
    }
    return widened;
  });
  return { root, stats, comments: tally.comments };
}

/** Plain text (blocks on their own lines) of a root returned by `extractMainContent`. */
export function mainText(root: Cheerio<Element> | Element): string {
  return plainText(isElement(root as Element) ? [root as Element] : (root as Cheerio<Element>).toArray());
}

interface Include {
  readonly original: Element;
  readonly copy: Element;
  readonly order: number;
}

interface Includes {
  readonly list: Include[];
  /** Document order of every element before pruning. */
  readonly order: Map<Element, number>;
}

function collectIncludes($: CheerioAPI, selectors: readonly string[] | undefined): Includes {
  if (!selectors?.length) return { list: [], order: new Map() };
  const all = $('*').toArray() as Element[];
  const order = new Map(all.map((el, i) => [el, i]));
  const matched = new Set<Element>();
  for (const selector of selectors) {
    try {
      for (const el of $(selector).toArray() as Element[]) matched.add(el);
    } catch {
      // An invalid selector matches nothing; the API validates selectors earlier.
    }
  }
  // Keep outermost matches only.
  const outer = [...matched].filter((el) => ![...matched].some((o) => o !== el && contains(o, el)));
  const list = outer
    .map((el) => ({ original: el, copy: $(el).clone()[0] as Element, order: order.get(el) ?? 0 }))
    .sort((a, b) => a.order - b.order);
  return { list, order };
}

function withIncludes($: CheerioAPI, root: Element, includes: Includes): Element {
  const missing = includes.list.filter((inc) => !contains(root, inc.original) || !reachesDocument(inc.original));
  if (!missing.length) return root;
  const rootOrder = includes.order.get(root) ?? 0;
  const wrapper = $('<div data-main-content=""></div>');
  const before = missing.filter((m) => m.order < rootOrder || contains(m.original, root));
  const after = missing.filter((m) => !before.includes(m));
  for (const m of before) wrapper.append(m.copy);
  wrapper.append(root);
  for (const m of after) wrapper.append(m.copy);
  return wrapper[0] as Element;
}

function reachesDocument(el: Element): boolean {
  let n: Element['parent'] = el;
  while (n?.parent) n = n.parent;
  return n?.type === 'root';
}
