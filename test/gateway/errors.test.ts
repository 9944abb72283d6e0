import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, type ErrorCode } from '../../schemas/errors.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** Asserts the error envelope and that the status is the one the table gives the code. */
function expectError(res: Reply, code: ErrorCode): { message: string; requestId: string } {
  expect(res.status, res.body).toBe(ERRORS[code].status);
  const body = JSON.parse(res.body) as { success: unknown; error: Record<string, unknown> };
  expect(body).toEqual({
    success: false,
    error: { code, message: expect.any(String), retriable: ERRORS[code].retriable, requestId: expect.any(String) },
  });
  expect(body.error.message).not.toBe('');
  expect(body.error.requestId).toBe(res.headers['x-request-id']);
  return body.error as { message: string; requestId: string };
}

function multipart(files: { field: string; name: string; size: number }[], boundary = 'wdsboundary1234') {
  const parts = files.map(
    (f) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.name}"\r\n` +
      `Content-Type: application/pdf\r\n\r\n${'x'.repeat(f.size)}\r\n`,
  );
  return {
    payload: `${parts.join('')}--${boundary}--\r\n`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

describe('gateway/errors', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    gw = await testGateway({ BODY_LIMIT_BYTES: '2048', UPLOAD_LIMIT_BYTES: '1024' });
    key = await gw.key();
  });
  afterAll(() => gw.close());

  async function send(options: {
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
    url: string;
    headers?: Record<string, string>;
    payload?: string;
  }): Promise<Reply> {
    const res = await gw.app.inject({ ...options, headers: { ...bearer(key), ...options.headers } });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }
  const json = { 'content-type': 'application/json' };
  const scrapeBody = JSON.stringify({ url: 'https://example.com' });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await send({ method: 'POST', url: '/v1/scrape', headers: json, payload: '{"url": "https://example.com",' });
    expectError(res, 'invalid_json');
  });

  it('answers a JSON body that is only whitespace-broken with 400 invalid_json', async () => {
    expectError(await send({ method: 'POST', url: '/v1/scrape', headers: json, payload: 'nul' }), 'invalid_json');
  });

  it('answers a text/plain body with 415 unsupported_media_type', async () => {
    const res = await send({ method: 'POST', url: '/v1/scrape', headers: { 'content-type': 'text/plain' }, payload: scrapeBody });
    expectError(res, 'unsupported_media_type');
  });

  it('answers a body over BODY_LIMIT_BYTES with 413 payload_too_large', async () => {
    const payload = JSON.stringify({ url: `https://example.com/?q=${'a'.repeat(3000)}` });
    expectError(await send({ method: 'POST', url: '/v1/scrape', headers: json, payload }), 'payload_too_large');
  });

  it('accepts a body just under BODY_LIMIT_BYTES', async () => {
    const payload = JSON.stringify({ url: `https://example.com/?q=${'a'.repeat(1900)}` });
    expect(payload.length).toBeLessThan(2048);
    expectError(await send({ method: 'POST', url: '/v1/scrape', headers: json, payload }), 'not_implemented');
  });

  it('answers an unknown route with a 404 not_found envelope', async () => {
    const res = await send({ method: 'GET', url: '/v1/nothing-here?x=1' });
    const error = expectError(res, 'not_found');
    expect(error.message).toContain('/v1/nothing-here');
    expect(error.message).not.toContain('x=1');
    expectError(await send({ method: 'PUT', url: '/v1/scrape' }), 'not_found');
  });

  it('answers a valid request to an operation with no handler with 501 not_implemented', async () => {
    expectError(await send({ method: 'POST', url: '/v1/scrape', headers: json, payload: scrapeBody }), 'not_implemented');
    expectError(await send({ method: 'GET', url: '/v1/crawl/job_123' }), 'not_implemented');
  });

  it('answers JSON sent to POST /v1/parse with 415', async () => {
    expectError(await send({ method: 'POST', url: '/v1/parse', headers: json, payload: '{"file": "x"}' }), 'unsupported_media_type');
  });

  it('accepts a multipart upload to POST /v1/parse within UPLOAD_LIMIT_BYTES (then 501: no parser in this gateway)', async () => {
    const { payload, headers } = multipart([{ field: 'file', name: 'a.pdf', size: 500 }]);
    expectError(await send({ method: 'POST', url: '/v1/parse', headers, payload }), 'not_implemented');
  });

  it('answers a multipart upload over UPLOAD_LIMIT_BYTES with 413 payload_too_large', async () => {
    const { payload, headers } = multipart([{ field: 'file', name: 'a.pdf', size: 1500 }]);
    expect(payload.length).toBeLessThan(2048);
    expectError(await send({ method: 'POST', url: '/v1/parse', headers, payload }), 'payload_too_large');
  });

  it('answers a multipart body without the file with 422 at body.file', async () => {
    const { payload, headers } = multipart([{ field: 'other', name: 'a.pdf', size: 10 }]);
    const res = await send({ method: 'POST', url: '/v1/parse', headers, payload });
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body)).toEqual({ detail: [{ loc: ['body', 'file'], msg: 'file required', type: 'missing' }] });
  });

  it.each([
    ['no body at all', {}],
    ['an empty JSON body', { headers: { 'content-type': 'application/json' }, payload: '' }],
  ])('answers %s on an operation that requires one with 422 at [body]', async (_name, extra) => {
    const res = await send({ method: 'POST', url: '/v1/scrape', ...extra });
    expect(res.status, res.body).toBe(422);
    const body = JSON.parse(res.body) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail).toEqual([{ loc: ['body'], msg: 'field required', type: 'missing' }]);
  });

  it('answers a POST with no body to an operation without a body schema with 501, not 400', async () => {
    expectError(await send({ method: 'POST', url: '/v1/mentions/watches/abc/test' }), 'not_implemented');
    expectError(await send({ method: 'POST', url: '/v1/mentions/watches/abc/test', headers: json, payload: '' }), 'not_implemented');
  });

  // A broken multipart body (busboy's "Multipart: Boundary not found", "Unexpected end of
  // multipart data", errors without a code) is the 400 bad_request that ERRORS.bad_request
  // names, never a 500 internal_error.
  it.each([
    ['without a boundary', 'multipart/form-data'],
    ['with a body that is not multipart', 'multipart/form-data; boundary=zz'],
  ])('answers a broken multipart body (%s) with 400 bad_request', async (_name, contentType) => {
    const res = await send({ method: 'POST', url: '/v1/parse', headers: { 'content-type': contentType }, payload: 'garbage' });
    expectError(res, 'bad_request');
  });

  // PATH_PARAMS ids allow 128 characters; Fastify's router refuses longer parameters than its
  // maxParamLength (default 100) with a body of its own, so gateway/app.ts raises it: a
  // 128-character id reaches the operation (501 here, as 100 characters does).
  it('accepts path ids up to the 128 characters the schema allows', async () => {
    expectError(await send({ method: 'GET', url: `/v1/crawl/${'a'.repeat(100)}` }), 'not_implemented');
    expectError(await send({ method: 'GET', url: `/v1/crawl/${'a'.repeat(128)}` }), 'not_implemented');
  });

  // A URL with broken percent-encoding is a Fastify framework error (FST_ERR_BAD_URL);
  // gateway/app.ts routes those through sendError: the 400 bad_request envelope.
  it('answers a URL with broken percent-encoding with the 400 bad_request envelope', async () => {
    expectError(await send({ method: 'GET', url: '/v1/crawl/%E0%A4%A' }), 'bad_request');
  });

  it('sets an x-request-id on every response and echoes a valid one from the client', async () => {
    const ok = await send({ method: 'GET', url: '/v1/templates' });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-request-id']).toMatch(/^[\w.:-]{1,128}$/);
    const echoed = await send({ method: 'POST', url: '/v1/scrape', headers: { ...json, 'x-request-id': 'client-req.42:a' }, payload: '{' });
    expect(echoed.headers['x-request-id']).toBe('client-req.42:a');
    expect(expectError(echoed, 'invalid_json').requestId).toBe('client-req.42:a');
    const success = await send({ method: 'GET', url: '/v1/templates', headers: { 'x-request-id': 'abc-123' } });
    expect(success.headers['x-request-id']).toBe('abc-123');
  });

  it.each([
    ['with spaces', 'has spaces in it'],
    ['too long', 'a'.repeat(129)],
    ['with a slash', 'a/b'],
    ['with quotes and a backslash (the access line writes ids unescaped)', 'a"b\\c'],
  ])('replaces a client x-request-id %s with its own', async (_name, given) => {
    const res = await send({ method: 'GET', url: '/v1/nowhere', headers: { 'x-request-id': given } });
    expect(res.headers['x-request-id']).not.toBe(given);
    expect(res.headers['x-request-id']).toMatch(/^[\w.:-]{1,128}$/);
    expectError(res, 'not_found');
  });

  it('gives each request its own id', async () => {
    const a = await send({ method: 'GET', url: '/v1/nowhere' });
    const b = await send({ method: 'GET', url: '/v1/nowhere' });
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  describe('over a real socket', () => {
    let base: string;
    beforeAll(async () => {
      await gw.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
    });

    async function request(path: string, init: RequestInit = {}): Promise<Reply> {
      const res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(5000) });
      return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
    }
    const auth = () => bearer(key);

    it('answers the same envelopes', async () => {
      expectError(await request('/v1/templates'), 'missing_api_key');
      expectError(await request('/v1/templates', { headers: bearer('wds_nope') }), 'invalid_api_key');
      expectError(await request('/v1/nope', { headers: auth() }), 'not_found');
      expectError(
        await request('/v1/scrape', { method: 'POST', headers: { ...auth(), ...json }, body: '{"url":' }),
        'invalid_json',
      );
      expectError(
        await request('/v1/scrape', { method: 'POST', headers: { ...auth(), 'content-type': 'text/plain' }, body: scrapeBody }),
        'unsupported_media_type',
      );
      expectError(
        await request('/v1/scrape', { method: 'POST', headers: { ...auth(), ...json }, body: JSON.stringify({ url: 'x'.repeat(3000) }) }),
        'payload_too_large',
      );
      const { payload, headers } = multipart([{ field: 'file', name: 'big.pdf', size: 1500 }]);
      expectError(await request('/v1/parse', { method: 'POST', headers: { ...auth(), ...headers }, body: payload }), 'payload_too_large');
      expectError(
        await request('/v1/scrape', { method: 'POST', headers: { ...auth(), ...json, 'x-request-id': 'sock-1' }, body: scrapeBody }),
        'not_implemented',
      );
    });

    /** Writes `raw` on a new connection and reads the answer until the server closes it. */
    async function rawExchange(raw: string): Promise<Reply> {
      const { port } = gw.app.server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', () => undefined);
      socket.write(raw);
      await once(socket, 'close');
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      return { status: Number(statusLine.split(' ')[1]), headers, body };
    }

    it("answers what Node's HTTP parser refuses in the envelope too: 431 headers_too_large, 400 bad_request", async () => {
      // Headers past Node's 16 KB: the parser refuses them before there is a request.
      const big = await rawExchange(`GET /v1/templates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expectError(big, 'headers_too_large');
      expect(big.headers['content-type']).toMatch(/^application\/json/);
      expect(big.headers.connection).toBe('close');
      // The same over fetch.
      const viaFetch = await request('/v1/templates', { headers: { ...auth(), 'x-big': 'a'.repeat(20_000) } });
      expectError(viaFetch, 'headers_too_large');
      for (const malformed of ['GARBAGE\r\n\r\n', 'GET /v1/templates HTTP/1.1\r\nBad Header\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n']) {
        const res = await rawExchange(malformed);
        expect(expectError(res, 'bad_request').message, malformed).toMatch(/^the request is malformed at the HTTP level \(HPE_/);
      }
      // The server still serves.
      expect((await request('/v1/templates', { headers: auth() })).status).toBe(200);
    });

    it('answers an HTTP/1.1 request without a Host header with 400 bad_request in the envelope, not Node\'s empty 400', async () => {
      for (const raw of [
        `GET /v1/templates HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`,
        // A body too, and a route that needs no key: the refusal comes before either.
        `POST /v1/scrape HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
        `GET /v1/nowhere HTTP/1.1\r\n\r\n`,
      ]) {
        const res = await rawExchange(raw);
        expect(expectError(res, 'bad_request').message, raw).toBe('the Host header is missing; HTTP/1.1 requires one');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
        expect(res.headers.connection).toBe('close');
        expect(res.headers['x-request-id']).toMatch(/^[\w.:-]{1,128}$/);
      }
      // The caller's own request id is kept.
      const named = await rawExchange(`GET /v1/templates HTTP/1.1\r\nX-Request-Id: no-host-1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      expect(expectError(named, 'bad_request').requestId).toBe('no-host-1');
      // HTTP/1.0 needs no Host, and an empty one is a Host: both are served.
      expect((await rawExchange(`GET /v1/templates HTTP/1.0\r\nAuthorization: Bearer ${key}\r\n\r\n`)).status).toBe(200);
      const empty = await rawExchange(`GET /v1/templates HTTP/1.1\r\nHost:\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
      expect(empty.status).toBe(200);
      // The server still serves.
      expect((await request('/v1/templates', { headers: auth() })).status).toBe(200);
    });

    it('answers every body the parsers refuse in the envelope: broken JSON, a bad Content-Length, an unknown content type, a bad URL', async () => {
      expectError(await request('/v1/scrape', { method: 'POST', headers: { ...auth(), ...json }, body: '{"url": "https://example.com"' }), 'invalid_json');
      // Valid JSON naming a prototype is no parse failure: a 422 naming the member (test/gateway/json-body.test.ts).
      const proto = await request('/v1/scrape', { method: 'POST', headers: { ...auth(), ...json }, body: '{"__proto__": {"x": 1}}' });
      expect(proto.status).toBe(422);
      expect(JSON.parse(proto.body).detail).toEqual([expect.objectContaining({ loc: ['body', '__proto__'], type: 'extra_forbidden' })]);
      expect(proto.headers['x-request-id']).toMatch(/^[\w.:-]{1,128}$/);
      expectError(await request('/v1/scrape', { method: 'POST', headers: { ...auth(), 'content-type': 'application/x-thing' }, body: 'x' }), 'unsupported_media_type');
      const short = await rawExchange(`POST /v1/scrape HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`);
      expectError(short, 'bad_request');
      expectError(await request('/v1/crawl/%E0%A4%A', { headers: auth() }), 'bad_request');
    });

    it('answers success and 422 over the socket too', async () => {
      const ok = await request('/v1/templates', { headers: auth() });
      expect(ok.status).toBe(200);
      expect(ok.headers['content-type']).toMatch(/^application\/json/);
      const bad = await request('/v1/scrape', { method: 'POST', headers: { ...auth(), ...json }, body: '{}' });
      expect(bad.status).toBe(422);
      expect(JSON.parse(bad.body)).toEqual({ detail: [{ loc: ['body', 'url'], msg: 'field required', type: 'missing' }] });
      // Written straight to Node's response (gateway/replies.ts writeValidationFailed): the same headers Fastify's send writes.
      expect(bad.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(bad.headers['content-length']).toBe(String(Buffer.byteLength(bad.body)));
      expect(bad.headers['x-request-id']).toMatch(/^[\w.:-]{1,128}$/);
      const named = await request('/v1/scrape', { method: 'POST', headers: { ...auth(), ...json, 'x-request-id': 'mine-422' }, body: '{"url":"https://example.com","formats":["é"]}' });
      expect(named.status).toBe(422);
      expect(named.headers['x-request-id']).toBe('mine-422');
      expect(named.headers['content-length']).toBe(String(Buffer.byteLength(named.body)));
      expect(JSON.parse(named.body).detail.length).toBeGreaterThan(0);
    });
  });
});
