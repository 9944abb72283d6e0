/**
 * Request validation: Ajv compiled from the schemas in schemas/api, and the translation of
 * Ajv's errors into the 422 body `{detail: [{loc, msg, type}]}`.
 *
 * Bodies are validated strictly (no type coercion, unknown fields on closed objects are
 * errors, defaults filled in). Query strings and path parameters arrive as text, so numbers
 * and booleans there are coerced before the same checks.
 */
import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { XError } from '../schemas/api/common.js';
import { isLinearRegex } from '../pipeline/runtime/linear-regex.js';
import { inspectJson } from '../pipeline/runtime/json-limits.js';
import { webhookHeaderProblems } from '../pipeline/webhooks/headers.js';
import { arrayLimits, withArrayLimits } from './array-limits.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (ajv: Ajv) => Ajv;

export type Part = 'body' | 'query' | 'path' | 'header';

export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    discriminator: true,
    verbose: true,
    // Defaults inside a union's branches are documentation only (Ajv cannot apply them
    // there); the code reading those fields applies them. Any other strict-mode finding is
    // a schema bug and stops start-up.
    strictSchema: 'log',
    logger: {
      log: () => undefined,
      warn: (msg: unknown) => {
        if (!String(msg).includes('default is ignored')) throw new Error(`schema error: ${String(msg)}`);
      },
      error: (msg: unknown) => {
        throw new Error(`schema error: ${String(msg)}`);
      },
    },
    strictNumbers: true,
    strictTuples: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
    // Split schemas (see `split`) stay separate functions.
    inlineRefs: false,
  });
  addFormats(ajv);
  // Caller patterns run in RE2 (pipeline/runtime/linear-regex.ts): `regex` means a pattern RE2 can run.
  ajv.addFormat('regex', isLinearRegex);
  ajv.addKeyword({ keyword: 'x-error', schemaType: 'object' });
  // A free-form value's size as JSON (webhook `metadata`). The body's depth was checked
  // before Ajv runs (`inputProblems`), so serializing it is safe.
  ajv.addKeyword({ keyword: 'x-max-json-bytes', type: 'object', schemaType: 'number', errors: true, validate: maxJsonBytes });
  // A webhook's `headers` (pipeline/webhooks/headers.ts): names, values, forbidden names, size.
  ajv.addKeyword({ keyword: 'x-webhook-headers', type: 'object', schemaType: 'boolean', errors: true, validate: webhookHeaders });
  return ajv;
}

/** `x-max-json-bytes`: the value's size as JSON is at most the keyword's number. Ajv reads the errors off the function. */
const maxJsonBytes: SchemaValidateFunction = (limit: number, data: unknown) => {
  const size = Buffer.byteLength(JSON.stringify(data));
  if (size <= limit) return true;
  maxJsonBytes.errors = [{ keyword: 'x-max-json-bytes', params: { limit, size } }];
  return false;
};

/** `x-webhook-headers`: every problem of a webhook's headers, one error each. */
const webhookHeaders: SchemaValidateFunction = (_on: boolean, data: Record<string, unknown>) => {
  const problems = webhookHeaderProblems(data);
  if (!problems.length) return true;
  webhookHeaders.errors = problems.map((p) => ({ keyword: 'x-webhook-headers', params: { name: p.name, type: p.type, msg: p.msg } }));
  return false;
};

const ajvStrict = makeAjv(false);
const ajvCoercing = makeAjv(true);

export function compile(part: Part, schema: TSchema): ValidateFunction {
  const ajv = part === 'body' ? ajvStrict : ajvCoercing;
  return withArrayLimits(ajv.compile(split(ajv, schema, false) as TSchema), arrayLimits(schema), MAX_DETAILS);
}

/** JSON size above which a property's schema is compiled as a function of its own. */
const SPLIT_ABOVE_CHARS = 1500;

/**
 * Ajv compiles a schema into one function, and the large bodies (scrape options with
 * actions and formats, repeated inside crawl, batch, extract…) make functions of over 100 KB
 * that V8 never optimizes: they stay in its baseline tiers, several times slower. Large
 * property and item schemas are therefore registered as schemas of their own (by content
 * hash, so operations share them) and referenced, which Ajv compiles as separate, small
 * functions (`inlineRefs: false`). A property's `default` stays beside its `$ref`, where
 * Ajv's useDefaults reads it. Nothing inside an anyOf/oneOf branch is split: `prune` below
 * recognizes a branch's errors by their schema path under the combinator's.
 */
function split(ajv: Ajv, schema: unknown, inUnion: boolean): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const node = schema as Record<string, unknown>;
  const out: Record<string, unknown> = { ...node };
  const child = (sub: unknown) => (inUnion ? split(ajv, sub, true) : hoist(ajv, split(ajv, sub, false)));
  if (node.properties && typeof node.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([name, sub]) => [name, child(sub)]));
  }
  if (node.items && typeof node.items === 'object' && !Array.isArray(node.items)) out.items = child(node.items);
  for (const combinator of ['anyOf', 'oneOf', 'allOf']) {
    const branches = node[combinator];
    if (Array.isArray(branches)) out[combinator] = branches.map((b) => split(ajv, b, true));
  }
  return out;
}

function hoist(ajv: Ajv, schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  const { default: fallback, ...rest } = schema as Record<string, unknown>;
  const text = JSON.stringify(rest);
  if (text.length < SPLIT_ABOVE_CHARS) return schema;
  const id = `wds:schema:${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
  if (!ajv.getSchema(id)) ajv.addSchema({ ...rest, $id: id });
  return { $ref: id, ...(fallback !== undefined ? { default: fallback } : {}) };
}

/**
 * The loc of a JSON pointer into `root`, after `part`: array indexes as numbers, object keys
 * as strings (a key made of digits stays a string), found by walking the value itself.
 */
function pointerToLoc(part: Part, pointer: string, root: unknown): (string | number)[] {
  const loc: (string | number)[] = [part];
  if (pointer === '') return loc;
  let node: unknown = root;
  let from = 1;
  while (from <= pointer.length) {
    let to = pointer.indexOf('/', from);
    if (to < 0) to = pointer.length;
    const raw = pointer.slice(from, to);
    from = to + 1;
    // Escapes are rare; two regex replacements per segment were most of a 422's detail cost.
    const seg = raw.includes('~') ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw;
    const isIndex = Array.isArray(node) && /^\d+$/.test(seg);
    loc.push(isIndex ? Number(seg) : seg);
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
  }
  return loc;
}

const TYPE_CODES: Record<string, string> = {
  integer: 'int_type',
  number: 'number_type',
  string: 'string_type',
  boolean: 'bool_type',
  array: 'list_type',
  object: 'dict_type',
  null: 'none_type',
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value}`;
}

function xErrorOf(e: ErrorObject): XError | undefined {
  return (e.parentSchema as { 'x-error'?: XError } | undefined)?.['x-error'];
}

function translate(e: ErrorObject, part: Part, root: unknown): ValidationDetail {
  const loc = pointerToLoc(part, e.instancePath, root);
  const p = e.params as Record<string, unknown>;
  const custom = xErrorOf(e);
  switch (e.keyword) {
    case 'required':
      return { loc: [...loc, String(p.missingProperty)], msg: 'field required', type: 'missing' };
    case 'additionalProperties':
      return { loc: [...loc, String(p.additionalProperty)], msg: 'unknown field; this object is closed', type: 'extra_forbidden' };
    case 'type': {
      const expected = String(p.type).split(',');
      if (e.data === undefined) return { loc, msg: 'field required', type: 'missing' };
      const first = expected[0] ?? 'value';
      return {
        loc,
        msg: `expected ${expected.join(' or ')}, got ${describe(e.data)}`,
        type: TYPE_CODES[first] ?? 'type_error',
      };
    }
    case 'minimum':
      return { loc, msg: `must be >= ${p.limit}`, type: 'greater_than_equal' };
    case 'maximum':
      return { loc, msg: `must be <= ${p.limit}`, type: 'less_than_equal' };
    case 'exclusiveMinimum':
      return { loc, msg: `must be > ${p.limit}`, type: 'greater_than' };
    case 'exclusiveMaximum':
      return { loc, msg: `must be < ${p.limit}`, type: 'less_than' };
    case 'minLength':
      return { loc, msg: `must have at least ${p.limit} characters`, type: 'string_too_short' };
    case 'maxLength':
      return { loc, msg: `must have at most ${p.limit} characters`, type: 'string_too_long' };
    case 'minItems':
      return { loc, msg: `must have at least ${p.limit} items`, type: 'too_short' };
    case 'maxItems':
      return { loc, msg: `must have at most ${p.limit} items`, type: 'too_long' };
    case 'minProperties':
      return { loc, msg: `must have at least ${p.limit} fields`, type: 'too_short' };
    case 'maxProperties':
      return { loc, msg: `must have at most ${p.limit} fields`, type: 'too_long' };
    case 'uniqueItems':
      return { loc, msg: `items ${p.j} and ${p.i} are identical; items must be unique`, type: 'unique_items' };
    case 'enum':
      return {
        loc,
        msg: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        type: 'enum',
      };
    case 'const':
      return { loc, msg: `must be ${JSON.stringify(p.allowedValue)}`, type: 'literal_error' };
    case 'pattern':
      return custom ? { loc, msg: custom.msg, type: custom.type } : { loc, msg: `must match the pattern ${p.pattern}`, type: 'string_pattern_mismatch' };
    case 'format':
      return custom ? { loc, msg: custom.msg, type: custom.type } : { loc, msg: `must be a valid ${p.format}`, type: `${String(p.format).replace(/-/g, '_')}_invalid` };
    case 'x-max-json-bytes':
      return { loc, msg: `must be at most ${p.limit} bytes as JSON; this is ${p.size}`, type: 'too_large' };
    case 'x-webhook-headers':
      return { loc: p.name ? [...loc, String(p.name)] : loc, msg: String(p.msg), type: String(p.type) };
    case 'propertyNames':
      return { loc: [...loc, String(p.propertyName)], msg: 'invalid field name', type: 'key_invalid' };
    case 'discriminator':
      if (p.error === 'tag') return { loc: [...loc, 'type'], msg: '`type` must be a string', type: 'union_tag_invalid' };
      return {
        loc: [...loc, 'type'],
        msg: `unknown type ${JSON.stringify(p.tagValue ?? p.tag)}`,
        type: 'union_tag_invalid',
      };
    default:
      if (custom) return { loc, msg: custom.msg, type: custom.type };
      return { loc, msg: e.message ?? 'invalid value', type: e.keyword };
  }
}

/**
 * Ajv reports every branch of an `anyOf`/`oneOf`. Keep what helps the caller:
 * - branches whose root `type` did not match the value are dropped when another branch's did;
 * - when no branch's type matched, one error lists every accepted type;
 * - a combinator whose schema names its own error (`x-error`) replaces its branches' errors;
 * - otherwise the combinator's summary error goes when its branches said something precise.
 */
function isWithin(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}/`);
}

/** The key a combinator's error is found by: its schema path and the value it judged. */
const combinatorKey = (schemaPath: string, instancePath: string) => `${schemaPath}\u0000${instancePath}`;

/**
 * Each union error's branch errors, by branch index: the errors under its schema path
 * (`<path>/<index>/…`) about its value or a value inside it. Found from each error's own
 * paths (each `/anyOf` or `/oneOf` step of its schema path, each step of its value's path),
 * so the work is the errors times their depth: comparing every union error with every error
 * was quadratic, 24 s for a `formats` of 10,000 items.
 */
function branchesOf(errors: ErrorObject[]): Map<ErrorObject, Map<string, ErrorObject[]>> {
  const unions = new Map<string, ErrorObject[]>();
  for (const c of errors) {
    if (c.keyword !== 'anyOf' && c.keyword !== 'oneOf') continue;
    const key = combinatorKey(c.schemaPath, c.instancePath);
    const same = unions.get(key);
    if (same) same.push(c);
    else unions.set(key, [c]);
  }
  const found = new Map<ErrorObject, Map<string, ErrorObject[]>>();
  if (unions.size === 0) return found;
  for (const e of errors) {
    const path = e.schemaPath;
    for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) {
      const step = path.startsWith('/anyOf/', at) ? 7 : path.startsWith('/oneOf/', at) ? 7 : 0;
      if (step === 0) continue;
      const unionPath = path.slice(0, at + step - 1);
      const indexEnd = path.indexOf('/', at + step);
      const index = path.slice(at + step, indexEnd < 0 ? path.length : indexEnd);
      // The union judged this error's value or one containing it: each prefix of its value's path.
      const value = e.instancePath;
      for (let end = value.length; end >= 0; end = end === 0 ? -1 : value.lastIndexOf('/', end - 1)) {
        const unionsHere = unions.get(combinatorKey(unionPath, value.slice(0, end)));
        if (!unionsHere) continue;
        for (const c of unionsHere) {
          if (c === e) continue;
          let branches = found.get(c);
          if (!branches) found.set(c, (branches = new Map()));
          const list = branches.get(index);
          if (list) list.push(e);
          else branches.set(index, [e]);
        }
      }
    }
  }
  return found;
}

function prune(errors: ErrorObject[]): ErrorObject[] {
  const drop = new Set<ErrorObject>();
  const added: ErrorObject[] = [];
  const all = branchesOf(errors);
  for (const c of errors) {
    if (c.keyword !== 'anyOf' && c.keyword !== 'oneOf') continue;
    const prefix = `${c.schemaPath}/`;
    const branches = all.get(c) ?? new Map<string, ErrorObject[]>();
    const rootTypeError = (index: string, errs: ErrorObject[]) =>
      errs.find((e) => e.keyword === 'type' && e.instancePath === c.instancePath && e.schemaPath === `${prefix}${index}/type`);
    const mismatched = [...branches].filter(([i, errs]) => rootTypeError(i, errs));
    const branchErrors = [...branches.values()].flat();
    if (xErrorOf(c)) {
      branchErrors.forEach((e) => drop.add(e));
      continue;
    }
    if (mismatched.length === branches.size && branches.size > 0) {
      branchErrors.forEach((e) => drop.add(e));
      const types = mismatched.flatMap(([i, errs]) => String(rootTypeError(i, errs)?.params.type).split(','));
      const first = rootTypeError(...(mismatched[0] as [string, ErrorObject[]])) as ErrorObject;
      added.push({ ...first, params: { type: [...new Set(types)].join(',') } });
      drop.add(c);
      continue;
    }
    mismatched.forEach(([, errs]) => errs.forEach((e) => drop.add(e)));
    if (branchErrors.some((e) => !drop.has(e))) drop.add(c);
  }
  return [...errors.filter((e) => !drop.has(e)), ...added];
}

/**
 * The most details a 422 lists for one part of a request; past them, one more says there were
 * more. A 2 MB body of 415,000 bad items made 830,000 details, an 80 MB answer.
 */
export const MAX_DETAILS = 100;

/** The detail that ends a list cut at MAX_DETAILS. */
export const moreProblems = (part: Part): ValidationDetail => ({ loc: [part], msg: `more problems were found than the ${MAX_DETAILS} listed`, type: 'too_many_errors' });

/** The 422 details of Ajv's errors for `root`, the value that was validated (at most MAX_DETAILS, then a `too_many_errors` one). */
export function toDetails(errors: ErrorObject[] | null | undefined, part: Part, root: unknown): ValidationDetail[] {
  if (!errors?.length) return [];
  // The common 422 is one plain error: no union branches to prune, nothing to deduplicate.
  if (errors.length === 1 && errors[0]!.keyword !== 'anyOf' && errors[0]!.keyword !== 'oneOf') return [translate(errors[0]!, part, root)];
  const seen = new Set<string>();
  const out: ValidationDetail[] = [];
  for (const e of prune(errors)) {
    const d = translate(e, part, root);
    const key = JSON.stringify(d);
    if (seen.has(key)) continue;
    if (out.length === MAX_DETAILS) {
      out.push(moreProblems(part));
      break;
    }
    seen.add(key);
    out.push(d);
  }
  return out;
}

/** The answer when there is no problem: one shared, frozen array rather than one per request. */
const NONE: readonly ValidationDetail[] = Object.freeze([]);

/**
 * What no schema can say about a request's JSON, checked before Ajv or anything else walks
 * it (pipeline/runtime/json-limits.ts): objects and arrays nested deeper than `maxDepth`
 * (BODY_MAX_DEPTH; 422 `too_deep` at the first container past it), and text that is not
 * well-formed Unicode, in a value or a key (422 `string_invalid`).
 */
export function inputProblems(value: unknown, part: Part, maxDepth: number): readonly ValidationDetail[] {
  const findings = inspectJson(value, maxDepth);
  if (!findings.length) return NONE;
  return findings.map((f) =>
    f.kind === 'too_deep'
      ? { loc: [part, ...f.path], msg: `objects and arrays nest deeper than ${maxDepth} levels here; at most ${maxDepth} are accepted`, type: 'too_deep' }
      : {
          loc: [part, ...f.path],
          msg: `${f.inKey ? 'the field name' : 'the text'} holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape); text must be valid Unicode`,
          type: 'string_invalid',
        },
  );
}
