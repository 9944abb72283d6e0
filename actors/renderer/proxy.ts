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
 *   (pipeline/net/agents.ts); a target that is refused or cannot be reached answers `403`
 *   (refused) or `502` with `x-wds-proxy-error: <code>` (`url_blocked`, `dns_failed`,
 *   `connection_refused`, `upstream_error`), which the renderer reports as that error.
 * - HTTPS and WebSockets: `CONNECT host:port` is answered after the guard resolved the host
 *   and checked every address; the tunnel connects to a checked address. A failure answers
 *   `403`/`502` and its code is remembered per host (`failureFor`): Chromium reports every
 *   failed tunnel as ERR_TUNNEL_CONNECTION_FAILED, and the renderer asks here which it was.
 * - It listens on 127.0.0.1 and requires a random Basic credential made at start, which
 *   only this process's browser is given: it is no open proxy for other local programs.
 * - Lanes (`openLane`): a render whose scrape goes through a configured proxy pool gets a
 *   user name of its own for its context; that context's connections are checked the same
 *   way and then go out through the upstream proxy (upstream.ts) instead of directly.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../pipeline/log.js';
import { guardedAgents, type GuardedAgents } from '../../pipeline/net/agents.js';
import type { NetGuard } from '../../pipeline/net/guard.js';
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
  readonly username: string;
  readonly password: string;
}

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
  private readonly secret: Buffer;
  private readonly refusals = new Map<string, string>();
  /** Lane user name → the upstream proxy URL its connections go through. */
  private readonly lanes = new Map<string, string>();
  private readonly sockets = new Set<Duplex>();

  private constructor(
    private readonly server: http.Server,
    private readonly guard: NetGuard,
    private readonly log: Logger,
    readonly settings: ProxySettings,
  ) {
    this.agents = guardedAgents(guard);
    this.secret = Buffer.from(settings.password);
  }

  static async start(guard: NetGuard, log: Logger): Promise<GuardedProxy> {
    const server = http.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const settings = { server: `http://127.0.0.1:${port}`, username: 'renderer', password: randomBytes(18).toString('base64url') };
    const proxy = new GuardedProxy(server, guard, log, settings);
    server.on('request', (req, res) => proxy.forward(req, res));
    server.on('connect', (req, socket, head) => proxy.tunnel(req, socket, head));
    server.on('connection', (socket) => {
      proxy.sockets.add(socket);
      socket.once('close', () => proxy.sockets.delete(socket));
    });
    server.on('clientError', (_error, socket) => socket.destroy());
    return proxy;
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
   * A user name for one render's context whose connections go out through `upstreamUrl`
   * (with the proxy's own password); `close` ends it when the render is over.
   */
  openLane(upstreamUrl: string): { readonly username: string; close(): void } {
    const username = `lane-${randomBytes(9).toString('base64url')}`;
    this.lanes.set(username, upstreamUrl);
    return { username, close: () => void this.lanes.delete(username) };
  }

  /** The caller's route: `{upstream: null}` for direct, a lane's proxy URL, or null when not authorized. */
  private authorized(req: http.IncomingMessage): { upstream: string | null } | null {
    const header = req.headers['proxy-authorization'] ?? '';
    if (!header.startsWith('Basic ')) return null;
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    const given = Buffer.from(decoded.slice(colon + 1));
    if (given.length !== this.secret.length || !timingSafeEqual(given, this.secret)) return null;
    const user = decoded.slice(0, colon);
    if (user === this.settings.username) return { upstream: null };
    const upstream = this.lanes.get(user);
    return upstream ? { upstream } : null;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const route = this.authorized(req);
    if (!route) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="renderer"' }).end();
      return;
    }
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
  ): void {
    const upstream = direct ? http.request(direct, options, answered) : (options.protocol === 'https:' ? https : http).request(options, answered);
    // The browser hanging up (a render closed mid-request) ends the upstream request too.
    req.on('error', () => upstream.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => this.refuse(res, target, error, !direct));
    req.pipe(upstream);
  }

  private tunnel(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const route = this.authorized(req);
    if (!route) {
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="renderer"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
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
    for (const socket of this.sockets) socket.destroy();
    this.agents.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
