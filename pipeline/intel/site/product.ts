/**
 * The product shape every products source answers in (Shopify, WooCommerce, Product markup),
 * and the rules they share: prices are numbers in the currency's major unit (19.99, never
 * "1999" or "19.99"), a product's price is its lowest variant's, and it is available when any
 * variant is.
 */

export interface ProductVariant {
  readonly id: string | null;
  readonly title: string | null;
  readonly sku: string | null;
  readonly price: number | null;
  /** The price before a reduction, when the store shows one. */
  readonly compareAtPrice: number | null;
  readonly available: boolean | null;
  /** Units in stock, when the store says (Shopify's storefront does not). */
  readonly stock: number | null;
  /** Option name → value (`Size` → `M`). */
  readonly options: Readonly<Record<string, string>>;
}

export interface Product {
  readonly id: string | null;
  readonly title: string;
  readonly link: string | null;
  readonly image: string | null;
  readonly sku: string | null;
  readonly price: number | null;
  readonly compareAtPrice: number | null;
  /** ISO 4217 code (`EUR`), when the store says. */
  readonly currency: string | null;
  readonly available: boolean | null;
  readonly stock: number | null;
  readonly vendor: string | null;
  readonly variants: readonly ProductVariant[];
}

/** A price as a number: a number as it is, a decimal string read; null for anything else or a negative. */
export function priceNumber(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** An amount in minor units (`"1999"` with 2) in the major unit (19.99), rounded to the unit's digits. */
export function fromMinorUnits(value: unknown, minorUnit: number): number | null {
  const raw = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^-?\d{1,15}$/.test(raw) || !Number.isInteger(minorUnit) || minorUnit < 0 || minorUnit > 6) return null;
  const n = Number(raw) / 10 ** minorUnit;
  return n >= 0 ? Number(n.toFixed(minorUnit)) : null;
}

/** A 3-letter currency code, upper case; null otherwise. */
export function currencyCode(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value.trim()) ? value.trim().toUpperCase() : null;
}

/** The product's own figures from its variants: the lowest price (and its compare-at), available if any is, stock summed when every variant says. */
export function summarize(variants: readonly ProductVariant[]): Pick<Product, 'price' | 'compareAtPrice' | 'available' | 'stock' | 'sku'> {
  // One pass (a listing summarizes thousands of products): the first of the lowest-priced
  // variants, whether any availability is known and any variant available, the stock sum
  // while every variant states one, the first SKU.
  let lowest: ProductVariant | null = null;
  let known = false;
  let available = false;
  let stock: number | null = variants.length ? 0 : null;
  let sku: string | null = null;
  for (const v of variants) {
    if (v.price !== null && (lowest === null || v.price < (lowest.price as number))) lowest = v;
    if (v.available !== null) {
      known = true;
      if (v.available) available = true;
    }
    stock = stock === null || v.stock === null ? null : stock + v.stock;
    if (sku === null && v.sku) sku = v.sku;
  }
  return {
    price: lowest?.price ?? null,
    compareAtPrice: lowest?.compareAtPrice ?? null,
    available: known ? available : null,
    stock,
    sku,
  };
}
