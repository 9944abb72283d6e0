/**
 * Walks the JSON Schemas of schemas/api to make request values for contract tests:
 * - `minimalValue`: the smallest valid value (required fields only);
 * - `sites`: every place a value can go, each with a way to build the whole root value
 *   around it; `bounds` and `closedObjects` filter them.
 *
 * It reads the dialect schemas/api/common.ts writes: nullable `type: [T, 'null']`, `anyOf`
 * unions, tagged unions (`discriminator` + `oneOf` of branches whose `type` is a const), and
 * the cross-field rules some objects carry (`anyOf`/`oneOf` of `required` lists, `not` of a
 * `required` pair). Strings fit the one pattern in use (absolute http URLs) and the `regex`
 * and `date-time` formats; any other pattern throws, so a new one is noticed.
 */
import { HTTP_URL_PATTERN } from '../../schemas/api/common.js';

export type Schema = Readonly<Record<string, unknown>>;
export type JsonPath = (string | number)[];
type Obj = Record<string, unknown>;

const asSchema = (v: unknown): Schema | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Schema) : undefined;
const schemasOf = (v: unknown): Schema[] => (Array.isArray(v) ? v.map(asSchema).filter((s) => s !== undefined) : []);
const requiredOf = (s: Schema): string[] => (Array.isArray(s.required) ? (s.required as string[]) : []);
const propertiesOf = (s: Schema): Record<string, Schema> => (asSchema(s.properties) ?? {}) as Record<string, Schema>;
const num = (s: Schema, keyword: string): number | undefined => (typeof s[keyword] === 'number' ? (s[keyword] as number) : undefined);

/** The JSON type of a schema, ignoring the `null` of a nullable one. */
export function typeOf(s: Schema): string | undefined {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return (s.type as string[]).find((t) => t !== 'null');
  return undefined;
}

/** A tagged union's branches with their `type` tag, or undefined for any other schema. */
function taggedBranches(s: Schema): [string, Schema][] | undefined {
  if (!asSchema(s.discriminator)) return undefined;
  return schemasOf(s.oneOf).map((b) => [String(propertiesOf(b).type?.const), b]);
}

/** A cross-field rule (`{required: [...], properties?}`) rather than a typed alternative. */
const isRule = (b: Schema) => b.type === undefined && Array.isArray(b.required);

/** The non-null alternatives of a union (`anyOf` of typed schemas, or `type: [T, 'null']`). */
function variantsOf(s: Schema): Schema[] | undefined {
  const anyOf = schemasOf(s.anyOf);
  if (anyOf.length && !anyOf.some(isRule)) return anyOf.filter((b) => b.type !== 'null');
  if (Array.isArray(s.type) && s.type.includes('null')) {
    const variant: Obj = { ...s, type: typeOf(s) };
    if (Array.isArray(s.enum)) variant.enum = s.enum.filter((v) => v !== null);
    return [variant];
  }
  return undefined;
}

/** An absolute http(s) URL of exactly `length` characters (8 is the shortest valid one). */
export function urlOfLength(length?: number, tag = ''): string {
  const url = `https://example.com/${tag}`;
  if (length === undefined) return url;
  if (length >= url.length) return url.padEnd(length, 'a');
  return `http://${'a'.repeat(Math.max(length - 7, 0))}`.slice(0, length);
}

/** A valid string for `schema`; `length` overrides its natural length, `variant` makes it distinct. */
export function stringOfLength(schema: Schema, length?: number, variant = 0): string {
  if (schema.format === 'date-time') return '2024-01-01T00:00:00Z';
  const min = num(schema, 'minLength') ?? 0;
  if (schema.pattern !== undefined) {
    if (schema.pattern !== HTTP_URL_PATTERN) throw new Error(`schema-walk: no strings for pattern ${String(schema.pattern)}`);
    return urlOfLength(length ?? Math.max(min, urlOfLength().length), variant ? String(variant) : '');
  }
  // Letters only: valid for `format: regex` too.
  if (length !== undefined) return String.fromCharCode(97 + (variant % 26)).repeat(length);
  // A different string for every variant (`uniqueItems` arrays past 26 items): the variant in
  // base 26, padded on the left with 'a' (its zero) to the minimum length.
  let digits = '';
  for (let n = variant; digits === '' || n > 0; n = Math.floor(n / 26)) digits = String.fromCharCode(97 + (n % 26)) + digits;
  return digits.padStart(Math.max(min, 1), 'a');
}

function numberFor(schema: Schema, variant: number): number {
  const min = num(schema, 'minimum') ?? Math.min(0, num(schema, 'maximum') ?? 0);
  const max = num(schema, 'maximum');
  return max !== undefined && min + variant > max ? min : min + variant;
}

/** The smallest valid value for `schema`. `variant` > 0 gives a different one where it can. */
export function minimalValue(schema: Schema, variant = 0): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v) => v !== null);
    return values[variant % values.length];
  }
  const branch = taggedBranches(schema)?.[0];
  if (branch) return minimalValue(branch[1], variant);
  const variants = variantsOf(schema);
  if (variants?.[0]) return minimalValue(variants[0], variant);
  switch (typeOf(schema)) {
    case 'string':
      return stringOfLength(schema, undefined, variant);
    case 'integer':
    case 'number':
      return numberFor(schema, variant);
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array':
      return arrayOf(schema, num(schema, 'minItems') ?? 0, variant);
    case 'object':
      return objectWith(schema);
    default:
      throw new Error(`schema-walk: cannot make a value for ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

/** `n` valid items (distinct ones when the array wants unique items). */
export function arrayOf(schema: Schema, n: number, variant = 0): unknown[] {
  const items = asSchema(schema.items) ?? {};
  return Array.from({ length: n }, (_, i) => minimalValue(items, schema.uniqueItems ? i : variant));
}

/** A valid array holding `value` first, padded to `minItems`. */
function arrayWith(schema: Schema, value: unknown): unknown[] {
  const items = asSchema(schema.items) ?? {};
  const rest = Math.max((num(schema, 'minItems') ?? 0) - 1, 0);
  return [value, ...Array.from({ length: rest }, (_, i) => minimalValue(items, i + 1))];
}

/**
 * The smallest valid object for `schema`, with `key` set to `value` when given. Cross-field
 * rules are met by preferring the branch that names `key`: a wait action given `selector`
 * drops `milliseconds`, an extract given `template` does not also get `schema`.
 */
export function objectWith(schema: Schema, key?: string, value?: unknown): Obj {
  const props = propertiesOf(schema);
  const obj: Obj = {};
  for (const k of requiredOf(schema)) obj[k] = minimalValue(props[k] ?? {});
  if (key !== undefined) obj[key] = value;
  const min = num(schema, 'minProperties') ?? 0;
  for (const [k, p] of Object.entries(props)) {
    if (Object.keys(obj).length >= min) break;
    if (!(k in obj)) obj[k] = minimalValue(p);
  }
  satisfyRules(schema, obj, key);
  return obj;
}

function satisfyRules(schema: Schema, obj: Obj, prefer: string | undefined): void {
  const props = propertiesOf(schema);
  const keep = new Set([...requiredOf(schema), ...(prefer === undefined ? [] : [prefer])]);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const rules = schemasOf(schema[keyword]).filter(isRule);
    const chosen =
      rules.find((r) => prefer !== undefined && requiredOf(r).includes(prefer)) ??
      rules.find((r) => requiredOf(r).every((k) => k in obj)) ??
      rules[0];
    if (!chosen) continue;
    for (const k of requiredOf(chosen)) {
      // The rule's own constraint on the field (`urls: {minItems: 1}`) narrows the field's schema.
      const narrowed = { ...(variantsOf(props[k] ?? {})?.[0] ?? props[k] ?? {}), ...propertiesOf(chosen)[k] };
      if (!(k in obj)) obj[k] = minimalValue(narrowed);
    }
    if (keyword === 'oneOf') {
      for (const k of rules.filter((r) => r !== chosen).flatMap(requiredOf)) {
        if (!requiredOf(chosen).includes(k) && !keep.has(k)) delete obj[k];
      }
    }
  }
  const exclusive = requiredOf(asSchema(schema.not) ?? {});
  if (exclusive.length && exclusive.every((k) => obj[k] !== undefined && obj[k] !== null)) {
    const drop = exclusive.find((k) => !keep.has(k));
    if (drop !== undefined) delete obj[drop];
  }
}

/** A valid object with exactly `n` fields, or undefined when the schema cannot have that many. */
function objectOfSize(schema: Schema, n: number): Obj | undefined {
  const props = propertiesOf(schema);
  const obj: Obj = {};
  for (const k of requiredOf(schema)) obj[k] = minimalValue(props[k] ?? {});
  for (const [k, p] of Object.entries(props)) if (Object.keys(obj).length < n && !(k in obj)) obj[k] = minimalValue(p);
  const extra = schema.additionalProperties === false ? undefined : (asSchema(schema.additionalProperties) ?? { type: 'string' });
  for (let i = 0; extra && Object.keys(obj).length < n; i++) obj[`key${i}`] = minimalValue(extra, i);
  return Object.keys(obj).length === n ? obj : undefined;
}

/** A place a value can go inside a root value. */
export interface Site {
  path: JsonPath;
  /** `path` as text naming the branch of each union on the way: `actions[0]{wait}.selector`. */
  label: string;
  /** The schema that applies here (one alternative of a union). */
  schema: Schema;
  /** The whole root value: minimal, with `value` at `path`. */
  place(value: unknown): unknown;
}

/** Every site reachable in `root`: object properties (optional ones too), items, union branches. */
export function sites(root: Schema): Site[] {
  const out: Site[] = [];
  walk(root, [], '', (v) => v, out);
  return out;
}

const join = (label: string, key: string | number) =>
  typeof key === 'number' ? `${label}[${key}]` : label ? `${label}.${key}` : key;

function walk(schema: Schema, path: JsonPath, label: string, place: (v: unknown) => unknown, out: Site[]): void {
  const tagged = taggedBranches(schema);
  if (tagged) {
    for (const [tag, branch] of tagged) walk(branch, path, `${label}{${tag}}`, place, out);
    return;
  }
  const variants = variantsOf(schema);
  if (variants) {
    for (const v of variants) {
      const named = variants.length > 1 && !taggedBranches(v) ? `${label}<${typeOf(v)}>` : label;
      walk(v, path, named, place, out);
    }
    return;
  }
  out.push({ path, label, schema, place });
  if (typeOf(schema) === 'object') {
    for (const [k, p] of Object.entries(propertiesOf(schema))) {
      walk(p, [...path, k], join(label, k), (v) => place(objectWith(schema, k, v)), out);
    }
    const extra = asSchema(schema.additionalProperties);
    if (extra) walk(extra, [...path, 'key'], join(label, 'key'), (v) => place(objectWith(schema, 'key', v)), out);
  }
  const items = asSchema(schema.items);
  if (typeOf(schema) === 'array' && items) {
    walk(items, [...path, 0], join(label, 0), (v) => place(arrayWith(schema, v)), out);
  }
}

export type BoundKeyword =
  | 'minimum' | 'maximum' | 'minLength' | 'maxLength' | 'minItems' | 'maxItems' | 'minProperties' | 'maxProperties';

export interface Bound {
  site: Site;
  keyword: BoundKeyword;
  limit: number;
  /** The 422 `type` of a value just outside the bound. */
  code: string;
  /** A valid value exactly at the bound, and the same kind of value one step outside it. */
  at: unknown;
  outside: unknown;
}

const BOUND_RULES: Record<string, [BoundKeyword, string, -1 | 1][]> = {
  integer: [['minimum', 'greater_than_equal', -1], ['maximum', 'less_than_equal', 1]],
  number: [['minimum', 'greater_than_equal', -1], ['maximum', 'less_than_equal', 1]],
  string: [['minLength', 'string_too_short', -1], ['maxLength', 'string_too_long', 1]],
  array: [['minItems', 'too_short', -1], ['maxItems', 'too_long', 1]],
  object: [['minProperties', 'too_short', -1], ['maxProperties', 'too_long', 1]],
};

function valueOfSize(schema: Schema, n: number): unknown {
  switch (typeOf(schema)) {
    case 'string':
      return stringOfLength(schema, n);
    case 'array':
      return arrayOf(schema, n);
    case 'object':
      return objectOfSize(schema, n);
    default:
      return n;
  }
}

/** Every bound reachable in `root` whose value just outside can be written down. */
export function bounds(root: Schema): Bound[] {
  return sites(root).flatMap((site) =>
    (BOUND_RULES[typeOf(site.schema) ?? ''] ?? []).flatMap(([keyword, code, step]): Bound[] => {
      const limit = num(site.schema, keyword);
      if (limit === undefined || (keyword !== 'minimum' && limit + step < 0)) return [];
      const at = valueOfSize(site.schema, limit);
      const outside = valueOfSize(site.schema, limit + step);
      return at === undefined || outside === undefined ? [] : [{ site, keyword, limit, code, at, outside }];
    }),
  );
}

/** Every closed object (`additionalProperties: false`) reachable in `root`. */
export function closedObjects(root: Schema): Site[] {
  return sites(root).filter((s) => s.schema.additionalProperties === false);
}
