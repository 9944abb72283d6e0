/**
 * Property tests of every operation's validation: whatever arrives (arbitrary JSON, a valid
 * body mutated, random query strings and path parameters), the reply has a documented status
 * and the body that status promises; never a 500.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import fc from 'fast-check';
import { pathParamNames, type Operation } from '../../schemas/api/operations.js';
import { testGateway, type TestGateway } from '../helpers/gateway.js';
import { bounds, closedObjects, minimalValue, type JsonPath, type Schema } from '../helpers/schema-walk.js';
import { expectDocumentedReply } from './reply-shape.js';
import { injectOptions, JSON_OPERATIONS, minimalParts, partSchemas, queryString, title, withPart, type RequestParts } from './requests.js';

/**
 * 40 runs per property. A failure is still reported when shrinking it runs past the time
 * limit (each shrink step is a request), so a failing property costs seconds, not minutes.
 */
fc.configureGlobal({ numRuns: 40, interruptAfterTimeLimit: 3000, markInterruptAsFailure: false });

let gw: TestGateway;
let key: string;

async function check(op: Operation, parts: RequestParts): Promise<void> {
  expectDocumentedReply(op, await gw.app.inject(injectOptions(op, parts, key)));
}

/** Random text, sometimes outside the BMP or with unpaired surrogates (JSON.stringify escapes those). */
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 12 }));
const json = fc.jsonValue({ maxDepth: 3 });

/** Objects with the schema's own keys as well as random ones, so values reach the validators. */
function objectsLike(schema: Schema | undefined): fc.Arbitrary<Record<string, unknown>> {
  const known = Object.keys((schema?.properties ?? {}) as object);
  const keys = known.length ? fc.oneof(fc.constantFrom(...known), text) : text;
  return fc.dictionary(keys, json, { maxKeys: 6 });
}

/** Valid bodies to mutate: the minimal one, each bound's at-limit body, each closed object filled. */
function validBodies(schema: Schema): unknown[] {
  return [
    minimalValue(schema),
    ...bounds(schema).map((b) => b.site.place(b.at)),
    ...closedObjects(schema).map((s) => s.place(minimalValue(s.schema))),
  ];
}

/** Paths of every node below the root of a JSON value. */
function nodePaths(value: unknown, path: JsonPath = []): JsonPath[] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([k, v]) => [[...path, k], ...nodePaths(v, [...path, k])]);
}

function containerAt(root: unknown, path: JsonPath): Record<string | number, unknown> {
  return path.reduce((node: unknown, seg) => (node as Record<string | number, unknown>)[seg], root) as Record<string | number, unknown>;
}

type Mutation = { kind: 'drop' | 'replace' | 'add'; pick: number; key: string; value: unknown };

/** Applies a mutation to a copy of `body`: drop a field, replace any node, or add a field to an object. */
function mutate(body: unknown, m: Mutation): unknown {
  const copy = structuredClone(body);
  const paths = nodePaths(copy);
  const fields = paths.filter((p) => typeof p[p.length - 1] === 'string');
  const objects = [[], ...paths].filter((p) => {
    const node = p.length ? containerAt(copy, p) : copy;
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
  if (m.kind === 'drop' && fields.length) {
    const path = fields[m.pick % fields.length] as JsonPath;
    delete containerAt(copy, path.slice(0, -1))[path[path.length - 1] as string];
  } else if (m.kind === 'replace' && paths.length) {
    const path = paths[m.pick % paths.length] as JsonPath;
    containerAt(copy, path.slice(0, -1))[path[path.length - 1] as string | number] = m.value;
  } else if (m.kind === 'add' && objects.length) {
    const path = objects[m.pick % objects.length] as JsonPath;
    (path.length ? containerAt(copy, path) : (copy as Record<string, unknown>))[m.key] = m.value;
  }
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('drop' as const, 'replace' as const, 'add' as const),
  pick: fc.nat(),
  key: text,
  value: json,
});

/** Query strings two ways: structured (known and random keys, repeated keys) and raw text. */
function queries(schema: Schema | undefined): fc.Arbitrary<string> {
  const known = Object.keys((schema?.properties ?? {}) as object);
  const keys = known.length ? fc.oneof(fc.constantFrom(...known), fc.string()) : fc.string();
  const values = fc.oneof(fc.string(), fc.integer().map(String), fc.array(fc.string(), { maxLength: 3 }));
  const structured = fc.dictionary(keys, values, { maxKeys: 5 }).map(queryString);
  // Raw: keeps `&`, `=` and stray `%` (malformed escapes) but never breaks the request line.
  const raw = fc.string({ maxLength: 40 }).map((s) => `?${s.replace(/[^\w\-.~!$&'()*+,;=:@/?%]/g, encodeURIComponent)}`);
  return fc.oneof(structured, raw);
}

/**
 * Path segments as sent on the wire: encoded text of any length up to past the 128-character
 * ids, or raw text keeping stray `%` (malformed escapes).
 */
const pathSegment = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 160, size: 'max' }).map(encodeURIComponent),
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\w\-.~!$&'()*+,;=:@%]/g, encodeURIComponent)),
);

describe('schemas/api fuzz', () => {
  beforeAll(async () => {
    gw = await testGateway({ RATE_LIMIT_PER_MINUTE: '0' });
    key = await gw.key();
  });
  afterAll(() => gw.close());

  for (const op of JSON_OPERATIONS) {
    const schemas = Object.fromEntries(partSchemas(op));
    const base = minimalParts(op);

    it(`${title(op)}: arbitrary JSON bodies`, async () => {
      const bodies = fc.oneof(json, objectsLike(schemas.body));
      await fc.assert(fc.asyncProperty(bodies, (body) => check(op, withPart(base, 'body', body))));
    });

    if (schemas.body) {
      const valid = validBodies(schemas.body);
      it(`${title(op)}: mutated valid bodies`, async () => {
        const cases = fc.tuple(fc.constantFrom(...valid), mutation);
        await fc.assert(
          fc.asyncProperty(cases, ([body, m]) => check(op, withPart(base, 'body', mutate(body, m)))),
        );
      });
    }

    if (schemas.query) {
      it(`${title(op)}: random query strings`, async () => {
        await fc.assert(
          fc.asyncProperty(queries(schemas.query), async (query) => {
            const options = injectOptions(op, { ...base, query: {} }, key);
            expectDocumentedReply(op, await gw.app.inject({ ...options, url: `${options.url}${query}` }));
          }),
        );
      });
    }
  }

  // One property over every operation with path parameters, so that a failure common to all
  // of them is shrunk once; the counterexample names the operation.
  const withPath = JSON_OPERATIONS.filter((op) => pathParamNames(op.path).length);
  it('random path parameters, on every operation that has them', async () => {
    const cases = fc.tuple(fc.constantFrom(...withPath.map(title)), fc.array(pathSegment, { minLength: 2, maxLength: 2 }));
    await fc.assert(
      fc.asyncProperty(cases, async ([name, segments]) => {
        const op = withPath.find((o) => title(o) === name) as Operation;
        let i = 0;
        const url = op.path.replace(/\{\w+\}/g, () => segments[i++] as string);
        const options = injectOptions(op, minimalParts(op), key);
        expectDocumentedReply(op, await gw.app.inject({ ...options, url }));
      }),
      { numRuns: 200 },
    );
  });
});
