/**
 * POST /v1/company, /v1/products and /v1/posts end to end (issue 30), embedded mode with the
 * production actors: the gateway, the intel pool reading each site through the fetch path
 * (the fetcher's guard with FETCH_ALLOW_PRIVATE on for the local sites), against local sites
 * speaking the real formats (test/helpers/fake-sites/): a German company with an imprint and
 * hidden addresses, Shopify-like and WooCommerce-like stores, a store behind its password, a
 * WordPress blog, a Discourse forum, a site with none of it, one that refuses us and one that
 * is gone.
 *
 * - answers, charging per page the site answered, nothing for a failed call;
 * - the company cache window: the same company again (by any URL on it, with or without
 *   contacts) answered from the stored answer, free; another key reads it afresh;
 * - bad input: 422 with `detail`, nothing read, nothing charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedWithSecondKey, type Embedded } from '../helpers/embedded.js';
import { postJson } from '../helpers/api.js';
import { blogPosts, discourseForum, wordpressBlog } from '../helpers/fake-sites/blogs.js';
import { germanImprint } from '../helpers/fake-sites/company.js';
import { html, page, startFakeSite, type FakeSite } from '../helpers/fake-sites/server.js';
import { products, shopifyStore, wooStore } from '../helpers/fake-sites/stores.js';

const API_KEY = 'e2e-sites-key-0123456789abc';
const company = germanImprint();
const shopTruth = products(620);

let svc: Embedded;
let otherKey = '';
const sites: Record<string, FakeSite> = {};
const post = (path: string, body: unknown, key = API_KEY) => postJson(svc.base, key, path, body);

beforeAll(async () => {
  sites.company = await startFakeSite(company.routes);
  sites.shop = await startFakeSite(shopifyStore(shopTruth));
  sites.closed = await startFakeSite(shopifyStore(shopTruth, { password: true }));
  sites.woo = await startFakeSite(wooStore(products(150)));
  sites.blog = await startFakeSite(wordpressBlog(blogPosts(120)));
  sites.forum = await startFakeSite(discourseForum(blogPosts(12)));
  sites.plain = await startFakeSite((path) => (path === '/' ? html(page('Brochure', '<p>Nothing to list.</p>')) : null));
  sites.refusing = await startFakeSite(() => ({ status: 403, body: 'Forbidden' }));
  const gone = await startFakeSite(() => null);
  sites.gone = gone;
  await gone.close();
  ({ svc, otherKey } = await embeddedWithSecondKey(API_KEY, { FETCH_ALLOW_PRIVATE: 'true', SITE_PAGE_TIMEOUT_MS: '5000', SITE_READ_BUDGET_MS: '30000' }));
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await Promise.all(Object.entries(sites).filter(([name]) => name !== 'gone').map(([, site]) => site.close()));
});

describe('e2e/sites: POST /v1/company', () => {
  it('reads the company from its pages, charges the pages read, and answers again from the stored answer for free', async () => {
    const first = await post('/v1/company', { url: sites.company?.origin }, otherKey);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const data = first.body.data;
    expect(data).toMatchObject({ name: company.truth.name, linkedin: company.truth.linkedin, foundingYear: 1998, cached: false });
    expect(data.address).toMatchObject(company.truth.address as object);
    expect(data.contacts.emails.map((e: { email: string }) => e.email).sort()).toEqual([...company.truth.emails].sort());
    expect(data.contacts.emails.every((e: { page: string }) => e.page.startsWith(sites.company?.origin as string))).toBe(true);
    expect(data.contacts.contactForms).toHaveLength(1);
    expect(data.pages.map((p: { kind: string }) => p.kind).sort()).toEqual(['about', 'contact', 'home', 'imprint']);
    expect(data.cost.credits).toBe(data.pagesRead);
    expect(data.cost.credits).toBe(4);
    const remaining = data.cost.remaining;

    // The same company by another URL on it, without contacts: the stored answer, free.
    const again = await post('/v1/company', { url: `${sites.company?.origin}/impressum`, contacts: false }, otherKey);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ name: company.truth.name, cached: true, contacts: null, readAt: data.readAt });
    expect(again.body.data.cost).toMatchObject({ credits: 0, remaining });
    const requests = sites.company?.requests.length;

    // Another key does not see it: read afresh.
    const other = await post('/v1/company', { url: sites.company?.origin });
    expect(other.body.data.cached).toBe(false);
    expect(sites.company?.requests.length).toBeGreaterThan(requests as number);
  });

  it('a site that refuses us is site_blocked, one that is gone site_unreachable; neither is charged', async () => {
    const before = (await post('/v1/company', { url: sites.company?.origin }, otherKey)).body.data.cost.remaining;
    const blocked = await post('/v1/company', { url: sites.refusing?.origin }, otherKey);
    expect(blocked.status).toBe(502);
    expect(blocked.body.error).toMatchObject({ code: 'site_blocked', retriable: true });
    const gone = await post('/v1/company', { url: sites.gone?.origin }, otherKey);
    expect(gone.status).toBe(502);
    expect(gone.body.error.code).toBe('site_unreachable');
    const after = (await post('/v1/company', { url: sites.company?.origin }, otherKey)).body.data.cost.remaining;
    expect(after).toBe(before);
  });

  it.each([
    [{ url: 'not a site' }, 'url'],
    [{ url: 'ftp://example.com/file' }, 'url'],
    [{ url: 'example.com', extra: 1 }, 'extra'],
    [{ url: 'example.com', contacts: 'yes' }, 'contacts'],
  ])('refuses %j with 422', async (body, field) => {
    const { status, body: answer } = await post('/v1/company', body);
    expect(status).toBe(422);
    expect(answer.detail[0].loc).toContain(field);
  });
});

describe('e2e/sites: POST /v1/products', () => {
  it('lists a Shopify store to its last page, prices as numbers, charged per API page', async () => {
    const { status, body } = await post('/v1/products', { url: sites.shop?.origin, limit: 10_000 });
    expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
    expect(body.data.platform).toBe('shopify');
    expect(body.data.products).toHaveLength(620);
    expect(body.data.products[0]).toMatchObject({ title: 'Widget 1', currency: 'EUR', price: shopTruth[0]?.prices[0] });
    // The home page and three products.json pages.
    expect(body.data.cost.credits).toBe(4);
  });

  it('lists a WooCommerce store through its Store API, minor units made numbers', async () => {
    const { status, body } = await post('/v1/products', { url: sites.woo?.origin, limit: 120 });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ platform: 'woocommerce', truncated: true });
    expect(body.data.products).toHaveLength(120);
    expect(typeof body.data.products[0].price).toBe('number');
  });

  it('a closed store is site_password_protected, a site that sells nothing no_products_found', async () => {
    const closed = await post('/v1/products', { url: sites.closed?.origin });
    expect(closed.status).toBe(403);
    expect(closed.body.error.code).toBe('site_password_protected');
    const plain = await post('/v1/products', { url: sites.plain?.origin, limit: 5 });
    expect(plain.status).toBe(404);
    expect(plain.body.error.code).toBe('no_products_found');
  });

  it('refuses a limit out of bounds with 422', async () => {
    for (const limit of [0, 10_001, 1.5]) expect((await post('/v1/products', { url: 'example.com', limit })).status).toBe(422);
  });
});

describe('e2e/sites: POST /v1/posts', () => {
  it('lists a WordPress blog newest first through its API and feed', async () => {
    const { status, body } = await post('/v1/posts', { url: sites.blog?.origin, limit: 150 });
    expect(status).toBe(200);
    expect(body.data.platform).toBe('wordpress');
    expect(body.data.posts).toHaveLength(120);
    const times = body.data.posts.map((p: { published: string }) => Date.parse(p.published));
    expect(times).toEqual([...times].sort((a: number, b: number) => b - a));
  });

  it('lists a Discourse forum\'s latest topics', async () => {
    const { status, body } = await post('/v1/posts', { url: `${sites.forum?.origin}/latest` });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ platform: 'discourse' });
    expect(body.data.posts).toHaveLength(12);
  });

  it('a site with nothing to list is no_posts_found', async () => {
    const { status, body } = await post('/v1/posts', { url: sites.plain?.origin });
    expect(status).toBe(404);
    expect(body.error.code).toBe('no_posts_found');
  });
});
