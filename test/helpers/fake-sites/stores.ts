/**
 * Stores for the products reader's tests and bench/company.ts, each speaking its platform's
 * real public API as reference-shapes-wave2.md §6 records it:
 *
 * - `shopifyStore`: a home page with Shopify's marks (`Shopify.theme`, `Shopify.currency`,
 *   cdn.shopify.com) and `/products.json?limit=L&page=N` (L at most 250, default 30; `[]` past
 *   the end), products with `variants` (price strings, `available`, option1/option2), `images`,
 *   `options`. `password: true` closes it: every page redirects to `/password`. `marks: false`
 *   serves a home page without the marks (the reader must find products.json by itself).
 * - `wooStore`: a WordPress home page naming its API root (`<link rel="https://api.w.org/">`),
 *   `/wp-json/` listing the `wc/store/v1` namespace, and `/wp-json/wc/store/v1/products`
 *   (`per_page` ≤ 100, `page`, `type=variation`; X-WP-Total and X-WP-TotalPages headers; prices
 *   in minor units with `currency_minor_unit`). Every third product is variable, with two
 *   variations listed by `type=variation`.
 * - `markupStore`: no API; a robots.txt naming a sitemap index, a product sitemap, and product
 *   pages marked up with JSON-LD (and one with microdata).
 *
 * `products(n)` is the truth the stores are built from.
 */
import { html, json, jsonLd, page, text, xml, type Routes } from './server.js';

export interface TruthProduct {
  readonly id: number;
  readonly title: string;
  readonly handle: string;
  readonly sku: string;
  /** Major units. */
  readonly prices: readonly number[];
  readonly available: readonly boolean[];
}

export function products(n: number): TruthProduct[] {
  return Array.from({ length: n }, (_, i) => {
    const id = 1000 + i;
    const base = 5 + ((i * 37) % 200) + ((i * 13) % 100) / 100;
    return {
      id,
      title: `Widget ${i + 1}`,
      handle: `widget-${i + 1}`,
      sku: `W-${id}`,
      prices: [Number(base.toFixed(2)), Number((base + 2.5).toFixed(2))],
      available: [i % 4 !== 0, i % 5 !== 0],
    };
  });
}

function shopifyJson(p: TruthProduct, descriptionChars = 0): unknown {
  return {
    id: p.id,
    title: p.title,
    handle: p.handle,
    body_html: `<p>The ${p.title} &amp; more.</p>${descriptionChars ? `<p>${'Sturdy brass, hand finished. '.repeat(Math.ceil(descriptionChars / 29)).slice(0, descriptionChars)}</p>` : ''}`,
    published_at: '2024-01-02T10:00:00-05:00',
    created_at: '2024-01-01T10:00:00-05:00',
    updated_at: '2024-03-01T10:00:00-05:00',
    vendor: 'Acme',
    product_type: 'Widgets',
    tags: ['blue', 'new'],
    variants: p.prices.map((price, v) => ({
      id: p.id * 10 + v,
      title: v === 0 ? 'S' : 'M',
      option1: v === 0 ? 'S' : 'M',
      option2: null,
      option3: null,
      sku: `${p.sku}-${v === 0 ? 'S' : 'M'}`,
      requires_shipping: true,
      taxable: true,
      featured_image: null,
      available: p.available[v],
      price: price.toFixed(2),
      grams: 200,
      compare_at_price: v === 1 ? (price + 5).toFixed(2) : null,
      position: v + 1,
      product_id: p.id,
      created_at: '2024-01-01T10:00:00-05:00',
      updated_at: '2024-03-01T10:00:00-05:00',
    })),
    images: [{ id: p.id * 7, src: `//cdn.shopify.com/s/files/1/0000/0001/products/${p.handle}.jpg`, width: 800, height: 800, position: 1, variant_ids: [], product_id: p.id }],
    options: [{ name: 'Size', position: 1, values: ['S', 'M'] }],
  };
}

export interface ShopifyOptions {
  readonly password?: boolean;
  readonly marks?: boolean;
  readonly currency?: string;
  /** Characters of description each product carries beyond one sentence (real stores write pages of it). */
  readonly descriptionChars?: number;
}

/** The JSON bytes of each products.json page, made once (a bench reads them many times). */
function shopifyPages(all: readonly TruthProduct[], size: number, descriptionChars: number): Map<number, string> {
  const pages = new Map<number, string>();
  for (let start = 0, page = 1; start < all.length; start += size, page += 1) pages.set(page, JSON.stringify({ products: all.slice(start, start + size).map((p) => shopifyJson(p, descriptionChars)) }));
  return pages;
}

export function shopifyStore(truth: readonly TruthProduct[], options: ShopifyOptions = {}): Routes {
  const marks = options.marks ?? true;
  const currency = options.currency ?? 'EUR';
  const full = shopifyPages(truth, 250, options.descriptionChars ?? 0);
  const home = page(
    'Acme Widgets',
    `<div id="shopify-section-header" class="shopify-section"><h1>Acme Widgets</h1></div><a href="/collections/all">Shop all</a>`,
    marks
      ? `<link rel="preconnect" href="https://cdn.shopify.com"><script>var Shopify = Shopify || {};Shopify.shop = "acme-widgets.myshopify.com";Shopify.currency = {"active":"${currency}","rate":"1.0"};Shopify.theme = {"name":"Dawn","id":1};</script>`
      : '',
  );
  return (path, query) => {
    if (options.password && path !== '/password') return { redirect: '/password' };
    if (path === '/password') return html(page('Acme Widgets – Opening soon', '<form action="/password" method="post"><input type="password" name="password"><button>Enter</button></form>'));
    if (path === '/') return html(home);
    if (path === '/cart.js') return json({ token: 'x', items: [], currency, item_count: 0 });
    if (path === '/products.json') {
      const limit = Math.min(250, Math.max(1, Number(query.get('limit') ?? 30) || 30));
      const n = Math.max(1, Number(query.get('page') ?? 1) || 1);
      if (limit === 250) return { type: 'application/json; charset=utf-8', body: full.get(n) ?? '{"products":[]}' };
      return json({ products: truth.slice((n - 1) * limit, n * limit).map((p) => shopifyJson(p, options.descriptionChars ?? 0)) });
    }
    return null;
  };
}

// ---- WooCommerce ----------------------------------------------------------------------------

interface WooItem {
  readonly json: Record<string, unknown>;
  readonly variations: Record<string, unknown>[];
}

function minor(amount: number, unit: number): string {
  return String(Math.round(amount * 10 ** unit));
}

function wooPrices(amount: number, regular: number, unit: number, code: string, range: [number, number] | null) {
  return {
    price: minor(amount, unit),
    regular_price: minor(regular, unit),
    sale_price: minor(amount, unit),
    price_range: range ? { min_amount: minor(range[0], unit), max_amount: minor(range[1], unit) } : null,
    currency_code: code,
    currency_symbol: code === 'JPY' ? '¥' : '€',
    currency_minor_unit: unit,
    currency_decimal_separator: ',',
    currency_thousand_separator: '.',
    currency_prefix: '',
    currency_suffix: code === 'JPY' ? '' : ' €',
  };
}

function wooItems(truth: readonly TruthProduct[], origin: string, unit: number, code: string): WooItem[] {
  return truth.map((p, i) => {
    const variable = i % 3 === 2;
    const variations = variable
      ? p.prices.map((price, v) => ({
          id: p.id * 10 + v,
          name: `${p.title} - ${v === 0 ? 'S' : 'M'}`,
          parent: p.id,
          type: 'variation',
          variation: `Size: ${v === 0 ? 'S' : 'M'}`,
          sku: `${p.sku}-${v === 0 ? 'S' : 'M'}`,
          permalink: `${origin}/product/${p.handle}/?attribute_size=${v === 0 ? 's' : 'm'}`,
          on_sale: false,
          prices: wooPrices(price, price, unit, code, null),
          is_in_stock: p.available[v],
          low_stock_remaining: v === 0 ? 3 : null,
          images: [],
          variations: [],
        }))
      : [];
    const onSale = i % 2 === 1;
    const json: Record<string, unknown> = {
      id: p.id,
      name: `${p.title} &amp; Co`,
      slug: p.handle,
      parent: 0,
      type: variable ? 'variable' : 'simple',
      variation: '',
      permalink: `${origin}/product/${p.handle}/`,
      sku: p.sku,
      short_description: '<p>Short.</p>',
      description: '<p>Long.</p>',
      on_sale: onSale,
      prices: variable
        ? wooPrices(p.prices[0] as number, p.prices[0] as number, unit, code, [p.prices[0] as number, p.prices[1] as number])
        : wooPrices(p.prices[0] as number, onSale ? (p.prices[0] as number) + 10 : (p.prices[0] as number), unit, code, null),
      price_html: '<span>…</span>',
      average_rating: '0',
      review_count: 0,
      images: [{ id: 1, src: `${origin}/wp-content/uploads/${p.handle}.jpg`, thumbnail: `${origin}/wp-content/uploads/${p.handle}-150.jpg`, srcset: '', sizes: '', name: p.handle, alt: '' }],
      categories: [{ id: 1, name: 'Widgets', slug: 'widgets', link: `${origin}/product-category/widgets/` }],
      tags: [],
      attributes: variable ? [{ id: 1, name: 'Size', taxonomy: 'pa_size', has_variations: true, terms: [] }] : [],
      variations: variations.map((v, k) => ({ id: v.id, attributes: [{ name: 'Size', value: k === 0 ? 's' : 'm' }] })),
      has_options: variable,
      is_purchasable: true,
      is_in_stock: p.available[0],
      is_on_backorder: false,
      low_stock_remaining: variable ? null : i % 7 === 0 ? 2 : null,
      sold_individually: false,
      add_to_cart: { text: 'Add to cart', description: '', url: '', minimum: 1, maximum: 9999, multiple_of: 1 },
      extensions: {},
    };
    return { json, variations };
  });
}

export interface WooOptions {
  readonly currency?: 'EUR' | 'JPY';
}

export function wooStore(truth: readonly TruthProduct[], options: WooOptions = {}): Routes {
  const code = options.currency ?? 'EUR';
  const unit = code === 'JPY' ? 0 : 2;
  let items: WooItem[] | null = null;
  return (path, query, origin) => {
    items ??= wooItems(truth, origin, unit, code);
    if (path === '/') {
      return html(
        page(
          'Widget Haus',
          '<div class="woocommerce"><ul class="products"><li class="product"><a href="/product/widget-1/">Widget 1</a></li></ul></div>',
          `<link rel="https://api.w.org/" href="${origin}/wp-json/"><link rel="stylesheet" href="${origin}/wp-content/plugins/woocommerce/assets/css/woocommerce.css">`,
        ),
      );
    }
    if (path === '/wp-json/' || path === '/wp-json') {
      return json({ name: 'Widget Haus', url: origin, namespaces: ['oembed/1.0', 'wc/store', 'wc/store/v1', 'wp/v2'], routes: { '/': { namespace: '' } } });
    }
    if (path === '/wp-json/wc/store/v1/products') {
      const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 10) || 10));
      const n = Math.max(1, Number(query.get('page') ?? 1) || 1);
      const pool = query.get('type') === 'variation' ? items.flatMap((it) => it.variations) : items.map((it) => it.json);
      const pages = Math.max(1, Math.ceil(pool.length / perPage));
      if (n > pages) return { status: 400, type: 'application/json', body: JSON.stringify({ code: 'rest_invalid_page_number', message: 'The page number requested is larger than the number of pages available.', data: { status: 400 } }) };
      return json(pool.slice((n - 1) * perPage, n * perPage), { 'x-wp-total': String(pool.length), 'x-wp-totalpages': String(pages) });
    }
    return null;
  };
}

// ---- Product markup only ----------------------------------------------------------------------

export function markupStore(truth: readonly TruthProduct[]): Routes {
  return (path, _query, origin) => {
    if (path === '/') return html(page('Handmade Goods', `<h1>Handmade Goods</h1><a href="/about">About</a> <a href="/product/${truth[0]?.handle}">Our bestseller</a>`));
    if (path === '/robots.txt') return text(`User-agent: *\nDisallow: /cart\nSitemap: ${origin}/sitemap_index.xml\n`);
    if (path === '/sitemap_index.xml') {
      return xml(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>${origin}/page-sitemap.xml</loc></sitemap><sitemap><loc>${origin}/product-sitemap.xml</loc></sitemap></sitemapindex>`);
    }
    if (path === '/page-sitemap.xml') return xml(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/</loc></url><url><loc>${origin}/about</loc></url></urlset>`);
    if (path === '/product-sitemap.xml') {
      const urls = truth.map((p, i) => `<url><loc>${origin}/product/${p.handle}</loc><lastmod>2024-0${1 + (i % 9)}-1${i % 10}</lastmod></url>`).join('');
      return xml(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    }
    const match = path.startsWith('/product/') ? truth.find((p) => `/product/${p.handle}` === path) : undefined;
    if (!match) return null;
    if (match.id % 5 === 4) {
      // Microdata instead of JSON-LD.
      return html(
        page(
          match.title,
          `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">${match.title}</h1><meta itemprop="sku" content="${match.sku}">
           <img itemprop="image" src="/img/${match.handle}.jpg"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
           <span itemprop="price" content="${match.prices[0]}">${String(match.prices[0]).replace('.', ',')} €</span><meta itemprop="priceCurrency" content="EUR">
           <link itemprop="availability" href="https://schema.org/${match.available[0] ? 'InStock' : 'OutOfStock'}"></div></div>`,
        ),
      );
    }
    const product = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: match.title,
      sku: match.sku,
      image: `${origin}/img/${match.handle}.jpg`,
      brand: { '@type': 'Brand', name: 'Handmade' },
      offers: { '@type': 'Offer', price: String(match.prices[0]), priceCurrency: 'EUR', availability: `https://schema.org/${match.available[0] ? 'InStock' : 'OutOfStock'}`, url: `${origin}/product/${match.handle}` },
    };
    return html(page(match.title, `<h1>${match.title}</h1><p>${match.prices[0]} €</p>`, jsonLd(product)));
  };
}
