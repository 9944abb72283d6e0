/**
 * A caller's JSON Schema (the `json` format's `schema`, POST /v1/extract's `schema`): checked
 * when the request comes in, and normalised the way Firecrawl does, so its schemas work here.
 *
 * Normalisation (`normalizeCallerSchema`, applied before the checks too):
 * - a top-level array schema is wrapped: `{type: object, properties: {items: <the array
 *   schema>}, required: [items]}` — the answer is `{items: [...]}`; its `$defs`/`definitions`
 *   and `$schema` move to the new root, so `#/$defs/…` references still resolve;
 * - an object with no `type` and no `properties` whose keys all look like fields (each value a
 *   schema object, or a type name: `{name: 'string', price: {type: 'number'}}`) is read as a
 *   properties map: `{type: object, properties: …}`. Firecrawl makes every such key required;
 *   here they are optional, so a value the page does not have stays missing (named in
 *   `warning`) instead of failing the whole answer;
 * - `properties` without `type` gets `type: object`;
 * - `default` (an answer is never invented), `patternProperties` and `unevaluatedProperties`
 *   are removed at every level; the root `$id` is dropped (references are local anyway);
 *   `$schema` is written as the exact URI of its dialect.
 *
 * Checks (`checkCallerSchema`, 422 `detail` items, `loc` relative to the normalised schema —
 * the caller prefixes where the schema sits in the body):
 * - `schema_too_large`: objects and arrays nested more than 64 deep (anywhere, a `default`
 *   or `enum` value too: checked first, without recursion), more than 64 KB as JSON, more
 *   than 200 properties in all (every
 *   `properties` map counted, `$defs` included), or fields nested deeper than 8 levels (each
 *   object property or array item is a level; `anyOf`/`allOf`/`$defs` are not; references are
 *   not followed);
 * - `schema_not_object`: the root (after normalisation, `$ref` followed) is not an object schema;
 * - `schema_invalid`: not a JSON Schema of its dialect (Ajv's meta-schema: draft-07 when
 *   `$schema` is absent, 2019-09, 2020-12; another `$schema` is refused), a reference that is
 *   not local (`$ref` not starting with `#`: nothing is ever fetched), an `$id` below the root,
 *   or a schema Ajv cannot compile (an unresolvable `#/…` reference, a `pattern` RE2 cannot run).
 */
import type { ErrorObject } from 'ajv';
import { depthOver } from '../runtime/json-limits.js';
import { type Json, isJsonObject, shapeOf } from './json-schema.js';
import { DIALECTS, ajvFor, dialectOf, validatorFor } from './ajv.js';

export interface SchemaProblem {
  loc: (string | number)[];
  msg: string;
  type: 'schema_invalid' | 'schema_too_large' | 'schema_not_object';
}

export const MAX_SCHEMA_BYTES = 64 * 1024;
export const MAX_SCHEMA_PROPERTIES = 200;
export const MAX_SCHEMA_DEPTH = 8;
/** Walks stop this deep in the JSON (a schema that deep is refused as too deep anyway). */
const MAX_WALK = 64;

/** Keywords whose value is one subschema / an array of them / a map of them. */
const ONE = ['items', 'additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'contentSchema'];
const MANY = ['anyOf', 'allOf', 'oneOf', 'prefixItems', 'items'];
const MAPS = ['properties', '$defs', 'definitions', 'dependentSchemas'];
const REMOVED = ['default', 'patternProperties', 'unevaluatedProperties'];
/**
 * Keys that make an object a schema rather than a bare properties map. Annotation keywords
 * (`title`, `description`, `format` …) are not among them: `{title: {type: 'string'}}` is a
 * map with a `title` field, and a schema's `description: "Some text"` is no field schema.
 */
const STRUCTURAL = new Set([
  'type', 'properties', '$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'items', 'prefixItems', 'enum', 'const', 'required', 'additionalProperties', 'patternProperties', '$defs', 'definitions',
  'if', 'then', 'else', 'contains', 'propertyNames', 'dependentRequired', 'dependentSchemas', 'dependencies', 'additionalItems',
  'unevaluatedProperties', 'unevaluatedItems',
]);
const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

const looksLikeField = (value: unknown): boolean => (typeof value === 'string' && TYPE_NAMES.has(value)) || isJsonObject(value);

function isPropertiesMap(node: Json): boolean {
  const keys = Object.keys(node);
  return keys.length > 0 && !keys.some((k) => STRUCTURAL.has(k) || k.startsWith('$')) && Object.values(node).every(looksLikeField);
}

function normalizeNode(node: unknown, depth: number): unknown {
  if (!isJsonObject(node) || depth > MAX_WALK) return node;
  let out: Json = { ...node };
  if (!('type' in out) && !('properties' in out) && isPropertiesMap(out)) {
    out = { type: 'object', properties: Object.fromEntries(Object.entries(out).map(([k, v]) => [k, typeof v === 'string' ? { type: v } : v])) };
  } else if (!('type' in out) && isJsonObject(out.properties)) out = { type: 'object', ...out };
  for (const key of REMOVED) delete out[key];
  for (const key of ONE) if (isJsonObject(out[key])) out[key] = normalizeNode(out[key], depth + 1);
  for (const key of MANY) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((n) => normalizeNode(n, depth + 1));
  for (const key of MAPS) {
    const map = out[key];
    if (isJsonObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, typeof v === 'string' && key === 'properties' && TYPE_NAMES.has(v) ? { type: v } : normalizeNode(v, depth + 1)]));
  }
  return out;
}

const ROOT_ONLY = ['$schema', '$defs', 'definitions'];

/** The caller's schema as filling and validation use it (see the file comment). */
export function normalizeCallerSchema(schema: Record<string, unknown>): Record<string, unknown> {
  let root = schema;
  if (root.type === 'array') {
    const items: Json = { ...root };
    const lifted: Json = {};
    for (const key of ROOT_ONLY) {
      if (key in items) {
        lifted[key] = items[key];
        delete items[key];
      }
    }
    delete items.$id;
    root = { ...lifted, type: 'object', properties: { items }, required: ['items'] };
  }
  const out = normalizeNode(root, 0) as Json;
  delete out.$id;
  const dialect = dialectOf(out);
  if (dialect && out.$schema !== undefined) out.$schema = DIALECTS[dialect];
  return out;
}

// ---- checks ---------------------------------------------------------------------------

interface Walked {
  properties: number;
  depth: number;
  refs: { ref: string; loc: string[] }[];
  nestedIds: string[][];
  tooDeep: boolean;
}

/** Counts properties, nesting, references and nested ids (see the file comment), without following references. */
function walk(node: unknown, level: number, loc: string[], facts: Walked): void {
  if (!isJsonObject(node)) return;
  if (loc.length > MAX_WALK) {
    facts.tooDeep = true;
    return;
  }
  facts.depth = Math.max(facts.depth, level);
  for (const key of ['$ref', '$dynamicRef', '$recursiveRef']) if (typeof node[key] === 'string') facts.refs.push({ ref: node[key] as string, loc: [...loc, key] });
  if (loc.length && typeof node.$id === 'string') facts.nestedIds.push([...loc, '$id']);
  if (isJsonObject(node.properties)) {
    facts.properties += Object.keys(node.properties).length;
    for (const [name, child] of Object.entries(node.properties)) walk(child, level + 1, [...loc, 'properties', name], facts);
  }
  for (const key of ['items', 'prefixItems', 'additionalProperties', 'additionalItems', 'contains', 'unevaluatedItems']) {
    const child = node[key];
    if (Array.isArray(child)) child.forEach((c, i) => walk(c, level + 1, [...loc, key, String(i)], facts));
    else walk(child, level + 1, [...loc, key], facts);
  }
  for (const key of ['anyOf', 'allOf', 'oneOf']) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((c, i) => walk(c, level, [...loc, key, String(i)], facts));
  }
  for (const key of ['not', 'if', 'then', 'else', 'propertyNames']) walk(node[key], level, [...loc, key], facts);
  for (const key of ['$defs', 'definitions', 'dependentSchemas']) {
    const map = node[key];
    if (isJsonObject(map)) for (const [name, c] of Object.entries(map)) walk(c, key === 'dependentSchemas' ? level : 0, [...loc, key, name], facts);
  }
}

const locOf = (pointer: string): string[] =>
  pointer ? pointer.slice(1).split('/').map((s) => s.split('~1').join('/').split('~0').join('~')) : [];

/** Ajv's meta-schema errors, one problem per place, in words. */
function metaProblems(errors: readonly ErrorObject[], schema: Json): SchemaProblem[] {
  const byPlace = new Map<string, string[]>();
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const list = byPlace.get(e.instancePath) ?? [];
    if (e.message && !list.includes(e.message)) list.push(e.message);
    byPlace.set(e.instancePath, list);
  }
  return [...byPlace.entries()].slice(0, 10).map(([pointer, messages]) => {
    const loc = locOf(pointer);
    let msg = messages.join('; ') || 'not valid here';
    if (loc[loc.length - 1] === 'type') {
      let value: unknown = schema;
      for (const part of loc) value = isJsonObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[part] : undefined;
      msg = `${JSON.stringify(value)} is not a JSON Schema type (string, number, integer, boolean, object, array, null)`;
    }
    return { loc, msg, type: 'schema_invalid' as const };
  });
}

/** Problems with a caller's schema as 422 detail items; empty when it is fine (see the file comment). */
export function checkCallerSchema(schema: unknown): SchemaProblem[] {
  if (!isJsonObject(schema)) return [{ loc: [], msg: 'the schema must be a JSON object', type: 'schema_not_object' }];
  // Before anything recursive (JSON.stringify, the walks, Ajv): the gateway refuses deeper
  // bodies (BODY_MAX_DEPTH), and this holds for a schema from anywhere else.
  if (depthOver(schema, MAX_WALK)) return [{ loc: [], msg: `the schema nests objects and arrays more than ${MAX_WALK} deep`, type: 'schema_too_large' }];
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > MAX_SCHEMA_BYTES) return [{ loc: [], msg: `the schema is ${bytes} bytes as JSON; at most ${MAX_SCHEMA_BYTES} are accepted`, type: 'schema_too_large' }];
  const normalized = normalizeCallerSchema(schema);
  const facts: Walked = { properties: 0, depth: 0, refs: [], nestedIds: [], tooDeep: false };
  walk(normalized, 0, [], facts);
  const problems: SchemaProblem[] = [];
  if (facts.properties > MAX_SCHEMA_PROPERTIES) problems.push({ loc: [], msg: `the schema declares ${facts.properties} properties; at most ${MAX_SCHEMA_PROPERTIES} are accepted`, type: 'schema_too_large' });
  if (facts.tooDeep || facts.depth > MAX_SCHEMA_DEPTH) problems.push({ loc: [], msg: `the schema nests fields ${facts.tooDeep ? 'too' : `${facts.depth} levels`} deep; at most ${MAX_SCHEMA_DEPTH} levels are accepted`, type: 'schema_too_large' });
  if (problems.length) return problems;
  const remote = facts.refs.filter((r) => !r.ref.startsWith('#'));
  for (const { ref, loc } of remote.slice(0, 5)) problems.push({ loc, msg: `remote $ref "${ref.slice(0, 200)}" refused: only references inside the schema (#/…) are allowed, nothing is fetched`, type: 'schema_invalid' });
  for (const loc of facts.nestedIds.slice(0, 5)) problems.push({ loc, msg: '$id is only accepted at the root of the schema; use $defs with #/$defs/… references', type: 'schema_invalid' });
  const dialect = dialectOf(normalized);
  if (!dialect) problems.push({ loc: ['$schema'], msg: `unsupported $schema ${JSON.stringify(normalized.$schema)}: use draft-07, 2019-09 or 2020-12, or leave $schema out`, type: 'schema_invalid' });
  if (problems.length) return problems;
  const ajv = ajvFor(dialect as NonNullable<typeof dialect>);
  if (!ajv.validateSchema(normalized)) return metaProblems(ajv.errors ?? [], normalized);
  if (shapeOf(normalized, normalized).kind !== 'object') {
    return [{ loc: [], msg: 'the schema must describe an object (type: object, with properties) or an array of items', type: 'schema_not_object' }];
  }
  try {
    validatorFor(normalized);
  } catch (error) {
    return [{ loc: [], msg: `the schema does not compile: ${error instanceof Error ? error.message : String(error)}`, type: 'schema_invalid' }];
  }
  return [];
}
