/**
 * A site spread over many hosts for the scaling bench and the faults-under-load test: host h
 * (1…hosts) is the loopback address 127.0.0.h (Linux routes all of 127.0.0.0/8 to the
 * loopback), every one served on the same port by one handler, so the crawler sees `hosts`
 * distinct hosts without a resolver of its own (IP literals: FETCH_ALLOW_PRIVATE=true).
 *
 * Its `pages` pages are shared out over the hosts (the first hosts take one more when they do
 * not divide): host h's `/` links to its own `/p/1` … `/p/(n-1)`; host 1's `/`, the start page,
 * also links to every other host's `/`. A crawl of `origin(1)/` with `allowExternalLinks`
 * reaches every page within 2 links. Each page answers after `delayMs(url)`: by default a
 * seeded draw in `delayRangeMs` ([100, 300] ms) per page, the same on every run; `bodyBytes` pads each page's
 * article text to about that many bytes (default 2,000), and `boilerplateBytes` adds markup
 * around it that main-content extraction drops, for a parser that has work to do.
 * robots.txt, sitemaps and anything else are 404 at once.
 *
 * `requests` logs each page request (not robots.txt or other 404s): its URL, when it came
 * and when its answer was sent (performance.timeOrigin-based epoch ms). `allUrls()` lists
 * every page the site has.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../bench/seeded-random.js';

export interface ScaleSiteOptions {
  readonly hosts: number;
  readonly pages: number;
  /** Each page's answer delay, ms (default: a seeded draw in `delayRangeMs`). */
  readonly delayMs?: (url: string) => number;
  /** The range of the default delays, ms, both ends included (default [100, 300]). */
  readonly delayRangeMs?: readonly [number, number];
  /** About how many bytes of article text each page carries (default 2,000). */
  readonly bodyBytes?: number;
  /**
   * About how many bytes of markup without links around the article (nested `div`s and
   * `span`s in an `aside`, default 0): work for a parser that main-content extraction drops,
   * so a page costs parsing without costing its store.
   */
  readonly boilerplateBytes?: number;
  /** Seed of the default delays (default 36). */
  readonly seed?: number;
}

export interface PageRequest {
  readonly url: string;
  readonly startMs: number;
  readonly endMs: number;
}

export interface ScaleSite {
  readonly port: number;
  readonly hosts: number;
  /** `http://127.0.0.<host>:<port>` */
  origin(host: number): string;
  /** The start page of a crawl: host 1's `/`. */
  readonly start: string;
  readonly requests: PageRequest[];
  allUrls(): string[];
  close(): Promise<void>;
}

/** Pages of each host: `pages` shared out, the first hosts taking the remainder. */
function pagesPerHost(hosts: number, pages: number): number[] {
  const base = Math.floor(pages / hosts);
  return Array.from({ length: hosts }, (_, i) => base + (i < pages % hosts ? 1 : 0));
}

/** A stable 32-bit hash of a string (FNV-1a), to seed each page's draw. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

const WORDS = ['crawl', 'scale', 'fetcher', 'parser', 'process', 'partition', 'latency', 'throughput', 'kafka', 'frontier', 'page', 'host'];

function boilerplate(seed: number, bytes: number): string {
  const next = seededRandom(seed);
  const blocks: string[] = [];
  let size = 0;
  while (size < bytes) {
    const cells = Array.from({ length: 8 }, () => `<div class="cell c${Math.floor(next() * 9)}"><span class="w">${WORDS[Math.floor(next() * WORDS.length)] as string}</span><span>${Math.floor(next() * 1000)}</span></div>`).join('');
    blocks.push(`<div class="row"><div class="inner">${cells}</div></div>`);
    size += cells.length + 50;
  }
  return blocks.length ? `<aside class="sidebar">${blocks.join('')}</aside>` : '';
}

function articleText(seed: number, bytes: number): string {
  const next = seededRandom(seed);
  const paragraphs: string[] = [];
  let size = 0;
  while (size < bytes) {
    const words = Array.from({ length: 60 }, () => WORDS[Math.floor(next() * WORDS.length)] as string).join(' ');
    paragraphs.push(`<p>${words}.</p>`);
    size += words.length + 8;
  }
  return paragraphs.join('\n');
}

export async function startScaleSite(options: ScaleSiteOptions): Promise<ScaleSite> {
  const { hosts } = options;
  if (!Number.isInteger(hosts) || hosts < 1 || hosts > 254) throw new RangeError('hosts must be 1…254 (127.0.0.1 … 127.0.0.254)');
  if (options.pages < hosts) throw new RangeError('pages must be at least hosts (each host has its `/`)');
  const counts = pagesPerHost(hosts, options.pages);
  const seed = options.seed ?? 36;
  const bodyBytes = options.bodyBytes ?? 2000;
  const boilerplateBytes = options.boilerplateBytes ?? 0;
  const [low, high] = options.delayRangeMs ?? [100, 300];
  const delayMs = options.delayMs ?? ((url: string) => low + Math.floor(seededRandom(fnv1a(url) ^ seed)() * (high - low + 1)));
  const requests: PageRequest[] = [];
  let port = 0;
  const origin = (host: number) => `http://127.0.0.${host}:${port}`;

  const pageHtml = (host: number, path: string): string | null => {
    const n = counts[host - 1] as number;
    const links: string[] = [];
    if (path === '/') {
      for (let i = 1; i < n; i += 1) links.push(`/p/${i}`);
      if (host === 1) for (let h = 2; h <= hosts; h += 1) links.push(`${origin(h)}/`);
    } else {
      const match = /^\/p\/(\d{1,6})$/.exec(path);
      const i = match ? Number(match[1]) : 0;
      if (i < 1 || i >= n) return null;
    }
    const title = `Host ${host} ${path}`;
    const list = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
    return `<!doctype html><html><head><title>${title}</title></head><body>${boilerplate(fnv1a(path), boilerplateBytes)}<main><article><h1>${title}</h1>${articleText(fnv1a(`${host}${path}`), bodyBytes)}</article><ul>${list}</ul></main></body></html>`;
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const startMs = performance.timeOrigin + performance.now();
    const host = Number((req.socket.localAddress ?? '').split('.').pop());
    const path = (req.url ?? '/').split('?')[0] as string;
    const html = host >= 1 && host <= hosts ? pageHtml(host, path) : null;
    if (html === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const url = `${origin(host)}${path}`;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      requests.push({ url, startMs, endMs: performance.timeOrigin + performance.now() });
    }, delayMs(url));
  };

  const servers: Server[] = [];
  const listen = async (server: Server, address: string, at: number) => {
    server.listen(at, address);
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([e]) => Promise.reject(e as Error))]);
  };
  for (let attempt = 0; ; attempt += 1) {
    const first = createServer(handler);
    await listen(first, '127.0.0.1', 0);
    port = (first.address() as AddressInfo).port;
    servers.push(first);
    try {
      for (let h = 2; h <= hosts; h += 1) {
        const server = createServer(handler);
        servers.push(server);
        await listen(server, `127.0.0.${h}`, port);
      }
      break;
    } catch (error) {
      // The port was taken on another address: close them all and draw another.
      await closeAll(servers.splice(0));
      if (attempt >= 5) throw error;
    }
  }

  return {
    port,
    hosts,
    origin,
    start: `${origin(1)}/`,
    requests,
    allUrls: () => counts.flatMap((n, i) => [`${origin(i + 1)}/`, ...Array.from({ length: n - 1 }, (_, k) => `${origin(i + 1)}/p/${k + 1}`)]),
    close: () => closeAll(servers),
  };
}

async function closeAll(servers: readonly Server[]): Promise<void> {
  await Promise.all(
    servers.map(async (server) => {
      if (!server.listening) return;
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    }),
  );
}
