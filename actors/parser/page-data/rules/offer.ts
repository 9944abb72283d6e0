/**
 * `offers`: the price a product page shows for its product, and whether it can be bought.
 *
 * price — from price-looking elements: class/id containing "price", or a `data-price`
 * attribute (its value, when it is a plain number, is the price; the currency then comes from
 * the element's text). Near the product title (near.ts: up to 1,500 characters before it,
 * 5,000 after; sidebars allowed — buy boxes live there — but not nav, footer, comments or
 * related/recommended products), nearest first. Never a "was" price: an element inside
 * `<s>`, `<del>` or `<strike>`, or whose class/id words (or its parent's) say old, was,
 * regular, strike, crossed, before, compare, list-price, rrp, uvp, original, previous, save,
 * saving, unit or base, is skipped, and such parts are left out of a price element's text.
 * The text is read by money.ts; the first element that gives a number wins.
 *
 * availability — schema.org ItemAvailability short names, from (in order) elements whose
 * class/id says stock or availability, short texts (at most 60 characters) near the title,
 * and buttons (`<button>`, submit inputs, cart/basket/buy-classed links): the first phrase
 * found in this order of kinds: SoldOut ("sold out", "ausverkauft", "épuisé", "agotado"…),
 * OutOfStock ("out of stock", "nicht auf Lager", "rupture de stock"…), PreOrder, BackOrder,
 * LimitedAvailability ("only 3 left", "nur noch 2"…), InStock ("in stock", "auf Lager",
 * "en stock"…). An enabled add-to-cart/buy button ("Add to cart", "In den Warenkorb",
 * "Ajouter au panier"…) means InStock when nothing else is said; a disabled one means
 * OutOfStock.
 */
import { type Locale, type Money, parseMoney } from './money.js';
import { ALL_NEAR, type Anchor, nearest, nearestInOrder } from './near.js';
import { ownTextStart, textOf } from './text.js';
import { type Element, type Node, type PageView, Ctx, hinted, isElement, tagged } from './view.js';

export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder' | 'LimitedAvailability' | 'SoldOut';

const BEFORE = 1500;
const AFTER = 5000;
/** The longest own text read as an availability label near the title. */
const SHORT = 60;
/** A price box may sit in a sidebar or the page header; these never hold the product's own price. */
const PRICE_ANCHOR: Anchor['allowed'] = Ctx.Aside | Ctx.Header;
const OLD_WORDS =
  /(?:^|[\s_-])(?:old|was|regular|strike|striked|strikethrough|crossed|before|compare|rrp|uvp|original|previous|save|saving|savings|unit|base|msrp|list|instead|statt|alt)(?=$|[\s_-])/i;
const STRUCK = new Set(['s', 'del', 'strike']);

const isOld = (el: Element): boolean =>
  STRUCK.has(el.name) || ((!!el.attribs.class || !!el.attribs.id) && OLD_WORDS.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`));

/** Is the element or one of its three nearest ancestors a struck-through or "was" price? */
function struck(el: Element): boolean {
  let p: Element | null = el;
  for (let depth = 0; p && depth < 4; depth += 1) {
    if (isOld(p)) return true;
    p = isElement(p.parent) ? p.parent : null;
  }
  return false;
}

function priceOf(node: Node, locale: Locale): Money | null {
  if (struck(node.el)) return null;
  const text = textOf(node.el, 300, isOld);
  const raw = node.el.attribs['data-price']?.trim() ?? '';
  if (/^\d{1,12}(?:\.\d{1,4})?$/.test(raw)) return { price: Number(raw), currency: parseMoney(text, locale)?.currency ?? null };
  return text ? parseMoney(text, locale) : null;
}

export function readPrice(view: PageView, anchor: Anchor, locale: Locale): Money | null {
  const candidates = [...hinted(view, 'price'), ...view.priced];
  const wide: Anchor = { ...anchor, allowed: anchor.allowed | PRICE_ANCHOR };
  let bare: Money | null = null;
  for (const node of nearest(new Set(candidates), wide, BEFORE, AFTER)) {
    const money = priceOf(node, locale);
    if (money?.currency) return money;
    bare ??= money;
  }
  return bare;
}

const PHRASES: ReadonlyArray<readonly [Availability, RegExp]> = [
  ['SoldOut', /sold out|ausverkauft|épuisé|epuise|agotado|esaurito|uitverkocht|esgotado/],
  ['OutOfStock', /out of stock|not in stock|currently unavailable|no longer available|nicht auf lager|nicht (?:mehr )?verfügbar|nicht lieferbar|derzeit nicht|rupture de stock|indisponible|sin stock|sin existencias|no disponible|fuori stock|non disponibile|niet op voorraad|niet leverbaar|sem estoque|indisponível/],
  ['PreOrder', /pre-?\s?order|vorbestell|précommande|precommande|précommander|preventa|pre-?venta|preordina|voorbestel|pré-venda|pre-venda/],
  ['BackOrder', /back-?\s?order|bajo pedido|en réapprovisionnement|su ordinazione|nachbestellt/],
  ['LimitedAvailability', /only \d{1,4} left|low stock|limited stock|few left|limited availability|nur noch \d{1,4}|wenige (?:auf lager|verfügbar)|plus que \d{1,4}|stock limité|quedan \d{1,4}|últimas unidades|ultimi \d{1,4}|nog maar \d{1,4}/],
  ['InStock', /in stock|auf lager|sofort lieferbar|lieferbar|vorrätig|en stock|disponible|en existencia|in magazzino|disponibile|op voorraad|em estoque|available now|ships today/],
];
const CART = /add to (?:cart|basket|bag|trolley)|buy now|buy it now|in den (?:warenkorb|einkaufswagen)|jetzt kaufen|ajouter au panier|acheter|añadir al carrito|agregar al carrito|comprar|aggiungi al carrello|acquista|in winkelwagen|toevoegen aan winkelwagen|adicionar ao carrinho/;

/** Any phrase of any kind: most texts hold none, and one search says so. */
const ANY_PHRASE = new RegExp(PHRASES.map(([, pattern]) => pattern.source).join('|'));

export function availabilityIn(text: string): Availability | null {
  const lower = text.toLowerCase().slice(0, 300);
  if (!ANY_PHRASE.test(lower)) return null;
  for (const [value, pattern] of PHRASES) if (pattern.test(lower)) return value;
  return null;
}

const disabled = (el: Element): boolean =>
  el.attribs.disabled !== undefined || el.attribs['aria-disabled'] === 'true' || /(?:^|[\s_-])disabled(?=$|[\s_-])/.test((el.attribs.class ?? '').toLowerCase());

function buttonText(node: Node): string {
  if (node.tag === 'input') {
    const type = (node.el.attribs.type ?? '').toLowerCase();
    return type === 'submit' || type === 'button' ? (node.el.attribs.value ?? '') : '';
  }
  return textOf(node.el, 100) || (node.el.attribs['aria-label'] ?? '') || (node.el.attribs.title ?? '');
}

export interface Buying {
  readonly availability: Availability | null;
  /** An add-to-cart or buy button was seen (enabled or not). */
  readonly cart: boolean;
}

export function readAvailability(view: PageView, anchor: Anchor): Buying {
  const wide: Anchor = { ...anchor, allowed: anchor.allowed | PRICE_ANCHOR };
  const labels = nearest(new Set([...hinted(view, 'stock'), ...hinted(view, 'availab')]), wide, BEFORE, AFTER);
  const buttons = [...tagged(view, 'button'), ...tagged(view, 'input'), ...hinted(view, 'cart'), ...hinted(view, 'basket'), ...hinted(view, 'buy')];
  const nearButtons = nearest(new Set(buttons), wide, BEFORE, AFTER);
  let cart = false;
  let cartDisabled = false;
  for (const node of nearButtons) {
    const text = buttonText(node).toLowerCase();
    if (!CART.test(text)) continue;
    cart = true;
    cartDisabled = disabled(node.el);
    break;
  }
  for (const node of labels) {
    const value = availabilityIn(textOf(node.el, 200));
    if (value) return { availability: value, cart };
  }
  for (const node of nearestInOrder(view.all, wide, BEFORE, AFTER, ALL_NEAR)) {
    const own = ownTextStart(node, SHORT + 1);
    if (!own || own.length > SHORT) continue;
    const value = availabilityIn(own);
    if (value && value !== 'InStock') return { availability: value, cart };
    if (value === 'InStock' && /stock|lager|voorraad|estoque|magazzino|vorrätig|lieferbar/i.test(own)) return { availability: value, cart };
  }
  for (const node of nearButtons) {
    const value = availabilityIn(buttonText(node));
    if (value) return { availability: value, cart };
  }
  if (cart) return { availability: cartDisabled ? 'OutOfStock' : 'InStock', cart };
  return { availability: null, cart };
}
