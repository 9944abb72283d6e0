import { describe, expect, it } from 'vitest';
import { MAX_SCHEMA_BYTES, checkCallerSchema, normalizeCallerSchema } from '../../pipeline/structured/schema.js';
import { conform, fillFromThings } from '../../pipeline/structured/fill.js';
import type { Thing } from '../../pipeline/structured/types.js';

const S = { type: 'string' } as const;

/** What zod-to-json-schema writes for z.object({title: z.string(), price: z.number().optional(), tags: z.array(z.string())}). */
const ZOD = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { title: { type: 'string' }, price: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['title', 'tags'],
  additionalProperties: false,
};

/** What pydantic v2 writes: $defs, references, Optional as anyOf with null, titles. */
const PYDANTIC = {
  $defs: { Author: { properties: { name: { title: 'Name', type: 'string' } }, required: ['name'], title: 'Author', type: 'object' } },
  properties: {
    title: { title: 'Title', type: 'string' },
    author: { anyOf: [{ $ref: '#/$defs/Author' }, { type: 'null' }], default: null },
    published: { anyOf: [{ format: 'date-time', type: 'string' }, { type: 'null' }], default: null, title: 'Published' },
  },
  required: ['title'],
  title: 'Article',
  type: 'object',
};

describe('pipeline/structured/schema: checkCallerSchema', () => {
  it('accepts typical schemas: zod (draft-07), pydantic ($defs, anyOf null), 2020-12, property maps, top-level arrays', () => {
    expect(checkCallerSchema(ZOD)).toEqual([]);
    expect(checkCallerSchema(PYDANTIC)).toEqual([]);
    expect(checkCallerSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'array', prefixItems: [S] } } })).toEqual([]);
    expect(checkCallerSchema({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', properties: { a: S } })).toEqual([]);
    expect(checkCallerSchema({ name: { type: 'string' }, price: 'number' })).toEqual([]);
    expect(checkCallerSchema({ type: 'array', items: { type: 'object', properties: { name: S } } })).toEqual([]);
    expect(checkCallerSchema({ type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{2}-\\d+$' } } })).toEqual([]);
  });

  it('rejects a schema that is not a JSON Schema, naming the place', () => {
    expect(checkCallerSchema({ type: 'strin' })).toEqual([
      { loc: ['type'], msg: '"strin" is not a JSON Schema type (string, number, integer, boolean, object, array, null)', type: 'schema_invalid' },
    ]);
    expect(checkCallerSchema({ type: 'object', properties: { a: { type: 'number', minimum: 'zero' } } })).toEqual([
      { loc: ['properties', 'a', 'minimum'], msg: 'must be number', type: 'schema_invalid' },
    ]);
    expect(checkCallerSchema({ type: 'object', required: 'a' })[0]).toMatchObject({ loc: ['required'], type: 'schema_invalid' });
  });

  it('refuses remote references and nested $id, and names an unresolvable local one', () => {
    expect(checkCallerSchema({ type: 'object', properties: { a: { $ref: 'https://evil.test/schema.json' } } })).toEqual([
      { loc: ['properties', 'a', '$ref'], msg: 'remote $ref "https://evil.test/schema.json" refused: only references inside the schema (#/…) are allowed, nothing is fetched', type: 'schema_invalid' },
    ]);
    expect(checkCallerSchema({ type: 'object', properties: { a: { $ref: 'other.json#/x' } } })[0]?.msg).toContain('remote $ref "other.json#/x" refused');
    expect(checkCallerSchema({ type: 'object', properties: { a: { $id: 'https://x.test/a', type: 'string' } } })).toEqual([
      { loc: ['properties', 'a', '$id'], msg: '$id is only accepted at the root of the schema; use $defs with #/$defs/… references', type: 'schema_invalid' },
    ]);
    const missing = checkCallerSchema({ type: 'object', properties: { a: { $ref: '#/$defs/Nope' } } });
    expect(missing).toEqual([{ loc: [], msg: "the schema does not compile: can't resolve reference #/$defs/Nope from id #", type: 'schema_invalid' }]);
  });

  it('refuses an unsupported dialect and a pattern RE2 cannot run', () => {
    expect(checkCallerSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: {} })).toEqual([
      { loc: ['$schema'], msg: 'unsupported $schema "http://json-schema.org/draft-04/schema#": use draft-07, 2019-09 or 2020-12, or leave $schema out', type: 'schema_invalid' },
    ]);
    const backref = checkCallerSchema({ type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } });
    expect(backref).toHaveLength(1);
    expect(backref[0]).toMatchObject({ type: 'schema_invalid' });
    expect(backref[0]?.msg).toContain('the schema does not compile');
  });

  it('refuses schemas that do not describe an object', () => {
    expect(checkCallerSchema({ type: 'string' })).toEqual([{ loc: [], msg: 'the schema must describe an object (type: object, with properties) or an array of items', type: 'schema_not_object' }]);
    expect(checkCallerSchema('{"type":"object"}')).toEqual([{ loc: [], msg: 'the schema must be a JSON object', type: 'schema_not_object' }]);
    expect(checkCallerSchema([{ type: 'object' }])[0]?.type).toBe('schema_not_object');
    expect(checkCallerSchema({ $ref: '#/$defs/A', $defs: { A: { type: 'object', properties: { a: S } } } })).toEqual([]);
  });

  it('refuses oversized schemas: bytes, property count, nesting depth', () => {
    const bytes = checkCallerSchema({ type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(MAX_SCHEMA_BYTES) } } });
    expect(bytes).toHaveLength(1);
    expect(bytes[0]).toMatchObject({ loc: [], type: 'schema_too_large' });
    expect(bytes[0]?.msg).toMatch(/^the schema is \d+ bytes as JSON; at most 65536 are accepted$/);

    const many = { type: 'object', properties: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, S])) };
    expect(checkCallerSchema(many)).toEqual([{ loc: [], msg: 'the schema declares 201 properties; at most 200 are accepted', type: 'schema_too_large' }]);
    const exactly = { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, S])) };
    expect(checkCallerSchema(exactly)).toEqual([]);

    const nest = (levels: number): Record<string, unknown> => (levels === 0 ? S : { type: 'object', properties: { child: nest(levels - 1) } });
    expect(checkCallerSchema(nest(8))).toEqual([]);
    expect(checkCallerSchema(nest(9))).toEqual([{ loc: [], msg: 'the schema nests fields 9 levels deep; at most 8 levels are accepted', type: 'schema_too_large' }]);
    const arrays = (levels: number): Record<string, unknown> => (levels === 0 ? S : { type: 'array', items: arrays(levels - 1) });
    expect(checkCallerSchema({ type: 'object', properties: { a: arrays(8) } })[0]?.type).toBe('schema_too_large');
  });

  it('survives pathologically deep JSON without recursing without bound', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 3000; i += 1) deep = { not: deep };
    const problems = checkCallerSchema({ type: 'object', properties: { a: deep } });
    expect(problems[0]?.type).toBe('schema_too_large');
  });

  it('checks depth before serializing: a `default` of 5,000 nested arrays (where JSON.stringify overflows the stack) is schema_too_large', () => {
    let arrays: unknown = [];
    for (let i = 0; i < 200_000; i += 1) arrays = [arrays];
    expect(() => JSON.stringify(arrays)).toThrow(RangeError);
    for (const schema of [{ type: 'object', properties: { a: { type: 'array', default: arrays } } }, { type: 'object', default: arrays }, { type: 'object', properties: { a: { enum: [arrays] } } }]) {
      expect(checkCallerSchema(schema)).toEqual([{ loc: [], msg: 'the schema nests objects and arrays more than 64 deep', type: 'schema_too_large' }]);
    }
  });
});

describe('pipeline/structured/schema: normalizeCallerSchema', () => {
  it('wraps a top-level array schema as {items}, lifting $defs so references still resolve', () => {
    const array = { $schema: 'http://json-schema.org/draft-07/schema', type: 'array', items: { $ref: '#/$defs/P' }, $defs: { P: { type: 'object', properties: { name: S } } } };
    expect(normalizeCallerSchema(array)).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $defs: { P: { type: 'object', properties: { name: S } } },
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/$defs/P' } } },
      required: ['items'],
    });
    const products: Thing[] = ['A', 'B'].map((name) => ({ types: ['Product'], source: 'json-ld', props: { name: [name] } }));
    expect(fillFromThings({ kind: 'schema', schema: normalizeCallerSchema(array) }, products, null).data).toEqual({ items: [{ name: 'A' }, { name: 'B' }] });
  });

  it('reads a bare properties map as an object schema with optional fields', () => {
    expect(normalizeCallerSchema({ title: { type: 'string' }, price: 'number', author: { name: 'string', url: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { title: S, price: { type: 'number' }, author: { type: 'object', properties: { name: S, url: S } } },
    });
    expect(normalizeCallerSchema({ description: 'Just words' })).toEqual({ description: 'Just words' });
  });

  it('adds type object to properties, removes default/patternProperties/unevaluatedProperties, keeps a field named default', () => {
    const schema = {
      properties: {
        default: { type: 'string', default: 'x' },
        nested: { type: 'object', patternProperties: { '^x': S }, unevaluatedProperties: false, properties: { a: { type: 'number', default: 1 } } },
      },
      $id: 'https://caller.test/schema',
    };
    expect(normalizeCallerSchema(schema)).toEqual({
      type: 'object',
      properties: { default: S, nested: { type: 'object', properties: { a: { type: 'number' } } } },
    });
  });

  it('writes $schema as its dialect\'s exact URI and is idempotent', () => {
    const once = normalizeCallerSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema#', type: 'object', properties: { a: S } });
    expect(once.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(normalizeCallerSchema(once)).toEqual(once);
    expect(normalizeCallerSchema(PYDANTIC)).toEqual(normalizeCallerSchema(normalizeCallerSchema(PYDANTIC)));
  });

  it('leaves the caller\'s object untouched', () => {
    const schema = { type: 'array', items: { type: 'string', default: 'x' } };
    const copy = structuredClone(schema);
    normalizeCallerSchema(schema);
    expect(schema).toEqual(copy);
  });

  it('a normalised pydantic schema fills and conforms', () => {
    const schema = normalizeCallerSchema(PYDANTIC);
    const article: Thing = {
      types: ['Article'],
      source: 'json-ld',
      props: { headline: ['Hello'], author: [{ types: ['Person'], source: 'json-ld', props: { name: ['Jo'] } }], datePublished: ['2024-03-12'] },
    };
    const filled = fillFromThings({ kind: 'schema', schema }, [article], null);
    expect(filled.data).toEqual({ title: 'Hello', author: { name: 'Jo' }, published: '2024-03-12T00:00:00Z' });
    expect(conform(schema, { title: 'Hello', author: { nick: 'x' } })).toEqual({ data: { title: 'Hello' }, warnings: ["dropped \"author\": must have required property 'name'"] });
  });
});
