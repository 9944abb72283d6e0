/**
 * `aggregateRating` from rating text a reader sees near the title (near.ts: up to 1,500
 * characters before it, 5,000 after; never inside a list of individual reviews or
 * comments). Candidates: elements whose class/id says rating, stars or review, nearest
 * first, read as their text plus their `aria-label` and `title` (star widgets announce the
 * value there), at most 300 characters. The first candidate giving a value wins; the review
 * count may come from the next candidates within 400 characters of it.
 *
 *   "4.5 out of 5", "4,5 von 5", "4,5 sur 5", "4.5 de 5", "4,5/5", "8 / 10" → value, best
 *   "Rated 4.2", "Bewertung: 4,2", "Note : 4,2"                         → value
 *   "5 from 13 votes", "4,2 aus 57 Bewertungen"                           → value, reviewCount
 *   "★★★★☆" (full and empty star characters, ½ counted)                → value, best
 *   "(123 reviews)", "1,024 ratings", "57 Bewertungen", "12 avis"       → reviewCount
 * A value above its best, a best above 100, a value with neither a count nor a best, and
 * an invitation to rate ("Rate this recipe 1 out of 5") are not taken.
 */
import { type Anchor, nearest, offset } from './near.js';
import { textOf } from './text.js';
import { type Node, type PageView, Ctx, hinted } from './view.js';

export interface Rating {
  readonly ratingValue: number;
  readonly bestRating: number | null;
  readonly reviewCount: number | null;
}

const BEFORE = 1500;
const AFTER = 5000;
const NUM = '(\\d{1,3}(?:[.,]\\d{1,2})?)';
const OUT_OF = new RegExp(`${NUM}\\s{0,2}(?:out of|of|von|sur|de|su|uit|/)\\s{0,2}(\\d{1,3})(?![\\d.,]\\d)`, 'i');
const RATED = new RegExp(`(?:rated|rating|bewertet|bewertung|note|valoración|puntuación|voto|score)\\s{0,2}:?\\s{0,2}${NUM}(?![\\d.,]\\d)`, 'i');
const FROM_COUNT = new RegExp(`${NUM}\\s{0,2}(?:from|aus|de|sur|su|uit)\\s{0,2}(\\d{1,3}(?:[.,]\\d{3}){0,3}|\\d{1,9})\\s{0,2}(?:votes?|ratings?|reviews?|bewertungen|stimmen|avis|votos|valoraciones|voti|stemmen)`, 'i');
/** An invitation to rate ("Rate this recipe", "Jetzt bewerten"): a widget, not a rating. */
const INVITATION = /rate this|rate it|your rating|bewerten sie|jetzt bewerten|artikel bewerten|noter ce|notez|valora esta|vota questo/i;
const COUNT = /(\d{1,3}(?:[.,\u00a0 ]\d{3}){0,3}|\d{1,9})\)?\s{0,2}(?:customer\s)?(?:reviews?|ratings?|bewertungen|rezensionen|kundenbewertungen|avis|évaluations|reseñas|opiniones|valoraciones|recensioni|beoordelingen|avaliações|votes?|stimmen)/i;
const PAREN_COUNT = /\((\d{1,3}(?:[.,]\d{3}){0,3}|\d{1,9})\)/;

const num = (text: string | undefined): number => Number((text ?? '').replace(',', '.'));
const count = (text: string | undefined): number => Number((text ?? '').replace(/[.,\u00a0 ]/g, ''));

function stars(text: string): { value: number; best: number } | null {
  let full = 0;
  let empty = 0;
  let half = 0;
  for (const c of text) {
    if (c === '★') full += 1;
    else if (c === '☆') empty += 1;
    else if (c === '½') half += 1;
  }
  const best = full + empty + half;
  return full && best >= 3 && best <= 10 ? { value: full + half / 2, best } : null;
}

/** Value and best of a rating text (see the file comment). */
export function ratingIn(text: string): { value: number; best: number | null } | null {
  if (INVITATION.test(text)) return null;
  const from = FROM_COUNT.exec(text);
  if (from) return { value: num(from[1]), best: null };
  const out = OUT_OF.exec(text);
  if (out) {
    const value = num(out[1]);
    const best = Number(out[2]);
    if (best > 0 && best <= 100 && value <= best) return { value, best };
  }
  const rated = RATED.exec(text);
  if (rated) return { value: num(rated[1]), best: null };
  const s = stars(text);
  return s ? { value: s.value, best: s.best } : null;
}

export function reviewCountIn(text: string): number | null {
  const from = FROM_COUNT.exec(text);
  const raw = from ? from[2] : (COUNT.exec(text) ?? PAREN_COUNT.exec(text))?.[1];
  if (!raw) return null;
  const n = count(raw);
  return Number.isFinite(n) ? n : null;
}

function readable(node: Node): string {
  const a = node.el.attribs;
  return `${a['aria-label'] ?? ''} ${a.title ?? ''} ${textOf(node.el, 300)}`.trim();
}

export function readRating(view: PageView, anchor: Anchor): Rating | null {
  const candidates = new Set([...hinted(view, 'rating'), ...hinted(view, 'stars'), ...hinted(view, 'review')]);
  const near = nearest(candidates, anchor, BEFORE, AFTER).filter((n) => !(n.ctx & Ctx.Comments));
  for (const [i, node] of near.entries()) {
    const text = readable(node);
    const rating = ratingIn(text);
    if (!rating) continue;
    let reviewCount = reviewCountIn(text.replace(OUT_OF, ' '));
    for (const other of near.slice(i + 1)) {
      if (reviewCount !== null) break;
      if (Math.abs(offset(other, anchor) - offset(node, anchor)) > 400) continue;
      reviewCount = reviewCountIn(readable(other));
    }
    if (rating.best === null && reviewCount === null) continue;
    return { ratingValue: rating.value, bestRating: rating.best, reviewCount };
  }
  return null;
}
