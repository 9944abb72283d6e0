/**
 * A generated local web site for map (and later crawl) tests: a node:http server on
 * 127.0.0.1 (a free port), addressed as `http://localhost:PORT` (`site.origin`). 307 pages:
 *
 * - `/robots.txt`: `User-agent: *`, `Disallow: /private/`, `Sitemap: <origin>/sitemap_index.xml`;
 * - `/sitemap_index.xml`: a sitemap index naming `/sitemaps/pages-1.xml` (plain) and
 *   `/sitemaps/pages-2.xml.gz` (gzip bytes served as `application/x-gzip`, no
 *   Content-Encoding); `/sitemap.xml` is a 404;
 * - pages-1.xml: `/page/1`…`/page/150` and `/animals/zebra-facts`; `/page/120` has a Google
 *   News `<news:title>` (`NEWS_TITLE`), and an `<image:title>` that is not the page's;
 * - pages-2.xml.gz: `/page/151`…`/page/249` and `http://blog.localhost:PORT/post/1` (a
 *   subdomain; `*.localhost` does not resolve here, so it is never fetched);
 * - `/`: links to `/section/0`…`/section/4`, `/page/1`…`/page/10` (again with `utm_*`
 *   parameters, a fragment and a trailing slash: duplicates), `/private/area` (disallowed),
 *   `http://docs.localhost:PORT/guide` (a subdomain) and `http://127.0.0.1:PORT/elsewhere`
 *   (another host), `mailto:`;
 * - `/section/K` links to `/hidden/K/0`…`/hidden/K/9`: 50 pages no sitemap lists and the home
 *   page does not link, found only by walking; `/hidden/K/J` has the title `Hidden K-J`;
 * - `/private/area` links to `/secret/1` (reachable only through the disallowed page);
 * - `/page/N`, `/animals/zebra-facts`: small pages linking home.
 *
 * Every request is recorded in `site.requests` (its path), so a test can tell what was walked.
 * `startMapSite({robots: false, sitemaps: false})` serves the same pages without robots.txt
 * or sitemaps (both 404), `delayMs` holds chosen answers back; `startBareSite()` serves one
 * page with no links at all.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export const NEWS_TITLE = 'Breaking Zebra News';
/** The page pages-1.xml gives NEWS_TITLE (not linked from the home page, so not walked). */
export const NEWS_PAGE = 120;
export const SECTIONS = 5;
export const HIDDEN_PER_SECTION = 10;
/** `/page/1`…`/page/249` are listed by the sitemaps. */
export const SITEMAP_PAGES = 249;

export interface MapSite {
  readonly origin: string;
  readonly port: number;
  /** Paths requested, in order. */
  readonly requests: string[];
  url(path: string): string;
  close(): Promise<void>;
}

export interface MapSiteOptions {
  readonly robots?: boolean;
  readonly sitemaps?: boolean;
  /** Milliseconds to hold the answer to a path back (a slow sitemap, a hanging home page). */
  readonly delayMs?: (path: string) => number;
}

function page(title: string, body: string, description?: string): string {
  const meta = description ? `<meta name="description" content="${description}">` : '';
  return `<!doctype html><html><head><title>${title}</title>${meta}</head><body>${body}</body></html>`;
}

function urlset(entries: string[]): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n' +
    entries.join('\n') +
    '\n</urlset>\n'
  );
}

function routes(origin: string, port: number, options: MapSiteOptions): (path: string) => { status: number; type: string; body: string | Buffer } {
  const withRobots = options.robots ?? true;
  const withSitemaps = options.sitemaps ?? true;
  const loc = (path: string) => `  <url><loc>${origin}${path}</loc></url>`;
  const first = () => {
    const entries: string[] = [];
    for (let n = 1; n <= 150; n++) {
      if (n === NEWS_PAGE) {
        entries.push(
          `  <url><loc>${origin}/page/${n}</loc><image:image><image:loc>${origin}/img/${n}.png</image:loc><image:title>A striped picture</image:title></image:image>` +
            `<news:news><news:publication><news:name>Fixture</news:name><news:language>en</news:language></news:publication><news:title>${NEWS_TITLE}</news:title></news:news></url>`,
        );
      } else entries.push(loc(`/page/${n}`));
    }
    entries.push(loc('/animals/zebra-facts'));
    return urlset(entries);
  };
  const second = () => {
    const entries: string[] = [];
    for (let n = 151; n <= SITEMAP_PAGES; n++) entries.push(loc(`/page/${n}`));
    entries.push(`  <url><loc>http://blog.localhost:${port}/post/1</loc></url>`);
    return gzipSync(urlset(entries));
  };
  const home = () => {
    const links: string[] = [];
    for (let k = 0; k < SECTIONS; k++) links.push(`<a href="/section/${k}">Section ${k}</a>`);
    for (let n = 1; n <= 10; n++) links.push(`<a href="/page/${n}">Page ${n}</a>`);
    links.push('<a href="/page/1?utm_source=home&utm_medium=nav">Page 1 again</a>');
    links.push('<a href="/page/2/#top">Page 2 again</a>');
    links.push(`<a href="${origin.replace('localhost', 'LOCALHOST')}/page/3">Page 3 in capitals</a>`);
    links.push('<a href="/private/area">Members</a>');
    links.push(`<a href="http://docs.localhost:${port}/guide">Docs guide</a>`);
    links.push(`<a href="http://127.0.0.1:${port}/elsewhere">Elsewhere</a>`);
    links.push('<a href="mailto:team@example.com">Mail us</a>');
    return page('Map fixture home', `<nav>${links.join(' ')}</nav>`, 'The home of the map fixture');
  };
  return (path) => {
    if (path === '/robots.txt' && withRobots) {
      return { status: 200, type: 'text/plain', body: `# fixture\nUser-agent: *\nDisallow: /private/\n\nSitemap: ${origin}/sitemap_index.xml\n` };
    }
    if (path === '/sitemap_index.xml' && withSitemaps) {
      return {
        status: 200,
        type: 'application/xml',
        body:
          '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
          `  <sitemap><loc>${origin}/sitemaps/pages-1.xml</loc></sitemap>\n  <sitemap><loc>${origin}/sitemaps/pages-2.xml.gz</loc></sitemap>\n</sitemapindex>\n`,
      };
    }
    if (path === '/sitemaps/pages-1.xml' && withSitemaps) return { status: 200, type: 'application/xml', body: first() };
    if (path === '/sitemaps/pages-2.xml.gz' && withSitemaps) return { status: 200, type: 'application/x-gzip', body: second() };
    if (path === '/') return { status: 200, type: 'text/html; charset=utf-8', body: home() };
    let m = /^\/section\/(\d+)$/.exec(path);
    if (m && Number(m[1]) < SECTIONS) {
      const k = Number(m[1]);
      const links = Array.from({ length: HIDDEN_PER_SECTION }, (_, j) => `<li><a href="/hidden/${k}/${j}">Hidden ${k}-${j}</a></li>`);
      return { status: 200, type: 'text/html', body: page(`Section ${k}`, `<a href="/">Home</a><ul>${links.join('')}</ul>`) };
    }
    m = /^\/hidden\/(\d+)\/(\d+)$/.exec(path);
    if (m) return { status: 200, type: 'text/html', body: page(`Room ${m[1]}-${m[2]}`, '<a href="/">Home</a>', `Hidden page ${m[1]}-${m[2]}`) };
    if (path === '/private/area') return { status: 200, type: 'text/html', body: page('Members', '<a href="/secret/1">Secret</a>') };
    if (path === '/secret/1') return { status: 200, type: 'text/html', body: page('Secret', '<a href="/">Home</a>') };
    m = /^\/page\/(\d+)$/.exec(path);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= SITEMAP_PAGES) {
      const n = Number(m[1]);
      return { status: 200, type: 'text/html', body: page(`Page ${n}`, `<a href="/">Home</a> <a href="/page/${n + 1}">Next</a>`) };
    }
    if (path === '/animals/zebra-facts') return { status: 200, type: 'text/html', body: page('Stripes', '<a href="/">Home</a>') };
    return { status: 404, type: 'text/html', body: page('Not found', 'nothing here') };
  };
}

async function serve(
  answer: (path: string, origin: string, port: number) => { status: number; type: string; body: string | Buffer },
  delayMs: (path: string) => number = () => 0,
): Promise<MapSite> {
  const requests: string[] = [];
  let origin = '';
  let port = 0;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const { status, type, body } = answer(path, origin, port);
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const respond = () => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': type, 'content-length': bytes.length });
      res.end(bytes);
    };
    const delay = delayMs(path);
    if (delay > 0) setTimeout(respond, delay).unref();
    else respond();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  origin = `http://localhost:${port}`;
  return {
    origin,
    port,
    requests,
    url: (path) => `${origin}${path}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export async function startMapSite(options: MapSiteOptions = {}): Promise<MapSite> {
  let route: ReturnType<typeof routes> | null = null;
  return serve((path, origin, port) => (route ??= routes(origin, port, options))(path), options.delayMs);
}

/** One page with no links, no robots.txt and no sitemap. */
export async function startBareSite(): Promise<MapSite> {
  return serve((path) =>
    path === '/' ? { status: 200, type: 'text/html', body: page('Alone', '<p>Nothing links anywhere.</p>') } : { status: 404, type: 'text/plain', body: 'not found' },
  );
}
