/**
 * POST /v1/products: a store's products, from the store's own API when it runs one the service
 * reads, else from its product pages' markup.
 *
 * 1. The home page (home.ts: `site_unreachable`, `site_blocked`); a store that sends it to its
 *    password page is `site_password_protected`.
 * 2. Shopify (shopify.ts) when the home page says so, or when `/products.json` parses as
 *    Shopify's even though it does not; WooCommerce's Store API (woocommerce.ts) when the
 *    site's REST API lists its namespace. Each is paged until `limit`.
 * 3. Otherwise, or when the API listed nothing, product pages from the sitemaps and the home
 *    page, read for their Product markup (product-markup.ts).
 * 4. Nothing anywhere: `no_products_found`.
 *
 * `truncated` says the store may have more than was listed (the limit or the page budget);
 * `warning` names what was cut short or could not be read.
 */
import { AppError } from '../../runtime/errors.js';
import { homePage } from './home.js';
import { ITEM_PAGES_MAX, listingPageBudget } from './limits.js';
import type { Product } from './product.js';
import { markupProducts } from './product-markup.js';
import { budgetWarning, deadlineOf, SiteReader, type ListingOptions } from './read.js';
import { isPasswordPage, isShopify, shopifyCurrency, shopifyProducts } from './shopify.js';
import { siteOf, siteUrl } from './site.js';
import { hasStoreApi, wooProducts, wpApiRoot } from './woocommerce.js';

export type { Product, ProductVariant } from './product.js';
export type { ListingOptions } from './read.js';

export interface ProductsAnswer {
  readonly domain: string;
  /** The home page read (after redirects). */
  readonly url: string;
  /** Where the products came from. */
  readonly platform: 'shopify' | 'woocommerce' | 'markup';
  readonly products: readonly Product[];
  /** The store may have more products than listed. */
  readonly truncated: boolean;
  readonly pagesRead: number;
  readonly warning: string | null;
}

const joined = (parts: readonly (string | null)[]): string | null => parts.filter(Boolean).join('; ') || null;

/** Lists the store's products (see the file comment). */
export async function readProducts(input: string, opts: ListingOptions): Promise<ProductsAnswer> {
  const asked = siteOf(input);
  if (!asked) throw new AppError('validation_failed', `"${input.slice(0, 100)}" is not a domain or an http(s) URL`);
  const limit = Math.max(1, Math.min(10_000, Math.floor(opts.limit)));
  const maxPages = opts.maxPages ?? listingPageBudget(limit);
  const reader = new SiteReader({ read: opts.read, maxPages, ...(opts.signal ? { signal: opts.signal } : {}), ...deadlineOf(opts) });
  const { site, page: home, answer } = await homePage(asked, reader, input.includes('/') ? input : undefined);
  if (isPasswordPage(answer.url)) throw new AppError('site_password_protected', `${asked.home} sends every visitor to its password page: the store is closed`);
  const base = { domain: asked.domain, url: home.url };

  const shopify = isShopify(answer.body);
  const wpRoot = shopify ? null : wpApiRoot(home, answer.body, site);
  if (shopify || !wpRoot) {
    const listing = await shopifyProducts(site, reader, limit, shopifyCurrency(home, answer.body));
    if (listing.passwordProtected) throw new AppError('site_password_protected', `${siteUrl(site, '/products.json')} sends to the store's password page: the store is closed`);
    if (listing.products.length) {
      return { ...base, platform: 'shopify', products: listing.products, truncated: listing.truncated, pagesRead: reader.pagesRead, warning: budgetWarning(reader, maxPages) };
    }
  }
  if (wpRoot && (await hasStoreApi(wpRoot, reader))) {
    const listing = await wooProducts(wpRoot, reader, limit);
    if (listing.products.length) {
      return { ...base, platform: 'woocommerce', products: listing.products, truncated: listing.truncated, pagesRead: reader.pagesRead, warning: budgetWarning(reader, maxPages) };
    }
  }
  const markup = await markupProducts(site, home, reader, limit);
  if (!markup.products.length) {
    throw new AppError('no_products_found', `${site.home} runs no store API the service reads, and no page its sitemaps or home page name marks up a product`);
  }
  const warning = joined([
    markup.unread ? `${markup.unread} more product page(s) were found but not read (at most ${ITEM_PAGES_MAX} a call, within the page budget)` : null,
    markup.failed ? `${markup.failed} product page(s) could not be read` : null,
    budgetWarning(reader, maxPages),
  ]);
  return { ...base, platform: 'markup', products: markup.products, truncated: markup.more, pagesRead: reader.pagesRead, warning };
}
