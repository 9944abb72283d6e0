/**
 * gateway/json-body.ts and the JSON body parser of gateway/app.ts: valid JSON with a member
 * naming a prototype (`__proto__`, `constructor` holding `prototype`) is a 422 naming each
 * member, wherever it is; nothing is ever set on a prototype; a `constructor` that is an
 * ordinary field (a caller's schema property) still reaches the handler as it was sent.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Handlers } from '../../gateway/handler.js';
import { prototypeKeyDetails, refusedJsonBody } from '../../gateway/json-body.js';
import { ValidationFailed } from '../../gateway/replies.js';
import { MAX_DETAILS } from '../../gateway/validation.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

const URL = 'http://127.0.0.1:8099/page';
const PROTO = { msg: expect.stringContaining('`__proto__` is not accepted'), type: 'extra_forbidden' };
const CONSTRUCTOR = { msg: expect.stringContaining('`constructor` field holding a `prototype`'), type: 'extra_forbidden' };

/** Nothing was set on Object.prototype: the bodies below all try `x`. */
function expectPrototypeClean(): void {
  expect(({} as { x?: unknown }).x).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('x');
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('x');
}

describe('gateway/json-body', () => {
  it('names every member that names a prototype, in the order written, without looking into it', () => {
    const value = JSON.parse(
      '{"a":{"__proto__":{"__proto__":1}},"list":[{"b":1},{"constructor":{"prototype":{"x":1}}}],"constructor":{"name":"ok"},"\\u005f_proto__":2}',
    ) as unknown;
    expect(prototypeKeyDetails(value)).toEqual([
      { loc: ['body', 'a', '__proto__'], ...PROTO },
      { loc: ['body', 'list', 1, 'constructor'], ...CONSTRUCTOR },
      { loc: ['body', '__proto__'], ...PROTO },
    ]);
    // Only read: the value keeps its own `__proto__` member and its plain prototype.
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value as object, '__proto__')).toBe(true);
    expectPrototypeClean();
    expect(prototypeKeyDetails(JSON.parse('{"constructor":1,"c":{"constructor":{"type":"string"}},"prototype":{}}'))).toEqual([]);
    expect(prototypeKeyDetails(JSON.parse('[1,"__proto__",null]'))).toEqual([]);
    expect(prototypeKeyDetails(null)).toEqual([]);
  });

  it(`walks without recursion and lists at most ${MAX_DETAILS} members`, () => {
    const deep = `${'{"a":'.repeat(50_000)}{"__proto__":1}${'}'.repeat(50_000)}`;
    const found = prototypeKeyDetails(JSON.parse(deep));
    expect(found).toHaveLength(1);
    expect(found[0]?.loc).toHaveLength(50_002);
    const many = prototypeKeyDetails(JSON.parse(`[${Array(300).fill('{"__proto__":1}').join(',')}]`));
    expect(many).toHaveLength(MAX_DETAILS + 1);
    expect(many[MAX_DETAILS - 1]?.loc).toEqual(['body', MAX_DETAILS - 1, '__proto__']);
    expect(many[MAX_DETAILS]).toEqual({ loc: ['body'], msg: `more problems were found than the ${MAX_DETAILS} listed`, type: 'too_many_errors' });
  });

  it('tells a refused valid body from text that is not JSON', () => {
    const refused = refusedJsonBody('\ufeff{"__proto__":{"x":1}}', 'the parser said');
    expect(refused).toBeInstanceOf(ValidationFailed);
    expect((refused as ValidationFailed).detail).toEqual([{ loc: ['body', '__proto__'], ...PROTO }]);
    const broken = refusedJsonBody('{"__proto__":', 'the parser said');
    expect(broken).toBeInstanceOf(AppError);
    expect(broken).toMatchObject({ code: 'invalid_json', message: 'the body is not valid JSON: the parser said' });
    expectPrototypeClean();
  });
});

describe('gateway/app: JSON bodies naming a prototype', () => {
  let gw: TestGateway;
  let key: string;
  let seen: unknown;
  const capture = { handle: async (ctx: { body: unknown }) => ((seen = ctx.body), { data: {} }) };
  beforeAll(async () => {
    gw = await testGateway({}, { handlers: { scrape: capture, extract: capture, crawlStart: capture } as unknown as Handlers });
    key = await gw.key();
  });
  afterAll(() => gw.close());
  afterEach(() => {
    seen = undefined;
    expectPrototypeClean();
  });

  async function post(url: string, payload: string) {
    const res = await gw.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': 'application/json' }, payload });
    return { status: res.statusCode, body: res.json() as Record<string, unknown>, headers: res.headers };
  }

  it('answers a top-level `__proto__` or `constructor.prototype` with a 422 naming it, as any unknown field', async () => {
    for (const [member, expected] of [
      ['"__proto__":{"x":1}', { loc: ['body', '__proto__'], ...PROTO }],
      ['"\\u005f\\u005fproto__":{"x":1}', { loc: ['body', '__proto__'], ...PROTO }],
      ['"constructor":{"prototype":{"x":1}}', { loc: ['body', 'constructor'], ...CONSTRUCTOR }],
      ['"constructor":{"prototype":{}}', { loc: ['body', 'constructor'], ...CONSTRUCTOR }],
    ] as const) {
      const res = await post('/v1/scrape', `{"url":"${URL}",${member}}`);
      expect(res.status, member).toBe(422);
      expect(res.body, member).toEqual({ detail: [expected] });
      expect(res.headers['x-request-id']).toMatch(/^[\w.:-]+$/);
      expect(seen).toBeUndefined();
    }
    // Any other `constructor` is an ordinary unknown field, the schema's to refuse.
    expect((await post('/v1/scrape', `{"url":"${URL}","constructor":1}`)).body).toEqual({
      detail: [{ loc: ['body', 'constructor'], msg: 'unknown field; this object is closed', type: 'extra_forbidden' }],
    });
    // Text that is not JSON stays a 400.
    const broken = await post('/v1/scrape', '{"__proto__":{"x":1}');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ success: false, error: { code: 'invalid_json' } });
  });

  it('answers the same wherever the member is: scrape options, a format, a caller\'s JSON Schema, webhook metadata', async () => {
    const cases: [string, string, (string | number)[], typeof PROTO][] = [
      ['/v1/crawl', `{"url":"${URL}","scrapeOptions":{"__proto__":{"x":1}}}`, ['body', 'scrapeOptions', '__proto__'], PROTO],
      ['/v1/scrape', `{"url":"${URL}","formats":[{"type":"json","__proto__":{"x":1}}]}`, ['body', 'formats', 0, '__proto__'], PROTO],
      [
        '/v1/extract',
        `{"urls":["${URL}"],"schema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}`,
        ['body', 'schema', 'properties', '__proto__'],
        PROTO,
      ],
      [
        '/v1/extract',
        `{"urls":["${URL}"],"schema":{"type":"object","properties":{"a":{"constructor":{"prototype":{"x":1}}}}}}`,
        ['body', 'schema', 'properties', 'a', 'constructor'],
        CONSTRUCTOR,
      ],
      ['/v1/crawl', `{"url":"${URL}","webhook":{"url":"https://example.com/hook","metadata":{"__proto__":{"x":1}}}}`, ['body', 'webhook', 'metadata', '__proto__'], PROTO],
    ];
    for (const [url, payload, loc, kind] of cases) {
      const res = await post(url, payload);
      expect(res.status, payload).toBe(422);
      expect(res.body, payload).toEqual({ detail: [{ loc, ...kind }] });
      expect(seen).toBeUndefined();
    }
  });

  it("keeps a caller's schema property named `constructor` (or `prototype`) as it was sent, on a clean object", async () => {
    const schema = { type: 'object', properties: { constructor: { type: 'string' }, prototype: { type: 'object', properties: { constructor: { type: 'number' } } } } };
    for (const [url, payload] of [
      ['/v1/extract', JSON.stringify({ urls: [URL], schema })],
      ['/v1/scrape', JSON.stringify({ url: URL, formats: [{ type: 'json', schema }] })],
    ] as const) {
      const res = await post(url, payload);
      expect(res.status, res.body && JSON.stringify(res.body)).toBe(200);
      const body = seen as Record<string, unknown>;
      expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
      const sent = url === '/v1/extract' ? (body.schema as Record<string, unknown>) : ((body.formats as Record<string, unknown>[])[0]?.schema as Record<string, unknown>);
      expect(sent).toEqual(schema);
      const properties = sent.properties as Record<string, unknown>;
      expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
      expect(Object.keys(properties)).toEqual(['constructor', 'prototype']);
      expect(Object.hasOwn(properties, 'constructor')).toBe(true);
      expect(properties.constructor).toEqual({ type: 'string' });
    }
  });

  it('answers Firecrawl callers in its own shape', async () => {
    const res = await post('/firecrawl/v2/scrape', `{"url":"${URL}","__proto__":{"x":1}}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST', details: [{ loc: ['body', '__proto__'], ...PROTO }] });
    expect(res.body.error).toMatch(/^Bad Request: __proto__: /);
    expect(res.headers['x-request-id']).toMatch(/^[\w.:-]+$/);
  });

  it('answers MCP callers a JSON-RPC error, as the SDK\'s transport answers a body it refuses', async () => {
    const mcp = async (payload: string, type = 'application/json') => {
      const res = await gw.app.inject({ method: 'POST', url: '/mcp', headers: { ...bearer(key), 'content-type': type, accept: 'application/json, text/event-stream' }, payload });
      return { status: res.statusCode, body: res.json() as { jsonrpc: string; id: unknown; error: { code: number; message: string; data?: Record<string, unknown> } }, headers: res.headers };
    };
    const proto = await mcp('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"scrape","arguments":{"__proto__":{"x":1}}}}');
    expect(proto.status).toBe(400);
    expect(proto.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { detail: [{ loc: ['body', 'params', 'arguments', '__proto__'], ...PROTO }] } } });
    expect(proto.body.error.message).toMatch(/^Invalid Request: validation failed: body\.params\.arguments\.__proto__: /);
    expect(proto.headers['x-request-id']).toMatch(/^[\w.:-]+$/);
    const broken = await mcp('{"jsonrpc":"2.0",');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } });
    const text = await mcp('hello', 'text/plain');
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' } });
    const large = await mcp(`{"jsonrpc":"2.0","pad":"${'x'.repeat(gw.config.uploadLimitBytes * 2)}"}`);
    expect(large.status).toBe(413);
    expect(large.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^Payload Too Large: /) } });
  });
});
