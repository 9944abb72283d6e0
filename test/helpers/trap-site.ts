/**
 * A generated local site of about 2,000 pages with the traps real sites set for crawlers, for
 * the crawl tests (test/e2e/crawl-site.test.ts): a node:http server on 127.0.0.1 (a free
 * port), addressed as `http://127.0.0.1:PORT` (`site.origin`).
 *
 * Real pages (`site.pages`, REAL_PAGES of them), every one reachable by links from `/`:
 * - `/`: links to the sections, `/account/help;jsessionid=…`, `/search?q=zebra` (twice, under
 *   tracking parameters in another order), `/article/1…3` under `utm_*`, `fbclid` and
 *   `gclid`, the calendar, the redirect loops and the disallowed `/private/1…PRIVATE_LINKED`;
 * - `/section/K` (K < SECTIONS): links home and to its ARTICLES_PER_SECTION articles;
 * - `/article/N` (1 ≤ N ≤ ARTICLES): links home, its section, and the next articles (N+1…N+3,
 *   wrapping) only under session ids (`;jsessionid=`, `?PHPSESSID=`, `?sid=`) and tracking
 *   parameters (`utm_*`, `fbclid`, `gclid`) — fresh random values on every page view, so each
 *   view names the same pages under new URLs; and to `/section/K?sid=…`;
 * - `/account/help`: linked only with a session id (`;jsessionid=` from home, `?PHPSESSID=`
 *   and `?sid=` from articles), served whatever session the path or query carries;
 * - `/search?q=zebra`: a page with a real query parameter (other queries: 404).
 *
 * Sitemaps: robots.txt (`User-agent: *`, `Disallow: /private/`, `Sitemap:` the index) →
 * `/sitemap_index.xml` → `/sitemaps/articles-1.xml` (articles 1…ARTICLES/2 and the disallowed
 * `/private/listed`) and `/sitemaps/articles-2.xml.gz` (the other articles, gzip bytes served
 * as `application/x-gzip`, no Content-Encoding). `/sitemap.xml` is a 404. Sections, home and
 * the pages below are found by links only.
 *
 * Traps:
 * - an infinite calendar: `/calendar/Y/M` links the month before and after, forever (linked
 *   from home only, entering at CALENDAR_START);
 * - redirect loops: `/loop/a` → `/loop/b` → `/loop/a`; `/loop/self` → itself;
 *   `/loop/fragment` → itself with a fragment; `/loop/session` → itself with a new `?sid=` on
 *   every hop, never the same URL twice (LOOPS);
 * - session ids and tracking parameters, above;
 * - `/private/*` (disallowed; PRIVATE_LINKED linked from home, `/private/listed` in a sitemap)
 *   serve a page that links to `/private/deeper`.
 *
 * Every request is recorded in `site.requests` as the raw request target (path and query),
 * in order, so a test can tell what was (not) fetched. `delayMs` holds chosen answers back.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { listenLocal } from './listen.js';

export const SECTIONS = 20;
export const ARTICLES_PER_SECTION = 99;
export const ARTICLES = SECTIONS * ARTICLES_PER_SECTION;
/** The home page, the sections, the articles, `/account/help` and `/search?q=zebra`. */
export const REAL_PAGES = 1 + SECTIONS + ARTICLES + 2;
/** `/private/1`…`/private/N` are linked from home. */
export const PRIVATE_LINKED = 5;
/** The calendar page home links to. */
export const CALENDAR_START = { year: 2026, month: 11 };
/** The redirect loops home links to (each ends in `too_many_redirects`). */
export const LOOPS = ['/loop/a', '/loop/self', '/loop/fragment', '/loop/session'] as const;

export interface TrapSite {
  readonly origin: string;
  readonly port: number;
  /** Request targets (path and query, as sent), in order. */
  readonly requests: string[];
  /** The URL of every real page (absolute, clean), home first. */
  readonly pages: readonly string[];
  url(path: string): string;
  close(): Promise<void>;
}

export interface TrapSiteOptions {
  /** Milliseconds to hold the answer to a path back. */
  readonly delayMs?: (path: string) => number;
}

interface Answer {
  readonly status: number;
  readonly type?: string;
  readonly body?: string | Buffer;
  readonly location?: string;
}

const session = () => randomBytes(16).toString('hex');
const tracking = () => `utm_source=feed&utm_medium=rss&utm_campaign=c${randomBytes(3).toString('hex')}&fbclid=IwAR${randomBytes(8).toString('hex')}`;
const sectionOf = (n: number) => Math.floor((n - 1) / ARTICLES_PER_SECTION);
/** Article n + k, wrapping within 1…ARTICLES. */
const nextArticle = (n: number, k: number) => ((n - 1 + k) % ARTICLES) + 1;

function page(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
}

const html = (title: string, links: string[], text = ''): Answer => ({
  status: 200,
  type: 'text/html; charset=utf-8',
  body: page(title, `<nav>${links.join(' ')}</nav><p>${text || `${title}: a page of the trap fixture.`}</p>`),
});

function urlset(origin: string, paths: string[]): string {
  const entries = paths.map((p) => `  <url><loc>${origin}${p}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
}

function monthPath(year: number, month: number): string {
  return `/calendar/${year}/${month}`;
}

function answer(target: string, origin: string): Answer {
  const url = new URL(target, origin);
  // A `;jsessionid=…` path parameter names the same resource, as a servlet container reads it.
  const path = url.pathname.replace(/;[^/]*$/, '');
  const a = (href: string, text: string) => `<a href="${href}">${text}</a>`;

  if (path === '/robots.txt') {
    return { status: 200, type: 'text/plain', body: `# trap fixture\nUser-agent: *\nDisallow: /private/\n\nSitemap: ${origin}/sitemap_index.xml\n` };
  }
  if (path === '/sitemap_index.xml') {
    return {
      status: 200,
      type: 'application/xml',
      body:
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
        `  <sitemap><loc>${origin}/sitemaps/articles-1.xml</loc></sitemap>\n  <sitemap><loc>${origin}/sitemaps/articles-2.xml.gz</loc></sitemap>\n</sitemapindex>\n`,
    };
  }
  const half = ARTICLES / 2;
  if (path === '/sitemaps/articles-1.xml') {
    const paths = Array.from({ length: half }, (_, i) => `/article/${i + 1}`);
    return { status: 200, type: 'application/xml', body: urlset(origin, [...paths, '/private/listed']) };
  }
  if (path === '/sitemaps/articles-2.xml.gz') {
    const paths = Array.from({ length: ARTICLES - half }, (_, i) => `/article/${half + i + 1}`);
    return { status: 200, type: 'application/x-gzip', body: gzipSync(urlset(origin, paths)) };
  }

  if (path === '/') {
    const links = Array.from({ length: SECTIONS }, (_, k) => a(`/section/${k}`, `Section ${k}`));
    links.push(a(`/account/help;jsessionid=${session().toUpperCase()}`, 'Help'));
    links.push(a('/search?q=zebra&utm_source=home&utm_medium=nav', 'Search zebras'));
    links.push(a(`/search?gclid=${session()}&utm_campaign=spring&q=zebra`, 'Search zebras again'));
    links.push(a('/article/1?utm_source=newsletter&utm_medium=email', 'First'));
    links.push(a(`/article/2?fbclid=IwAR${session()}`, 'Second'));
    links.push(a(`/article/3?gclid=${session()}`, 'Third'));
    links.push(a(monthPath(CALENDAR_START.year, CALENDAR_START.month), 'Calendar'));
    for (const loop of LOOPS) links.push(a(loop, `Loop ${loop}`));
    for (let i = 1; i <= PRIVATE_LINKED; i++) links.push(a(`/private/${i}`, `Members ${i}`));
    return html('Trap fixture home', links);
  }
  let m = /^\/section\/(\d+)$/.exec(path);
  if (m && Number(m[1]) < SECTIONS) {
    const k = Number(m[1]);
    const links = [a('/', 'Home')];
    for (let j = 1; j <= ARTICLES_PER_SECTION; j++) {
      const n = k * ARTICLES_PER_SECTION + j;
      links.push(a(`/article/${n}`, `Article ${n}`));
    }
    return html(`Section ${k}`, links);
  }
  m = /^\/article\/(\d+)$/.exec(path);
  if (m && Number(m[1]) >= 1 && Number(m[1]) <= ARTICLES) {
    const n = Number(m[1]);
    const links = [
      a('/', 'Home'),
      a(`/section/${sectionOf(n)}?sid=${session()}`, 'Section'),
      a(`/article/${nextArticle(n, 1)};jsessionid=${session().toUpperCase()}`, 'Next'),
      a(`/article/${nextArticle(n, 2)}?PHPSESSID=${session()}`, 'After next'),
      a(`/article/${nextArticle(n, 3)}?${tracking()}`, 'Shared'),
      a(`/article/${nextArticle(n, 3)}?gclid=${session()}`, 'Advertised'),
      a(`/account/help?PHPSESSID=${session()}&sid=${session()}`, 'Help'),
    ];
    return html(`Article ${n}`, links, `Article ${n} of section ${sectionOf(n)}.`);
  }
  if (path === '/account/help') return html('Help', [a('/', 'Home')]);
  if (path === '/search' && url.searchParams.get('q') === 'zebra' && [...url.searchParams.keys()].every((k) => k === 'q' || k.startsWith('utm_') || k === 'gclid')) {
    return html('Zebra search', [a('/', 'Home')]);
  }
  m = /^\/calendar\/(\d+)\/(\d+)$/.exec(path);
  if (m) {
    const year = Number(m[1]);
    const month = Number(m[2]);
    if (month >= 1 && month <= 12) {
      const prev = month === 1 ? monthPath(year - 1, 12) : monthPath(year, month - 1);
      const next = month === 12 ? monthPath(year + 1, 1) : monthPath(year, month + 1);
      return html(`Calendar ${year}-${month}`, [a('/', 'Home'), a(prev, 'Previous month'), a(next, 'Next month')]);
    }
  }
  if (path === '/loop/a') return { status: 302, location: '/loop/b' };
  if (path === '/loop/b') return { status: 301, location: `${origin}/loop/a` };
  if (path === '/loop/self') return { status: 302, location: '/loop/self' };
  if (path === '/loop/fragment') return { status: 307, location: '/loop/fragment#again' };
  if (path === '/loop/session') return { status: 302, location: `/loop/session?sid=${session()}` };
  if (path.startsWith('/private/')) return html('Members only', [a('/private/deeper', 'Deeper')]);
  return { status: 404, type: 'text/html', body: page('Not found', 'nothing here') };
}

/** The clean URL of every real page, home first. */
function realPages(origin: string): string[] {
  return [
    `${origin}/`,
    ...Array.from({ length: SECTIONS }, (_, k) => `${origin}/section/${k}`),
    ...Array.from({ length: ARTICLES }, (_, i) => `${origin}/article/${i + 1}`),
    `${origin}/account/help`,
    `${origin}/search?q=zebra`,
  ];
}

export async function startTrapSite(options: TrapSiteOptions = {}): Promise<TrapSite> {
  const requests: string[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const target = req.url ?? '/';
    requests.push(target);
    const { status, type, body, location } = answer(target, origin);
    const bytes = body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(body);
    const respond = () => {
      if (res.destroyed) return;
      res.writeHead(status, { ...(type ? { 'content-type': type } : {}), ...(location ? { location } : {}), 'content-length': bytes.length });
      res.end(bytes);
    };
    const delay = options.delayMs?.(new URL(target, 'http://x').pathname) ?? 0;
    if (delay > 0) setTimeout(respond, delay).unref();
    else respond();
  });
  const local = await listenLocal(server);
  origin = local.origin;
  return { ...local, requests, pages: realPages(origin) };
}
