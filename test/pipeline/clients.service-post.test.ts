/**
 * POSTs of the service client (pipeline/clients/service-http.ts: postJson, postForm) and of
 * the HTTP stack under it (pipeline/runtime/net/http.ts) against a local server: the body and
 * its Content-Type arrive; failures are sorted exactly as getJson sorts them (the error body's
 * name kept as `errorName`, the body never in a message); a POST is sent once where a GET is
 * retried; 307 repeats a POST with its body, 303 turns it into a GET without one; Bluesky's
 * `ratelimit-reset` is read as the wait.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postForm, postJson, retryAfterMs, SERVICE_JSON_MAX_DEPTH, ServiceError, type ServiceRequest } from '../../pipeline/clients/service-http.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: string;
}

const SECRET = 'hunter2-app-password';

describe('pipeline/clients/service-http POST', () => {
  let server: http.Server;
  let base: string;
  let fetcher: HttpFetcher;
  const seen: Seen[] = [];
  const request = (path: string, extra: Partial<ServiceRequest> = {}): ServiceRequest => ({ url: new URL(path, base), timeoutMs: 3000, ...extra });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
        seen.push({ method: req.method ?? '', path, contentType: req.headers['content-type'], body });
        const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
        switch (path) {
          case '/echo':
            return json(200, { method: req.method, contentType: req.headers['content-type'] ?? null, length: req.headers['content-length'] ?? null, body, userAgent: req.headers['user-agent'] });
          case '/429':
            return json(429, { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' }, { 'retry-after': '30' });
          case '/429-bluesky':
            return json(429, { error: 'RateLimitExceeded' }, { 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 240) });
          case '/401':
            return json(401, { error: 'AuthenticationRequired', message: 'Invalid identifier or password' });
          case '/expired':
            return json(400, { error: 'ExpiredToken', message: 'Token has expired' });
          case '/500':
            return res.writeHead(500, { 'content-type': 'text/plain' }).end('oops');
          case '/html':
            return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not json</html>');
          case '/deep':
            // 4 MB of nested arrays: valid JSON, under the 5 MiB cap.
            return res.writeHead(200, { 'content-type': 'application/json' }).end(`${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`);
          case '/fits':
            return res.writeHead(200, { 'content-type': 'application/json' }).end(`{"a":${'['.repeat(SERVICE_JSON_MAX_DEPTH - 1)}${']'.repeat(SERVICE_JSON_MAX_DEPTH - 1)}}`);
          case '/reset':
            return req.socket.destroy();
          case '/slow':
            return setTimeout(() => json(200, {}), 2000);
          case '/307':
            return res.writeHead(307, { location: '/echo' }).end();
          case '/307-away':
            return res.writeHead(307, { location: `http://localhost:${(server.address() as AddressInfo).port}/echo` }).end();
          case '/303':
            return res.writeHead(303, { location: '/echo' }).end();
          default:
            return json(404, { error: 'NotFound' });
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fetcher = new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }), retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
  });
  afterAll(async () => {
    fetcher.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('postJson sends the JSON body with its Content-Type and the service User-Agent', async () => {
    const answer = await postJson('svc', { ...request('/echo'), body: { identifier: 'me', password: SECRET } }, fetcher);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ method: 'POST', contentType: 'application/json', body: JSON.stringify({ identifier: 'me', password: SECRET }) });
    expect((answer.json as { userAgent: string }).userAgent).toMatch(/^web-data-service\//);
  });

  it('postJson without a body sends an empty POST with no Content-Type', async () => {
    const answer = await postJson('svc', { ...request('/echo'), body: undefined }, fetcher);
    expect(answer.json).toMatchObject({ method: 'POST', contentType: null, length: '0', body: '' });
  });

  it('postForm sends the form urlencoded', async () => {
    const answer = await postForm('svc', { ...request('/echo'), form: { grant_type: 'client_credentials', scope: 'read & write' } }, fetcher);
    expect(answer.json).toMatchObject({ method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'grant_type=client_credentials&scope=read+%26+write' });
  });

  const sorted = async (call: () => Promise<unknown>) => {
    const error = await call().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    const e = error as ServiceError;
    expect(e.message).not.toContain(SECRET);
    return { kind: e.kind, status: e.status, retryAfterMs: e.retryAfterMs, errorName: e.errorName, message: e.message };
  };

  it.each([
    ['/429', { kind: 'rate_limited', status: 429, retryAfterMs: 30_000, errorName: 'RateLimitExceeded' }],
    ['/401', { kind: 'rejected', status: 401, retryAfterMs: null, errorName: 'AuthenticationRequired' }],
    ['/expired', { kind: 'unavailable', status: 400, retryAfterMs: null, errorName: 'ExpiredToken' }],
    ['/500', { kind: 'unavailable', status: 500, retryAfterMs: null, errorName: null }],
    ['/html', { kind: 'unreadable', status: 200, retryAfterMs: null, errorName: null }],
    ['/deep', { kind: 'unreadable', status: 200, retryAfterMs: null, errorName: null, message: expect.stringMatching(/\/deep answered JSON nested deeper than 256 levels$/) }],
  ])('sorts %s the same for GET, JSON POST and form POST', async (path, expected) => {
    const get = await sorted(() => getJson('svc', request(path), fetcher));
    const post = await sorted(() => postJson('svc', { ...request(path), body: { password: SECRET } }, fetcher));
    const form = await sorted(() => postForm('svc', { ...request(path), form: { password: SECRET } }, fetcher));
    expect(get).toMatchObject(expected);
    expect(post).toEqual(get);
    expect(form).toEqual(get);
  });

  it(`reads an answer nested ${SERVICE_JSON_MAX_DEPTH} levels deep`, async () => {
    const { json } = await getJson('svc', request('/fits'), fetcher);
    expect(Object.keys(json as object)).toEqual(['a']);
  });

  it('sorts a timeout and a refused connection the same for GET and POST', async () => {
    const slowGet = await sorted(() => getJson('svc', request('/slow', { timeoutMs: 200 }), fetcher));
    const slowPost = await sorted(() => postJson('svc', { ...request('/slow', { timeoutMs: 200 }), body: { password: SECRET } }, fetcher));
    expect(slowGet.kind).toBe('timeout');
    expect(slowPost).toEqual(slowGet);
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const url = new URL(`http://127.0.0.1:${port}/x`);
    const refusedGet = await sorted(() => getJson('svc', { url, timeoutMs: 2000 }, fetcher));
    const refusedPost = await sorted(() => postForm('svc', { url, timeoutMs: 2000, form: { password: SECRET } }, fetcher));
    expect(refusedGet.kind).toBe('unavailable');
    expect(refusedPost).toEqual(refusedGet);
  });

  it('sends a POST once when the connection drops, where a GET is retried', async () => {
    seen.length = 0;
    expect((await sorted(() => getJson('svc', request('/reset'), fetcher))).kind).toBe('unavailable');
    expect(seen.filter((s) => s.path === '/reset')).toHaveLength(3);
    seen.length = 0;
    expect((await sorted(() => postJson('svc', { ...request('/reset'), body: { n: 1 } }, fetcher))).kind).toBe('unavailable');
    expect(seen.filter((s) => s.path === '/reset')).toEqual([{ method: 'POST', path: '/reset', contentType: 'application/json', body: '{"n":1}' }]);
  });

  it('repeats a POST and its body on 307, and follows 303 with a GET without a body', async () => {
    const kept = await postJson('svc', { ...request('/307'), body: { a: 1 } }, fetcher);
    expect(kept.json).toMatchObject({ method: 'POST', contentType: 'application/json', body: '{"a":1}' });
    const seeOther = await postForm('svc', { ...request('/303'), form: { a: '1' } }, fetcher);
    expect(seeOther.json).toMatchObject({ method: 'GET', contentType: null, body: '' });
  });

  it('never carries a POST body to another origin on 307', async () => {
    const echoes = seen.filter((s) => s.path === '/echo').length;
    const away = await sorted(() => postJson('svc', { ...request('/307-away'), body: { password: 'app-password-1234' } }, fetcher));
    expect(away).toMatchObject({ kind: 'unavailable', status: 307 });
    expect(seen.filter((s) => s.path === '/echo')).toHaveLength(echoes);
  });

  it("reads Bluesky's ratelimit-reset (epoch seconds) as the wait", async () => {
    expect(retryAfterMs({ 'ratelimit-reset': '1800000240' }, 1_800_000_000_000)).toBe(240_000);
    expect(retryAfterMs({ 'ratelimit-reset': '90' }, 1_800_000_000_000)).toBe(90_000);
    const limited = await sorted(() => postJson('svc', { ...request('/429-bluesky'), body: {} }, fetcher));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.retryAfterMs).toBeGreaterThan(200_000);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(240_000);
  });
});
