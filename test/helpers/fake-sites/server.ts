/**
 * A local web site for the site readers' tests and benches: a node:http server on 127.0.0.1
 * (a free port) answering from a route function, speaking plain HTTP as a real site does
 * (status, Content-Type, Location for redirects, any extra headers). Every request's path
 * (with its query) is recorded in `site.requests`.
 *
 * The route function gets the path, the parsed query and the site's origin, and answers a
 * `FakeAnswer`, or null for a 404 page.
 */
import http from 'node:http';
import { listenLocal } from '../listen.js';

export interface FakeAnswer {
  readonly status?: number;
  readonly type?: string;
  readonly body?: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** A 302 to this location (relative to the site). */
  readonly redirect?: string;
  /** Hold the answer back this long. */
  readonly delayMs?: number;
}

export type Routes = (path: string, query: URLSearchParams, origin: string) => FakeAnswer | null;

export interface FakeSite {
  readonly origin: string;
  readonly port: number;
  readonly requests: string[];
  url(path: string): string;
  close(): Promise<void>;
}

export const html = (body: string): FakeAnswer => ({ type: 'text/html; charset=utf-8', body });
export const json = (value: unknown, headers: Record<string, string> = {}): FakeAnswer => ({ type: 'application/json; charset=utf-8', body: JSON.stringify(value), headers });
export const xml = (body: string, type = 'application/xml'): FakeAnswer => ({ type, body });
export const text = (body: string): FakeAnswer => ({ type: 'text/plain; charset=utf-8', body });

/** A page: title, head extras (meta, links, JSON-LD) and body. */
export function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

/** A JSON-LD block. */
export const jsonLd = (value: unknown): string => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

export async function startFakeSite(routes: Routes): Promise<FakeSite> {
  const requests: string[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    requests.push(`${url.pathname}${url.search}`);
    let answer: FakeAnswer | null;
    try {
      answer = routes(url.pathname, url.searchParams, origin);
    } catch (error) {
      answer = { status: 500, type: 'text/plain', body: String(error) };
    }
    const send = () => {
      if (!answer) {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html><head><title>Not found</title></head><body><h1>404</h1></body></html>');
        return;
      }
      if (answer.redirect) {
        res.writeHead(answer.status ?? 302, { location: answer.redirect, ...answer.headers });
        res.end();
        return;
      }
      const body = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body ?? '');
      res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'text/html; charset=utf-8', 'content-length': body.length, ...answer.headers });
      res.end(body);
    };
    if (answer?.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });
  server.keepAliveTimeout = 5_000;
  const local = await listenLocal(server);
  origin = local.origin;
  return { ...local, requests };
}
