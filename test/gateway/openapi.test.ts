import { validate, compileErrors } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../gateway/openapi.js';
import { OPERATIONS } from '../../schemas/api/operations.js';
import { SOCIAL_ENDPOINTS, socialInputName } from '../../schemas/api/social.js';
import { testGateway, type TestGateway } from '../helpers/gateway.js';

/** The spec's `### Index` table (web-data-service-api.md), copied in its order. */
const SPEC_INDEX: readonly (readonly [string, string])[] = [
  ['POST', '/v1/scrape'],
  ['POST', '/v1/domain'],
  ['POST', '/v1/company'],
  ['POST', '/v1/products'],
  ['POST', '/v1/posts'],
  ['POST', '/v1/monitor'],
  ['GET', '/v1/monitor'],
  ['GET', '/v1/monitor/{monitor_id}'],
  ['DELETE', '/v1/monitor/{monitor_id}'],
  ['POST', '/v1/monitor/{monitor_id}/run'],
  ['GET', '/v1/monitor/{monitor_id}/checks'],
  ['POST', '/v1/crawl'],
  ['GET', '/v1/crawl/{job_id}'],
  ['DELETE', '/v1/crawl/{job_id}'],
  ['GET', '/v1/crawl/{job_id}/pages'],
  ['GET', '/v1/crawl/{job_id}/errors'],
  ['POST', '/v1/batch/scrape'],
  ['GET', '/v1/batch/{job_id}'],
  ['GET', '/v1/batch/{job_id}/pages'],
  ['POST', '/v1/map'],
  ['POST', '/v1/extract'],
  ['POST', '/v1/search'],
  ['POST', '/v1/parse'],
  ['GET', '/v1/fetch'],
  ['GET', '/v1/source'],
  ['POST', '/v1/places/search'],
  ['POST', '/v1/leads'],
  ['GET', '/v1/leads/sources'],
  ['GET', '/v1/leads/{job_id}'],
  ['DELETE', '/v1/leads/{job_id}'],
  ['POST', '/v1/serp'],
  ['GET', '/v1/social'],
  ['POST', '/v1/social/{platform}/{endpoint}'],
  ['POST', '/v1/mentions/watches'],
  ['GET', '/v1/mentions/watches'],
  ['GET', '/v1/mentions/watches/{watch_id}'],
  ['PATCH', '/v1/mentions/watches/{watch_id}'],
  ['DELETE', '/v1/mentions/watches/{watch_id}'],
  ['POST', '/v1/mentions/watches/{watch_id}/test'],
  ['POST', '/v1/mentions/test'],
  ['GET', '/v1/mentions'],
  ['PATCH', '/v1/mentions/{mention_id}'],
  ['GET', '/v1/templates'],
  ['POST', '/v1/domain/report'],
  ['POST', '/v1/domain/history/snapshots'],
  ['POST', '/v1/domain/screen'],
];

/**
 * Operations the spec's index does not list, each with its reason: PATCH of a monitor (issue
 * 32: Firecrawl's monitors pause and update; the spec is silent on it, shaped like a watch's
 * PATCH).
 */
const BEYOND_SPEC: readonly (readonly [string, string])[] = [['PATCH', '/v1/monitor/{monitor_id}']];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}

interface OperationObject {
  operationId: string;
  parameters?: Parameter[];
  security?: unknown[];
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, { description: string }>;
}

type Document = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, OperationObject>>;
};

/** Every operation of the document as `METHOD path`, with its object. */
function operationsOf(doc: Document): Map<string, OperationObject> {
  const out = new Map<string, OperationObject>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (METHODS.includes(method)) out.set(`${method.toUpperCase()} ${path}`, op);
    }
  }
  return out;
}

/** Plain JSON, as the document carries it (TypeBox's symbol keys dropped). */
function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe('gateway/openapi', () => {
  let gw: TestGateway;
  let doc: Document;
  let ops: Map<string, OperationObject>;
  beforeAll(async () => {
    gw = await testGateway();
    const res = await gw.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json() as Document;
    ops = operationsOf(doc);
  });
  afterAll(() => gw.close());

  it('is served without a key as OpenAPI 3.1.0, interface version 0.1.0', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
  });

  it('passes the OpenAPI 3.1 schema and the parser\'s semantic rules', async () => {
    // validate() dereferences in place: give it its own copy.
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.specification).toBe('OpenAPI');
    expect(result.warnings).toEqual([]);
  });

  it('has exactly the 46 operations of the spec index, and those beyond it', () => {
    const expected = [...SPEC_INDEX, ...BEYOND_SPEC].map(([method, path]) => `${method} ${path}`);
    expect(new Set(expected).size).toBe(46 + BEYOND_SPEC.length);
    expect([...ops.keys()].sort()).toEqual([...expected].sort());
    const ids = [...ops.values()].map((o) => o.operationId);
    expect(new Set(ids).size).toBe(46 + BEYOND_SPEC.length);
  });

  it('declares the optional authorization header everywhere but GET /v1/source', () => {
    const wrong: string[] = [];
    for (const [name, op] of ops) {
      const auth = (op.parameters ?? []).filter((p) => p.in === 'header' && p.name.toLowerCase() === 'authorization');
      if (name === 'GET /v1/source') {
        if (auth.length !== 0) wrong.push(`${name}: declares authorization`);
        if (JSON.stringify(op.security) !== '[]') wrong.push(`${name}: security is ${JSON.stringify(op.security)}, not []`);
        continue;
      }
      if (auth.length !== 1 || auth[0]?.required !== false) wrong.push(`${name}: ${JSON.stringify(auth)}`);
      if (JSON.stringify(op.security) === '[]') wrong.push(`${name}: security is [] but the operation needs a key`);
    }
    expect(wrong).toEqual([]);
  });

  it('lists every error status an operation can answer', () => {
    const missing: string[] = [];
    for (const op of OPERATIONS) {
      const responses = ops.get(`${op.method} ${op.path}`)?.responses ?? {};
      // Any request: a broken URL (400), a failure inside (500), an engine down or a shutdown (503).
      const expected = ['400', '422', '500', '503'];
      if (op.auth) expected.push('401', '429');
      // Metered operations fetch from the outside world: blocked addresses and robots.txt are 403.
      if (op.pricing === 'metered') expected.push('402', '403');
      if (op.path.includes('{')) expected.push('404');
      for (const status of expected) if (!responses[status]) missing.push(`${op.method} ${op.path}: ${status}`);
    }
    expect(missing).toEqual([]);
    const blocked = ops.get('POST /v1/scrape')?.responses['403']?.description ?? '';
    expect(blocked).toContain('`url_blocked`');
    expect(blocked).toContain('`robots_disallowed`');
  });

  it('describes each JSON body with the very schema the gateway validates with', () => {
    let checked = 0;
    for (const op of OPERATIONS) {
      const documented = ops.get(`${op.method} ${op.path}`);
      expect(documented, `${op.method} ${op.path}`).toBeDefined();
      const content = documented?.requestBody?.content ?? {};
      if (op.body) {
        expect(Object.keys(content), op.id).toEqual(['application/json']);
        expect(content['application/json']?.schema, op.id).toEqual(json(op.body));
        checked += 1;
      } else if (op.multipartFiles) {
        expect(Object.keys(content), op.id).toEqual(['multipart/form-data']);
      } else {
        expect(documented?.requestBody, op.id).toBeUndefined();
      }
    }
    // The spec's 25 POST/PATCH operations less the upload (parse) and the two with no body
    // (monitor run, saved-watch test), and the monitor's PATCH beyond the spec.
    expect(checked).toBe(22 + BEYOND_SPEC.length);
  });

  it("lists each social endpoint's inputs as a component, the very schema a call is validated with, and its price", () => {
    const components = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
    const listed = (ops.get('POST /v1/social/{platform}/{endpoint}') as unknown as { 'x-social-endpoints': { platform: string; endpoint: string; price: unknown; input: { $ref: string } }[] })['x-social-endpoints'];
    expect(listed.map((e) => `${e.platform}/${e.endpoint}`)).toEqual(SOCIAL_ENDPOINTS.map((e) => `${e.platform}/${e.endpoint}`));
    for (const e of SOCIAL_ENDPOINTS) {
      const name = socialInputName(e);
      expect(components[name], name).toEqual(json(e.input));
      expect(listed.find((l) => l.platform === e.platform && l.endpoint === e.endpoint)).toMatchObject({ input: { $ref: `#/components/schemas/${name}` }, price: { key: 'socialCall', credits: 1 } });
    }
  });

  it('is the same document on every build', () => {
    const first = JSON.stringify(buildOpenApi());
    expect(JSON.stringify(buildOpenApi())).toBe(first);
    expect(JSON.stringify(doc)).toBe(first);
  });
});
