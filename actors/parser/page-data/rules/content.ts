/**
 * `description` and `image` from the page's content region.
 *
 * The region: the `<article>` holding the headline; else the first `<main>` (or
 * role=main); else the first `<article>`; else the whole body. Furniture inside it (nav,
 * footer, sidebar, comments, related boxes) is skipped as everywhere.
 *
 * description — the standfirst, else the first substantial paragraph:
 *   1. an element whose class/id says lead, lede, intro, standfirst, summary, excerpt,
 *      teaser, dek/deck, subtitle, subhead or abstract, up to 300 characters before the
 *      headline or 1,500 after it (near.ts), with 40–600 characters of text, not a byline;
 *   2. else a `<p>` of the region (after the headline when the headline is in it, then the
 *      region's others) with at least 60 characters, not inside `<figure>`, not classed as
 *      a caption, credit, byline, author, date, meta, share, newsletter, cookie or consent
 *      box, not opening with a byline or a date, and not about cookies, privacy, copyright
 *      or JavaScript being disabled.
 *   Cut at the last sentence end (. ! ? 。 ！ ？) within 300 characters; with none, at the
 *   last space, with "…".
 *
 * image — the first content image of the region (a hero image above the headline counts):
 * an `<img>` (noscript fallbacks included) whose source is `src`, else `data-src`,
 * `data-lazy-src`, `data-original`, else the largest of `srcset`/`data-srcset`; not a data:
 * URI, not an SVG, not smaller than 100 pixels by its width/height attributes, not a logo,
 * icon, avatar, sprite, spacer, pixel, badge, emoji or gravatar (by class/id, alt or URL);
 * made absolute against the page's base.
 */
import { absolute, largestSrcset } from '../../formats/urls.js';
import { findDate } from './date-text.js';
import { namesIn } from './authors.js';
import { textOf } from './text.js';
import { anchorOf, nearest } from './near.js';
import { type Element, type Node, type PageView, Ctx, FURNITURE, closest, hinted, inside, tagged } from './view.js';

const MIN_PARAGRAPH = 60;
const MAX_DESCRIPTION = 300;
const NOT_PROSE = /caption|credit|byline|author|date|meta|share|newsletter|cookie|consent|copyright|disclaimer|breadcrumb|subscribe|promo|advert/;
const COOKIE_TEXT = /\bcookies?\b|datenschutz|privacy policy|©|all rights reserved|alle rechte vorbehalten|tous droits réservés|todos los derechos|prawem autorskim|javascript/i;
const NOT_IMAGE = /logo|icon|avatar|sprite|spacer|pixel|badge|emoji|gravatar|blank\.gif|placeholder|1x1|loading|lazy\.(?:gif|png|svg)|transparent/i;
const MIN_IMAGE_PX = 100;

/** The content region (see the file comment). */
export function contentRegion(view: PageView, heading: Node | null): Node | null {
  const article = heading && heading.ctx & Ctx.Article ? closest(heading, 'article') : null;
  if (article) return article;
  return view.main ?? tagged(view, 'article')[0] ?? null;
}

/** `text` cut at its last sentence end within `max` characters (else at a space, with "…"). */
export function cutAtSentence(text: string, max = MAX_DESCRIPTION): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max + 1);
  let end = -1;
  for (let i = head.length - 1; i >= 40; i -= 1) {
    const c = head.charAt(i);
    if ('。！？'.includes(c) || ('.!?'.includes(c) && (i + 1 >= head.length || head.charAt(i + 1) === ' '))) {
      end = i + 1;
      break;
    }
  }
  if (end > 0) return head.slice(0, end).trim();
  const space = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, space > 40 ? space : max - 1).trim()}…`;
}

const inRegion = (node: Node, region: Node | null): boolean => !region || inside(node, region);

/** Furniture bits of the region itself (a region inside a sidebar-named layout wrapper): not held against its parts. */
const regionFurniture = (region: Node | null): number => (region ? region.ctx & FURNITURE : 0);

function proseParagraph(node: Node, allowed: number): string | null {
  if (node.ctx & (FURNITURE | Ctx.NoScript | Ctx.Figure) & ~allowed || NOT_PROSE.test(node.hint)) return null;
  const text = textOf(node.el, 1500);
  if (text.length < MIN_PARAGRAPH || COOKIE_TEXT.test(text)) return null;
  const date = findDate(text.slice(0, 40));
  if (date && date.index < 3) return null;
  if (/^(?:by|von|par|por|door)\s/i.test(text) && namesIn(text).length) return null;
  return text;
}

/** Class words of a standfirst: the summary a site sets under its headline. */
const LEAD = /(?:^|[\s_-])(?:lead|lede|intro|introduction|standfirst|summary|excerpt|teaser|dek|deck|subtitle|sub-?title|subhead|subheadline|sub-?heading|abstract|description|kicker-?text|article-?teaser|header-?teaser)(?=$|[\s_-])/;
const LEAD_HINTS = ['lead', 'intro', 'standfirst', 'summary', 'excerpt', 'teaser', 'subtitle', 'subhead', 'dek', 'deck'] as const;

/** The standfirst near the headline: a lead-classed element of 40–600 characters just after (or just before) it. */
function readLead(view: PageView, heading: Node | null): string | null {
  if (!heading) return null;
  const anchor = anchorOf(view, heading);
  const nodes = new Set<Node>();
  for (const w of LEAD_HINTS) for (const n of hinted(view, w)) if (LEAD.test(n.hint) && n.tag !== 'img') nodes.add(n);
  for (const node of nearest(nodes, anchor, 300, 1500)) {
    if (NOT_PROSE.test(node.hint) || inside(heading, node)) continue;
    const text = textOf(node.el, 1500);
    if (text.length < 40 || text.length > 600 || COOKIE_TEXT.test(text) || /^(?:by|von|par|por|door)\s/i.test(text)) continue;
    return cutAtSentence(text);
  }
  return null;
}

export function readDescription(view: PageView, region: Node | null, heading: Node | null): string | null {
  const lead = readLead(view, heading);
  if (lead) return lead;
  const paragraphs = tagged(view, 'p').filter((n) => inRegion(n, region));
  const headingInRegion = heading && inRegion(heading, region);
  const ordered = headingInRegion ? [...paragraphs.filter((n) => n.start >= heading.start), ...paragraphs.filter((n) => n.start < heading.start)] : paragraphs;
  const allowed = regionFurniture(region);
  for (const node of ordered) {
    const text = proseParagraph(node, allowed);
    if (text) return cutAtSentence(text);
  }
  return null;
}

/** The picture a reader sees for an `<img>`: src, lazy-loading attributes, srcset. */
function sourceOf(el: Element): string | null {
  const a = el.attribs;
  for (const ref of [a.src, a['data-src'], a['data-lazy-src'], a['data-original'], a['data-url']]) {
    const r = ref?.trim();
    if (r && !/^data:/i.test(r) && !NOT_IMAGE.test(r)) return r;
  }
  const set = a.srcset ?? a['data-srcset'];
  return set ? largestSrcset(set) : null;
}

const tooSmall = (value: string | undefined): boolean => {
  if (!value) return false;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) && n < MIN_IMAGE_PX;
};

function imageOf(node: Node, base: string, allowed: number): string | null {
  const a = node.el.attribs;
  if (node.ctx & FURNITURE & ~allowed || tooSmall(a.width) || tooSmall(a.height)) return null;
  if (NOT_IMAGE.test(`${node.hint} ${a.alt ?? ''}`)) return null;
  const ref = sourceOf(node.el);
  if (!ref || /\.svg(?:$|[?#])/i.test(ref)) return null;
  const url = absolute(ref, base);
  return url && /^https?:/i.test(url) ? url : null;
}

export function readImage(view: PageView, region: Node | null, base: string): string | null {
  const allowed = regionFurniture(region);
  for (const node of tagged(view, 'img')) {
    if (!inRegion(node, region)) continue;
    const url = imageOf(node, base, allowed);
    if (url) return url;
  }
  return null;
}
