/**
 * First pass over the whole document: drop what is never content (scripts, styles, forms'
 * controls, comments, hidden elements) and the page furniture that announces itself by tag,
 * ARIA role or class/id (navigation, headers, footers, sidebars, cookie banners, share and
 * comment widgets, related-links boxes). A furniture-looking element is kept when it carries
 * most of the page's prose — pages do wrap their article in `<div class="has-sidebar">`.
 */
import { load } from 'cheerio';
import { type AnyNode, type Element, type ParentNode, type TextStats, detach, hintOf, isElement, keepCounted, linkDensity, measure, measureOne, tagOf, visibleLength } from './dom.js';
import { plainText, textOf } from './text.js';
import { BOILERPLATE_WORDS, layoutWords, wordsOf } from './score.js';
import { BOILERPLATE_CLASS, CAMEL_CAPTION, COMMENT_CLASS, CONSENT_CLASS, FURNITURE_CLASS, FURNITURE_ROLES, FURNITURE_TAGS, HEADING_TAGS, NON_CONTENT_TAGS } from './patterns.js';

/** A soft-furniture element with at least this much prose (and few links) is kept. */
const SOFT_PROSE = 300;

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;
/** Classes that hide an element: utility classes, and Webflow's form answers (`w-form-done`, `w-form-fail`: shown only after a submit). */
const HIDDEN_CLASS = /(?:^|\s)(?:hidden|hide|d-none|sr-only|visually-?hidden|screen-reader-text|screenreader|element-invisible|offscreen|w-form-done|w-form-fail)(?=$|\s)/i;

/** Whether an element is hidden from readers by attribute, inline style or a hiding class. */
export function isHidden(el: Element): boolean {
  const a = el.attribs;
  // A `popover` is not shown until a script or a button opens it (a prompt, a menu).
  if (a.hidden !== undefined || a['aria-hidden'] === 'true' || a.popover !== undefined) return true;
  if (a.style && HIDDEN_STYLE.test(a.style)) return true;
  return !!a.class && HIDDEN_CLASS.test(a.class);
}

/** Readable text a `<noscript>` must hold to be shown: below it, it is a "please enable JavaScript" line or a tracking pixel. */
const NOSCRIPT_MIN_TEXT = 200;

/**
 * A page that puts its article in `<noscript>` shows it to a reader without JavaScript — as
 * a scraper is. Parsers with scripting on keep noscript content as raw markup text; this
 * parses it in place (the element becomes a `div`). Returns whether the element was kept.
 */
function unwrapNoscript(el: Element): boolean {
  const raw = el.children.map((c) => (c.type === 'text' ? (c as unknown as { data: string }).data : '')).join('');
  const nodes = raw.includes('<') ? load(raw, null, false).root()[0]?.children ?? [] : el.children;
  const text = plainText(nodes);
  if (visibleLength(text) < NOSCRIPT_MIN_TEXT) return false;
  el.name = 'div';
  el.children = [...nodes];
  for (const c of el.children) c.parent = el;
  el.children.forEach((c, i) => {
    c.prev = el.children[i - 1] ?? null;
    c.next = el.children[i + 1] ?? null;
  });
  return true;
}

/**
 * The text of a link that lets keyboard users jump past the page's navigation ("Skip to main
 * content", "Skip to product list", "Zum Inhalt springen"): read by screen readers, never
 * content. Matched on a same-page link's short text only.
 */
const SKIP_LINK_TEXT =
  /^\s*(?:(?:skip|jump) to\b|(?:direkt )?zum (?:haupt)?inhalt\b|aller au contenu\b|ir al contenido\b|passa al contenuto\b|przejdź do (?:treści|zawartości)\b)/i;
const MAX_SKIP_LINK_TEXT = 40;

/** Whether an `<a>` is a skip link: its target on this page, its text `SKIP_LINK_TEXT`. */
function isSkipLink(el: Element): boolean {
  if (el.attribs.href?.charCodeAt(0) !== 35 /* # */) return false;
  const text = textOf(el);
  return text.length <= MAX_SKIP_LINK_TEXT && SKIP_LINK_TEXT.test(text);
}

/** Removes comments, non-content tags and skip links under `root`, in place; hidden elements too unless `hidden` is false (then `removeHidden` does). */
export function removeNonContent(root: ParentNode, hidden = true): void {
  const walk = (node: ParentNode) => {
    for (let i = node.children.length - 1; i >= 0; i -= 1) {
      const child = node.children[i] as AnyNode;
      if (child.type === 'comment' || child.type === 'directive' || child.type === 'cdata') {
        detach(child);
        continue;
      }
      if (!isElement(child)) continue;
      const tag = tagOf(child);
      if (tag === 'noscript' && unwrapNoscript(child)) {
        walk(child);
        continue;
      }
      if (NON_CONTENT_TAGS.has(tag) || (tag === 'a' && isSkipLink(child)) || (hidden && tag !== 'html' && tag !== 'body' && isHidden(child))) {
        detach(child);
        continue;
      }
      walk(child);
    }
  };
  walk(root);
}

/**
 * Class/id of the panels of an accordion or a set of tabs: closed panels are hidden until a
 * click, but they are the page's text (a service page's FAQ, its features one tab each).
 * Matched inside words too: builders write `cmp-accordion__panel`, `AccordionPanel`, `tabs-3-tabpanel-1`.
 */
const DISCLOSURE_HINT = /accordion|tab-?panel|tab-?pane\b|tabs?-?content/;

/** A carousel's slide (slick, swiper, splide, glide and builders' own): the ones off screen are `aria-hidden`, but the page shows them in turn. */
const SLIDE_HINT = /slide(?![a-z])|carousel-?_*(?:item|cell)/;
/** A carousel's copies of its slides, made to loop it: the slides again. */
const CLONE_HINT = /clone|duplicate/;

/**
 * Whether a hidden element is a closed accordion or tab panel (itself, or the child of one, so
 * marked), or a carousel's slide off screen (`aria-hidden` only), not one of its loop copies.
 */
function isDisclosurePanel(el: Element): boolean {
  if (el.attribs.role === 'tabpanel') return true;
  const hint = hintOf(el);
  if (el.attribs['aria-hidden'] === 'true' && SLIDE_HINT.test(hint) && !CLONE_HINT.test(hint)) return true;
  const parent = isElement(el.parent) ? el.parent : null;
  return DISCLOSURE_HINT.test(hint) || (!!parent && DISCLOSURE_HINT.test(hintOf(parent)));
}

/** Removes the hidden elements under `root`, in place; returns the prose (non-link characters) they held. */
export function removeHidden(root: ParentNode): number {
  let prose = 0;
  const walk = (node: ParentNode) => {
    for (let i = node.children.length - 1; i >= 0; i -= 1) {
      const child = node.children[i] as AnyNode;
      if (!isElement(child)) continue;
      const tag = tagOf(child);
      if (tag !== 'html' && tag !== 'body' && isHidden(child) && !isDisclosurePanel(child)) {
        const s = measureOne(child);
        prose += s.text - s.link;
        detach(child);
        continue;
      }
      walk(child);
    }
  };
  walk(root);
  return prose;
}

/** Whether an element sits inside an `<article>` or `<main>` (its header is the article's, not the site's). */
function insideArticle(el: Element): boolean {
  for (let n = el.parent; isElement(n); n = n.parent) if (n.name === 'article' || n.name === 'main') return true;
  return false;
}

/**
 * How an element declares itself page furniture: 'strong' (tag, role or a furniture class:
 * removed unless it carries most of the page's prose), 'soft' (a boilerplate class: removed
 * only when it carries little prose or mostly links), or '' (it does not). Boilerplate words
 * in `layout` (see score.ts `layoutWords`: the page puts them on blocks holding most of its
 * prose, as page builders put `widget` on every block) say nothing; furniture words always do.
 * `consent: false` leaves a consent manager's words to a later sweep of the same pass.
 */
export function furnitureKind(el: Element, level: FurnitureLevel = 'full', layout?: ReadonlySet<string>, consent = true): 'strong' | 'soft' | '' {
  // A consent manager's banner or preference centre is furniture at every level, the retries
  // included: its words never name content (a short thread under a long list of vendors).
  if (level === 'none') return isConsent(el) ? 'strong' : '';
  const tag = tagOf(el);
  if (tag === 'header') return insideArticle(el) ? '' : 'soft';
  if (FURNITURE_TAGS.has(tag)) return 'strong';
  const role = el.attribs.role?.toLowerCase();
  if (role && FURNITURE_ROLES.has(role)) return 'strong';
  if (level === 'tags') return consent && isConsent(el) ? 'strong' : '';
  const raw = level === 'full' || level === 'thread' ? hintOf(el) : '';
  // On a thread the posts are marked as comments: those words say nothing there.
  const hint = level === 'thread' ? raw.replace(COMMENT_WORDS, ' ').trim() : raw;
  if (!hint) return '';
  if (FURNITURE_CLASS.test(hint)) return 'strong';
  if (CAMEL_CAPTION.test(el.attribs.class ?? '')) return 'soft';
  if (!BOILERPLATE_CLASS.test(hint)) return '';
  return !layout?.size || wordsOf(hint, BOILERPLATE_WORDS).some((w) => !layout.has(w)) ? 'soft' : '';
}

/** Whether the class/id of `el` names a consent manager (`CONSENT_CLASS`). */
const isConsent = (el: Element): boolean => !!(el.attribs.class || el.attribs.id) && CONSENT_CLASS.test(hintOf(el));

/**
 * How boldly furniture is removed: `full` uses tags, roles and class/id words; `thread` the
 * same but for the comment words (a forum's posts wear them: index.ts); `tags` only
 * structural tags and roles (the retry when `full` left too little); `none` nothing but a
 * consent manager's blocks (`CONSENT_CLASS`, removed at every level).
 */
export type FurnitureLevel = 'full' | 'thread' | 'tags' | 'none';

const COMMENT_WORDS = new RegExp(COMMENT_CLASS.source, 'g');

/**
 * Removes furniture under `root` in place, top-down. A 'strong' element holding more than
 * `protectShare` of the page's non-link text is spared (but for a consent manager's); so is a
 * 'soft' one with real prose.
 */
export function removeFurniture(root: ParentNode, level: FurnitureLevel = 'full', protectShare = 0.5, tally?: { comments: number }): Map<Element, TextStats> {
  const stats = measure(root);
  if (level === 'none') {
    keepCounted(stats, () => sweep(root, stats, 'none', protectShare));
    return stats;
  }
  // Structure first (tags, roles), then class/id words judged against what is left (the
  // measures kept exact through the first sweep's removals), and the page's layout words
  // found in what is left.
  keepCounted(stats, () => {
    // A pass that reads class words finds a consent manager in its second sweep.
    sweep(root, stats, 'tags', protectShare, level === 'tags');
    if (level === 'full' || level === 'thread') sweep(root, stats, level, protectShare, true, tally);
  });
  return stats;
}

/**
 * The markup Twitter/X, Instagram and TikTok publish for embedding a post in an article (a
 * `<blockquote>` their script turns into the post): the post's text, quoted by the article.
 */
const EMBEDDED_POST = /(?:^|\s)(?:twitter-tweet|twitter-video|instagram-media|tiktok-embed)(?=\s|$)/;
/** A wrapper of an embedded post adds at most this much text (a caption, a "follow" button). */
const EMBED_WRAPPER_TEXT = 200;
const NO_EMBEDS: ReadonlySet<Element> = new Set();

/**
 * The embedded posts (`EMBEDDED_POST`) under `root` and their wrappers: the ancestors that add
 * little text to the post. A wrapper's social or widget class words, and the post's own
 * links, do not make it furniture.
 */
export function embedHolders(root: ParentNode, stats: Map<Element, TextStats>): ReadonlySet<Element> {
  let out: Set<Element> | null = null;
  const walk = (node: ParentNode) => {
    for (const c of node.children) {
      if (!isElement(c)) continue;
      if (c.name !== 'blockquote' || !EMBEDDED_POST.test(c.attribs.class ?? '')) {
        walk(c);
        continue;
      }
      const most = (stats.get(c)?.text ?? 0) + EMBED_WRAPPER_TEXT;
      out ??= new Set();
      for (let n: AnyNode | null = c; isElement(n) && n !== root && (stats.get(n)?.text ?? Infinity) <= most; n = n.parent) out.add(n);
    }
  };
  walk(root);
  return out ?? NO_EMBEDS;
}

/** `tally.comments` adds up the prose of the comment-classed blocks the sweep removes (see index.ts `extractFromBody`). */
function sweep(root: ParentNode, stats: Map<Element, TextStats>, level: FurnitureLevel, protectShare: number, consent = true, tally?: { comments: number }): void {
  let total = 0;
  for (const c of root.children) {
    if (isElement(c)) {
      const s = stats.get(c);
      if (s) total += s.text - s.link;
    }
  }
  const words = level === 'full' || level === 'thread';
  const layout = words && isElement(root as AnyNode) ? layoutWords(root as Element, stats, 'boilerplate') : undefined;
  const embeds = words ? embedHolders(root, stats) : NO_EMBEDS;
  const walk = (node: ParentNode) => {
    for (let i = node.children.length - 1; i >= 0; i -= 1) {
      const child = node.children[i] as AnyNode;
      if (!isElement(child)) continue;
      const tag = tagOf(child);
      let kind = tag === 'html' || tag === 'body' || tag === 'main' || HEADING_TAGS.has(tag) ? '' : furnitureKind(child, level, layout, consent);
      if (kind && embeds.has(child) && !FURNITURE_TAGS.has(tag) && !isConsent(child)) kind = '';
      if (kind) {
        const s = stats.get(child);
        const prose = s ? s.text - s.link : 0;
        const spared =
          kind === 'strong'
            ? prose > 400 && prose > protectShare * total && !isConsent(child)
            : prose >= SOFT_PROSE && linkDensity(s) <= 0.3;
        if (!spared) {
          if (tally && COMMENT_CLASS.test(hintOf(child))) tally.comments += prose;
          detach(child);
          continue;
        }
      }
      walk(child);
    }
  };
  walk(root);
}
