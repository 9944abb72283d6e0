/**
 * Local web sites for the fetcher tests: a node:http server on 127.0.0.1 (a free port) with
 * the routes the tests need, and a tiny forwarding HTTP proxy. Nothing here touches the
 * network beyond loopback.
 *
 * Routes of `startFixtureSite()`:
 * - `/html` a small UTF-8 page; `/echo` answers the request headers as JSON (`headers`, and
 *   `rawHeaders` with their names as sent);
 * - encodings: `/cp1251` (declared by header), `/sjis` (declared only by `<meta charset>`),
 *   `/latin1` (ISO-8859-1 declared by http-equiv), `/utf8-bom` (UTF-8 BOM, no charset anywhere);
 * - `/redirect/chain` 301 → `/redirect/step2` 302 → `/html`; `/redirect/loop-a` ↔ `loop-b`;
 *   `/redirect/many?n=N` N hops then a page; `/redirect/to?url=U` 302 to U; `/redirect/self`
 *   302 to itself;
 * - cookies: `/cookie/gate` a consent gate (without `consent=1` it sets it and redirects to
 *   itself; with it, GATED_PAGE); `/cookie/chain/a` sets `session` (Path=/) and `narrow`
 *   (Path=/cookie/chain/a) → `/cookie/chain/b` → `/cookie/chain/c`, GATED_PAGE with the
 *   session, else 403; `/cookie/always` sets `n=1` and redirects to itself, forever;
 *   `/cookie/counter` sets `n` one higher than the request's and redirects to itself;
 *   `/cookie/set?c=C&c=…&to=U` sets each C (a Set-Cookie line) and redirects to U (no `to`:
 *   a 200 page);
 * - `/status/<code>` a page with that status;
 * - `/big?mb=N` N MiB with Content-Length; `/big-chunked?mb=N` N MiB streamed without one
 *   (`site.streams` records how many bytes each stream wrote and whether the client hung up);
 * - `/slow?ms=N` headers at once, body after N ms; `/slow-headers?ms=N` nothing for N ms;
 * - `/gzip`, `/br`, `/deflate` compressed pages; `/pdf`, `/png`, `/no-type`, `/binary-no-type`;
 * - `/flaky?key=K&fail=N` destroys the first N connections for K, then answers;
 * - `/image.png` BINARY_IMAGE: 96 KiB that are not UTF-8 (every byte value), as image/png;
 * - `/links` LINKS_PAGE: links to other domains (LINKED_DOMAINS), to itself and to nothing.
 * Every request is recorded in `site.requests` (path and headers).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';

export interface RecordedRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
}

export interface StreamRecord {
  written: number;
  aborted: boolean;
  finished: boolean;
}

export interface FixtureSite {
  readonly origin: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  readonly streams: StreamRecord[];
  url(path: string): string;
  close(): Promise<void>;
}

export const PAGE = '<!doctype html><html><head><title>Fixture</title></head><body><h1>Hello fixture</h1></body></html>';
/** What the cookie gates answer once the cookie is there. */
export const GATED_PAGE = '<!doctype html><html><head><title>Gated</title></head><body><h1>Past the consent gate</h1><p>The page behind the cookie.</p></body></html>';
/** The domains LINKS_PAGE links to (as the link graph files them), besides its own links. */
export const LINKED_DOMAINS = ['example.org', 'example.net'] as const;
export const LINKS_PAGE =
  '<!doctype html><html><head><title>Links</title></head><body><h1>Further reading</h1><p>' +
  '<a href="https://docs.example.org/guide#start">the guide</a>, <a href="https://www.example.org/">its home</a>, ' +
  '<a href="http://example.net/about">another site</a>, <a href="/html">this site</a> and <a href="mailto:a@example.org">mail</a>.</p></body></html>';
export const CYRILLIC = 'Привет, мир! Съешь же ещё этих мягких французских булок.';
export const JAPANESE = 'こんにちは世界。日本語のページです。';
export const LATIN1 = 'Café crème, naïve façade, Ångström, ½ £ ©';

const MIB = 1024 * 1024;

/** A PNG signature followed by every byte value in a fixed pseudo-random order: 96 KiB, not UTF-8. */
export const BINARY_IMAGE: Buffer = (() => {
  const bytes = Buffer.alloc(96 * 1024);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  let x = 0x2545f491;
  for (let i = 8; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = i % 256 === 0 ? 0xff : x & 0xff;
  }
  return bytes;
})();

function html(body: string, head = ''): string {
  return `<!doctype html><html><head>${head}<title>t</title></head><body><p>${body}</p></body></html>`;
}

function send(res: http.ServerResponse, status: number, type: string | null, body: Buffer | string, extra: http.OutgoingHttpHeaders = {}): void {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const headers: http.OutgoingHttpHeaders = { 'content-length': bytes.length, ...extra };
  if (type !== null) headers['content-type'] = type;
  res.writeHead(status, headers);
  res.end(bytes);
}

/** The request's cookies by name (the first of a name wins). */
function requestCookies(req: http.IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    if (at > 0 && !out.has(name)) out.set(name, pair.slice(at + 1).trim());
  }
  return out;
}

/** Writes `total` bytes of filler in 64 KiB chunks, respecting backpressure. */
function stream(res: http.ServerResponse, total: number, record: StreamRecord): void {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  res.on('close', () => {
    if (!record.finished) record.aborted = true;
  });
  const pump = () => {
    while (record.written < total) {
      const n = Math.min(chunk.length, total - record.written);
      record.written += n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
    }
    record.finished = true;
    res.end();
  };
  pump();
}

export async function startFixtureSite(host = '127.0.0.1'): Promise<FixtureSite> {
  const requests: RecordedRequest[] = [];
  const streams: StreamRecord[] = [];
  const flaky = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    requests.push({ path: url.pathname + url.search, headers: req.headers });
    const n = (name: string, fallback: number) => Number(url.searchParams.get(name) ?? fallback);
    const path = url.pathname;
    if (path === '/html') return send(res, 200, 'text/html; charset=utf-8', PAGE);
    if (path === '/links') return send(res, 200, 'text/html; charset=utf-8', LINKS_PAGE);
    if (path === '/echo') return send(res, 200, 'application/json', JSON.stringify({ headers: req.headers, rawHeaders: req.rawHeaders }));
    if (path === '/cp1251') return send(res, 200, 'text/html; charset=windows-1251', iconv.encode(html(CYRILLIC), 'windows-1251'));
    if (path === '/sjis') return send(res, 200, 'text/html', iconv.encode(html(JAPANESE, '<meta charset="shift_jis">'), 'shift_jis'));
    if (path === '/latin1') {
      const head = '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">';
      return send(res, 200, 'text/html', iconv.encode(html(LATIN1, head), 'latin1'));
    }
    if (path === '/utf8-bom') return send(res, 200, 'text/html', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html(CYRILLIC))]));
    if (path === '/redirect/chain') return send(res, 301, 'text/plain', 'moved', { location: '/redirect/step2' });
    if (path === '/redirect/step2') return send(res, 302, 'text/plain', 'found', { location: `http://${host}:${port}/html` });
    if (path === '/redirect/loop-a') return send(res, 302, 'text/plain', '', { location: '/redirect/loop-b' });
    if (path === '/redirect/loop-b') return send(res, 302, 'text/plain', '', { location: '/redirect/loop-a' });
    if (path === '/redirect/many') {
      const left = n('n', 1);
      return left <= 0 ? send(res, 200, 'text/html', PAGE) : send(res, 302, 'text/plain', '', { location: `/redirect/many?n=${left - 1}` });
    }
    if (path === '/redirect/to') return send(res, 302, 'text/plain', '', { location: url.searchParams.get('url') ?? '/' });
    if (path === '/redirect/self') return send(res, 302, 'text/plain', '', { location: '/redirect/self' });
    const cookies = requestCookies(req);
    if (path === '/cookie/gate') {
      if (cookies.get('consent') === '1') return send(res, 200, 'text/html; charset=utf-8', GATED_PAGE);
      return send(res, 302, 'text/plain', '', { location: '/cookie/gate', 'set-cookie': 'consent=1; Path=/; Max-Age=3600; SameSite=Lax' });
    }
    if (path === '/cookie/chain/a') {
      return send(res, 302, 'text/plain', '', { location: '/cookie/chain/b', 'set-cookie': ['session=abc123; Path=/; HttpOnly', 'narrow=1; Path=/cookie/chain/a'] });
    }
    if (path === '/cookie/chain/b') return send(res, 302, 'text/plain', '', { location: '/cookie/chain/c' });
    if (path === '/cookie/chain/c') {
      return cookies.get('session') === 'abc123' ? send(res, 200, 'text/html; charset=utf-8', GATED_PAGE) : send(res, 403, 'text/html', html('no session'));
    }
    if (path === '/cookie/always') return send(res, 302, 'text/plain', '', { location: '/cookie/always', 'set-cookie': 'n=1; Path=/' });
    if (path === '/cookie/counter') {
      return send(res, 302, 'text/plain', '', { location: '/cookie/counter', 'set-cookie': `n=${Number(cookies.get('n') ?? 0) + 1}; Path=/` });
    }
    if (path === '/cookie/set') {
      const to = url.searchParams.get('to');
      const extra = { 'set-cookie': url.searchParams.getAll('c'), ...(to ? { location: to } : {}) };
      return send(res, to ? 302 : 200, 'text/html', to ? '' : PAGE, extra);
    }
    const status = /^\/status\/(\d{3})$/.exec(path);
    if (status) return send(res, Number(status[1]), 'text/html', html(`status ${status[1]}`));
    if (path === '/big' || path === '/big-chunked') {
      const total = Math.round(n('mb', 1) * MIB);
      const record: StreamRecord = { written: 0, aborted: false, finished: false };
      streams.push(record);
      res.writeHead(200, { 'content-type': 'text/plain', ...(path === '/big' ? { 'content-length': total } : {}) });
      return stream(res, total, record);
    }
    if (path === '/slow') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html>');
      const timer = setTimeout(() => res.end('</html>'), n('ms', 3000));
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/slow-headers') {
      const timer = setTimeout(() => send(res, 200, 'text/html', PAGE), n('ms', 3000));
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/gzip') return send(res, 200, 'text/html; charset=utf-8', gzipSync(html(CYRILLIC)), { 'content-encoding': 'gzip' });
    if (path === '/gzip-twice') return send(res, 200, 'text/html; charset=utf-8', gzipSync(gzipSync(html(CYRILLIC))), { 'content-encoding': 'gzip, gzip' });
    if (path === '/br') return send(res, 200, 'text/html; charset=utf-8', brotliCompressSync(html(CYRILLIC)), { 'content-encoding': 'br' });
    if (path === '/deflate') return send(res, 200, 'text/html; charset=utf-8', deflateSync(html(CYRILLIC)), { 'content-encoding': 'deflate' });
    if (path === '/pdf') return send(res, 200, 'application/pdf', Buffer.from('%PDF-1.4\n%fixture\n'));
    if (path === '/png') return send(res, 200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    if (path === '/image.png') return send(res, 200, 'image/png', BINARY_IMAGE);
    if (path === '/no-type') return send(res, 200, null, PAGE);
    if (path === '/binary-no-type') return send(res, 200, null, Buffer.from([0, 1, 2, 3, 0, 5]));
    if (path === '/flaky') {
      const key = url.searchParams.get('key') ?? '';
      const seen = (flaky.get(key) ?? 0) + 1;
      flaky.set(key, seen);
      if (seen <= n('fail', 1)) return void req.socket.destroy();
      return send(res, 200, 'text/html', PAGE);
    }
    send(res, 404, 'text/plain', 'no such fixture route');
  });
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host}:${port}`;
  return {
    origin,
    port,
    requests,
    streams,
    url: (path) => `${origin}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ForwardProxy {
  readonly url: string;
  /** Absolute request URLs the proxy received. */
  readonly seen: string[];
  close(): Promise<void>;
}

/** A plain forwarding proxy for http:// targets (absolute-URI requests; no CONNECT). */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      return send(res, 400, 'text/plain', 'absolute URL expected');
    }
    const headers: http.OutgoingHttpHeaders = { ...req.headers, 'x-forwarded-by': 'fixture-proxy' };
    delete headers['proxy-connection'];
    const upstream = http.request(target, { method: req.method, headers, agent: false }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => send(res, 502, 'text/plain', 'proxy could not reach the target'));
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
