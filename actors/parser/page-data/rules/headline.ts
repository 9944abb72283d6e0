/**
 * The headline: the page's main `<h1>`, else a title-classed heading, else the `<title>`.
 *
 * 1. `<h1>`s with 2–300 characters of text, in document order, in three ranks: inside
 *    `<article>`/`<main>` (not in furniture); outside any furniture; anywhere else (a
 *    header's h1). An h1 that is a site logo (class/id words logo, brand, site-title,
 *    site-name, or an image with no text) is never taken when another exists.
 *    Within the best rank holding one, the first h1 whose text the `<title>` contains wins
 *    (the title usually repeats the headline); else the rank's first.
 *    The h1 is taken when it agrees with the `<title>` (the title contains it, or it contains
 *    the title's headline part) or there is no title.
 * 2. Else the first element outside furniture whose class/id says headline, entry-title,
 *    post-title, article-title or story-title, or the first `<h2>` in an `<article>`, when
 *    the `<title>` contains its text.
 * 3. Else the h1 that did not agree — unless it is a short label (at most three words:
 *    "Aktuelle Artikel", a section name) and the title's headline part has four words or
 *    more, in which case, as when there is no h1, the `<title>` without its site part
 *    (`titleHeadline`).
 * A heading's kicker, roofline or subtitle (`<small>`, or class words kicker, roofline,
 * dachzeile, overline, eyebrow, subtitle, topline, strapline…) is left out of its text.
 * The element found is the page's anchor: the byline, dates and price are looked for near it.
 */
import { findFirst } from '../../formats/walk.js';
import { hasDescendant, textOf } from './text.js';
import { type Element, type Node, type PageView, Ctx, FURNITURE, hinted, tagged } from './view.js';

export interface Headline {
  readonly text: string;
  /** The heading element (null when the headline came from `<title>`). */
  readonly node: Node | null;
}

const LOGO = /(?:^|[\s_-])(?:logo|brand|branding|site-?title|site-?name|sitename|site-?logo)(?=$|[\s_-])/;
const KICKER = /kicker|roofline|dachzeile|overline|eyebrow|subtitle|sub-?title|subheadline|sub-?heading|topline|strapline|deck|standfirst|tagline/;
const TITLE_CLASS = /(?:^|[\s_-])(?:headline|entry-?title|post-?title|article-?title|story-?title|page-?title|news-?title)(?=$|[\s_-])/;
const IMAGES = new Set(['img', 'picture', 'svg']);
const MAX = 300;

/** Lower-case, whitespace-collapsed, quotes unified: how a heading is compared with the title. */
export const normalizeTitle = (text: string): string =>
  text.toLowerCase().replace(/[\u2018\u2019\u201a\u201b`´]/g, "'").replace(/[\u201c\u201d\u201e\u00ab\u00bb]/g, '"').replace(/\s+/g, ' ').trim();

/** Separators between a page's title and its site name. */
const SEPARATORS = [' | ', ' || ', ' - ', ' – ', ' — ', ' :: ', ' · ', ' • ', ' « ', ' » ', ' / '];

/**
 * The `<title>` without its site name: split on ` | ` the longest part is kept (site names
 * are short, on either side); otherwise a last part after ` - `, ` – `, ` — `, ` · `, ` • `,
 * ` « `, ` » `, ` :: ` or ` / ` is dropped when it is shorter than what precedes it and at
 * most 40 characters (twice: "Headline - Section | Site").
 */
export function titleHeadline(title: string): string {
  let text = title.replace(/\s+/g, ' ').trim();
  if (text.includes(' | ')) {
    const parts = text.split(' | ').map((p) => p.trim());
    text = parts.reduce((best, p) => (p.length > best.length ? p : best), '');
  }
  for (let round = 0; round < 2; round += 1) {
    let cut = -1;
    let sep = '';
    for (const s of SEPARATORS) {
      const at = text.lastIndexOf(s);
      if (at > cut) {
        cut = at;
        sep = s;
      }
    }
    if (cut <= 0) break;
    const tail = text.slice(cut + sep.length);
    if (tail.length > 40 || tail.length >= cut) break;
    text = text.slice(0, cut).trim();
  }
  return text;
}

const hintOf = (el: Element): string => `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`.toLowerCase();

const isLogo = (node: Node, text: string): boolean =>
  LOGO.test(node.hint) || (text.length < 2 && hasDescendant(node.el, IMAGES)) || !!findFirst(node.el, (d) => LOGO.test(hintOf(d)));

/** A heading's kicker, roofline or subtitle: shown with the headline, not part of it. */
const isAside = (el: Element): boolean => el.name === 'small' || KICKER.test(hintOf(el));

/** A heading's text without its kicker or subtitle (all of it when nothing else is left). */
function headingText(el: Element): string {
  return textOf(el, 1000, isAside) || textOf(el, 1000);
}

/** The rank of an h1: 0 in article/main, 1 outside furniture, 2 elsewhere. */
function rankOf(node: Node): number {
  if (node.ctx & (Ctx.Article | Ctx.Main) && !(node.ctx & FURNITURE)) return 0;
  return node.ctx & FURNITURE ? 2 : 1;
}

function fromH1(view: PageView, title: string): Headline | null {
  const ranks: Array<Array<{ node: Node; text: string }>> = [[], [], []];
  for (const node of tagged(view, 'h1')) {
    if (node.ctx & Ctx.NoScript) continue;
    const text = headingText(node.el);
    if (text.length < 2 || text.length > MAX || isLogo(node, text)) continue;
    ranks[rankOf(node)]?.push({ node, text });
  }
  for (const rank of ranks) {
    if (!rank.length) continue;
    const inTitle = title ? rank.find((c) => title.includes(normalizeTitle(c.text))) : undefined;
    const best = inTitle ?? rank[0];
    if (best) return best;
  }
  return null;
}

function fromTitledElement(view: PageView, title: string): Headline | null {
  if (!title) return null;
  const candidates = [...hinted(view, 'title'), ...hinted(view, 'headline'), ...tagged(view, 'h2').filter((n) => n.ctx & Ctx.Article)];
  candidates.sort((a, b) => a.start - b.start);
  for (const node of candidates) {
    if (node.ctx & (FURNITURE | Ctx.NoScript)) continue;
    if (node.tag !== 'h2' && !TITLE_CLASS.test(node.hint)) continue;
    const text = headingText(node.el);
    if (text.length >= 10 && text.length <= MAX && title.includes(normalizeTitle(text))) return { node, text };
  }
  return null;
}

const words = (text: string): number => text.split(' ').filter(Boolean).length;

/** Does a heading say what the title says (the title holds it, or it holds the title's headline part)? */
function agrees(heading: string, title: string, titleHead: string): boolean {
  const h = normalizeTitle(heading);
  return !title || title.includes(h) || (!!titleHead && h.includes(titleHead));
}

/** The headline (see the file comment); null when the page has no heading and no title. */
export function readHeadline(view: PageView): Headline | null {
  const title = normalizeTitle(view.title);
  const fromTitle = titleHeadline(view.title).slice(0, MAX);
  const h1 = fromH1(view, title);
  if (h1 && agrees(h1.text, title, normalizeTitle(fromTitle))) return h1;
  const titled = fromTitledElement(view, title);
  if (titled) return titled;
  if (h1 && !(words(h1.text) <= 3 && words(fromTitle) >= 4)) return h1;
  return fromTitle ? { text: fromTitle, node: null } : null;
}
