/**
 * The schema a model call is asked to fill, in the forms each party needs:
 *
 * - `original`: the caller's schema with its root normalised (an object without `type` that has
 *   `properties` is an object; one with neither is a properties map whose keys are all required,
 *   as Firecrawl reads it; `$schema` and `$id` dropped). The answer is validated against it (ajv,
 *   validate.ts), so nothing below loosens what the caller gets.
 * - `target`: `original`, or a top-level array wrapped as `{items: …}` (providers want an object at
 *   the top); the answer is unwrapped after. Anthropic's forced tool and the JSON-mode instructions
 *   get this one.
 * - `strictForm`: what OpenAI's strict structured output accepts (its documented subset): every
 *   property required, the optional ones as a union with null, `additionalProperties: false` on
 *   every object, `oneOf` as `anyOf`, `allOf` merged, and only the keywords strict mode takes
 *   (type, properties, required, additionalProperties, items, enum, const, anyOf, description,
 *   $ref, $defs/definitions); `format`, `pattern`, `default`, `minLength`, `patternProperties` and
 *   the other constraints are dropped (ajv still checks them on the answer). A schema strict mode
 *   cannot express (a value of any type, an open map, a tuple) is sent as `target` with
 *   `strict: false` instead.
 *
 * After parsing, `dropOptionalNulls` removes the nulls a strict-mode model writes for optional
 * fields it did not find: an optional key left out is always valid where its null may not be.
 */
import { AppError } from '../../runtime/errors.js';

export type JsonSchema = Record<string, unknown>;

export interface PreparedSchema {
  readonly original: JsonSchema;
  readonly target: JsonSchema;
  readonly strictForm: JsonSchema;
  /** Whether `strictForm` is the strict conversion (false: it is `target`, sent with strict off). */
  readonly strict: boolean;
  /** The top level is an array, sent wrapped as `{items}`. */
  readonly wrapped: boolean;
}

const STRICT_KEYWORDS = ['type', 'description', 'enum', 'const', '$ref'] as const;

export function prepareSchema(schema: JsonSchema): PreparedSchema {
  const original = normaliseRoot(schema);
  const wrapped = original.type === 'array';
  if (!wrapped && !isObjectSchema(original)) {
    throw new AppError('bad_request', 'the schema must describe an object or an array at its top level');
  }
  const target = wrapped ? { type: 'object', properties: { items: original }, required: ['items'], additionalProperties: false } : original;
  const ctx = { expressible: true };
  const converted = strictNode(target, ctx);
  return { original, target, strictForm: ctx.expressible ? converted : target, strict: ctx.expressible, wrapped };
}

function normaliseRoot(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  if (rest.type !== undefined) return rest;
  if (isRecord(rest.properties)) return { type: 'object', ...rest };
  const structural = ['anyOf', 'oneOf', 'allOf', '$ref', 'items', 'enum', 'const'].some((k) => k in rest);
  if (!structural && Object.values(rest).every(isRecord)) {
    return { type: 'object', properties: rest, required: Object.keys(rest) };
  }
  return rest;
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object') && !schema.type.includes('null'));
}

// ---- the strict form --------------------------------------------------------------------

interface StrictContext {
  expressible: boolean;
}

function strictNode(input: unknown, ctx: StrictContext): JsonSchema {
  if (!isRecord(input)) {
    ctx.expressible = false; // `true` (any value) or a malformed node
    return {};
  }
  const node = mergeAllOf(input);
  const out: JsonSchema = {};
  for (const keyword of STRICT_KEYWORDS) if (node[keyword] !== undefined) out[keyword] = node[keyword];
  const branches = (node.anyOf ?? node.oneOf) as unknown;
  if (Array.isArray(branches)) out.anyOf = branches.map((b) => strictNode(b, ctx));
  for (const defs of ['$defs', 'definitions'] as const) {
    if (isRecord(node[defs])) out[defs] = mapValues(node[defs], (d) => strictNode(d, ctx));
  }
  if (out.type === undefined) inferType(node, out);
  if (out.type === undefined && out.anyOf === undefined && out.$ref === undefined) {
    ctx.expressible = false; // a value of any type
    return out;
  }
  const types = typesOf(out.type);
  if (types.includes('object')) Object.assign(out, strictObject(node, ctx));
  if (types.includes('array')) {
    if (!isRecord(node.items)) ctx.expressible = false; // a tuple, or items of any type
    else out.items = strictNode(node.items, ctx);
  }
  return out;
}

function strictObject(node: JsonSchema, ctx: StrictContext): JsonSchema {
  if (!isRecord(node.properties)) {
    ctx.expressible = false; // an open map: strict mode has no way to say "any keys"
    return {};
  }
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const properties = mapValues(node.properties, (schema, key) => {
    const converted = strictNode(schema, ctx);
    return required.has(key) ? converted : nullable(converted);
  });
  return { properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * The `type` strict mode wants on every node, when the schema leaves it implicit: `properties`
 * mean an object, `items` an array, an `enum` or `const` the types of its values.
 */
function inferType(node: JsonSchema, out: JsonSchema): void {
  if (isRecord(node.properties)) out.type = 'object';
  else if (node.items !== undefined) out.type = 'array';
  else {
    const values = Array.isArray(node.enum) ? node.enum : node.const !== undefined ? [node.const] : [];
    const types = [...new Set(values.map(jsonType))];
    if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The schema, also accepting null (an optional field in strict mode). */
function nullable(schema: JsonSchema): JsonSchema {
  if (schema.$ref !== undefined || schema.const !== undefined) return { anyOf: [schema, { type: 'null' }] };
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some((b) => isRecord(b) && typesOf(b.type).includes('null'));
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  }
  const out = { ...schema };
  const types = typesOf(schema.type);
  if (types.length > 0 && !types.includes('null')) out.type = [...types, 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
  return out;
}

/** `allOf` folded into its schema: properties and required lists joined, other keywords kept first-come. */
function mergeAllOf(node: JsonSchema): JsonSchema {
  if (!Array.isArray(node.allOf)) return node;
  const { allOf, ...merged } = node;
  for (const member of allOf) {
    if (!isRecord(member)) continue;
    const flat = mergeAllOf(member);
    for (const [key, value] of Object.entries(flat)) {
      if (key === 'properties' && isRecord(value)) merged.properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...value };
      else if (key === 'required' && Array.isArray(value)) merged.required = [...new Set([...(Array.isArray(merged.required) ? merged.required : []), ...value])];
      else if (merged[key] === undefined) merged[key] = value;
    }
  }
  return merged;
}

// ---- after the answer -------------------------------------------------------------------

/** Removes, in place, null values of properties the schema does not require (at every depth it can follow). */
export function dropOptionalNulls(value: unknown, schema: unknown, root: JsonSchema = isRecord(schema) ? schema : {}, depth = 0): void {
  if (depth > 64 || !isRecord(schema)) return;
  const node = mergeAllOf(resolveLocalRef(schema, root));
  if (Array.isArray(value)) {
    for (const item of value) dropOptionalNulls(item, node.items, root, depth + 1);
    return;
  }
  if (!isRecord(value) || !isRecord(node.properties)) return;
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  for (const key of Object.keys(value)) {
    if (value[key] === null && key in node.properties && !required.has(key)) delete value[key];
    else dropOptionalNulls(value[key], node.properties[key], root, depth + 1);
  }
}

function resolveLocalRef(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  for (const prefix of ['#/$defs/', '#/definitions/']) {
    if (!ref.startsWith(prefix)) continue;
    const defs = root[prefix.slice(2, -1)];
    const target = isRecord(defs) ? defs[ref.slice(prefix.length)] : undefined;
    if (isRecord(target)) return target;
  }
  return schema;
}

// ---- helpers ----------------------------------------------------------------------------

function typesOf(type: unknown): string[] {
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

function mapValues(record: Record<string, unknown>, fn: (value: unknown, key: string) => JsonSchema): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value, key)]));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
