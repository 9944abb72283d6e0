/**
 * WooCommerce's Store API (no key needed): `<api root>wc/store/v1/products?per_page=100&page=N`,
 * paged until a page has fewer than 100 products, the API answers an error past the last page,
 * or the caller's limit is reached.
 *
 * - Detected, not assumed: the site's REST API root is the home page's
 *   `<link rel="https://api.w.org/">` (else `/wp-json/` when the page shows WordPress's
 *   `wp-content`), and it must list the `wc/store/v1` (or `wc/store`) namespace. A root written
 *   `?rest_route=/` (no pretty permalinks) is followed as written.
 * - Prices are strings in minor units with the unit given (`"1999"`, `currency_minor_unit: 2`):
 *   made numbers in the major unit (19.99). The regular price is the compare-at price when the
 *   product is on sale.
 * - Stock: `is_in_stock`, and `low_stock_remaining` (a count the store shows only when low).
 * - Variable products list their variations' ids and attributes; their prices, SKUs and stock
 *   come from the variations themselves, listed in bulk (`type=variation`, 100 a page) until
 *   every variation of the listed products is found or the page budget is spent. A variation
 *   not found keeps its attributes, and the product its price range's lowest price.
 */
import { htmlText } from '../../clients/social/html-text.js';
import { list, record, text, type JsonObject } from '../../clients/json-shapes.js';
import { absolute, type HtmlPage } from './html.js';
import { currencyCode, fromMinorUnits, summarize, type Product, type ProductVariant } from './product.js';
import type { SiteReader } from './read.js';
import { siteUrl, type Site } from './site.js';

export const WOO_PAGE_SIZE = 100;

/** The REST API root the home page names, or `/wp-json/` for a WordPress page that names none; null for a page that is not WordPress. */
export function wpApiRoot(home: HtmlPage, raw: string, site: Site): string | null {
  const linked = absolute(home.$('link[rel="https://api.w.org/"][href]').first().attr('href'), home.url);
  if (linked) return linked;
  const head = raw.slice(0, 1_000_000);
  return head.includes('/wp-content/') || head.includes('/wp-includes/') || head.includes('woocommerce') ? siteUrl(site, '/wp-json/') : null;
}

/** `route` (`wc/store/v1/products`) under the API root, with `params`: `<root>route?…`, or `?rest_route=/route&…` for a query root. */
export function apiUrl(root: string, route: string, params: Record<string, string | number> = {}): string {
  const url = new URL(root);
  const query = Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  if (url.searchParams.has('rest_route')) {
    url.searchParams.set('rest_route', `/${route}`);
    return `${url.href}${query.length ? `&${query.join('&')}` : ''}`;
  }
  const base = url.href.endsWith('/') ? url.href : `${url.href}/`;
  return `${base}${route}${query.length ? `?${query.join('&')}` : ''}`;
}

/** Whether the API root's index lists the Store API's namespace. */
export async function hasStoreApi(root: string, reader: SiteReader): Promise<boolean> {
  const index = await reader.json(root);
  const namespaces = list(record(index?.value)?.namespaces);
  return namespaces.some((n) => n === 'wc/store/v1' || n === 'wc/store');
}

function wooVariant(raw: unknown): ProductVariant | null {
  const v = record(raw);
  if (!v) return null;
  const options: Record<string, string> = {};
  for (const a of list(v.attributes)) {
    const name = text(record(a)?.name);
    const value = text(record(a)?.value);
    if (name && value) options[name] = value;
  }
  return { id: v.id === undefined ? null : String(v.id), title: Object.values(options).join(' / ') || null, sku: null, price: null, compareAtPrice: null, available: null, stock: null, options };
}

const plain = (value: unknown): string | null => {
  const t = text(value);
  return t ? text(htmlText(t)) : null;
};

/** One Store API product in the common shape. */
export function wooProduct(raw: unknown): Product | null {
  const p = record(raw);
  const title = plain(p?.name);
  if (!p || !title) return null;
  const prices: JsonObject = record(p.prices) ?? {};
  const minor = typeof prices.currency_minor_unit === 'number' ? prices.currency_minor_unit : 2;
  const range = record(prices.price_range);
  const price = fromMinorUnits(range?.min_amount ?? prices.price, minor);
  const regular = fromMinorUnits(prices.regular_price, minor);
  const onSale = p.on_sale === true && regular !== null && price !== null && regular > price;
  const available = typeof p.is_in_stock === 'boolean' ? p.is_in_stock : null;
  const stock = typeof p.low_stock_remaining === 'number' && Number.isFinite(p.low_stock_remaining) ? p.low_stock_remaining : null;
  const variants = list(p.variations)
    .map(wooVariant)
    .filter((v): v is ProductVariant => v !== null);
  return {
    id: p.id === undefined ? null : String(p.id),
    title,
    link: text(p.permalink),
    image: text(record(list(p.images)[0])?.src),
    sku: text(p.sku),
    price,
    compareAtPrice: onSale ? regular : null,
    currency: currencyCode(prices.currency_code),
    available,
    stock,
    vendor: null,
    variants: variants.length ? variants : [{ id: null, title: null, sku: text(p.sku), price, compareAtPrice: onSale ? regular : null, available, stock, options: {} }],
  };
}

export interface WooListing {
  readonly products: Product[];
  readonly truncated: boolean;
}

/** Pages the Store API (see the file comment); stops at `limit` products. */
export async function wooProducts(root: string, reader: SiteReader, limit: number): Promise<WooListing> {
  const products: Product[] = [];
  let lastFull = false;
  for (let page = 1; ; page += 1) {
    const got = await reader.json(apiUrl(root, 'wc/store/v1/products', { per_page: WOO_PAGE_SIZE, page }));
    const items = got?.value;
    if (!Array.isArray(items)) break;
    for (const item of items) {
      const product = wooProduct(item);
      if (product) products.push(product);
      if (products.length > limit) break;
    }
    lastFull = items.length >= WOO_PAGE_SIZE;
    if (products.length >= limit || !lastFull || reader.signal?.aborted) break;
  }
  const truncated = products.length > limit || (lastFull && (products.length === limit || reader.budgetSpent));
  const listed = products.slice(0, limit);
  return { products: await withVariations(listed, root, reader), truncated };
}

/** The listed products with their variations' prices, SKUs and stock filled in (see the file comment). */
async function withVariations(products: Product[], root: string, reader: SiteReader): Promise<Product[]> {
  // Only a variable product's variants have ids (a simple product's one variant is itself).
  const wanted = new Set(products.flatMap((p) => p.variants.map((v) => v.id)).filter((id): id is string => id !== null));
  if (!wanted.size) return products;
  const found = new Map<string, ProductVariant>();
  for (let page = 1; found.size < wanted.size && reader.remaining > 0 && !reader.signal?.aborted; page += 1) {
    const got = await reader.json(apiUrl(root, 'wc/store/v1/products', { type: 'variation', per_page: WOO_PAGE_SIZE, page }));
    const items = got?.value;
    if (!Array.isArray(items) || !items.length) break;
    for (const item of items) {
      const v = record(item);
      const id = v?.id === undefined ? null : String(v.id);
      const product = id && wanted.has(id) ? wooProduct(item) : null;
      if (id && product) found.set(id, { id, title: null, sku: product.sku, price: product.price, compareAtPrice: product.compareAtPrice, available: product.available, stock: product.stock, options: {} });
    }
    if (items.length < WOO_PAGE_SIZE) break;
  }
  return products.map((p) => {
    if (!p.variants.some((v) => v.id !== null && found.has(v.id))) return p;
    const variants = p.variants.map((v) => {
      const filled = v.id !== null ? found.get(v.id) : undefined;
      return filled ? { ...v, sku: filled.sku, price: filled.price, compareAtPrice: filled.compareAtPrice, available: filled.available, stock: filled.stock } : v;
    });
    const { sku, ...figures } = summarize(variants);
    return { ...p, ...figures, sku: p.sku ?? sku, variants };
  });
}
