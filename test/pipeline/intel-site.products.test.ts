/**
 * pipeline/intel/site/products.ts against local stores speaking Shopify's products.json,
 * WooCommerce's Store API and plain Product markup (test/helpers/fake-sites/stores.ts), read
 * over the runtime's HTTP stack: paging to the limit, prices as numbers, variants, stock, and
 * the faults (a closed store, a site that sells nothing).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readProducts } from '../../pipeline/intel/site/products.js';
import { absolute } from '../../pipeline/intel/site/html.js';
import { imageUrl, shopifyProduct } from '../../pipeline/intel/site/shopify.js';
import { siteOf, siteUrl } from '../../pipeline/intel/site/site.js';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { localSites, readOver } from '../helpers/fake-sites/read.js';
import { html, page, type FakeSite, type Routes } from '../helpers/fake-sites/server.js';
import { markupStore, products, shopifyStore, wooStore } from '../helpers/fake-sites/stores.js';

const sites = localSites();
const { http } = sites;
const site = (routes: Routes): Promise<FakeSite> => sites.site(routes);
afterAll(() => sites.close());

const read = readOver(http);

describe('pipeline/intel/site readProducts: Shopify', () => {
  const truth = products(620);

  it('pages products.json 250 at a time to the last, short page; prices are numbers in the store currency', async () => {
    const store = await site(shopifyStore(truth));
    const answer = await readProducts(store.origin, { limit: 10_000, read });
    expect(answer.platform).toBe('shopify');
    expect(answer.products).toHaveLength(620);
    expect(answer.truncated).toBe(false);
    // Two pages in flight after the first: page 4 may be asked for before page 3 is read, and is not charged.
    const asked = store.requests.filter((r) => r.startsWith('/products.json'));
    expect(asked.slice(0, 3)).toEqual(['/products.json?limit=250&page=1', '/products.json?limit=250&page=2', '/products.json?limit=250&page=3']);
    expect(asked.slice(3)).toEqual(asked.length > 3 ? ['/products.json?limit=250&page=4'] : []);
    const first = answer.products[0];
    const t = truth[0] as (typeof truth)[number];
    expect(first).toMatchObject({ id: String(t.id), title: t.title, link: `${store.origin}/products/${t.handle}`, currency: 'EUR', price: t.prices[0], sku: `${t.sku}-S`, vendor: 'Acme' });
    expect(first?.image).toBe(`http://cdn.shopify.com/s/files/1/0000/0001/products/${t.handle}.jpg`);
    expect(first?.variants.map((v) => [v.price, v.available, v.options])).toEqual([
      [t.prices[0], t.available[0], { Size: 'S' }],
      [t.prices[1], t.available[1], { Size: 'M' }],
    ]);
    expect(first?.variants[1]?.compareAtPrice).toBe(Number(((t.prices[1] as number) + 5).toFixed(2)));
    for (const p of answer.products) expect(typeof p.price).toBe('number');
    expect(answer.pagesRead).toBe(4);
  });

  it('stops at the limit, saying more may be left', async () => {
    const store = await site(shopifyStore(truth));
    const answer = await readProducts(`${store.origin}/collections/all`, { limit: 300, read });
    expect(answer.products).toHaveLength(300);
    expect(answer.truncated).toBe(true);
    expect(store.requests.filter((r) => r.startsWith('/products.json'))).toHaveLength(2);
  });

  it('finds products.json on a store whose home page has none of Shopify\'s marks, and takes the currency from /cart.js', async () => {
    const store = await site(shopifyStore(truth.slice(0, 10), { marks: false, currency: 'USD' }));
    const answer = await readProducts(store.origin, { limit: 500, read });
    expect(answer.platform).toBe('shopify');
    expect(answer.products).toHaveLength(10);
    expect(answer.products[0]?.currency).toBe('USD');
    expect(store.requests).toContain('/cart.js');
  });

  it('a store behind its password page is site_password_protected', async () => {
    const store = await site(shopifyStore(truth, { password: true }));
    await expect(readProducts(store.origin, { limit: 10, read })).rejects.toSatisfy((e) => hasCode(e, 'site_password_protected'));
  });
});

describe('pipeline/intel/site shopifyProduct: links', () => {
  it('joins a product\'s link as a URL parser would write it, whatever the handle', () => {
    const site = siteOf('https://Shop.Example.com:8443/collections/all') as NonNullable<ReturnType<typeof siteOf>>;
    for (const handle of ['kettle', 'Ünïcode handle', "a'b(c)!*~", '.', '..', '...', 'a/b', '%41', 'a?b#c']) {
      const product = shopifyProduct({ id: 1, title: 'T', handle, variants: [] }, site, 'EUR');
      expect(product?.link, handle).toBe(siteUrl(site, `/products/${encodeURIComponent(handle)}`));
    }
  });
});

describe('pipeline/intel/site shopifyProduct: images', () => {
  it('makes each image URL as `absolute` (a URL parser) does, with one parse a folder', () => {
    const base = 'https://Shop.Example.com:8443/';
    const srcs = [
      '//cdn.shopify.com/s/files/1/0000/0001/products/kettle.jpg',
      '//cdn.shopify.com/s/files/1/0000/0001/products/kettle.jpg?v=1700000000',
      '//CDN.Shopify.COM:443/s/files/a/../b/./pot.png?v=1&w=2',
      'https://cdn.shopify.com/s/files/%2e%2e/x/pot.png',
      'https://cdn.shopify.com\\s\\files/pot.png',
      'https://cdn.shopify.com/Ünï/pot.png',
      '//cdn.shopify.com',
      '//cdn.shopify.com?x=1',
      'https://cdn.shopify.com?x=1',
      'https://cdn.shopify.com/',
      'https://cdn.shopify.com/a/.',
      'https://cdn.shopify.com/a/..',
      'https://cdn.shopify.com/a/%2e%2e',
      'https://cdn.shopify.com/a/b c.jpg',
      'https://cdn.shopify.com/a/b.jpg#top',
      'https://cdn.shopify.com/a/b.jpg?q=<x>',
      '/files/pot.png',
      'files/pot.png',
      'pot.png',
      'http:files/pot.png',
      'https:cdn.other.com/pot.png',
      'foo/bar://x/pot.png',
      'javascript:alert(1)//x/pot.png',
      'data:image/png;base64,AAAA/pot.png',
      'https://[::1]/a/pot.png',
      'http://127.1/a/pot.png',
    ];
    const folders = new Map<string, string | null>();
    const shop = siteOf(base) as NonNullable<ReturnType<typeof siteOf>>;
    for (const src of srcs) {
      const product = shopifyProduct({ id: 1, title: 'T', images: [{ src }], variants: [] }, shop, 'EUR', folders);
      expect(product?.image, src).toBe(absolute(src, shop.home));
      expect(imageUrl(src, shop.home, folders), src).toBe(absolute(src, shop.home));
    }
    expect(folders.get('//cdn.shopify.com/s/files/1/0000/0001/products/')).toBe('https://cdn.shopify.com/s/files/1/0000/0001/products/');
  });
});

describe('pipeline/intel/site readProducts: WooCommerce Store API', () => {
  const truth = products(230);

  it('detects the Store API from the API root, pages 100 at a time, turns minor units into numbers and fills variations', async () => {
    const store = await site(wooStore(truth));
    const answer = await readProducts(store.origin, { limit: 10_000, read });
    expect(answer.platform).toBe('woocommerce');
    expect(answer.products).toHaveLength(230);
    expect(store.requests).toContain('/wp-json/');
    expect(store.requests.filter((r) => r.startsWith('/wp-json/wc/store/v1/products?per_page=100&page='))).toHaveLength(3);
    const simple = answer.products[0];
    expect(simple).toMatchObject({ title: 'Widget 1 & Co', price: truth[0]?.prices[0], currency: 'EUR', sku: truth[0]?.sku, link: `${store.origin}/product/widget-1/` });
    const onSale = answer.products[1];
    expect(onSale?.compareAtPrice).toBe(Number(((truth[1]?.prices[0] as number) + 10).toFixed(2)));
    const variable = answer.products[2];
    const t = truth[2] as (typeof truth)[number];
    expect(variable?.variants.map((v) => [v.options.Size, v.price, v.available, v.sku])).toEqual([
      ['s', t.prices[0], t.available[0], `${t.sku}-S`],
      ['m', t.prices[1], t.available[1], `${t.sku}-M`],
    ]);
    expect(variable?.variants[0]?.stock).toBe(3);
    expect(variable?.price).toBe(t.prices[0]);
    for (const p of answer.products) {
      expect(typeof p.price).toBe('number');
      expect(Number.isInteger((p.price as number) * 100 + 1e-9) || Math.abs((p.price as number) * 100 - Math.round((p.price as number) * 100)) < 1e-6).toBe(true);
    }
  });

  it('reads a currency without minor units (JPY) as whole numbers', async () => {
    const store = await site(wooStore(truth.slice(0, 5), { currency: 'JPY' }));
    const answer = await readProducts(store.origin, { limit: 5, read });
    expect(answer.products.map((p) => p.currency)).toEqual(['JPY', 'JPY', 'JPY', 'JPY', 'JPY']);
    expect(answer.products[0]?.price).toBe(Math.round(truth[0]?.prices[0] as number));
  });
});

describe('pipeline/intel/site readProducts: Product markup only', () => {
  const truth = products(12);

  it('reads the product sitemap\'s pages for their JSON-LD and microdata', async () => {
    const store = await site(markupStore(truth));
    const answer = await readProducts(store.origin, { limit: 500, read });
    expect(answer.platform).toBe('markup');
    expect(answer.products.map((p) => p.title).sort()).toEqual(truth.map((t) => t.title).sort());
    for (const p of answer.products) {
      const t = truth.find((x) => x.title === p.title) as (typeof truth)[number];
      expect(p).toMatchObject({ price: t.prices[0], currency: 'EUR', sku: t.sku, available: t.available[0] });
    }
    expect(answer.warning).toBeNull();
  });

  it('stops at the limit, saying more were found; a smaller page budget is a warning', async () => {
    const store = await site(markupStore(truth));
    const answer = await readProducts(store.origin, { limit: 3, read });
    expect(answer.products).toHaveLength(3);
    expect(answer.truncated).toBe(true);
    expect(answer.warning).toBeNull();
    const tight = await readProducts(store.origin, { limit: 500, read, maxPages: 6 });
    expect(tight.truncated).toBe(true);
    expect(tight.products.length).toBeLessThan(truth.length);
    expect(tight.pagesRead).toBeLessThanOrEqual(6);
    expect(tight.warning).toContain('not read');
  });

  it('a site that sells nothing is no_products_found', async () => {
    const plain = await site((path) => (path === '/' ? html(page('Just a blog', '<p>Hello</p>')) : null));
    await expect(readProducts(plain.origin, { limit: 10, read })).rejects.toSatisfy((e) => hasCode(e, 'no_products_found'));
  });
});
