/**
 * `sku` and `brand` where the page labels them visibly: "SKU: AB-123", "Art.-Nr. 4711",
 * "Brand: Acme", "Marke: Acme", "Marque : Acme", in one text or split over a label and its
 * value (`<dt>Brand</dt><dd>Acme</dd>`, `<th>SKU</th><td>…</td>`, `<span>SKU:</span> <span>…</span>`).
 *
 * An element whose own text (at most 150 characters) starts with a label word followed by
 * `:` (for SKU labels also `#` or a space; "Brand new" is no label) gives the rest of its text; when nothing follows the label, the
 * value is the text of the next element sibling (at most 100 characters). Outside nav,
 * footer, comments and related boxes. sku: one token of letters, digits and `-_./`, 1–40
 * characters, holding a digit or capital; brand: the value up to a `|` or `,`, 1–6 words, at
 * most 60 characters.
 */
import { headsOf, ownTextHead, ownTextOf, textOf } from './text.js';
import { type Element, type Node, type PageView, Ctx, isElement } from './view.js';

export interface Labelled {
  readonly sku: string | null;
  readonly brand: string | null;
}

const SKU_LABELS = [
  'sku', 'art.-nr.', 'art.-nr', 'art.nr.', 'art. nr.', 'artikelnummer', 'artikel-nr.', 'artikel-nr', 'item #', 'item no.',
  'item number', 'item code', 'product code', 'product number', 'produktnummer', 'référence', 'réf.', 'código', 'codice articolo',
  'artikelnr.', 'mpn', 'model number', 'modellnummer',
];
const BRAND_LABELS = ['brand', 'marke', 'hersteller', 'marque', 'marca', 'merk', 'manufacturer', 'fabricant', 'fabricante'];
/** First letters of all labels: a text starting otherwise holds none (one look instead of 32). */
const LABEL_FIRST = new Set([...SKU_LABELS, ...BRAND_LABELS].map((label) => label.charAt(0)));
/** First two letters of all labels (all have two or more): an own text starting otherwise is not read whole. */
const LABEL_HEADS = headsOf([...SKU_LABELS, ...BRAND_LABELS]);
const BLOCKED = Ctx.Nav | Ctx.Footer | Ctx.Comments | Ctx.Related | Ctx.NoScript;
const SKU_TOKEN = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,39}(?![A-Za-z0-9._/-])/;

/**
 * The text after a label at the start of `text`, or null when `text` does not start with
 * one. A brand label needs a colon or nothing after it ("Brand new …" is not a label); a
 * SKU label may be followed by a space or `#` too.
 */
function afterLabel(text: string, labels: readonly string[], loose: boolean): string | null {
  if (!LABEL_FIRST.has(text.charAt(0).toLowerCase().charAt(0))) return null;
  const lower = text.toLowerCase();
  for (const label of labels) {
    if (!lower.startsWith(label)) continue;
    const rest = text.slice(label.length);
    const colon = /^\s?:/.test(rest);
    const spaced = /^[\s#]/.test(rest) || label.endsWith('.');
    if (rest && !colon && !(loose && spaced)) continue;
    return rest.replace(/^[\s:#.]{0,4}/, '');
  }
  return null;
}

function nextSiblingText(el: Element): string {
  for (let s = el.next; s; s = s.next) if (isElement(s)) return textOf(s, 150);
  return '';
}

const skuValue = (value: string): string | null => {
  const token = SKU_TOKEN.exec(value)?.[0] ?? '';
  return token && /[\dA-Z]/.test(token) ? token : null;
};

const brandValue = (value: string): string | null => {
  const brand = (value.split(/[|,]/)[0] ?? '').trim();
  return brand && brand.length <= 60 && brand.split(' ').length <= 6 ? brand : null;
};

function valueOf(node: Node, labels: readonly string[], loose: boolean): string | null {
  const own = ownTextOf(node);
  if (!own || own.length > 150 || afterLabel(own, labels, loose) === null) return null;
  const rest = afterLabel(textOf(node.el, 200), labels, loose);
  return rest || nextSiblingText(node.el) || null;
}

export function readLabelled(view: PageView): Labelled {
  let sku: string | null = null;
  let brand: string | null = null;
  for (const node of view.all) {
    if (node.ctx & BLOCKED || !node.hasText || !LABEL_HEADS.has(ownTextHead(node))) continue;
    if (!sku) {
      const v = valueOf(node, SKU_LABELS, true);
      sku = v ? skuValue(v) : null;
    }
    if (!brand) {
      const v = valueOf(node, BRAND_LABELS, false);
      brand = v ? brandValue(v) : null;
    }
    if (sku && brand) break;
  }
  return { sku, brand };
}
