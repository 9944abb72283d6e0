/**
 * The site readers' faults against local sites over the runtime's HTTP stack: a site that does
 * not answer, refuses us, answers a bot challenge or an error, is readable only in part, or
 * serves hostile bodies; and the same company asked by domain or by any URL on it.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readCompany } from '../../pipeline/intel/site/company.js';
import { MAX_HTML_CHARS, MAX_HTML_TAGS } from '../../pipeline/intel/site/limits.js';
import { readPosts } from '../../pipeline/intel/site/posts.js';
import { readProducts } from '../../pipeline/intel/site/products.js';
import { siteOf } from '../../pipeline/intel/site/site.js';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { BLOG_NOW } from '../helpers/fake-sites/blogs.js';
import { germanImprint } from '../helpers/fake-sites/company.js';
import { localSites, readOver } from '../helpers/fake-sites/read.js';
import { html, json, page, type FakeSite, type Routes } from '../helpers/fake-sites/server.js';

/** Pages handed to the readers' HTML parser (html.ts `loadPage`), counted. */
const parsing = vi.hoisted(() => ({ pages: 0 }));
vi.mock('../../pipeline/intel/site/html.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../pipeline/intel/site/html.js')>();
  const loadPage: typeof original.loadPage = (url, body) => {
    parsing.pages++;
    return original.loadPage(url, body);
  };
  return { ...original, loadPage };
});

const sites = localSites();
const { http } = sites;
const site = (routes: Routes): Promise<FakeSite> => sites.site(routes);
const read = readOver(http, { timeoutMs: 3_000 });
const now = () => BLOG_NOW;
afterAll(() => sites.close());

const code = (c: string) => (e: unknown) => hasCode(e, c as never);

describe('pipeline/intel/site faults', () => {
  it('a site that does not answer is site_unreachable', async () => {
    const gone = await site(() => null);
    const origin = gone.origin;
    await gone.close();
    await expect(readCompany(origin, { contacts: true, read, now })).rejects.toSatisfy(code('site_unreachable'));
  });

  it('403, 429 and a bot challenge are site_blocked; 500 and a non-HTML home are site_unreachable', async () => {
    const forbidden = await site(() => ({ status: 403, body: 'Forbidden' }));
    const limited = await site(() => ({ status: 429, body: 'Slow down', headers: { 'retry-after': '60' } }));
    const challenge = await site(() => html(page('Just a moment...', '<div id="cf-browser-verification"></div><script>window._cf_chl_opt={}</script>').replace('<title>Just a moment...</title>', '<title>Just a moment...</title>')));
    const broken = await site(() => ({ status: 500, body: 'oops' }));
    const binary = await site(() => ({ type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }));
    await expect(readCompany(forbidden.origin, { contacts: false, read, now })).rejects.toSatisfy(code('site_blocked'));
    await expect(readProducts(limited.origin, { limit: 5, read, now })).rejects.toSatisfy(code('site_blocked'));
    await expect(readPosts(challenge.origin, { limit: 5, read, now })).rejects.toSatisfy(code('site_blocked'));
    await expect(readCompany(broken.origin, { contacts: true, read, now })).rejects.toSatisfy(code('site_unreachable'));
    await expect(readCompany(binary.origin, { contacts: true, read, now })).rejects.toSatisfy(code('site_unreachable'));
  });

  it('a home page nested too deep to read is refused before it is parsed', async () => {
    const body = `<html><body>${'<div>'.repeat(100_000)}x</body></html>`;
    expect(body.length).toBeLessThan(MAX_HTML_CHARS); // its depth alone refuses it
    const deep = await site(() => html(body));
    const asked: string[] = [];
    const parsedBefore = parsing.pages;
    const error = await readCompany(deep.origin, { contacts: true, read: readOver(http, { timeoutMs: 3_000, log: asked }), now }).catch((e: unknown) => e);
    expect(hasCode(error, 'site_unreachable')).toBe(true);
    expect((error as Error).message).toContain('too large or too deeply nested to read');
    expect(parsing.pages).toBe(parsedBefore); // never handed to the HTML parser
    expect(asked).toEqual([`${deep.origin}/`]);
  });

  it(`a home page of more than ${MAX_HTML_TAGS} tags is refused before it is parsed: its tree would be built on the service's thread`, async () => {
    const body = `<html><body>${'<a href="/x">x</a>'.repeat(MAX_HTML_TAGS / 2 + 1)}</body></html>`;
    expect(body.length).toBeLessThan(MAX_HTML_CHARS); // its tags alone refuse it
    const many = await site(() => html(body));
    const parsedBefore = parsing.pages;
    const error = await readCompany(many.origin, { contacts: true, read, now }).catch((e: unknown) => e);
    expect(hasCode(error, 'site_unreachable')).toBe(true);
    expect(parsing.pages).toBe(parsedBefore);
    // Just within the limit, it is read.
    const within = await site(() => html(`<html><head><title>Acme</title></head><body>${'<a href="/x">x</a>'.repeat(MAX_HTML_TAGS / 2 - 10)}</body></html>`));
    await readCompany(within.origin, { contacts: false, read, now }).catch(() => undefined);
    expect(parsing.pages).toBeGreaterThan(parsedBefore);
  });

  it('a partly readable site answers what it found, naming what it could not read', async () => {
    const fixture = germanImprint();
    const partial = await site((path, q, origin) => (path === '/kontakt' ? { status: 500, body: 'down' } : path === '/ueber-uns' ? { status: 200, body: `<html>${'<b>'.repeat(10_000)}</html>` } : fixture.routes(path, q, origin)));
    const answer = await readCompany(partial.origin, { contacts: true, read, now });
    expect(answer.name).toBe('Muster Maschinenbau GmbH');
    expect(answer.contacts?.emails.map((e) => e.email)).toEqual(['info@muster-maschinenbau.de']);
    expect(answer.warning).toContain('could not be read');
    expect(answer.warning).toContain('/kontakt');
  });

  it('contacts: false answers the company alone; a URL on the site and its bare origin are the same company', async () => {
    const fixture = germanImprint();
    const company = await site(fixture.routes);
    const bare = await readCompany(company.origin, { contacts: false, read, now });
    expect(bare.contacts).toBeNull();
    expect(bare.phone).toBe('+49 (0)30 1234567');
    expect(bare.linkedin).toBe(fixture.truth.linkedin);
    const deep = await readCompany(`${company.origin}/impressum?x=1`, { contacts: false, read, now });
    expect({ ...deep, pagesRead: 0 }).toEqual({ ...bare, pagesRead: 0 });
    expect(siteOf('www.Example.co.uk/about')?.domain).toBe('example.co.uk');
    expect(siteOf('https://shop.example.com')?.domain).toBe('example.com');
    expect([siteOf('not a domain'), siteOf('ftp://x.com'), siteOf('localhost-only')]).toEqual([null, null, null]);
  });

  it('the page budget bounds a call, and the answer says it stopped', async () => {
    const fixture = germanImprint();
    const company = await site(fixture.routes);
    const answer = await readCompany(company.origin, { contacts: true, read, now, maxPages: 2 });
    expect(answer.pagesRead).toBe(2);
    expect(answer.warning).toContain('page budget');
  });

  it('hostile API answers are read within their caps: deep JSON is no store, a huge feed is not parsed past its limit', async () => {
    const deepJson = `{"products":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const store = await site((path) => (path === '/' ? html(page('Shop', '<script>Shopify.theme = {}</script>')) : path === '/products.json' ? { type: 'application/json', body: deepJson } : null));
    await expect(readProducts(store.origin, { limit: 5, read, now })).rejects.toSatisfy(code('no_products_found'));
    const notJson = await site((path) => (path === '/' ? html(page('Shop', '<script>Shopify.theme = {}</script>')) : path === '/products.json' ? json({ products: 'none' }) : null));
    await expect(readProducts(notJson.origin, { limit: 5, read, now })).rejects.toSatisfy(code('no_products_found'));
  });
});
