/**
 * A local site for the renderer tests: pages that need a browser. A node:http server on
 * 127.0.0.1 (free port), plus a second one on 127.0.0.2 (`site.secret`) that stands for an
 * internal service the SSRF guard must keep the browser away from. Every request to either
 * is recorded in `requests` (path and headers).
 *
 * Routes:
 * - `/js` content added by a script 300 ms after load (`#late`);
 * - `/reveal` a button `#show` that reveals `#secret` when clicked;
 * - `/form` an input `#q`; Enter writes `You searched: <value>` into `#result`;
 * - `/scroll` 10 items; scrolling near the bottom appends 10 more (infinite scroll);
 * - `/images` a page with an `<img src="/pixel.png">` and a web font; `/pixel.png`, `/font.woff2`;
 * - `/cookie/set` sets cookie `session=s3cret`; `/cookie/show` prints the Cookie header it got;
 * - `/headers` prints the request headers as JSON in `<pre id="h">`;
 * - `/subrequest?to=URL` a page that fetches URL from a script and an `<img>`;
 * - `/redirect?to=URL` 302 to URL;
 * - `/websocket?to=URL` a page that opens a WebSocket to URL (upgrades to the internal
 *   stand-in are recorded as `upgrade <path>`);
 * - `/challenge` a page whose framed checkbox (`/challenge/frame`) adds `#passed` when clicked;
 * - `/hang` headers, then a body that never ends.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RenderSite {
  readonly origin: string;
  /** The internal stand-in on 127.0.0.2 (its origin). */
  readonly secret: string;
  readonly requests: { host: string; path: string; headers: http.IncomingHttpHeaders }[];
  url(path: string): string;
  /** Paths requested so far (of both servers). */
  paths(): string[];
  close(): Promise<void>;
}

/** A 1x1 transparent PNG. */
export const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body>${body}</body></html>`;
}

const PAGES: Record<string, string> = {
  '/js': page('JS', `<main><h1>Script page</h1><div id="box"></div></main><script>setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Added by script after load'; document.getElementById('box').append(p); }, 300);</script>`),
  '/reveal': page('Reveal', `<main><h1>Reveal</h1><button id="show">Show</button><p id="secret" hidden>The revealed paragraph</p></main><script>document.getElementById('show').addEventListener('click', () => { document.getElementById('secret').hidden = false; });</script>`),
  '/form': page('Form', `<main><h1>Search</h1><form id="f"><input id="q" name="q"></form><p id="result"></p></main><script>document.getElementById('f').addEventListener('submit', (e) => { e.preventDefault(); document.getElementById('result').textContent = 'You searched: ' + document.getElementById('q').value; });</script>`),
  '/scroll': page('Scroll', `<main><h1>Feed</h1><ul id="feed"></ul></main><script>let n = 0; const feed = document.getElementById('feed'); function more() { for (let i = 0; i < 10; i++) { const li = document.createElement('li'); li.textContent = 'Item ' + (++n); li.style.height = '200px'; feed.append(li); } } more(); window.addEventListener('scroll', () => { if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 300 && n < 30) more(); });</script>`),
  '/images': page('Images', `<style>@font-face { font-family: F; src: url(/font.woff2); } body { font-family: F; }</style><main><h1>Images</h1><img src="/pixel.png" alt="pixel"><p>Text beside an image.</p></main>`),
  '/cookie/set': page('Set', `<main><h1>Cookie set</h1></main>`),
  '/challenge': page('Challenge', `<main><h1>Checking your browser</h1><iframe src="/challenge/frame" title="challenge" width="300" height="80"></iframe></main>`),
  '/challenge/frame': page('Frame', `<div id="checkbox" role="checkbox" aria-checked="false" tabindex="0" style="width:30px;height:30px;border:1px solid #000">&nbsp;</div><script>const box = document.getElementById('checkbox'); box.addEventListener('click', () => { box.setAttribute('aria-checked', 'true'); const p = parent.document.createElement('p'); p.id = 'passed'; p.textContent = 'Challenge passed'; parent.document.querySelector('main').append(p); });</script>`),
};

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function handler(site: { requests: RenderSite['requests'] }, secret: boolean): http.RequestListener {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    site.requests.push({ host: secret ? 'secret' : 'site', path: url.pathname + url.search, headers: req.headers });
    const html = (body: string, extra: http.OutgoingHttpHeaders = {}) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...extra });
      res.end(body);
    };
    if (secret) return html(page('Internal', '<p id="internal">internal data</p>'), { 'access-control-allow-origin': '*' });
    const fixed = PAGES[url.pathname];
    if (fixed) return html(fixed, url.pathname === '/cookie/set' ? { 'set-cookie': 'session=s3cret; Path=/' } : {});
    switch (url.pathname) {
      case '/pixel.png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(PIXEL_PNG);
      case '/font.woff2':
        res.writeHead(200, { 'content-type': 'font/woff2' });
        return res.end(Buffer.alloc(64));
      case '/cookie/show':
        return html(page('Show', `<p id="cookie">cookie: ${escapeHtml(req.headers.cookie ?? '(none)')}</p>`));
      case '/headers':
        return html(page('Headers', `<pre id="h">${escapeHtml(JSON.stringify(req.headers))}</pre>`));
      case '/subrequest': {
        const to = JSON.stringify(url.searchParams.get('to') ?? '');
        return html(page('Sub', `<main><h1>Subrequest</h1><p id="status">pending</p><img id="img"></main><script>const to = ${to}; document.getElementById('img').src = to; fetch(to).then(r => r.text()).then(t => { document.getElementById('status').textContent = 'fetched: ' + t.length; }, e => { document.getElementById('status').textContent = 'failed'; });</script>`));
      }
      case '/websocket': {
        const to = JSON.stringify(url.searchParams.get('to') ?? '');
        return html(page('WS', `<p id="ws">opening</p><script>const ws = new WebSocket(${to}); ws.onerror = () => { document.getElementById('ws').textContent = 'error'; }; ws.onclose = () => { document.getElementById('ws').textContent += ' closed'; };</script>`));
      }
      case '/redirect':
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/js' });
        return res.end();
      case '/hang':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.write('<!doctype html><html><body><p>never ends');
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not found');
    }
  };
}

async function listen(server: http.Server, host: string): Promise<number> {
  server.listen(0, host);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

export async function startRenderSite(): Promise<RenderSite> {
  const requests: RenderSite['requests'] = [];
  const main = http.createServer(handler({ requests }, false));
  const internal = http.createServer(handler({ requests }, true));
  // A WebSocket upgrade to the internal stand-in is recorded too (then refused).
  internal.on('upgrade', (req, socket) => {
    requests.push({ host: 'secret', path: `upgrade ${req.url ?? '/'}`, headers: req.headers });
    socket.destroy();
  });
  const port = await listen(main, '127.0.0.1');
  const secretPort = await listen(internal, '127.0.0.2');
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    secret: `http://127.0.0.2:${secretPort}`,
    requests,
    url: (path) => `${origin}${path}`,
    paths: () => requests.map((r) => r.path),
    async close() {
      for (const server of [main, internal]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
