/**
 * Widening a root that holds only part of the article. Pages split their content over
 * sibling blocks (the lead outside the body container, recipe parts, article sections), so
 * the root climbs to an ancestor while what the ancestor adds has few links and not much
 * more prose than the root already holds. What the climb brings in is then trimmed harder
 * than the core: only real paragraphs, whole sentences (a lead or standfirst above the body
 * container), content lists/tables and the headings that introduce them stay; short lines
 * (bylines, dates, photo credits, labels) go.
 */
import { type AnyNode, type Element, type TextStats, contains, detach, isElement, linkDensity, tagOf } from './dom.js';
import { BLOCK_TAGS, DATE_LINE, HEADING_TAGS, META_LINE } from './patterns.js';
import { textOf } from './text.js';

const proseOf = (s: TextStats | undefined): number => (s ? s.text - s.link : 0);

/** A paragraph brought in by the climb is kept from this many characters. */
const MIN_PARAGRAPH = 100;
const LIST_TAGS = new Set(['ul', 'ol', 'dl', 'table']);

/**
 * The highest ancestor of `core` (below `<body>`) whose additions, taken together, read as
 * more of the same content: link density at most `maxLinkDensity` (or under 50 link
 * characters in all) and at most `maxGrowth` times the core's prose.
 */
export function expandRoot(core: Element, stats: Map<Element, TextStats>, maxLinkDensity = 0.2, maxGrowth = 3): Element {
  const cs = stats.get(core);
  if (!cs) return core;
  let r = core;
  for (let p = r.parent; isElement(p) && tagOf(p) !== 'body' && tagOf(p) !== 'html'; p = p.parent) {
    const ps = stats.get(p);
    if (!ps) break;
    const extraText = ps.text - cs.text;
    const extraLink = ps.link - cs.link;
    if (extraText > 0) {
      if (extraLink > 50 && extraLink / extraText > maxLinkDensity) break;
      if (extraText - extraLink > maxGrowth * proseOf(cs)) break;
    }
    r = p;
  }
  return r;
}

/**
 * A block shorter than a paragraph is still kept from the climb when it is one whole
 * sentence of at least this many characters and seven words (a lead, a standfirst).
 * Scripts written without spaces never qualify: for them the paragraph length rules.
 */
const MIN_SENTENCE = 50;
const SENTENCE_END = /[.!?…]["'“”»«’)]?$/;

/** Whether a short block reads as a sentence of prose rather than a byline, date or label. */
function isSentence(el: Element, s: TextStats | undefined): boolean {
  if (!s || s.text < MIN_SENTENCE || s.link > 0) return false;
  const text = textOf(el);
  return SENTENCE_END.test(text) && text.split(' ').length >= 7 && !META_LINE.test(text) && !DATE_LINE.test(text);
}

const hasBlock = (el: Element): boolean =>
  el.children.some((c) => isElement(c) && (BLOCK_TAGS.has(tagOf(c)) || hasBlock(c)));

/**
 * Removes, from `root` outside `core`, the blocks that are not content: leaf blocks shorter
 * than a paragraph or link-heavy, except content lists/tables and headings followed by kept
 * content.
 */
export function trimAroundCore(root: Element, core: Element, stats: Map<Element, TextStats>): void {
  if (root === core) return;
  const units: { el: Element; keep: boolean; heading: boolean }[] = [];
  const walk = (el: Element) => {
    for (const c of el.children as AnyNode[]) {
      if (!isElement(c) || c === core) continue;
      if (contains(c, core)) {
        walk(c);
        continue;
      }
      const tag = tagOf(c);
      const s = stats.get(c);
      if (LIST_TAGS.has(tag)) {
        units.push({ el: c, keep: (s?.text ?? 0) >= MIN_PARAGRAPH && linkDensity(s) < 0.3, heading: false });
      } else if (BLOCK_TAGS.has(tag) && hasBlock(c)) {
        walk(c);
      } else if (BLOCK_TAGS.has(tag) || hasBlock(c)) {
        const long = (s?.text ?? 0) >= MIN_PARAGRAPH || (tag !== 'h1' && isSentence(c, s));
        const heading = HEADING_TAGS.has(tag) && tag !== 'h1' && !long;
        units.push({ el: c, keep: !heading && long && linkDensity(s) < 0.3, heading });
      }
    }
  };
  walk(root);
  for (let i = units.length - 1; i >= 0; i -= 1) {
    const u = units[i] as (typeof units)[number];
    if (u.heading) u.keep = !!units[i + 1]?.keep;
  }
  for (const u of units) if (!u.keep) detach(u.el);
}

