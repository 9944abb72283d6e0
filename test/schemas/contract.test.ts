/**
 * The request contract of every operation, driven by its schemas: a minimal request passes,
 * every bound holds at its limit and fails one step outside with the documented `loc` and
 * `type`, every closed object rejects unknown fields. A hand-written table then checks the
 * spec's named limits without the schema walker, and the cross-field rules are checked case
 * by case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import type { Operation } from '../../schemas/api/operations.js';
import { bounds, closedObjects, minimalValue, type Bound } from '../helpers/schema-walk.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';
import { injectOptions, JSON_OPERATIONS, minimalParts, partSchemas, title, withPart, type PartName, type RequestParts } from './requests.js';
import { expectErrorEnvelope } from './reply-shape.js';
import { KINDS, SPEC_LIMITS, type Loc } from './spec-limits.js';

interface Detail {
  loc: Loc;
  msg: string;
  type: string;
}

let gw: TestGateway;
let key: string;

async function send(op: Operation, parts: RequestParts) {
  return gw.app.inject(injectOptions(op, parts, key));
}

async function sendRaw(method: InjectOptions['method'], url: string, body?: unknown) {
  return gw.app.inject({
    method,
    url,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

function expectAccepted(res: { statusCode: number; body: string }): void {
  expect([200, 501], `status ${res.statusCode}: ${res.body.slice(0, 400)}`).toContain(res.statusCode);
}

function expectDetail(res: { statusCode: number; body: string }, loc: Loc, type: string): void {
  expect(res.statusCode, res.body.slice(0, 400)).toBe(422);
  const { detail } = JSON.parse(res.body) as { detail: Detail[] };
  expect(detail, `422 detail names ${JSON.stringify(loc)} ${type}`).toContainEqual(expect.objectContaining({ loc, type }));
}

/** Test names must be unique to read well in a report; unions can repeat a label. */
function uniqueNames<T extends { name: string }>(cases: T[]): T[] {
  const seen = new Map<string, number>();
  return cases.map((c) => {
    const n = (seen.get(c.name) ?? 0) + 1;
    seen.set(c.name, n);
    return n === 1 ? c : { ...c, name: `${c.name} #${n}` };
  });
}

const where = (part: PartName, label: string) => (label ? `${part}.${label}` : part);
const WORDS: Partial<Record<Bound['keyword'], string>> = { minimum: 'min', maximum: 'max' };

interface BoundCase {
  name: string;
  op: Operation;
  part: PartName;
  bound: Bound;
}

const BOUND_CASES = uniqueNames(
  JSON_OPERATIONS.flatMap((op) =>
    partSchemas(op).flatMap(([part, schema]) =>
      bounds(schema).map((bound): BoundCase => ({
        name: `${title(op)} ${where(part, bound.site.label)} ${WORDS[bound.keyword] ?? bound.keyword} ${bound.limit}`,
        op,
        part,
        bound,
      })),
    ),
  ),
);

const CLOSED_CASES = uniqueNames(
  JSON_OPERATIONS.flatMap((op) =>
    partSchemas(op).flatMap(([part, schema]) =>
      closedObjects(schema).map((site) => ({ name: `${title(op)} ${where(part, site.label)} rejects unknownField`, op, part, site })),
    ),
  ),
);

describe('schemas/api contract', () => {
  beforeAll(async () => {
    gw = await testGateway({ RATE_LIMIT_PER_MINUTE: '0' });
    key = await gw.key();
  });
  afterAll(() => gw.close());

  it('the schema walker reaches nested bounds and closed objects (so the generated tests are not vacuous)', () => {
    const bounds = BOUND_CASES.map((c) => c.name);
    expect(bounds.length).toBeGreaterThan(400);
    expect(bounds).toEqual(
      expect.arrayContaining([
        'POST /v1/crawl body.scrapeOptions.waitFor max 120000',
        'POST /v1/scrape body.actions[0]{captchaCheckbox}.timeoutMs min 500',
        'POST /v1/crawl body.webhook<object>.metadata maxProperties 50',
        'GET /v1/crawl/{job_id}/pages query.limit max 200',
        'POST /v1/social/{platform}/{endpoint} path.platform maxLength 64',
      ]),
    );
    expect(CLOSED_CASES.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        'POST /v1/scrape body rejects unknownField',
        'POST /v1/search body.scrapeOptions.formats[0]{screenshot}.viewport rejects unknownField',
        'POST /v1/extract body.model rejects unknownField',
      ]),
    );
  });

  describe('a minimal request passes validation', () => {
    for (const op of JSON_OPERATIONS) {
      it(`${title(op)} minimal request`, async () => {
        expectAccepted(await send(op, minimalParts(op)));
      });
    }
  });

  describe('every bound: the limit passes, one step outside is a 422', () => {
    for (const { name, op, part, bound } of BOUND_CASES) {
      it(`${name}: at the bound passes`, async () => {
        expectAccepted(await send(op, withPart(minimalParts(op), part, bound.site.place(bound.at))));
      });
      it(`${name}: outside is 422 ${bound.code}`, async () => {
        const res = await send(op, withPart(minimalParts(op), part, bound.site.place(bound.outside)));
        expectDetail(res, [part, ...bound.site.path], bound.code);
      });
    }
  });

  describe('every closed object rejects an unknown field', () => {
    for (const { name, op, part, site } of CLOSED_CASES) {
      it(name, async () => {
        const value = { ...(minimalValue(site.schema) as object), unknownField: 1 };
        const res = await send(op, withPart(minimalParts(op), part, site.place(value)));
        expectDetail(res, [part, ...site.path, 'unknownField'], 'extra_forbidden');
      });
    }
  });

  describe("the spec's named limits", () => {
    for (const row of SPEC_LIMITS) {
      const kind = KINDS[row.kind];
      const make = row.make ?? kind.make;
      const checks: [string, number, string | null][] = [];
      if (row.min !== undefined) checks.push([`accepts ${row.min}`, row.min, null], [`rejects ${row.min - 1}`, row.min - 1, kind.below]);
      if (row.max !== undefined) checks.push([`accepts ${row.max}`, row.max, null], [`rejects ${row.max + 1}`, row.max + 1, kind.above]);
      for (const [what, n, code] of checks) {
        it(`${row.what} ${row.kind === 'integer' ? '' : `${row.kind} `}${what}`, async () => {
          const { method, url, body } = row.send(make(n));
          const res = await sendRaw(method, url, body);
          if (code === null) expectAccepted(res);
          else expectDetail(res, row.loc, code);
        });
      }
    }
  });

  describe('cross-field rules', () => {
    const url = 'https://example.com/';
    const scrape = (fields: object) => sendRaw('POST', '/v1/scrape', { url, ...fields });

    it('a json format with both schema and template is mutually_exclusive at its index', async () => {
      const res = await scrape({ formats: ['markdown', { type: 'json', schema: {}, template: 'product' }] });
      expectDetail(res, ['body', 'formats', 1], 'mutually_exclusive');
    });
    it('a json format with schema, template or neither passes; a null one does not count', async () => {
      for (const format of [{ type: 'json', schema: {} }, { type: 'json', template: 'product' }, { type: 'json' }, { type: 'json', schema: null, template: 'product' }]) {
        expectAccepted(await scrape({ formats: [format] }));
      }
    });
    it('an action of an unknown type is union_tag_invalid at its type', async () => {
      expectDetail(await scrape({ actions: [{ type: 'hover', selector: 'a' }] }), ['body', 'actions', 0, 'type'], 'union_tag_invalid');
    });
    it('an action whose type is not a string is union_tag_invalid', async () => {
      expectDetail(await scrape({ actions: [{ type: 7 }] }), ['body', 'actions', 0, 'type'], 'union_tag_invalid');
    });
    it('an extra field on an action is extra_forbidden, checked against the branch its type names', async () => {
      const res = await scrape({ actions: [{ type: 'scrape' }, { type: 'click', selector: 'a', milliseconds: 5 }] });
      expectDetail(res, ['body', 'actions', 1, 'milliseconds'], 'extra_forbidden');
    });
    it('a wait action needs exactly one of milliseconds and selector', async () => {
      expectAccepted(await scrape({ actions: [{ type: 'wait', milliseconds: 500 }] }));
      expectAccepted(await scrape({ actions: [{ type: 'wait', selector: '#done' }] }));
      expectDetail(await scrape({ actions: [{ type: 'wait' }] }), ['body', 'actions', 0], 'one_of_required');
      expectDetail(await scrape({ actions: [{ type: 'wait', milliseconds: 5, selector: 'a' }] }), ['body', 'actions', 0], 'one_of_required');
    });
    it('extract takes schema or template (not both), a prompt, or none of them (the page\'s own structured data)', async () => {
      const urls = [url];
      for (const target of [{ schema: {} }, { template: 'product' }, { prompt: 'the price' }, { schema: {}, prompt: 'p' }, {}, { schema: null, template: null }]) {
        expectAccepted(await sendRaw('POST', '/v1/extract', { urls, ...target }));
      }
      expectDetail(await sendRaw('POST', '/v1/extract', { urls, schema: {}, template: 'product' }), ['body'], 'mutually_exclusive');
    });
    it('a monitor needs url or urls', async () => {
      expectAccepted(await sendRaw('POST', '/v1/monitor', { name: 'm', url }));
      expectAccepted(await sendRaw('POST', '/v1/monitor', { name: 'm', urls: [url] }));
      expectAccepted(await sendRaw('POST', '/v1/monitor', { name: 'm', url, urls: [url] }));
      for (const target of [{}, { urls: [] }, { url: null, urls: null }]) {
        expectDetail(await sendRaw('POST', '/v1/monitor', { name: 'm', ...target }), ['body'], 'missing');
      }
    });
    it('an invalid regex in includePaths or excludePaths is regex_invalid at its index', async () => {
      expectDetail(await sendRaw('POST', '/v1/crawl', { url, includePaths: ['(unclosed'] }), ['body', 'includePaths', 0], 'regex_invalid');
      expectDetail(await sendRaw('POST', '/v1/crawl', { url, excludePaths: ['^/ok$', '[z-a]'] }), ['body', 'excludePaths', 1], 'regex_invalid');
      expectAccepted(await sendRaw('POST', '/v1/crawl', { url, includePaths: ['^/blog/.*$'], excludePaths: ['\\?page=\\d+'] }));
    });
    it('a non-http URL is url_invalid wherever a URL is asked for', async () => {
      const bad = 'ftp://example.com/file';
      expectDetail(await sendRaw('POST', '/v1/scrape', { url: bad }), ['body', 'url'], 'url_invalid');
      expectDetail(await sendRaw('POST', '/v1/map', { url: 'example.com/no-scheme' }), ['body', 'url'], 'url_invalid');
      expectDetail(await sendRaw('POST', '/v1/batch/scrape', { urls: [url, bad] }), ['body', 'urls', 1], 'url_invalid');
      expectDetail(await sendRaw('POST', '/v1/crawl', { url, webhook: bad }), ['body', 'webhook'], 'url_invalid');
      expectDetail(await sendRaw('POST', '/v1/crawl', { url, webhook: { url: bad } }), ['body', 'webhook', 'url'], 'url_invalid');
      expectDetail(await sendRaw('POST', '/v1/monitor', { name: 'm', url: 'javascript:alert(1)' }), ['body', 'url'], 'url_invalid');
      expectDetail(await sendRaw('POST', '/v1/extract', { urls: ['https:// example.com'], prompt: 'p' }), ['body', 'urls', 0], 'url_invalid');
    });
  });

  describe('authentication', () => {
    it('a request without a key is 401 missing_api_key for every operation that needs one', async () => {
      for (const op of JSON_OPERATIONS.filter((o) => o.auth)) {
        const { headers, ...options } = injectOptions(op, minimalParts(op), key);
        const { authorization: _, ...anonymous } = headers as Record<string, string>;
        const res = await gw.app.inject({ ...options, headers: anonymous });
        expect(res.statusCode, title(op)).toBe(401);
        expectErrorEnvelope(401, res.json());
        expect(res.json().error.code).toBe('missing_api_key');
      }
    });
  });

  describe('path parameters', () => {
    it('an id up to its documented 128 characters reaches validation', async () => {
      // Regression guard (found by this suite; fixed by maxParamLength in gateway/app.ts):
      // Fastify's default maxParamLength of 100 (decoded UTF-16 units) answered ids of 101 to
      // 128 characters, or 17 non-ASCII ones, 414 with its own body instead of the envelope.
      expectAccepted(await sendRaw('GET', `/v1/crawl/${'a'.repeat(128)}`));
    });
    it('an id over 128 characters is a 422 at its path loc', async () => {
      // Regression guard: was 414 FST_ERR_MAX_PARAM_LENGTH (see above).
      expectDetail(await sendRaw('GET', `/v1/monitor/${'a'.repeat(129)}`), ['path', 'monitor_id'], 'string_too_long');
    });
    it('a malformed percent escape in a path is 400 bad_request in the error envelope', async () => {
      const res = await sendRaw('GET', '/v1/crawl/%E0%A4%A');
      expect(res.statusCode).toBe(400);
      // Regression guard (fixed by frameworkErrors in gateway/app.ts): the router answered
      // FST_ERR_BAD_URL with Fastify's own body `{error, code, message, statusCode}`.
      expect(res.json()).toMatchObject({ success: false, error: { code: 'bad_request' } });
    });
  });

  describe('locations and defaults', () => {
    it('an object key made of digits stays a string in loc', async () => {
      const res = await sendRaw('POST', '/v1/scrape', { url: 'https://example.com/', headers: { '123': 5 } });
      // Regression guard (fixed in gateway/validation.ts pointerToLoc): every all-digit
      // segment became a number, reporting ['body','headers',123] as if it were an index.
      expectDetail(res, ['body', 'headers', '123'], 'string_type');
    });
    it('an empty watch update is a 422 (minProperties 1)', async () => {
      // Regression guard (fixed in schemas/api/monitoring.ts WatchUpdateBody): the default
      // intervalMinutes: 60 was filled in before minProperties was checked, so `{}` passed.
      expectDetail(await sendRaw('PATCH', '/v1/mentions/watches/w1', {}), ['body'], 'too_short');
    });
  });
});

describe('schemas/api contract: what a handler receives', () => {
  let captured: unknown;
  let own: TestGateway;
  let ownKey: string;
  beforeAll(async () => {
    own = await testGateway(
      { RATE_LIMIT_PER_MINUTE: '0' },
      { handlers: { watchUpdate: { handle: async (ctx) => ((captured = ctx.body), { data: {} }) } } },
    );
    ownKey = await own.key();
  });
  afterAll(() => own.close());

  it('a partial watch update carries only the fields sent', async () => {
    const res = await own.app.inject({ method: 'PATCH', url: '/v1/mentions/watches/w1', headers: bearer(ownKey), payload: { name: 'renamed' } });
    expect(res.statusCode).toBe(200);
    // Regression guard (fixed in schemas/api/monitoring.ts): Type.Partial kept `default: 60`
    // on intervalMinutes, so Ajv (useDefaults) added it to every partial update and a rename
    // reset the watch's interval.
    expect(captured).toEqual({ name: 'renamed' });
  });
});
