/**
 * What no request schema can say, refused at validation with a 422 `detail` before anything
 * walks the body: objects and arrays nested deeper than BODY_MAX_DEPTH (a caller's JSON
 * Schema, its `default`, webhook `metadata`, open objects), text with a lone UTF-16 surrogate,
 * and the webhook `headers` and `metadata` rules (docs/webhooks.md). Hostile bodies are built
 * by loops; after them the gateway still answers a normal request. No pipeline: a valid body
 * is 501 `not_implemented`, which shows it passed validation.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidateFunction } from 'ajv';
import { arrayLimits, withArrayLimits } from '../../gateway/array-limits.js';
import { MAX_DETAILS } from '../../gateway/validation.js';
import { WEBHOOK_HEADER_RULES, WEBHOOK_METADATA_MAX_BYTES } from '../../schemas/api/page-reading.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

const DEPTH = 64;

/*
 * The hostile values are written as JSON text by loops: JSON.stringify itself overflows the
 * stack on them (that is the point), and JSON.parse, which the gateway uses, does not.
 */

/** A JSON Schema whose fields nest `levels` deep: `{type: object, properties: {a: …}}`, as text. */
function deepSchema(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

/** `levels` arrays nested in one another, as text. */
function nestedArrays(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** `levels` objects nested under `m`, as text. */
function nestedObjects(levels: number): string {
  return `${'{"m":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
}

/** `value` as JSON text with the text `raw` in place of the string `"@RAW@"`. */
function withRaw(value: unknown, raw: string): string {
  return JSON.stringify(value).replace('"@RAW@"', raw);
}

const jsonFormat = [{ type: 'json', schema: '@RAW@' }];

/** Each operation that takes a caller's JSON Schema, with `schema` (JSON text) in place, and where it sits. */
function withSchema(schema: string): { name: string; url: string; body: string; at: (string | number)[] }[] {
  return [
    { name: 'scrape', url: '/v1/scrape', body: withRaw({ url: 'https://example.com/', formats: jsonFormat }, schema), at: ['body', 'formats', 0, 'schema'] },
    { name: 'crawl', url: '/v1/crawl', body: withRaw({ url: 'https://example.com/', scrapeOptions: { formats: jsonFormat } }, schema), at: ['body', 'scrapeOptions', 'formats', 0, 'schema'] },
    { name: 'batch', url: '/v1/batch/scrape', body: withRaw({ urls: ['https://example.com/'], scrapeOptions: { formats: jsonFormat } }, schema), at: ['body', 'scrapeOptions', 'formats', 0, 'schema'] },
    { name: 'extract', url: '/v1/extract', body: withRaw({ urls: ['https://example.com/'], schema: '@RAW@' }, schema), at: ['body', 'schema'] },
    { name: 'search', url: '/v1/search', body: withRaw({ query: 'acme', scrapeOptions: { formats: jsonFormat } }, schema), at: ['body', 'scrapeOptions', 'formats', 0, 'schema'] },
  ];
}

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await testGateway();
  key = await gw.key();
});
afterAll(() => gw.close());

function send(method: string, url: string, payload: unknown): Promise<LightMyRequestResponse> {
  return gw.app.inject({
    method: method as 'POST',
    url,
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

type Detail = { loc: (string | number)[]; msg: string; type: string };

function details(res: LightMyRequestResponse): Detail[] {
  expect(res.statusCode, res.body).toBe(422);
  const body = res.json() as { detail: Detail[] };
  expect(Object.keys(body)).toEqual(['detail']);
  return body.detail;
}

/** Still serving: a normal request answers 200. */
async function expectResponsive(): Promise<void> {
  const ok = await gw.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer(key) });
  expect(ok.statusCode).toBe(200);
}

describe('gateway/validation: depth', () => {
  it.each(withSchema(deepSchema(2050)).map((c) => [c.name, c] as const))('%s: a JSON Schema nested 2,050 levels is 422 too_deep at the first level too deep', async (_name, c) => {
    const [detail, ...rest] = details(await send('POST', c.url, c.body));
    expect(rest).toEqual([]);
    expect(detail?.type).toBe('too_deep');
    expect(detail?.msg).toBe(`objects and arrays nest deeper than ${DEPTH} levels here; at most ${DEPTH} are accepted`);
    // The container at depth 65: the body is depth 1, so its path below `body` has 64 steps.
    expect(detail?.loc.slice(0, c.at.length)).toEqual(c.at);
    expect(detail?.loc).toHaveLength(DEPTH + 1);
    expect(detail?.loc.slice(c.at.length, c.at.length + 4)).toEqual(['properties', 'a', 'properties', 'a']);
  });

  it.each(withSchema(`{"type":"object","properties":{"a":{"type":"array","default":${nestedArrays(5000)}}}}`).map((c) => [c.name, c] as const))(
    '%s: a `default` of 5,000 nested arrays (10 KB) is 422 too_deep',
    async (_name, c) => {
      const [detail, ...rest] = details(await send('POST', c.url, c.body));
      expect(rest).toEqual([]);
      expect(detail).toMatchObject({ type: 'too_deep', loc: expect.arrayContaining(['default']) });
      expect(detail?.loc.slice(0, c.at.length + 4)).toEqual([...c.at, 'properties', 'a', 'default', 0]);
    },
  );

  it.each([
    ['crawl', '/v1/crawl', { url: 'https://example.com/' }],
    ['batch', '/v1/batch/scrape', { urls: ['https://example.com/'] }],
  ] as const)('%s: webhook metadata nested 5,000 levels (30 KB) is 422 too_deep', async (_name, url, base) => {
    const metadata = nestedObjects(5000);
    expect(metadata.length).toBeGreaterThan(29_000);
    const [detail, ...rest] = details(await send('POST', url, withRaw({ ...base, webhook: { url: 'https://hooks.example.com/h', metadata: '@RAW@' } }, metadata)));
    expect(rest).toEqual([]);
    expect(detail?.type).toBe('too_deep');
    expect(detail?.loc.slice(0, 5)).toEqual(['body', 'webhook', 'metadata', 'm', 'm']);
    expect(detail?.loc).toHaveLength(DEPTH + 1);
  });

  it('refuses depth in open objects too (social, leads, places) and in any closed field', async () => {
    for (const [url, body, at] of [
      ['/v1/social/x/posts', { anything: '@RAW@' }, ['body', 'anything']],
      ['/v1/leads', { query: 'dentists', extra: '@RAW@' }, ['body', 'extra']],
      ['/v1/places/search', { query: 'cafes in Lyon', extra: '@RAW@' }, ['body', 'extra']],
      ['/v1/scrape', { url: 'https://example.com/', headers: '@RAW@' }, ['body', 'headers']],
    ] as const) {
      const [detail] = details(await send('POST', url, withRaw(body, nestedArrays(5000))));
      expect(detail?.type, url).toBe('too_deep');
      expect(detail?.loc.slice(0, at.length), url).toEqual(at);
    }
  });

  it('accepts a body exactly BODY_MAX_DEPTH deep (then 501: no pipeline here)', async () => {
    // body (1) → webhook (2) → metadata (3) → 61 more levels = 64.
    const crawl = (metadata: string) => send('POST', '/v1/crawl', withRaw({ url: 'https://example.com/', webhook: { url: 'https://hooks.example.com/h', metadata: '@RAW@' } }, metadata));
    const res = await crawl(nestedObjects(DEPTH - 2));
    expect(res.statusCode, res.body).toBe(501);
    const over = await crawl(nestedObjects(DEPTH - 1));
    expect(details(over)[0]?.type).toBe('too_deep');
  });

  it('keeps answering after the hostile bodies', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await send('POST', '/v1/scrape', withSchema(deepSchema(20_000))[0]?.body)).statusCode).toBe(422);
      expect((await send('POST', '/v1/scrape', withSchema(`{"default":${nestedArrays(200_000)}}`)[0]?.body)).statusCode).toBe(422);
    }
    await expectResponsive();
  });
});

describe('gateway/validation: patterns', () => {
  it('answers a 2 MB URL ending in a space at once: 422 for its length and its pattern (the old pattern was quadratic there, and runs past maxLength)', async () => {
    const url = `http://${'a'.repeat(2_000_000)} `;
    const types = details(await send('POST', '/v1/scrape', { url })).map((d) => [d.loc, d.type]);
    expect(types).toEqual([
      [['body', 'url'], 'string_too_long'],
      [['body', 'url'], 'url_invalid'],
    ]);
    await expectResponsive();
  });
});

describe('gateway/validation: arrays and many problems', () => {
  it('answers an array past its maxItems alone, before Ajv walks its items (10,000 formats took 24 s: union errors compared pairwise)', async () => {
    expect(details(await send('POST', '/v1/scrape', { url: 'https://example.com', formats: Array(10_000).fill(1) }))).toEqual([
      { loc: ['body', 'formats'], msg: 'must have at most 20 items', type: 'too_long' },
    ]);
    expect(details(await send('POST', '/v1/crawl', { url: 'https://example.com', scrapeOptions: { formats: Array(5_000).fill('x') } }))).toEqual([
      { loc: ['body', 'scrapeOptions', 'formats'], msg: 'must have at most 20 items', type: 'too_long' },
    ]);
    // 2 MB of bad URLs: 830,000 details (an 80 MB answer) before.
    expect(details(await send('POST', '/v1/batch/scrape', { urls: Array(400_000).fill('x') }))).toEqual([
      { loc: ['body', 'urls'], msg: 'must have at most 10000 items', type: 'too_long' },
    ]);
    await expectResponsive();
  });

  it(`lists at most ${MAX_DETAILS} problems, then says there were more`, async () => {
    const listed = details(await send('POST', '/v1/batch/scrape', { urls: Array.from({ length: 300 }, (_, i) => `not a url ${i}`) }));
    expect(listed).toHaveLength(MAX_DETAILS + 1);
    expect(listed.slice(0, 3).map((d) => d.loc)).toEqual([
      ['body', 'urls', 0],
      ['body', 'urls', 1],
      ['body', 'urls', 2],
    ]);
    expect(listed.at(-1)).toEqual({ loc: ['body'], msg: `more problems were found than the ${MAX_DETAILS} listed`, type: 'too_many_errors' });
    // Exactly the limit: no such line.
    const few = details(await send('POST', '/v1/scrape', { url: 'https://example.com', formats: ['x', 'y'] }));
    expect(few.length).toBeLessThanOrEqual(MAX_DETAILS);
    expect(few.map((d) => d.type)).not.toContain('too_many_errors');
  });

  it('answers an array past its maxItems inside a union alone too, in the one branch the value can be (400,000 modes held the thread 2.4 s)', async () => {
    expect(details(await send('POST', '/v1/scrape', { url: 'https://example.com', formats: ['markdown', { type: 'changeTracking', modes: Array(400_000).fill('x') }] }))).toEqual([
      { loc: ['body', 'formats', 1, 'modes'], msg: 'must have at most 2 items', type: 'too_long' },
    ]);
    // A webhook is a URL or an object: an object can only be the object.
    expect(details(await send('POST', '/v1/crawl', { url: 'https://example.com', webhook: { url: 'https://example.com/h', events: Array(400_000).fill('x') } }))).toEqual([
      { loc: ['body', 'webhook', 'events'], msg: 'must have at most 5 items', type: 'too_long' },
    ]);
    // Within the limit, Ajv answers each item as before.
    expect(details(await send('POST', '/v1/scrape', { url: 'https://example.com', formats: [{ type: 'changeTracking', modes: ['nope', 'json'] }] }))).toEqual([
      { loc: ['body', 'formats', 0, 'modes', 0], msg: 'must be one of "git-diff", "json"', type: 'enum' },
    ]);
    await expectResponsive();
  });

  it('follows a union only into the one branch a value can be: its JSON type and its const members', () => {
    const schema = {
      type: 'object',
      properties: {
        list: {
          type: 'array',
          items: {
            anyOf: [
              { type: 'string' },
              { type: 'object', properties: { type: { const: 'a' }, xs: { type: 'array', maxItems: 1 } } },
              { type: 'object', properties: { type: { const: 'b' }, xs: { type: 'array', maxItems: 3 } } },
            ],
          },
        },
      },
    };
    const limits = arrayLimits(schema);
    const check = (value: unknown) => {
      const validate = Object.assign(() => true, { errors: null }) as unknown as ValidateFunction;
      const guarded = withArrayLimits(validate, limits, MAX_DETAILS);
      return guarded(value) ? [] : (guarded.errors ?? []).map((e) => [e.instancePath, e.params.limit]);
    };
    expect(check({ list: ['x', { type: 'a', xs: [1, 2] }, { type: 'b', xs: [1, 2] }, { type: 'b', xs: [1, 2, 3, 4] }] })).toEqual([
      ['/list/1/xs', 1],
      ['/list/3/xs', 3],
    ]);
    // No `type`: either object branch; a type of neither: no branch. Ajv decides both.
    expect(check({ list: [{ xs: [1, 2, 3, 4, 5] }, { type: 'c', xs: [1, 2, 3, 4, 5] }] })).toEqual([]);
    expect(arrayLimits({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBeNull();
  });
});

describe('gateway/validation: text', () => {
  it.each([
    ['POST', '/v1/monitor', '{"name":"\\ud800x","url":"https://example.com/"}', ['body', 'name']],
    ['POST', '/v1/mentions/watches', '{"name":"\\ud800x","keywords":["acme"]}', ['body', 'name']],
    ['PATCH', '/v1/mentions/watches/w_1', '{"name":"\\ud800x"}', ['body', 'name']],
    ['PATCH', '/v1/mentions/watches/w_1', '{"keywords":["ok","x\\udc00"]}', ['body', 'keywords', 1]],
    ['POST', '/v1/scrape', '{"url":"https://example.com/","headers":{"x-a":"\\udfff"}}', ['body', 'headers', 'x-a']],
    ['POST', '/v1/search', '{"query":"acme \\ud83d"}', ['body', 'query']],
  ] as const)('%s %s: a lone surrogate is 422 string_invalid at its field', async (method, url, payload, loc) => {
    expect(details(await send(method, url, payload))).toEqual([
      { loc: [...loc], msg: 'the text holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape); text must be valid Unicode', type: 'string_invalid' },
    ]);
  });

  it('finds one in a field name, and in an open object', async () => {
    const [detail] = details(await send('POST', '/v1/crawl', '{"url":"https://example.com/","webhook":{"url":"https://hooks.example.com/h","metadata":{"k\\ud800":1}}}'));
    expect(detail).toEqual({
      loc: ['body', 'webhook', 'metadata', 'k\ud800'],
      msg: 'the field name holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape); text must be valid Unicode',
      type: 'string_invalid',
    });
    // The 422 body is valid JSON that escapes the surrogate.
    const raw = (await send('POST', '/v1/leads', '{"query":"dentists","note":"\\udc00"}')).body;
    expect(raw).toContain('"type":"string_invalid"');
    expect(raw).not.toMatch(/[\ud800-\udfff]/);
  });

  it('cannot be given one in a path or query (UTF-8 cannot write it): broken escapes there are a 400 envelope or text as sent', async () => {
    const path = await gw.app.inject({ method: 'GET', url: '/v1/monitor/%ED%A0%80', headers: bearer(key) });
    expect(path.statusCode).toBe(400);
    expect(path.json().error.code).toBe('bad_request');
    const query = await gw.app.inject({ method: 'GET', url: '/v1/mentions?watch_id=%ED%A0%80', headers: bearer(key) });
    expect(query.statusCode).toBe(501);
  });

  it('accepts surrogate pairs, written as escapes or as UTF-8 (then 501: no pipeline here)', async () => {
    expect((await send('POST', '/v1/monitor', '{"name":"\\ud83d\\ude00 watch","url":"https://example.com/"}')).statusCode).toBe(501);
    expect((await send('POST', '/v1/monitor', { name: '😀 watch', url: 'https://example.com/' })).statusCode).toBe(501);
    await expectResponsive();
  });
});

describe('gateway/validation: webhook headers and metadata', () => {
  const starts = [
    ['crawl', '/v1/crawl', { url: 'https://example.com/' }],
    ['batch', '/v1/batch/scrape', { urls: ['https://example.com/'] }],
  ] as const;
  const hook = (extra: Record<string, unknown>) => ({ url: 'https://hooks.example.com/h', ...extra });

  describe.each(starts)('%s', (_name, url, base) => {
    const start = (webhook: unknown) => send('POST', url, { ...base, webhook });

    it('refuses line breaks and control characters in a value, and a name that is not a token', async () => {
      expect(details(await start(hook({ headers: { 'X-Token': 'abc\r\nX-Injected: 1', 'X-Nul': 'a\u0000b', 'X-Euro': '€' } })))).toEqual(
        ['X-Token', 'X-Nul', 'X-Euro'].map((name) => ({
          loc: ['body', 'webhook', 'headers', name],
          msg: 'a header value holds tabs, spaces and visible characters up to U+00FF only: no CR, LF, NUL or other control character',
          type: 'header_value_invalid',
        })),
      );
      expect(details(await start(hook({ headers: { 'Bad Name': 'x', 'x:y': 'z' } })))).toEqual(
        ['Bad Name', 'x:y'].map((name) => ({
          loc: ['body', 'webhook', 'headers', name],
          msg: "a header name is an HTTP token: letters, digits and !#$%&'*+-.^_`|~ only",
          type: 'header_name_invalid',
        })),
      );
    });

    it('refuses the headers the HTTP stack owns: hop-by-hop, Proxy-*, Host, Content-Length', async () => {
      const names = ['Host', 'content-length', 'Connection', 'Keep-Alive', 'Transfer-Encoding', 'TE', 'Upgrade', 'Trailer', 'Proxy-Authorization', 'proxy-connection'];
      const got = details(await start(hook({ headers: Object.fromEntries(names.map((n) => [n, 'x'])) })));
      expect(got.map((d) => [d.loc, d.type])).toEqual(names.map((n) => [['body', 'webhook', 'headers', n], 'header_forbidden']));
      expect(got[0]?.msg).toBe('the Host header is set by the service (hop-by-hop headers, Host and Content-Length cannot be given)');
    });

    it(`caps the headers at ${WEBHOOK_HEADER_RULES.maxCount}, ${WEBHOOK_HEADER_RULES.maxValueChars} characters a value and ${WEBHOOK_HEADER_RULES.maxBytes} bytes`, async () => {
      const many = Object.fromEntries(Array.from({ length: WEBHOOK_HEADER_RULES.maxCount + 1 }, (_, i) => [`X-H${i}`, 'v']));
      expect(details(await start(hook({ headers: many })))).toEqual([
        { loc: ['body', 'webhook', 'headers'], msg: `must have at most ${WEBHOOK_HEADER_RULES.maxCount} fields`, type: 'too_long' },
      ]);
      const big = { 'X-A': 'a'.repeat(3000), 'X-B': 'b'.repeat(3000), 'X-C': 'c'.repeat(3000) };
      expect(details(await start(hook({ headers: big })))).toEqual([
        { loc: ['body', 'webhook', 'headers'], msg: `the headers hold 9009 bytes of names and values; at most ${WEBHOOK_HEADER_RULES.maxBytes} are accepted`, type: 'too_large' },
      ]);
      expect(details(await start(hook({ headers: { 'X-A': 'a'.repeat(WEBHOOK_HEADER_RULES.maxValueChars + 1) } })))).toEqual([
        { loc: ['body', 'webhook', 'headers', 'X-A'], msg: `must have at most ${WEBHOOK_HEADER_RULES.maxValueChars} characters`, type: 'string_too_long' },
      ]);
    });

    it(`caps metadata at ${WEBHOOK_METADATA_MAX_BYTES} bytes as JSON`, async () => {
      const metadata = { note: 'x'.repeat(WEBHOOK_METADATA_MAX_BYTES) };
      const size = JSON.stringify(metadata).length;
      expect(details(await start(hook({ metadata })))).toEqual([
        { loc: ['body', 'webhook', 'metadata'], msg: `must be at most ${WEBHOOK_METADATA_MAX_BYTES} bytes as JSON; this is ${size}`, type: 'too_large' },
      ]);
    });

    it('accepts ordinary headers and metadata (then 501: no pipeline here)', async () => {
      const res = await start(hook({ headers: { Authorization: 'Bearer t0ken', 'X-Signature-Key': 'k\tv ü' }, metadata: { run: 7, tags: ['a'] } }));
      expect(res.statusCode, res.body).toBe(501);
    });
  });
});
