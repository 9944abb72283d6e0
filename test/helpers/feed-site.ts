/**
 * A small blog on 127.0.0.1 with an RSS 2.0 feed (`/feed.xml`) and a page (`/`) that links it
 * with `<link rel="alternate">` and lists the items, over items the test may change: the
 * social catalog's `feeds/read` reads either URL.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FeedSiteItem {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  /** ISO time. */
  readonly at: string;
}

export interface FeedSite {
  readonly feedUrl: string;
  readonly pageUrl: string;
  readonly items: FeedSiteItem[];
  close(): Promise<void>;
}

export async function startFeedSite(items: FeedSiteItem[]): Promise<FeedSite> {
  const server = http.createServer((req, res) => {
    if (req.url === '/feed.xml') {
      const entries = items
        .map((i) => `<item><guid>urn:feed-site:${i.id}</guid><title>${i.title}</title><link>https://blog.example/${i.id}</link><description>${i.text}</description><pubDate>${new Date(i.at).toUTCString()}</pubDate></item>`)
        .join('');
      res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>https://blog.example/</link>${entries}</channel></rss>`);
      return;
    }
    if (req.url === '/') {
      const list = items.map((i) => `<li><h2>${i.title}</h2><p>${i.text}</p></li>`).join('');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Blog</title><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><main><h1>Blog</h1><ul>${list}</ul></main></body></html>`);
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { feedUrl: `${origin}/feed.xml`, pageUrl: `${origin}/`, items, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
