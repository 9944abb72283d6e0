/**
 * Child process for bench/crawl.ts: two generated sites on 127.0.0.1, built once at start so
 * serving a page is a buffer write (the same cost for whichever crawler asks).
 *
 *   crawl site  CRAWL_SITE_PAGES pages (default 10,000): `/` and `/page/<i>` for 1 ≤ i < n.
 *               Each is a whole article page (~3 KB of text in a few paragraphs, a list, now
 *               and then a table; head with meta, inline style and script; header nav,
 *               related links, footer with external links), ~5 KB of HTML. Pages form a tree
 *               of fan-out `fanout(n)` (the smallest that reaches every page within 3 links of
 *               `/`, the crawl API's default maxDepth), and each page also links home, to its
 *               parent, to the first sections and to five others spread over the site, so
 *               every page is reachable by following links and no link leads outside the n
 *               pages (besides the external footer links). robots.txt allows everything and
 *               names no sitemap; `/sitemap.xml` is a 404.
 *   map site    CRAWL_SITE_SITEMAP_URLS URLs (default 30,000): robots.txt names
 *               `/sitemap.xml`, a sitemap index of files of at most 10,000 `<url>`s with
 *               `<lastmod>`; the URLs are `/` and `/item/<j>`, each also a small HTML page
 *               linking to a few others, so a link walk finds nothing outside the sitemap.
 *
 * Reports `{port, mapPort, pages, fanout, sitemapUrls, htmlBytes}` over IPC, answers `cpu`,
 * `memory` and `{type: 'requests'}` (how many requests each site answered, and how many were
 * not 200), and stops on SIGTERM.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom as random } from '../seeded-random.js';
import { answerUsage } from './child.js';

const PAGES = Number(process.env.CRAWL_SITE_PAGES ?? 10_000);
const SITEMAP_URLS = Number(process.env.CRAWL_SITE_SITEMAP_URLS ?? 30_000);
const URLS_PER_SITEMAP = 10_000;
const MAX_DEPTH = 3;

/** The smallest tree fan-out that puts `n` pages within MAX_DEPTH links of the root. */
export function fanout(n: number): number {
  for (let k = 2; ; k++) {
    let reach = 0;
    for (let d = 0, level = 1; d <= MAX_DEPTH; d++, level *= k) reach += level;
    if (reach >= n) return k;
  }
}


const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there ' +
  'been one all we their has would when if so no will more can said about what up out into them than some could other time these two may ' +
  'then do first any my now such like our over man me even most made after also did many before must through back years where much your ' +
  'way well down should because each just those people how too little state good very make world still own see men work long get here ' +
  'between both life being under never day same another know while last might us great old year off come since against go came right ' +
  'used take three system program market water company research analysis report energy policy network service customer product design ' +
  'development community project software data model process city council river mountain history museum garden library festival harbor'
).split(' ');

function sentence(next: () => number): string {
  const n = 8 + Math.floor(next() * 14);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(next() * WORDS.length)] as string);
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function paragraph(next: () => number): string {
  const n = 4 + Math.floor(next() * 4);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(sentence(next));
  return out.join(' ');
}

const pathOf = (i: number) => (i === 0 ? '/' : `/page/${i}`);
const titleOf = (i: number, next: () => number) =>
  i === 0 ? 'Home' : `${sentence(next).slice(0, 40).replace(/\.$/, '').trim()} (${i})`;

/** Page i of the crawl site: links to its tree children, parent, home, sections and five others. */
function crawlPage(i: number, n: number, k: number): string {
  const next = random(i + 1);
  const title = titleOf(i, next);
  const link = (j: number, text: string) => `<a href="${pathOf(j)}">${text}</a>`;
  const sections = Array.from({ length: Math.min(8, n - 1) }, (_, s) => `<li>${link(s + 1, `Section ${s + 1}`)}</li>`).join('');
  const children: string[] = [];
  for (let c = i * k + 1; c <= i * k + k && c < n; c++) children.push(`<li>${link(c, `Article ${c}`)}</li>`);
  const related: string[] = [];
  for (let r = 1; r <= 5 && n > 1; r++) {
    const j = (i * 7919 + r * 104729) % n;
    related.push(`<li>${link(j, sentence(next).slice(0, 30))}</li>`);
  }
  const parent = i === 0 ? 0 : Math.floor((i - 1) / k);
  const body: string[] = [];
  const paragraphs = 4 + Math.floor(next() * 3);
  for (let p = 0; p < paragraphs; p++) {
    if (p === 2) body.push(`<h2>${sentence(next).slice(0, 50)}</h2>`);
    body.push(`<p>${paragraph(next)}</p>`);
    if (p === 1) body.push(`<ul>${Array.from({ length: 4 }, () => `<li>${sentence(next)}</li>`).join('')}</ul>`);
  }
  if (i % 4 === 0) {
    const rows = Array.from({ length: 4 }, (_, r) => `<tr><td>${WORDS[(i + r) % WORDS.length]}</td><td>${(i * 31 + r * 17) % 1000}</td><td>${sentence(next).slice(0, 24)}</td></tr>`);
    body.push(`<table><thead><tr><th>Name</th><th>Value</th><th>Note</th></tr></thead><tbody>${rows.join('')}</tbody></table>`);
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><meta name="description" content="${sentence(next)}">
<style>body{font-family:system-ui,sans-serif;margin:0 auto;max-width:60rem;line-height:1.5}header,footer{padding:1rem;background:#f4f4f4}nav a{margin-right:1rem}aside{font-size:.9rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem}</style>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config','G-BENCH${i % 97}');</script>
</head><body>
<header><a class="logo" href="/">Bench Site</a><nav><ul>${sections}</ul></nav></header>
<main><article><h1>${title}</h1><p class="byline">By ${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]} · ${1 + (i % 28)} March 2024 · ${link(parent, 'Up')}</p>
${body.join('\n')}
</article>
<aside><h2>Related</h2><ul>${related.join('')}</ul></aside>
${children.length ? `<section class="children"><h2>In this section</h2><ul>${children.join('')}</ul></section>` : ''}
</main>
<footer><p>© 2024 Bench Site. ${sentence(next)}</p><ul><li><a href="https://example.com/privacy">Privacy</a></li><li><a href="https://example.org/terms">Terms</a></li><li><a href="/">Home</a></li></ul></footer>
<script>document.querySelectorAll('nav a').forEach(function(a){a.addEventListener('click',function(){gtag('event','nav')})});</script>
</body></html>
`;
}

function mapItemPath(j: number): string {
  return j === 0 ? '/' : `/item/${j}`;
}

function mapPage(j: number, m: number): string {
  const links = Array.from({ length: 6 }, (_, r) => (j * 31 + r * 977 + 1) % m)
    .map((x) => `<li><a href="${mapItemPath(x)}">Item ${x}</a></li>`)
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Item ${j}</title></head><body><h1>Item ${j}</h1><p>${paragraph(random(j + 7))}</p><ul>${links}</ul></body></html>\n`;
}

function sitemaps(origin: string, m: number): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const count = Math.ceil(m / URLS_PER_SITEMAP);
  const index = Array.from({ length: count }, (_, f) => `<sitemap><loc>${origin}/sitemap-${f + 1}.xml</loc><lastmod>2024-03-01</lastmod></sitemap>`);
  files.set(
    '/sitemap.xml',
    Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${index.join('\n')}\n</sitemapindex>\n`),
  );
  for (let f = 0; f < count; f++) {
    const urls: string[] = [];
    for (let j = f * URLS_PER_SITEMAP; j < Math.min(m, (f + 1) * URLS_PER_SITEMAP); j++) {
      urls.push(`<url><loc>${origin}${mapItemPath(j)}</loc><lastmod>2024-03-${String(1 + (j % 28)).padStart(2, '0')}</lastmod></url>`);
    }
    files.set(
      `/sitemap-${f + 1}.xml`,
      Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`),
    );
  }
  return files;
}

interface Counts {
  requests: number;
  notOk: number;
}

function listen(handler: (path: string) => { status: number; type: string; body: Buffer | string }, counts: Counts): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    counts.requests++;
    const path = (req.url ?? '/').split('?')[0] as string;
    const { status, type, body } = handler(path);
    if (status !== 200) counts.notOk++;
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const HTML = 'text/html; charset=utf-8';
const notFound = { status: 404, type: 'text/plain', body: 'not found' };

const k = fanout(PAGES);
const pages = Array.from({ length: PAGES }, (_, i) => Buffer.from(crawlPage(i, PAGES, k)));
const htmlBytes = pages.reduce((sum, p) => sum + p.length, 0);
const crawlCounts: Counts = { requests: 0, notOk: 0 };
const crawlServer = await listen((path) => {
  if (path === '/robots.txt') return { status: 200, type: 'text/plain', body: 'User-agent: *\nAllow: /\n' };
  const i = path === '/' ? 0 : Number(/^\/page\/(\d+)$/.exec(path)?.[1] ?? NaN);
  const page = Number.isInteger(i) && i > 0 === (path !== '/') ? pages[i] : undefined;
  return page ? { status: 200, type: HTML, body: page } : notFound;
}, crawlCounts);

const mapCounts: Counts = { requests: 0, notOk: 0 };
let mapFiles = new Map<string, Buffer>();
let mapOrigin = '';
const mapServer = await listen((path) => {
  if (path === '/robots.txt') return { status: 200, type: 'text/plain', body: `User-agent: *\nAllow: /\nSitemap: ${mapOrigin}/sitemap.xml\n` };
  const file = mapFiles.get(path);
  if (file) return { status: 200, type: 'application/xml', body: file };
  const j = path === '/' ? 0 : Number(/^\/item\/(\d+)$/.exec(path)?.[1] ?? NaN);
  return Number.isInteger(j) && j < SITEMAP_URLS && j > 0 === (path !== '/') ? { status: 200, type: HTML, body: mapPage(j, SITEMAP_URLS) } : notFound;
}, mapCounts);
mapOrigin = `http://127.0.0.1:${(mapServer.address() as AddressInfo).port}`;
mapFiles = sitemaps(mapOrigin, SITEMAP_URLS);

process.on('message', (message: { type?: string }) => {
  if (message.type === 'requests') process.send?.({ crawl: { ...crawlCounts }, map: { ...mapCounts } });
});
process.once('SIGTERM', () => {
  crawlServer.close();
  mapServer.close();
  process.exit(0);
});
answerUsage();
process.send?.({
  port: (crawlServer.address() as AddressInfo).port,
  mapPort: (mapServer.address() as AddressInfo).port,
  pages: PAGES,
  fanout: k,
  sitemapUrls: SITEMAP_URLS,
  htmlBytes,
});
