/**
 * `datePublished` and `dateModified`, near the headline (near.ts: up to 600 characters
 * before it, 2,500 after; never in footer, nav, sidebar, comments or related boxes, so a
 * copyright line or a teaser's date is never taken). In order, the first that gives a date:
 *
 * 1. `<time>` elements, nearest first: the `datetime` attribute, else the element's text.
 *    A time is `dateModified` when the words a reader sees with it (the 40 characters
 *    before it in its parent, and its own text) say updated/modified (aktualisiert, mis à
 *    jour, actualizado, aggiornato, bijgewerkt, atualizado…) nearer to it than
 *    published/created/posted wording; with no such words, when its or its parent's
 *    class/id does (`updated` vs `entry-date published`). The nearest other one is
 *    `datePublished`.
 * 2. Elements whose class/id says date, time, publish, posted, byline, meta or info, with at
 *    most 200 characters of text, nearest first: the dates in their text (date-text.ts),
 *    each a `dateModified` when the nearest wording in the 40 characters before it says
 *    updated/modified, else a `datePublished` ("Last updated 04 Jun 2020, originally
 *    created 17 Jun 2019" gives both).
 * 3. Datelines near the headline, nearest first, the same way: an element's own text of at
 *    most 100 characters that is mostly a date (at most 50 other characters) — never a date
 *    mentioned in a sentence, in a table (an infobox) or in a list item (a list of events or
 *    of other articles).
 * 4. A date in the page URL's path (`/2024/03/12/`, `/2024-03-12-…`): visible in the address
 *    bar, and what many news sites publish under. Only for `datePublished`.
 * Text holding ©, "copyright" or "all rights reserved" is never read for a date.
 */
import { type FoundDate, findDate, findDates, parseDateAttribute } from './date-text.js';
import { ALL_NEAR, type Anchor, nearest, nearestInOrder } from './near.js';
import { ownTextOf, textOf } from './text.js';
import { type Node, type PageView, Ctx, hinted } from './view.js';

export interface Dates {
  readonly published: string | null;
  readonly modified: string | null;
}

const BEFORE = 600;
const AFTER = 2500;
const MODIFIED = /updated|update|modified|last edited|aktualisiert|geändert|mis à jour|mise à jour|actualizado|actualización|aggiornato|aggiornamento|bijgewerkt|gewijzigd|atualizado|atualização/i;
const CREATED = /originally|created|erstellt|publié|published|publish|posted|veröffentlicht|publicado|pubblicato|pubdate|gepubliceerd/i;
const COPYRIGHT = /©|copyright|all rights reserved|alle rechte|tous droits/i;
const DATE_HINTS = ['date', 'time', 'publish', 'posted', 'updated', 'modified', 'byline', 'meta', 'info'] as const;

interface Found {
  published: string | null;
  modified: string | null;
}

const MODIFIED_ALL = new RegExp(MODIFIED.source, 'gi');
const CREATED_ALL = new RegExp(CREATED.source, 'gi');

/** Where the last match of the global `pattern` in `text` starts (-1 when none). */
function lastMatch(pattern: RegExp, text: string): number {
  let at = -1;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) at = m.index;
  return at;
}

/** Does a label say modified, its nearest wording counting ("Updated … · Published <date>" is a publication)? */
function saysModified(label: string): boolean {
  return lastMatch(MODIFIED_ALL, label) > lastMatch(CREATED_ALL, label);
}

/**
 * Is a `<time>` a modification date? By the words a reader sees with it (the 40 characters
 * before it in its parent, then its own text), else by its and its parent's class/id
 * (`updated` vs `entry-date published`).
 */
function timeModified(node: Node): boolean {
  const own = textOf(node.el, 200);
  const parent = node.parent;
  let before = '';
  if (parent) {
    const text = textOf(parent.el, 400);
    const at = own ? text.indexOf(own) : -1;
    before = at > 0 ? text.slice(Math.max(0, at - 40), at) : '';
  }
  const words = `${before} ${own}`;
  if (MODIFIED.test(words) || CREATED.test(words)) return saysModified(words);
  return saysModified(`${parent?.hint ?? ''} ${node.hint}`);
}

function note(found: Found, iso: string, modified: boolean): void {
  if (modified) found.modified ??= iso;
  else found.published ??= iso;
}

function fromTimes(view: PageView, anchor: Anchor, found: Found): void {
  for (const node of nearestInOrder(view.byTag.get('time') ?? [], anchor, BEFORE, AFTER)) {
    const text = textOf(node.el, 200);
    if (COPYRIGHT.test(text)) continue;
    const attr = node.el.attribs.datetime;
    const iso = (attr && parseDateAttribute(attr, view.lang)) || findDate(text, view.lang)?.iso;
    if (iso) note(found, iso, timeModified(node));
    if (found.published && found.modified) return;
  }
}

/** The dates in `text`, each with whether the words just before it say it is a modification date. */
function datesIn(text: string, lang: string): Array<{ date: FoundDate; modified: boolean }> {
  if (!text || COPYRIGHT.test(text)) return [];
  let previousEnd = 0;
  return findDates(text, lang).map((date) => {
    const label = text.slice(Math.max(previousEnd, date.index - 40), date.index);
    previousEnd = date.end;
    return { date, modified: saysModified(label) };
  });
}

function fromTexts(nodes: readonly Node[], read: (node: Node) => string, lang: string, found: Found): void {
  for (const node of nodes) {
    for (const hit of datesIn(read(node), lang)) note(found, hit.date.iso, hit.modified);
    if (found.published) return;
  }
}

/** A dateline: a short text that is mostly its date ("12. März 2024, 10:30 Uhr", "Posted on March 12, 2024"). */
function datelineText(node: Node): string {
  if (node.ctx & (Ctx.Table | Ctx.ListItem)) return '';
  const own = ownTextOf(node);
  if (own.length > 100) return '';
  const date = findDate(own);
  return date && own.length - (date.end - date.index) <= 50 ? own : '';
}

function hintedNodes(view: PageView): Node[] {
  const set = new Set<Node>();
  for (const w of DATE_HINTS) for (const n of hinted(view, w)) set.add(n);
  return [...set];
}

/** `/2024/03/12/` or `/2024-03-12` in the URL path. */
export function dateInUrl(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const m = /\/((?:19|20)\d{2})[/-](\d{1,2})[/-](\d{1,2})(?=[/_.-]|$)/.exec(path);
  if (!m) return null;
  const found = findDate(`${m[1]}-${(m[2] ?? '').padStart(2, '0')}-${(m[3] ?? '').padStart(2, '0')}`);
  return found?.iso ?? null;
}

export function readDates(view: PageView, anchor: Anchor, url: string): Dates {
  const found: Found = { published: null, modified: null };
  fromTimes(view, anchor, found);
  if (!found.published) {
    const hintedNear = nearest(hintedNodes(view), anchor, BEFORE, AFTER);
    fromTexts(hintedNear, (n) => { const t = textOf(n.el, 300); return t.length <= 200 ? t : ''; }, view.lang, found);
  }
  if (!found.published) {
    const short = nearestInOrder(view.all, anchor, BEFORE, AFTER, ALL_NEAR);
    fromTexts(short, datelineText, view.lang, found);
  }
  found.published ??= dateInUrl(url);
  return found;
}
