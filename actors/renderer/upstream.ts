/**
 * Connections the guarded proxy (proxy.ts) makes through an upstream proxy of the configured
 * pools (PROXY_*_URLS; scrape option `proxy`, chosen by pipeline/runtime/net/proxies.ts), for a render
 * whose context was given that lane:
 *
 * - `tunnelThrough`: opens `CONNECT host:port` on the upstream proxy (http:// or https://
 *   proxy URL, with its Basic credentials) and resolves with the connected socket once the
 *   proxy answered 2xx; any other answer or a network failure is `proxy_failed`;
 * - `forwardOptions`: the node:http request options that send a plain-HTTP request to the
 *   upstream proxy in absolute form.
 *
 * The target was checked by the SSRF guard before either is called (the upstream proxy
 * resolves it again: it is outside this host's network, so nothing of ours is reached
 * through it). The proxy URL's credentials never appear in an error message.
 */
import type http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { AppError } from '../../pipeline/runtime/errors.js';

function authorization(proxy: URL): string | null {
  if (!proxy.username && !proxy.password) return null;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

function portOf(proxy: URL): number {
  return Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
}

function failed(proxy: URL, why: string): AppError {
  return new AppError('proxy_failed', `the proxy ${proxy.protocol}//${proxy.host} failed: ${why}`);
}

/** A socket to `host:port` through the upstream proxy. */
export function tunnelThrough(proxyUrl: string, host: string, port: number, timeoutMs = 30_000): Promise<Duplex> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const options = { host: proxy.hostname.replace(/^\[|\]$/g, ''), port: portOf(proxy) };
    const socket: net.Socket = proxy.protocol === 'https:' ? tls.connect({ ...options, servername: options.host }) : net.connect(options);
    const authority = net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
    const auth = authorization(proxy);
    let head = Buffer.alloc(0);
    const timer = setTimeout(() => done(failed(proxy, 'no answer to CONNECT')), timeoutMs);
    const done = (error: Error | null) => {
      clearTimeout(timer);
      socket.off('data', onData);
      if (error) {
        socket.destroy();
        reject(error);
      } else {
        resolve(socket);
      }
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 16_384) done(failed(proxy, 'an oversized CONNECT answer'));
        return;
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      if (status < 200 || status > 299) return done(failed(proxy, `CONNECT answered ${status || 'garbage'}`));
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      done(null);
    };
    socket.on('data', onData);
    socket.once('error', (error: NodeJS.ErrnoException) => done(failed(proxy, error.code ?? error.message)));
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`);
    });
  });
}

/** Request options sending `target` to the upstream proxy in absolute form. */
export function forwardOptions(proxyUrl: string, target: URL, method: string, headers: http.OutgoingHttpHeaders): http.RequestOptions & { protocol: string } {
  const proxy = new URL(proxyUrl);
  const auth = authorization(proxy);
  return {
    protocol: proxy.protocol,
    host: proxy.hostname.replace(/^\[|\]$/g, ''),
    port: portOf(proxy),
    method,
    path: target.href,
    headers: { ...headers, host: target.host, ...(auth ? { 'proxy-authorization': auth } : {}) },
    agent: false,
  };
}
