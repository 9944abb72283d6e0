/**
 * Hostile request bodies through the real service (embedded mode, production actors, the
 * default settings): JSON nested thousands deep in a caller's schema, a schema `default` and
 * webhook `metadata`, text with lone UTF-16 surrogates, headers past Node's limit, a burst of
 * invalid keys. Each is answered with its documented 422, 431 or 429 and never a 500;
 * nothing is stored; and the service keeps serving ordinary requests, also while the hostile
 * ones arrive all at once. The bodies are written as JSON text by loops: JSON.stringify
 * itself overflows the stack on them.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type Embedded } from '../helpers/embedded.js';

const API_KEY = 'e2e-hostile-input-key-0123456789';

let service: Embedded;

beforeAll(async () => {
  service = await startEmbedded({ apiKey: API_KEY });
}, 60_000);
afterAll(async () => {
  await service?.stop();
});

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, any>;
}

async function send(method: string, path: string, text?: string, key = API_KEY): Promise<Answer> {
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(text === undefined ? {} : { body: text }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const deepSchema = (levels: number) => `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const nestedObjects = (levels: number) => `${'{"m":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

/** Every operation that takes a caller's JSON Schema, with `schema` (JSON text) in place. */
const schemaBodies = (schema: string): [string, string][] => [
  ['/v1/scrape', `{"url":"https://example.com/","formats":[{"type":"json","schema":${schema}}]}`],
  ['/v1/crawl', `{"url":"https://example.com/","scrapeOptions":{"formats":[{"type":"json","schema":${schema}}]}}`],
  ['/v1/batch/scrape', `{"urls":["https://example.com/"],"scrapeOptions":{"formats":[{"type":"json","schema":${schema}}]}}`],
  ['/v1/extract', `{"urls":["https://example.com/"],"schema":${schema}}`],
  ['/v1/search', `{"query":"acme","scrapeOptions":{"formats":[{"type":"json","schema":${schema}}]}}`],
];

const hostileBodies = (): [string, string, string][] => [
  ...schemaBodies(deepSchema(2050)).map(([p, b]) => ['POST', p, b] as [string, string, string]),
  ...schemaBodies(`{"type":"object","properties":{"a":{"type":"array","default":${nestedArrays(5000)}}}}`).map(([p, b]) => ['POST', p, b] as [string, string, string]),
  ['POST', '/v1/crawl', `{"url":"https://example.com/","webhook":{"url":"https://hooks.example.com/h","metadata":${nestedObjects(5000)}}}`],
  ['POST', '/v1/batch/scrape', `{"urls":["https://example.com/"],"webhook":{"url":"https://hooks.example.com/h","metadata":${nestedObjects(5000)}}}`],
];

describe('e2e/hostile-input', () => {
  it('answers JSON nested thousands deep with 422 too_deep on every operation that takes free-form JSON', async () => {
    for (const [method, path, text] of hostileBodies()) {
      const res = await send(method, path, text);
      expect(res.status, `${path} ${JSON.stringify(res.body).slice(0, 200)}`).toBe(422);
      expect(res.body.detail).toHaveLength(1);
      expect(res.body.detail[0]).toMatchObject({ type: 'too_deep', msg: 'objects and arrays nest deeper than 64 levels here; at most 64 are accepted' });
      expect(res.body.detail[0].loc[0]).toBe('body');
      expect(res.body.detail[0].loc).toHaveLength(65);
    }
  });

  it('answers lone surrogates on monitor and watch create and update with 422 string_invalid, storing nothing', async () => {
    const msg = 'the text holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape); text must be valid Unicode';
    for (const [method, path, text, loc] of [
      ['POST', '/v1/monitor', '{"name":"\\ud800x","url":"https://example.com/"}', ['body', 'name']],
      ['POST', '/v1/mentions/watches', '{"name":"w","keywords":["acme\\udc00"],"platforms":["hackernews"]}', ['body', 'keywords', 0]],
      ['PATCH', '/v1/mentions/watches/wat_unknown', '{"name":"\\ud800x"}', ['body', 'name']],
      ['PATCH', '/v1/monitor/mon_unknown', '{"goal":"\\udc00"}', ['body', 'goal']],
      ['POST', '/v1/crawl', '{"url":"https://example.com/","webhook":{"url":"https://hooks.example.com/h","metadata":{"note":"\\ud800"}}}', ['body', 'webhook', 'metadata', 'note']],
    ] as const) {
      const res = await send(method, path, text);
      expect(res.status, path).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: [...loc], msg, type: 'string_invalid' }] });
    }
    expect((await send('GET', '/v1/monitor')).body.data.monitors).toEqual([]);
    expect((await send('GET', '/v1/mentions/watches')).body.data.watches).toEqual([]);
  });

  it('keeps serving while hostile bodies arrive all at once', async () => {
    const hostile = Array.from({ length: 4 }, () => hostileBodies()).flat();
    const [answers, ordinary] = await Promise.all([
      Promise.all(hostile.map(([method, path, text]) => send(method, path, text))),
      Promise.all(Array.from({ length: 10 }, () => send('GET', '/v1/templates'))),
    ]);
    // Each stopped by the depth limit at the first level past it (64 below the body), never
    // read further: the check that keeps them cheap. Each request's own 30 s is the guard
    // against one that is not.
    expect(answers.map((a) => a.status)).toEqual(hostile.map(() => 422));
    for (const answer of answers) {
      expect(answer.body.detail).toEqual([expect.objectContaining({ type: 'too_deep', msg: 'objects and arrays nest deeper than 64 levels here; at most 64 are accepted' })]);
      expect(answer.body.detail[0].loc).toHaveLength(65);
    }
    expect(ordinary.map((a) => a.status)).toEqual(ordinary.map(() => 200));
    expect((await send('GET', '/v1/templates')).status).toBe(200);
  });

  it('answers headers past 16 KB with 431 headers_too_large in the envelope', async () => {
    const { port } = new URL(service.base);
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.write(`GET /v1/templates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await once(socket, 'close');
    const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    const requestId = /\r\nx-request-id: (\S+)/i.exec(head)?.[1];
    expect(JSON.parse(body)).toEqual({ success: false, error: { code: 'headers_too_large', message: expect.any(String), retriable: false, requestId } });
    expect((await send('GET', '/v1/templates')).status).toBe(200);
  });

  it('rate-limits invalid keys from one address (INVALID_KEYS_BURST 20), while the known key keeps working', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await send('GET', '/v1/templates', undefined, `wds_guess_${i}`)).status);
    expect(statuses).toEqual([...Array(20).fill(401), 429]);
    const refused = await send('GET', '/v1/templates', undefined, 'wds_guess_again');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await send('GET', '/v1/templates')).status).toBe(200);
  });
});
