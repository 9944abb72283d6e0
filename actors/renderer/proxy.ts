/**
 * The renderer's guarded forward proxy: Chromium is launched with this proxy for every
 * connection it makes (loopback included: Playwright adds `<-loopback>` to the bypass list,
 * so loopback is proxied too), and the proxy connects only where the SSRF guard allows.
 *
 * Why a proxy and not only `context.route`: a route handler sees a request before it is
 * sent, but Chromium follows redirects without asking it again (a public page answering
 * `302 Location: http://169.254.169.254/` would be followed), and it resolves host names
 * itself after the handler checked them (DNS rebinding). Behind this proxy every hop —
 * navigations, redirects, subrequests, WebSockets, service workers — is a connection the
 * proxy opens itself, to an address the guard checked at connect time.
 *
 * - Plain HTTP: the absolute-form request is forwarded through the guard's agents
 *   (pipeline/runtime/net/agents.ts); a target that is refused or cannot be reached answers `403`
 *   (refused) or `502` with `x-wds-proxy-error: <code>` (`url_blocked`, `dns_failed`,
 *   `connection_refused`, `upstream_error`), which the renderer reports as that error.
 * - HTTPS and WebSockets: `CONNECT host:port` is answered after the guard resolved the host
 *   and checked every address; the tunnel connects to a checked address. A failure answers
 *   `403`/`502` and its code is remembered per host (`failureFor`): Chromium reports every
 *   failed tunnel as ERR_TUNNEL_CONNECTION_FAILED, and the renderer asks here which it was.
 * - It listens on 127.0.0.1 and serves only connections whose client socket is held by the
 *   Chromium this process launched (peer.ts: /proc names the socket's owner); any other is
 *   closed unanswered, so it is no open proxy for other local programs. No credential: one
 *   would make Playwright pause every request of every page in the browser (CDP Fetch) and
 *   meet a 407 in each new context, ~15% of a simple page's CPU. Chromium is launched with
 *   `browserFlag`, the switch by which its process is found.
 * - Lanes (`openLane`): a render whose scrape goes through a configured proxy pool gets a
 *   listener of its own (its own port, the same peer check) for its context, alive as long as
 *   the render; that context's connections are checked the same way and then go out through
 *   the upstream proxy (upstream.ts) instead of directly.
 * - A request to a site that fails on a kept-alive connection the site had just closed (its
 *   keep-alive timeout passed while the request was on its way: ECONNRESET on a reused
 *   socket) is sent once more on a new connection (not another kept-alive one: those the
 *   site closed at the same time are as stale) when it has no body; it was answered
 *   `upstream_error` under load before.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { guardedAgents, type GuardedAgents } from '../../pipeline/runtime/net/agents.js';
import type { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { BrowserSockets } from './peer.js';
import { forwardOptions, tunnelThrough } from './upstream.js';

/** The response header carrying the error code of a plain-HTTP request the proxy could not forward. */
export const PROXY_ERROR_HEADER = 'x-wds-proxy-error';

/** The service's code for a failed connection (the guard's errors carry theirs). */
function codeOf(error: NodeJS.ErrnoException): string {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code === 'url_blocked' || code === 'dns_failed' || code === 'proxy_failed') return code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns_failed';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  return 'upstream_error';
}

const HOP_HEADERS = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);
const MAX_REFUSALS = 256;

export interface ProxySettings {
  readonly server: string;
}

/** A connection's route: direct (`upstream: null`) or through a lane's upstream proxy. */
interface Route {
  readonly upstream: string | null;
}

/** Methods whose requests Chromium sends without a body: safe to send again on a new connection. */
const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `host:port`, `[v6]:port` → its parts; null when it does not parse. */
export function splitAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (!match) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return null;
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}

export class GuardedProxy {
  private readonly agents: GuardedAgents;
  /** New connections only: for a request sent once more (the kept-alive ones may all be stale). */
  private readonly fresh: GuardedAgents;
  private readonly refusals = new Map<string, string>();
  /** Each listener and the connections it accepted (tunnels included). */
  private readonly servers = new Map<http.Server, Set<Duplex>>();
  /** Connections whose client is the browser (peer.ts). */
  private readonly verified = new WeakSet<Duplex>();
  /** The switch Chromium is launched with, by which peer.ts finds its processes. */
  readonly browserFlag: string;
  private readonly peers: BrowserSockets;
  /** The proxy's main listener (`settings.server`): the browser's connections go out directly. */
  settings: ProxySettings = { server: '' };

  private constructor(
    private readonly guard: NetGuard,
    private readonly log: Logger,
  ) {
    this.agents = guardedAgents(guard);
    this.fresh = guardedAgents(guard, { keepAlive: false });
    this.browserFlag = `--wds-guarded-proxy=${randomBytes(12).toString('hex')}`;
    this.peers = new BrowserSockets(this.browserFlag);
  }


  static async start(guard: NetGuard, log: Logger): Promise<GuardedProxy> {
    if (!BrowserSockets.available()) throw new AppError('render_failed', 'the renderer needs /proc (Linux) to keep its guarded proxy to its own browser');
    const proxy = new GuardedProxy(guard, log);
    proxy.settings = { server: (await proxy.listen({ upstream: null })).url };
    return proxy;
  }

  /** Starts a listener on a free 127.0.0.1 port serving `route`; resolves with it and its URL. */
  private async listen(route: Route): Promise<{ server: http.Server; url: string }> {
    const server = http.createServer();
    const sockets = new Set<Duplex>();
    server.on('connection', (socket: net.Socket) => {
      // The server's parser is attached but has read nothing yet: a stranger gets no answer.
      const client = { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 };
      const local = { address: socket.localAddress ?? '', port: socket.localPort ?? 0 };
      if (!this.peers.holds(client, local)) {
        this.log.warn({ client: `${client.address}:${client.port}` }, 'a connection to the guarded proxy not from its browser; closed');
        socket.destroy();
        return;
      }
      this.verified.add(socket);
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    server.on('request', (req, res) => this.forward(route, req, res));
    server.on('connect', (req, socket, head) => this.tunnel(route, req, socket, head));
    server.on('clientError', (_error, socket) => socket.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.servers.set(server, sockets);
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  private async stop(server: http.Server): Promise<void> {
    for (const socket of this.servers.get(server) ?? []) socket.destroy();
    this.servers.delete(server);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Why a connection to this host failed recently (`url_blocked`, `dns_failed`, …), or null. */
  failureFor(hostname: string): string | null {
    return this.refusals.get(hostname.replace(/^\[|\]$/g, '').toLowerCase()) ?? null;
  }

  private remember(host: string, code: string): void {
    if (this.refusals.size >= MAX_REFUSALS) {
      const oldest = this.refusals.keys().next().value;
      if (oldest !== undefined) this.refusals.delete(oldest);
    }
    this.refusals.set(host.toLowerCase(), code);
  }

  /**
   * A listener of its own for one render's context, whose connections go out through
   * `upstreamUrl`: its `server` is the context's proxy; `close` ends it (and its
   * connections) when the render is over.
   */
  async openLane(upstreamUrl: string): Promise<{ readonly server: string; close(): Promise<void> }> {
    const { server, url } = await this.listen({ upstream: upstreamUrl });
    return { server: url, close: () => this.stop(server) };
  }

  private forward(route: Route, req: http.IncomingMessage, res: http.ServerResponse): void {
    if (!this.verified.has(req.socket)) return void req.socket.destroy();
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_HEADERS.has(name)) headers[name] = value;
    const answered = (answer: http.IncomingMessage) => {
      answer.on('error', () => res.destroy());
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    };
    const through = route.upstream;
    if (through) {
      // Checked here (resolved and every address refused or not); the upstream proxy connects.
      this.guard.check(target).then(
        () => this.send(req, res, target, forwardOptions(through, target, req.method ?? 'GET', headers), answered),
        (error: NodeJS.ErrnoException) => this.refuse(res, target, error),
      );
      return;
    }
    this.send(req, res, target, { method: req.method ?? 'GET', headers, agent: this.agents.http }, answered, target);
  }

  private refuse(res: http.ServerResponse, target: URL, error: NodeJS.ErrnoException, viaProxy = false): void {
    if (res.headersSent || res.destroyed) return void res.destroy();
    const code = viaProxy ? 'proxy_failed' : codeOf(error);
    this.remember(target.hostname, code);
    this.log.debug({ host: target.hostname, code, cause: error.code ?? error.message }, 'proxied request failed');
    res.writeHead(code === 'url_blocked' ? 403 : 502, { [PROXY_ERROR_HEADER]: code, 'content-type': 'text/plain' }).end(code);
  }

  /** Sends the request (to `direct` itself, or to the upstream proxy `options` name) and pipes the answer back. */
  private send(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    target: URL,
    options: http.RequestOptions & { protocol?: string },
    answered: (answer: http.IncomingMessage) => void,
    direct?: URL,
    again = false,
  ): void {
    const upstream = direct ? http.request(direct, options, answered) : (options.protocol === 'https:' ? https : http).request(options, answered);
    // The browser hanging up (a render closed mid-request) ends the upstream request too.
    const onGone = () => upstream.destroy();
    req.once('error', onGone);
    const onClose = () => {
      if (!res.writableFinished) upstream.destroy();
    };
    res.once('close', onClose);
    const bodiless = BODILESS.has(req.method ?? 'GET') && !req.headers['content-length'] && !req.headers['transfer-encoding'];
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the site closed just as it was reused: once more on a new one.
      if (!again && bodiless && upstream.reusedSocket && !res.headersSent && !res.destroyed && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        req.off('error', onGone);
        res.off('close', onClose);
        // Not through the kept-alive pool: its other idle connections were likely closed too.
        return this.send(req, res, target, { ...options, agent: this.fresh.http }, answered, direct, true);
      }
      this.refuse(res, target, error, !direct);
    });
    if (bodiless) {
      req.resume();
      upstream.end();
    } else {
      req.pipe(upstream);
    }
  }

  private tunnel(route: Route, req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    if (!this.verified.has(socket)) return void socket.destroy();
    const authority = splitAuthority(req.url ?? '');
    if (!authority) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const failed = (error: NodeJS.ErrnoException) => {
      const code = codeOf(error);
      this.remember(authority.host, code);
      this.log.debug({ host: authority.host, code }, 'tunnel refused');
      if (!socket.destroyed) socket.end(`HTTP/1.1 ${code === 'url_blocked' ? '403 Forbidden' : '502 Bad Gateway'}\r\nContent-Length: 0\r\n\r\n`);
    };
    const through = route.upstream;
    this.guard
      .addressesOf(authority.host)
      .then(async (addresses) => {
        if (through) return tunnelThrough(through, authority.host, authority.port);
        const first = addresses[0];
        if (!first) throw Object.assign(new Error('no address'), { code: 'dns_failed' });
        const direct = net.connect({ host: first.address, port: authority.port });
        await once(direct, 'connect');
        return direct;
      })
      .then((upstream) => {
        if (socket.destroyed) return void upstream.destroy();
        upstream.on('error', () => socket.destroy());
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
        socket.once('close', () => upstream.destroy());
        upstream.once('close', () => socket.destroy());
      }, failed);
  }

  async close(): Promise<void> {
    this.agents.destroy();
    this.fresh.destroy();
    await Promise.all([...this.servers.keys()].map((server) => this.stop(server)));
  }
}
