/**
 * The feeds connector (pipeline/clients/social/feeds.ts, feeds-parse.ts) against two local
 * sites on 127.0.0.1 (node:http) reached through the guarded fetcher, which allow-lists
 * 127.0.0.1 alone: RSS 2.0, RSS 1.0, Atom and JSON Feed items in the common shape; discovery
 * from a page's alternate links and, on a site without any, from the common paths; the
 * discovery cache; conditional GETs answered 304; broken, failing, oversized and
 * private-address feeds as warnings (all failing: an error); term matching, the `since`
 * cutoff, the limit, dedupe across feeds, undated items answered once; the feed cap and the
 * parallelism.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { externalIdOf, FeedsConnector, MAX_FEEDS } from '../../pipeline/clients/social/feeds.js';
import { feedLinks, feedTime, parseFeed } from '../../pipeline/clients/social/feeds-parse.js';
import type { CollectQuery } from '../../pipeline/clients/social/types.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';

const NOW = Date.UTC(2026, 10, 26, 12);
const HOUR = 3_600_000;
const SINCE = NOW - 48 * HOUR;
const rfc822 = (ms: number) => new Date(ms).toUTCString();
const iso = (ms: number) => new Date(ms).toISOString();

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>Scraping Weekly</title>
  <link>https://weekly.example/</link>
  <atom:link href="https://weekly.example/rss.xml" rel="self" type="application/rss+xml"/>
  <language>en-us</language>
  <item>
    <title>Acme Scraper 2.0 &amp; friends</title>
    <link>https://weekly.example/posts/acme-2</link>
    <guid isPermaLink="true">https://weekly.example/posts/acme-2</guid>
    <dc:creator>Alice</dc:creator>
    <pubDate>${rfc822(NOW - 1 * HOUR)}</pubDate>
    <description>Short teaser</description>
    <content:encoded><![CDATA[<p>We tried <b>Acme</b> on 10&nbsp;sites.</p><p>It worked.</p>]]></content:encoded>
  </item>
  <item>
    <title>Unrelated news</title>
    <link>https://weekly.example/posts/other</link>
    <guid>https://weekly.example/posts/other</guid>
    <pubDate>${rfc822(NOW - 2 * HOUR)}</pubDate>
    <description>&lt;p&gt;Nothing about it.&lt;/p&gt;</description>
  </item>
  <item>
    <title>ACME tips</title>
    <guid isPermaLink="false">local-42</guid>
    <author>bob@weekly.example (Bob)</author>
    <pubDate>${rfc822(NOW - 3 * HOUR)}</pubDate>
    <description>Three tips for acme users.</description>
  </item>
  <item>
    <title>Acme 1.0 (old)</title>
    <link>https://weekly.example/posts/acme-1</link>
    <pubDate>${rfc822(NOW - 100 * HOUR)}</pubDate>
  </item>
</channel>
</rss>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="de">
  <title>Blog</title>
  <link href="/blog/" rel="alternate"/>
  <link href="/atom.xml" rel="self"/>
  <author><name>Feed Author</name></author>
  <id>tag:blog.example,2026:feed</id>
  <updated>${iso(NOW)}</updated>
  <entry>
    <title type="html">&lt;em&gt;Acme&lt;/em&gt; im Test</title>
    <link rel="alternate" href="/blog/acme-im-test"/>
    <id>tag:blog.example,2026:1</id>
    <published>${iso(NOW - 4 * HOUR).replace('Z', '+00:00')}</published>
    <updated>${iso(NOW - 1 * HOUR)}</updated>
    <author><name>Carol</name></author>
    <summary>Kurz.</summary>
    <content type="html">&lt;p&gt;Acme &lt;i&gt;funktioniert&lt;/i&gt;.&lt;/p&gt;</content>
  </entry>
  <entry xml:lang="en">
    <title>xhtml entry</title>
    <link href="https://blog.example/x"/>
    <id>tag:blog.example,2026:2</id>
    <updated>${iso(NOW - 5 * HOUR)}</updated>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Acme in <b>XHTML</b>.</p><p>Second.</p></div></content>
  </entry>
</feed>`;

const JSON_FEED = JSON.stringify({
  version: 'https://jsonfeed.org/version/1.1',
  title: 'JSON blog',
  home_page_url: 'https://json.example/',
  language: 'fr',
  authors: [{ name: 'Feed Team' }],
  items: [
    { id: 'https://json.example/1', url: 'https://json.example/1', title: 'Acme en JSON', content_html: '<p>Bonjour <b>Acme</b></p>', date_published: iso(NOW - 6 * HOUR), authors: [{ name: 'Dan' }] },
    { id: 2, content_text: 'acme without a title', date_modified: iso(NOW - 7 * HOUR), language: 'en' },
  ],
});

const RDF = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://rdf.example/"><title>RDF</title><link>https://rdf.example/</link><dc:language>ja</dc:language></channel>
  <item rdf:about="https://rdf.example/acme"><title>Acme in RDF</title><link>https://rdf.example/acme</link><description>RSS 1.0 item</description><dc:creator>Eve</dc:creator><dc:date>${iso(NOW - 8 * HOUR)}</dc:date></item>
</rdf:RDF>`;

const rssOf = (items: string) => `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://x.example/</link>${items}</channel></rss>`;
const SHARED_ITEM = `<item><title>Acme shared</title><link>https://shared.example/acme</link><guid>https://shared.example/acme</guid><pubDate>${rfc822(NOW - 9 * HOUR)}</pubDate></item>`;
const UNDATED = rssOf(`<item><title>Acme undated</title><link>https://undated.example/a</link></item>`);
const BLOG_PAGE = `<!doctype html><html><head><title>Blog</title>
<link rel="alternate" type="application/rss+xml" title="Feed" href="/rss.xml">
<link rel="alternate" type="application/atom+xml" href="atom.xml">
<link rel="alternate" type="application/json" href="/wp-json/wp/v2/pages/1">
<link rel="alternate" type="application/json+oembed" href="/oembed">
<link rel="stylesheet" href="/style.css">
</head><body>Hello</body></html>`;

interface Site {
  readonly url: string;
  readonly hits: string[];
  readonly headers: http.IncomingHttpHeaders[];
  inFlightMax: number;
  close(): Promise<void>;
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

async function startSite(routes: Readonly<Record<string, Route>>): Promise<Site> {
  let inFlight = 0;
  const site: Site = {
    url: '',
    hits: [],
    headers: [],
    inFlightMax: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    site.hits.push(req.url ?? '/');
    site.headers.push(req.headers);
    inFlight++;
    site.inFlightMax = Math.max(site.inFlightMax, inFlight);
    res.on('close', () => inFlight--);
    const route = routes[path];
    if (route) await route(req, res);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  (site as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return site;
}

const send = (type: string, body: string, headers: Record<string, string> = {}): Route => (_req, res) => void res.writeHead(200, { 'content-type': type, ...headers }).end(body);
const slow = (body: string): Route => async (_req, res) => {
  await new Promise((r) => setTimeout(r, 30));
  res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(body);
};

describe('pipeline/clients/social/feeds', () => {
  let main: Site;
  let bare: Site;
  let fetcher: HttpFetcher;
  let clock = NOW;
  let connector: FeedsConnector;
  const fresh = () => new FeedsConnector({ fetcher, now: () => clock });
  const query = (feeds: string[], sites: string[] = [], extra: Partial<CollectQuery> = {}): CollectQuery => ({ terms: ['acme'], sinceMs: SINCE, limit: 100, timeoutMs: 5000, sources: { feeds, sites }, ...extra });
  const at = (site: Site, path: string) => `${site.url}${path}`;

  beforeAll(async () => {
    main = await startSite({
      '/rss.xml': send('application/rss+xml; charset=utf-8', RSS),
      '/atom.xml': send('application/atom+xml', ATOM),
      '/feed.json': send('application/feed+json', JSON_FEED),
      '/rdf.xml': send('application/rdf+xml', RDF),
      '/blog/': send('text/html; charset=utf-8', BLOG_PAGE),
      '/blog/atom.xml': send('application/atom+xml', ATOM),
      '/dup-a.xml': send('text/xml', rssOf(SHARED_ITEM)),
      '/dup-b.xml': send('text/xml', rssOf(SHARED_ITEM)),
      '/undated.xml': send('text/xml', UNDATED),
      '/etag.xml': (req, res) => {
        if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
        res.writeHead(200, { 'content-type': 'application/rss+xml', etag: '"v1"', 'last-modified': rfc822(NOW - HOUR) }).end(rssOf(SHARED_ITEM));
      },
      '/broken.xml': send('text/xml', '<html><body>Oops, a login page</body></html>'),
      '/500.xml': (_req, res) => void res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>boom</h1>'),
      '/to-private.xml': (_req, res) => void res.writeHead(302, { location: 'http://10.0.0.1/feed.xml' }).end(),
      '/huge.xml': send('text/xml', rssOf(`<item><title>acme</title><description>${'x'.repeat(5 * 1024 * 1024 + 10)}</description></item>`)),
      '/many.xml': slow(rssOf(SHARED_ITEM)),
    });
    bare = await startSite({
      '/': send('text/html', '<!doctype html><title>No feeds here</title><p>hi</p>'),
      '/feed.xml': send('text/xml', RDF),
    });
    fetcher = new HttpFetcher({ guard: new NetGuard({ allowPrivate: false, allowCidrs: ['127.0.0.1'] }), retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  });
  afterAll(async () => {
    fetcher?.close();
    await Promise.all([main?.close(), bare?.close()]);
  });
  beforeEach(() => {
    clock = NOW;
    connector = fresh();
    for (const site of [main, bare]) {
      site.hits.length = 0;
      site.headers.length = 0;
      site.inFlightMax = 0;
    }
  });

  it('answers no posts and a warning when the watch names no feed and no site', async () => {
    expect(await connector.collect(query([]))).toEqual({ posts: [], source: 'feeds', warnings: ['no feeds or sites on the watch'] });
    expect(await connector.collect({ terms: ['acme'], sinceMs: SINCE, limit: 10, timeoutMs: 1000 })).toMatchObject({ posts: [], warnings: ['no feeds or sites on the watch'] });
    expect(connector.notConfigured).toBeNull();
    expect(connector.platform).toBe('feeds');
  });

  it('reads RSS 2.0: content:encoded as text, dc:creator, RFC 822 dates, the channel language; matches terms, drops old items', async () => {
    const { posts, source, warnings } = await connector.collect(query([at(main, '/rss.xml')]));
    expect(source).toBe('feeds');
    expect(warnings).toEqual([]);
    expect(posts).toHaveLength(2); // "Unrelated news" does not match, "Acme 1.0" is older than since
    expect(posts[0]).toEqual({
      platform: 'feeds',
      externalId: 'https://weekly.example/posts/acme-2',
      url: 'https://weekly.example/posts/acme-2',
      author: 'Alice',
      title: 'Acme Scraper 2.0 & friends',
      text: 'We tried Acme on 10 sites.\nIt worked.',
      publishedAtMs: NOW - HOUR,
      lang: 'en-us',
    });
    // A guid that is not a permalink: unique in its feed only, so the id is qualified by the feed; the URL is the channel's.
    expect(posts[1]).toMatchObject({ title: 'ACME tips', author: 'bob@weekly.example (Bob)', url: 'https://weekly.example/', text: 'Three tips for acme users.', publishedAtMs: NOW - 3 * HOUR });
    expect(posts[1]?.externalId).toMatch(/^feed:[0-9a-f]{32}$/);
    expect(main.headers[0]?.['user-agent']).toMatch(/^web-data-service\//);
    expect(main.headers[0]?.accept).toContain('application/rss+xml');
  });

  it('reads Atom (links resolved, html and xhtml content, xml:lang), JSON Feed 1.1 and RSS 1.0', async () => {
    const { posts, warnings } = await connector.collect(query([at(main, '/atom.xml'), at(main, '/feed.json'), at(main, '/rdf.xml')]));
    expect(warnings).toEqual([]);
    expect(posts.map((p) => p.title)).toEqual(['Acme im Test', 'xhtml entry', 'Acme en JSON', null, 'Acme in RDF']);
    expect(posts[0]).toEqual({
      platform: 'feeds',
      externalId: 'tag:blog.example,2026:1',
      url: `${main.url}/blog/acme-im-test`,
      author: 'Carol',
      title: 'Acme im Test',
      text: 'Acme funktioniert.',
      publishedAtMs: NOW - 4 * HOUR,
      lang: 'de',
    });
    expect(posts[1]).toMatchObject({ author: 'Feed Author', text: 'Acme in XHTML.\nSecond.', lang: 'en', publishedAtMs: NOW - 5 * HOUR, url: 'https://blog.example/x' });
    expect(posts[2]).toEqual({ platform: 'feeds', externalId: 'https://json.example/1', url: 'https://json.example/1', author: 'Dan', title: 'Acme en JSON', text: 'Bonjour Acme', publishedAtMs: NOW - 6 * HOUR, lang: 'fr' });
    expect(posts[3]).toMatchObject({ author: 'Feed Team', text: 'acme without a title', url: 'https://json.example/', lang: 'en', publishedAtMs: NOW - 7 * HOUR });
    expect(posts[3]?.externalId).toMatch(/^feed:/);
    expect(posts[4]).toMatchObject({ externalId: 'https://rdf.example/acme', author: 'Eve', text: 'RSS 1.0 item', lang: 'ja', publishedAtMs: NOW - 8 * HOUR });
  });

  it('discovers feeds from a page’s alternate links, resolved against the page, and reuses the discovery for an hour', async () => {
    const first = await connector.collect(query([], [at(main, '/blog/')]));
    expect(first.warnings).toEqual([]);
    expect(first.posts.map((p) => p.title)).toEqual(['Acme Scraper 2.0 & friends', 'ACME tips', 'Acme im Test', 'xhtml entry']);
    // The plain JSON alternate is not read when feeds of a feed type are named; the two feeds are read in parallel.
    expect(main.hits[0]).toBe('/blog/');
    expect(main.hits.slice(1).sort()).toEqual(['/blog/atom.xml', '/rss.xml']);
    main.hits.length = 0;
    clock = NOW + 30 * 60_000;
    await connector.collect(query([], [at(main, '/blog/')]));
    expect(main.hits.sort()).toEqual(['/blog/atom.xml', '/rss.xml']);
    main.hits.length = 0;
    clock = NOW + 61 * 60_000;
    await connector.collect(query([], [at(main, '/blog/')]));
    expect(main.hits[0]).toBe('/blog/');
  });

  it('probes the common paths of a site without alternate links, stops at the first feed, and reads it once', async () => {
    const { posts, warnings } = await connector.collect(query([], [`${bare.url}/`]));
    expect(warnings).toEqual([]);
    expect(posts.map((p) => p.externalId)).toEqual(['https://rdf.example/acme']);
    expect(bare.hits).toEqual(['/', '/feed', '/rss.xml', '/atom.xml', '/feed.xml']);
  });

  it('a site URL that is itself a feed is its own feed', async () => {
    const { posts } = await connector.collect(query([], [at(main, '/feed.json')]));
    expect(posts.map((p) => p.title)).toEqual(['Acme en JSON', null]);
    expect(main.hits).toEqual(['/feed.json']);
  });

  it('sends the remembered ETag and Last-Modified; a 304 answers the posts the feed gave last time, which `since` then filters', async () => {
    const first = await connector.collect(query([at(main, '/etag.xml')]));
    expect(first.posts.map((p) => p.externalId)).toEqual(['https://shared.example/acme']);
    expect(main.headers[0]?.['if-none-match']).toBeUndefined();
    const second = await connector.collect(query([at(main, '/etag.xml')]));
    expect(main.headers[1]?.['if-none-match']).toBe('"v1"');
    expect(main.headers[1]?.['if-modified-since']).toBe(rfc822(NOW - HOUR));
    // Another watch's collection: the unchanged feed still holds its match.
    expect(second.posts.map((p) => p.externalId)).toEqual(['https://shared.example/acme']);
    const later = await connector.collect(query([at(main, '/etag.xml')], [], { sinceMs: NOW - HOUR }));
    expect(later.posts).toEqual([]);
    expect(main.hits).toHaveLength(3);
  });

  it('dates an undated item when first seen and answers it once', async () => {
    const first = await connector.collect(query([at(main, '/undated.xml')]));
    expect(first.posts.map((p) => p.publishedAtMs)).toEqual([NOW]);
    clock = NOW + HOUR;
    const second = await connector.collect(query([at(main, '/undated.xml')], [], { sinceMs: NOW }));
    expect(second.posts).toEqual([]);
  });

  it('a broken, failing, oversized or private-address feed is a warning naming it; the others answer', async () => {
    const feeds = ['/broken.xml', '/500.xml', '/to-private.xml', '/huge.xml', '/rdf.xml'].map((p) => at(main, p));
    const { posts, warnings } = await connector.collect(query([...feeds.slice(0, 4), `${feeds[4]}?token=secret#frag`]));
    expect(posts.map((p) => p.externalId)).toEqual(['https://rdf.example/acme']);
    expect(warnings).toEqual([
      `feed ${main.url}/broken.xml: not a feed (no RSS, Atom or JSON Feed could be read)`,
      `feed ${main.url}/500.xml: HTTP 500`,
      `feed ${main.url}/to-private.xml: url_blocked`,
      `feed ${main.url}/huge.xml: content_too_large`,
    ]);
    expect(main.hits.filter((h) => h.startsWith('/rdf.xml'))).toEqual(['/rdf.xml?token=secret']);
  });

  it('fails with `unavailable` when no feed at all could be read', async () => {
    const error = await connector.collect(query([at(main, '/broken.xml'), at(main, '/500.xml')], [`${main.url}/nowhere/`])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ service: 'feeds', kind: 'unavailable' });
    expect((error as Error).message).toContain('/500.xml: HTTP 500');
    expect((error as Error).message).toContain(`site ${main.url}/nowhere/: HTTP 404`);
  });

  it('matches terms case-insensitively as plain text, newest first, at most `limit`', async () => {
    const feeds = [at(main, '/rss.xml'), at(main, '/atom.xml'), at(main, '/feed.json')];
    const two = await connector.collect(query(feeds, [], { limit: 2 }));
    expect(two.posts.map((p) => p.publishedAtMs)).toEqual([NOW - HOUR, NOW - 3 * HOUR]);
    const pattern = await connector.collect(query(feeds, [], { terms: ['ac.e', 'UNRELATED'] }));
    expect(pattern.posts.map((p) => p.title)).toEqual(['Unrelated news']);
    const phrase = await connector.collect(query(feeds, [], { terms: ['BONJOUR acme'] }));
    expect(phrase.posts.map((p) => p.title)).toEqual(['Acme en JSON']);
  });

  it('answers an item two feeds list once', async () => {
    const { posts } = await connector.collect(query([at(main, '/dup-a.xml'), at(main, '/dup-b.xml'), `${main.url}/dup-a.xml#again`]));
    expect(posts.map((p) => p.externalId)).toEqual(['https://shared.example/acme']);
    expect(main.hits).toHaveLength(2);
  });

  it(`reads at most ${MAX_FEEDS} feeds, 5 at a time`, async () => {
    const feeds = Array.from({ length: 25 }, (_, i) => at(main, `/many.xml?n=${i}`));
    const { posts, warnings } = await connector.collect(query(feeds));
    expect(posts).toHaveLength(1);
    expect(warnings).toEqual([`25 feeds: the first ${MAX_FEEDS} were read.`]);
    expect(main.hits).toHaveLength(MAX_FEEDS);
    expect(main.inFlightMax).toBeLessThanOrEqual(5);
    expect(main.inFlightMax).toBeGreaterThan(1);
  });
});

describe('pipeline/clients/social/feeds-parse', () => {
  it('is not a feed: HTML, JSON that is not a JSON Feed, text', () => {
    expect(parseFeed('<!doctype html><html><body>x</body></html>', 'https://a.example/')).toBeNull();
    expect(parseFeed('{"version":"1","items":[]}', 'https://a.example/')).toBeNull();
    expect(parseFeed('{not json', 'https://a.example/')).toBeNull();
    expect(parseFeed('just text', 'https://a.example/')).toBeNull();
    expect(parseFeed('\uFEFF  <rss><channel></channel></rss>', 'https://a.example/')).toEqual({ format: 'rss', link: null, items: [] });
  });

  it('reads RFC 822 and RFC 3339 times; refuses unreadable and far-future ones', () => {
    expect(feedTime('Tue, 10 Jun 2003 04:00:00 GMT', NOW)).toBe(Date.UTC(2003, 5, 10, 4));
    expect(feedTime('Tue, 10 Jun 2003 04:00:00 +0200', NOW)).toBe(Date.UTC(2003, 5, 10, 2));
    expect(feedTime('2003-06-10T04:00:00-01:00', NOW)).toBe(Date.UTC(2003, 5, 10, 5));
    expect(feedTime('2003-06-10', NOW)).toBe(Date.UTC(2003, 5, 10));
    expect(feedTime('soon', NOW)).toBeNull();
    expect(feedTime(iso(NOW + 72 * HOUR), NOW)).toBeNull();
  });

  it('finds alternate feed links; a plain JSON alternate only when no feed type is named', () => {
    expect(feedLinks(BLOG_PAGE, 'https://b.example/blog/')).toEqual(['https://b.example/rss.xml', 'https://b.example/blog/atom.xml']);
    expect(feedLinks('<link rel="Alternate Feed" type="application/json" href="/f.json"><link rel=alternate type="text/html" href="/x">', 'https://b.example/')).toEqual(['https://b.example/f.json']);
    expect(feedLinks('<link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">', 'https://b.example/')).toEqual([]);
  });

  it('keeps globally unique ids, qualifies the others by the feed', () => {
    const item = { id: 'urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a', link: null, title: 'x', author: null, publishedAtMs: null, updatedAtMs: null, text: '', summary: null, lang: null };
    expect(externalIdOf('https://a.example/feed', item)).toBe(item.id);
    const local = { ...item, id: '42' };
    expect(externalIdOf('https://a.example/feed', local)).not.toBe(externalIdOf('https://b.example/feed', local));
    expect(externalIdOf('https://a.example/feed', { ...item, id: 'Note: a title' })).toMatch(/^feed:/);
  });
});
