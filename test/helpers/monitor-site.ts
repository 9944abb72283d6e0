/**
 * A site whose pages change on command, for monitor tests and the monitors bench: each path
 * answers the status, HTML and delay last set for it (`set`), and every request is counted.
 * Beside it, a webhook receiver that records each delivery with whether its signature
 * matched, answering the statuses scripted for it (200 by default).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../pipeline/webhooks/signing.js';

export interface SitePage {
  readonly status?: number;
  readonly html: string;
  readonly delayMs?: number;
}

export interface MonitorSite {
  readonly origin: string;
  set(path: string, page: SitePage): void;
  /** Requests each path got. */
  hits(path: string): number;
  close(): Promise<void>;
}

export function page(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

export async function startMonitorSite(): Promise<MonitorSite> {
  const pages = new Map<string, SitePage>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const found = pages.get(path) ?? { status: 404, html: page('Not found', '<p>No such page.</p>') };
    const answer = () => res.writeHead(found.status ?? 200, { 'content-type': 'text/html; charset=utf-8' }).end(found.html);
    if (found.delayMs) setTimeout(answer, found.delayMs);
    else answer();
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set: (path, p) => void pages.set(path, p),
    hits: (path) => counts.get(path) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedHook {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, any>;
  readonly signed: boolean;
  readonly status: number;
}

export interface HookReceiver {
  readonly origin: string;
  readonly received: ReceivedHook[];
  /** Answers the next requests to `path` with these statuses, in order, then 200. */
  script(path: string, statuses: number[]): void;
  /** The key's signing secret the signatures are checked with. */
  secret: string;
  close(): Promise<void>;
}

export async function startHookReceiver(): Promise<HookReceiver> {
  const scripts = new Map<string, number[]>();
  const received: ReceivedHook[] = [];
  const receiver: HookReceiver = {
    origin: '',
    received,
    secret: '',
    script: (path, statuses) => void scripts.set(path, [...statuses]),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      const status = scripts.get(path)?.shift() ?? 200;
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(raw) as Record<string, any>;
      } catch {
        body = {};
      }
      received.push({ path, headers: req.headers, body, signed: verifySignature(receiver.secret, raw, String(req.headers['x-wds-signature'] ?? '')), status });
      res.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(receiver, { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}
