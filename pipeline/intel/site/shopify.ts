/**
 * Shopify's public storefront: `/products.json?limit=250&page=N`, paged until a page comes back
 * with fewer than 250 products (or none) or the caller's limit is reached, two pages in flight
 * after the first. Its prices are
 * decimal strings (`"19.99"`), read as numbers; it states no currency, which comes from the
 * home page's `Shopify.currency = {"active":"EUR",…}` (else its `og:price:currency`, else
 * `/cart.js`'s `currency`). It exposes no stock counts, only each variant's `available` flag
 * (an `inventory_quantity` some older themes still expose is read when present).
 *
 * Detection (`isShopify`): the home page's own marks — `Shopify.theme`, `Shopify.shop`,
 * `cdn.shopify.com`, `shopify-section` — or, without them, a `/products.json` that parses as
 * Shopify's (`products` an array). A store closed behind its password page answers `/password`.
 */
import { list, record, text } from '../../clients/json-shapes.js';
import { absolute, type HtmlPage } from './html.js';
import { currencyCode, priceNumber, summarize, type Product, type ProductVariant } from './product.js';
import type { SiteReader } from './read.js';
import { siteUrl, type Site } from './site.js';

export const SHOPIFY_PAGE_SIZE = 250;
const MARKS = ['shopify.theme', 'shopify.shop', 'cdn.shopify.com', 'shopify-section', 'myshopify.com'];

/** Whether the home page (its HTML as served) says it is a Shopify store. */
export function isShopify(raw: string): boolean {
  const head = raw.slice(0, 1_000_000).toLowerCase();
  return MARKS.some((m) => head.includes(m));
}

/** Whether a URL is a Shopify password page (the store is closed). */
export function isPasswordPage(url: string): boolean {
  try {
    return new URL(url).pathname.replace(/\/$/, '') === '/password';
  } catch {
    return false;
  }
}

/** The store's currency from its home page (`Shopify.currency`'s `active`, else `og:price:currency`). */
export function shopifyCurrency(home: HtmlPage, raw: string): string | null {
  const at = raw.indexOf('Shopify.currency');
  if (at >= 0) {
    const window = raw.slice(at, at + 200);
    const key = window.indexOf('"active"');
    if (key >= 0) {
      const quote = window.indexOf('"', window.indexOf(':', key) + 1);
      const code = currencyCode(window.slice(quote + 1, quote + 4));
      if (code) return code;
    }
  }
  return currencyCode(home.meta('og:price:currency')) ?? currencyCode(home.meta('product:price:currency'));
}

const OPTION_KEYS = ['option1', 'option2', 'option3'];

function variantOf(raw: unknown, optionNames: readonly string[]): ProductVariant | null {
  const v = record(raw);
  if (!v) return null;
  const options: Record<string, string> = {};
  for (let i = 0; i < optionNames.length; i += 1) {
    const name = optionNames[i];
    const value = text(v[OPTION_KEYS[i] ?? `option${i + 1}`]);
    if (value && name) options[name] = value;
  }
  const stock = typeof v.inventory_quantity === 'number' && Number.isFinite(v.inventory_quantity) ? v.inventory_quantity : null;
  return {
    id: v.id === undefined || v.id === null ? null : String(v.id),
    title: text(v.title),
    sku: text(v.sku),
    price: priceNumber(v.price),
    compareAtPrice: priceNumber(v.compare_at_price),
    available: typeof v.available === 'boolean' ? v.available : null,
    stock,
    options,
  };
}

/**
 * A product's page: `<origin>/products/<handle>`. The encoded handle is a valid path segment as
 * it is (what `new URL` would write), so the link is joined rather than parsed — one `new URL`
 * a product was a tenth of a listing's CPU — except `.` and `..`, which a URL resolves.
 */
function productLink(site: Site, handle: string): string {
  const segment = encodeURIComponent(handle);
  return segment === '.' || segment === '..' ? siteUrl(site, `/products/${segment}`) : `${site.origin}/products/${segment}`;
}

/** The last path segment and query of an image URL, when URL parsing leaves them as written: no dot segment, nothing it escapes. */
const PLAIN_FILE = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\?[A-Za-z0-9._~=&-]*)?$/;

/**
 * An image's absolute URL, as `absolute` makes it. A listing's images sit in a few folders
 * (`//cdn.shopify.com/s/files/1/…/products/`): each folder is parsed once (`folders`, one
 * listing's), and a file name URL parsing would leave as written is joined to it — the same
 * text `new URL` makes, for one parse a folder instead of one an image (the parse was a fifth
 * of a listing's mapping). Anything else (no path after the host, a fragment, a file name with
 * other characters) is parsed whole.
 */
export function imageUrl(src: string | null, base: string, folders: Map<string, string | null>): string | null {
  if (!src) return null;
  const query = src.indexOf('?');
  const slash = src.lastIndexOf('/', query < 0 ? src.length - 1 : query - 1);
  const scheme = src.indexOf('://');
  const hostStart = src.startsWith('//') ? 2 : scheme >= 0 ? scheme + 3 : 0;
  const file = src.slice(slash + 1);
  if (slash < hostStart || src.includes('#') || !PLAIN_FILE.test(file)) return absolute(src, base);
  const folder = src.slice(0, slash + 1);
  let resolved = folders.get(folder);
  if (resolved === undefined) {
    resolved = absolute(folder, base);
    folders.set(folder, resolved);
  }
  return resolved === null ? null : resolved + file;
}

/** One product of `products.json` in the common shape (`folders`: the listing's parsed image folders, see imageUrl). */
export function shopifyProduct(raw: unknown, site: Site, currency: string | null, folders: Map<string, string | null> = new Map()): Product | null {
  const p = record(raw);
  const title = text(p?.title);
  if (!p || !title) return null;
  const optionNames = list(p.options).map((o) => text(record(o)?.name) ?? '');
  const variants: ProductVariant[] = [];
  for (const raw of list(p.variants)) {
    const variant = variantOf(raw, optionNames);
    if (variant) variants.push(variant);
  }
  const handle = text(p.handle);
  const image = text(record(list(p.images)[0])?.src);
  const figures = summarize(variants);
  return {
    id: p.id === undefined || p.id === null ? null : String(p.id),
    title,
    link: handle ? productLink(site, handle) : null,
    image: imageUrl(image, site.home, folders),
    currency,
    vendor: text(p.vendor),
    price: figures.price,
    compareAtPrice: figures.compareAtPrice,
    available: figures.available,
    stock: figures.stock,
    sku: figures.sku,
    variants,
  };
}

export interface ShopifyListing {
  readonly products: Product[];
  /** The store has more than `limit`. */
  readonly truncated: boolean;
  readonly passwordProtected: boolean;
  /** Whether products.json answered at all (false: not a Shopify store after all). */
  readonly answered: boolean;
}

interface ProductsPage {
  readonly finalUrl: string | null;
  readonly items: unknown[] | null;
}

/** One `products.json` page: where it ended up (a password page?) and its products, if it parsed. */
const productsUrl = (site: Site, n: number): string => siteUrl(site, `/products.json?limit=${SHOPIFY_PAGE_SIZE}&page=${n}`);

async function productsPage(site: Site, reader: SiteReader, n: number): Promise<ProductsPage> {
  const url = productsUrl(site, n);
  const res = await reader.page(url, 'json');
  const got = await reader.json(url);
  const items = got ? record(got.value)?.products : undefined;
  return { finalUrl: res?.url ?? null, items: Array.isArray(items) ? items : null };
}

/**
 * Pages `products.json` (see the file comment); stops at `limit` products. Once the first page
 * comes back full, the next page is always asked before the current one is read (two in
 * flight), so a large store's pages arrive back to back; a store that ends reads at most one
 * page more than it needed, which is not charged (SiteReader `discard`).
 */
export async function shopifyProducts(site: Site, reader: SiteReader, limit: number, currency: string | null): Promise<ShopifyListing> {
  const products: Product[] = [];
  let answered = false;
  let lastFull = false;
  let cur = currency;
  const folders = new Map<string, string | null>();
  let current = productsPage(site, reader, 1);
  let ahead: number | null = null;
  const done = (listing: ShopifyListing): ShopifyListing => {
    if (ahead !== null) reader.discard(productsUrl(site, ahead));
    return listing;
  };
  for (let page = 1; ; page += 1) {
    // Ask for the next page now when this one is not the first and more are wanted.
    const wanted = products.length + SHOPIFY_PAGE_SIZE < limit;
    const upcoming = page > 1 && wanted && reader.remaining > 0 ? productsPage(site, reader, page + 1) : null;
    upcoming?.catch(() => undefined);
    ahead = upcoming ? page + 1 : null;
    const { finalUrl, items } = await current;
    if (finalUrl && isPasswordPage(finalUrl)) return done({ products, truncated: false, passwordProtected: true, answered });
    if (!items) break;
    answered = true;
    if (page === 1 && cur === null && items.length) cur = await cartCurrency(site, reader);
    for (const item of items) {
      const product = shopifyProduct(item, site, cur, folders);
      if (product) products.push(product);
      if (products.length > limit) return done({ products: products.slice(0, limit), truncated: true, passwordProtected: false, answered });
    }
    lastFull = items.length >= SHOPIFY_PAGE_SIZE;
    if (!lastFull || products.length === limit || reader.signal?.aborted) break;
    current = upcoming ?? productsPage(site, reader, page + 1);
    ahead = null;
  }
  // Stopped at the limit or the page budget after a full page: the store may have more.
  const truncated = lastFull && (products.length === limit || reader.budgetSpent);
  return done({ products, truncated, passwordProtected: false, answered });
}

/** `/cart.js`'s `currency`: the store's active currency, when the home page did not say. */
async function cartCurrency(site: Site, reader: SiteReader): Promise<string | null> {
  const cart = await reader.json(siteUrl(site, '/cart.js'));
  return currencyCode(record(cart?.value)?.currency);
}
