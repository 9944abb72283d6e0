/**
 * Products of a store that runs no API the service reads: the pages its sitemaps (product
 * sitemaps first) and home page name as product pages, read for their Product markup
 * (JSON-LD, microdata, RDFa through pipeline/structured/markup).
 *
 * - A product page: listed by a sitemap whose name says `product`, or whose path has a product
 *   segment (`/product/`, `/products/`, `/produkt/`, `/produit/`, `/producto/`, `/prodotto/`,
 *   `/p/`, `/item/`, `/shop/<name>`). Newest first when the sitemap dates them.
 * - A page's product: its top-level `Product` (or `ProductGroup`) thing; its offers give price,
 *   currency, availability and stock (`inventoryLevel`); an `AggregateOffer`'s `lowPrice`
 *   stands for the price; a ProductGroup's `hasVariant` products, or several offers, are the
 *   variants.
 * - At most ITEM_PAGES_MAX pages (and the caller's limit, and the page budget), READ_CONCURRENCY
 *   at a time.
 */
import { mapBounded } from '../../runtime/bounded.js';
import { findThings, isType } from '../../structured/markup/index.js';
import type { Thing } from '../../structured/types.js';
import { loadPage, type HtmlPage } from './html.js';
import { ITEM_PAGES_MAX, READ_CONCURRENCY } from './limits.js';
import { currencyCode, summarize, type Product, type ProductVariant } from './product.js';
import type { SiteReader } from './read.js';
import { onSite, type Site } from './site.js';
import { siteSitemaps, type SitemapEntry } from './sitemap.js';
import { numberOf, textOf, thingOf, thingsOf } from './things.js';

const PRODUCT_SEGMENTS = new Set(['product', 'products', 'produkt', 'produkte', 'produit', 'produits', 'producto', 'productos', 'prodotto', 'prodotti', 'p', 'item', 'items', 'dp']);
const IN_STOCK = new Set(['InStock', 'LimitedAvailability', 'OnlineOnly', 'InStoreOnly', 'PreOrder', 'PreSale', 'BackOrder', 'MadeToOrder']);
const OUT_OF_STOCK = new Set(['OutOfStock', 'SoldOut', 'Discontinued']);

/** Whether a URL's path names a product page (see the file comment). */
export function isProductPath(url: string): boolean {
  let segments: string[];
  try {
    segments = new URL(url).pathname.toLowerCase().split('/').filter(Boolean);
  } catch {
    return false;
  }
  return segments.slice(0, -1).some((s) => PRODUCT_SEGMENTS.has(s)) || (segments.length === 2 && segments[0] === 'shop');
}

function productSitemapRank(url: string): number {
  const path = url.toLowerCase();
  if (path.includes('product')) return 3;
  if (/post|blog|news|author|tag|image|video/.test(path)) return -1;
  return 1;
}

function availabilityOf(offer: Thing | null): boolean | null {
  const raw = textOf(offer, 'availability');
  if (!raw) return null;
  const name = raw.slice(raw.lastIndexOf('/') + 1);
  return IN_STOCK.has(name) ? true : OUT_OF_STOCK.has(name) ? false : null;
}

function priceOf(offer: Thing | null): number | null {
  return numberOf(offer, 'price') ?? numberOf(thingOf(offer, 'priceSpecification'), 'price') ?? numberOf(offer, 'lowPrice');
}

function currencyOf(offer: Thing | null): string | null {
  return currencyCode(textOf(offer, 'priceCurrency') ?? textOf(thingOf(offer, 'priceSpecification'), 'priceCurrency'));
}

function variantOf(offer: Thing, product: Thing | null): ProductVariant {
  const stock = numberOf(thingOf(offer, 'inventoryLevel'), 'value') ?? numberOf(offer, 'inventoryLevel');
  return {
    id: textOf(product, 'productID') ?? textOf(product, 'sku') ?? textOf(offer, 'sku'),
    title: textOf(product, 'name') ?? textOf(offer, 'name'),
    sku: textOf(offer, 'sku') ?? textOf(product, 'sku'),
    price: priceOf(offer),
    compareAtPrice: null,
    available: availabilityOf(offer),
    stock,
    options: {},
  };
}

/** The page's main product, in the common shape; null when the page marks up none. */
export function markupProduct(page: Pick<HtmlPage, 'things' | 'url' | 'canonical'>): Product | null {
  const top = page.things.find((t) => isType(t, 'Product')) ?? findThings({ things: page.things }, ['Product'])[0];
  const title = textOf(top, 'name');
  if (!top || !title) return null;
  const offers = thingsOf(top, 'offers');
  const nested = offers.flatMap((o) => (isType(o, 'AggregateOffer') ? thingsOf(o, 'offers') : []));
  const groupVariants = thingsOf(top, 'hasVariant').flatMap((v) => thingsOf(v, 'offers').slice(0, 1).map((o) => variantOf(o, v)));
  const plainOffers = [...offers.filter((o) => !isType(o, 'AggregateOffer')), ...nested];
  const variants = groupVariants.length ? groupVariants : plainOffers.map((o) => variantOf(o, plainOffers.length > 1 ? null : top));
  const aggregate = offers.find((o) => isType(o, 'AggregateOffer')) ?? null;
  const figures = summarize(variants);
  const firstOffer = plainOffers[0] ?? aggregate ?? thingsOf(thingsOf(top, 'hasVariant')[0] ?? null, 'offers')[0] ?? null;
  return {
    id: textOf(top, 'productID') ?? textOf(top, 'sku'),
    title,
    link: textOf(top, 'url') ?? page.canonical ?? page.url,
    image: textOf(top, 'image'),
    sku: textOf(top, 'sku') ?? figures.sku ?? textOf(top, 'mpn'),
    price: figures.price ?? priceOf(aggregate),
    compareAtPrice: figures.compareAtPrice,
    currency: currencyOf(firstOffer) ?? currencyOf(aggregate),
    available: figures.available ?? availabilityOf(aggregate),
    stock: figures.stock,
    vendor: textOf(top, 'brand') ?? textOf(top, 'manufacturer'),
    variants,
  };
}

/** Newest first by lastmod (undated last, in the sitemap's order). */
function newestFirst(entries: readonly SitemapEntry[]): SitemapEntry[] {
  const time = (e: SitemapEntry) => (e.lastmod ? Date.parse(e.lastmod) : NaN);
  return entries
    .map((e, i) => ({ e, i, t: time(e) }))
    .sort((a, b) => (Number.isFinite(b.t) ? b.t : -Infinity) - (Number.isFinite(a.t) ? a.t : -Infinity) || a.i - b.i)
    .map(({ e }) => e);
}

export interface MarkupListing {
  readonly products: Product[];
  /** Product pages found beyond those read (the caller's limit, or the limits of the file comment). */
  readonly more: boolean;
  /** Product pages within the caller's limit that were not read (ITEM_PAGES_MAX, the page budget). */
  readonly unread: number;
  /** Product pages that could not be read. */
  readonly failed: number;
}

/** The product pages' URLs: product sitemaps' entries, product paths of the other sitemaps and of the home page's links. */
export async function productPages(site: Site, home: HtmlPage, reader: SiteReader): Promise<string[]> {
  const fromSitemaps = newestFirst(await siteSitemaps(site, reader, productSitemapRank));
  const urls = [...fromSitemaps.map((e) => e.url).filter(isProductPath), ...home.links.map((l) => l.href).filter((u) => onSite(site, u) && isProductPath(u))];
  return [...new Set(urls.map((u) => u.split('#')[0] as string))];
}

/** Reads product pages' markup (see the file comment). */
export async function markupProducts(site: Site, home: HtmlPage, reader: SiteReader, limit: number): Promise<MarkupListing> {
  const pages = await productPages(site, home, reader);
  const chosen = pages.slice(0, Math.min(limit, ITEM_PAGES_MAX, reader.remaining));
  let failed = 0;
  const read = await mapBounded(
    chosen,
    READ_CONCURRENCY,
    async (url) => {
      const page = await reader.html(url);
      if (!page) {
        failed += 1;
        return null;
      }
      return markupProduct(loadPage(page.url, page.body));
    },
    reader.signal,
  );
  const products = read.filter((p): p is Product => !!p);
  // The home page may mark up products itself (a one-page shop, an item list).
  if (!products.length) {
    const own = findThings({ things: home.things }, ['Product'])
      .map((t) => markupProduct({ things: [t], url: home.url, canonical: null }))
      .filter((p): p is Product => p !== null);
    products.push(...own.slice(0, limit));
  }
  return { products, more: pages.length > chosen.length, unread: Math.max(0, Math.min(pages.length, limit) - chosen.length), failed };
}
