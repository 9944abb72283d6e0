/**
 * A small local site for the Firecrawl SDK suites (test/e2e/firecrawl-*.test.ts): a home page
 * linking to four pages, one of them a product page with JSON-LD (the `json` format fills a
 * schema from it without a model), a page that changes between reads (change tracking), a
 * sitemap, and a 404.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type Firecrawl from '@mendable/firecrawl-js';
import { startFakeSearxng, type FakeSearch } from './fake-search.js';

export interface FirecrawlSite {
  readonly origin: string;
  url(path: string): string;
  /** Changes the text of /changing. */
  setChanging(text: string): void;
  close(): Promise<void>;
}

const PRODUCT = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'extract', 'site', 'product-jsonld.html'));

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title><meta name="description" content="${title} page"></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

export async function startFirecrawlSite(): Promise<FirecrawlSite> {
  let changing = 'The first version of this text.';
  let origin = '';
  const pages: Record<string, () => string> = {
    '/': () => page('Home', '<p>Welcome to the fixture shop.</p><a href="/about">About</a> <a href="/blog/one">Blog one</a> <a href="/blog/two">Blog two</a> <a href="/product">Product</a><img src="/logo.png" alt="Logo">'),
    '/about': () => page('About', '<p>We sell kettles since 1999.</p><a href="/">Home</a>'),
    '/blog/one': () => page('Blog one', '<p>The first post about kettles.</p><a href="/blog/two">Next</a>'),
    '/blog/two': () => page('Blog two', '<p>The second post about tea.</p><a href="/blog/one">Previous</a>'),
    '/changing': () => page('Changing', `<p>${changing}</p>`),
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/product') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PRODUCT);
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
    if (path === '/sitemap.xml') {
      const urls = ['/', '/about', '/blog/one', '/blog/two', '/product'].map((p) => `<url><loc>${origin}${p}</loc></url>`).join('');
      return void res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    }
    // A page that answers after 1.5 s: a monitor check of it is still running when the test acts.
    if (path === '/slow') return void setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('Slow', '<p>Takes a while.</p>')), 1500);
    const make = pages[path];
    if (!make) return void res.writeHead(404, { 'content-type': 'text/html' }).end(page('Not found', '<p>Nothing here.</p>'));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(make());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    setChanging: (text) => {
      changing = text;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A two-page crawl from `/blog/one` watched with the 4.x SDK's Watcher (the crawl watcher's
 * WebSocket): the final status and the watched documents' URLs, sorted.
 */
export async function watchedCrawl(fc: Firecrawl, site: FirecrawlSite, timeoutS: number): Promise<{ status: unknown; docs: string[] }> {
  const started = await fc.startCrawl(site.url('/blog/one'), { limit: 2, sitemap: 'skip', crawlEntireDomain: true, scrapeOptions: { maxAge: 0 } });
  const watcher = fc.watcher(started.id, { kind: 'crawl', timeout: timeoutS });
  const docs: string[] = [];
  watcher.on('document', (d: { metadata?: { sourceURL?: string } }) => docs.push(String(d.metadata?.sourceURL)));
  const done = new Promise<{ status?: unknown }>((resolve) => watcher.on('done', resolve));
  await watcher.start();
  return { status: (await done).status, docs: docs.sort() };
}

/** A local SearXNG stand-in whose results are two of the site's pages (the Firecrawl search tests read them). */
export function startSiteSearxng(site: FirecrawlSite): Promise<FakeSearch> {
  return startFakeSearxng({
    results: [
      { url: site.url('/about'), title: 'About the fixture shop', snippet: 'We sell kettles since 1999.' },
      { url: site.url('/blog/one'), title: 'Blog one', snippet: 'The first post about kettles.' },
    ],
  });
}
