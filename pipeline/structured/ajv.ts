/**
 * Ajv for answers and callers' schemas: one instance per dialect the service accepts
 * (draft-07 — also for a schema that names none —, 2019-09, 2020-12), with the ajv-formats
 * formats. Caller patterns (`pattern`, `format: regex`) run in RE2
 * (pipeline/runtime/linear-regex.ts), never in V8's backtracking engine: a pattern RE2 cannot
 * run makes the schema invalid. Schemas are compiled from a copy, cached by content (the last
 * 64, as Ajv keeps every schema it compiled until told otherwise: an evicted one is removed
 * from its instance), and never added to the instance by `$id`, so callers' schemas never see
 * each other. Unknown keywords and formats are ignored (strict mode off: callers' schemas
 * carry annotations of their own).
 */
import { createHash } from 'node:crypto';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { compileLinearRegex, isLinearRegex } from '../runtime/linear-regex.js';
import type { Json } from './json-schema.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (ajv: Ajv) => Ajv;

/** The `$schema` URIs of the accepted dialects, as Ajv knows them. */
export const DIALECTS = {
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
} as const;
export type Dialect = keyof typeof DIALECTS;

/** The dialect a `$schema` names; none → draft-07; one the service does not accept → null. */
export function dialectOf(schema: Json): Dialect | null {
  const uri = schema.$schema;
  if (uri === undefined) return 'draft-07';
  if (typeof uri !== 'string') return null;
  if (uri.includes('draft-07')) return 'draft-07';
  if (uri.includes('2019-09')) return '2019-09';
  if (uri.includes('2020-12')) return '2020-12';
  return null;
}

const linearRegExp = Object.assign(
  (pattern: string) => {
    const regex = compileLinearRegex(pattern);
    return { test: (text: string) => regex.test(text), toString: () => `/${pattern}/` };
  },
  { code: 'linearRegExp' },
);

const OPTIONS: Options = {
  strict: false,
  allErrors: true,
  addUsedSchema: false,
  allowUnionTypes: true,
  logger: false,
  code: { regExp: linearRegExp },
};

function withFormats<A extends Ajv>(ajv: A): A {
  addFormats(ajv);
  ajv.addFormat('regex', isLinearRegex);
  return ajv;
}

const instances = new Map<Dialect, Ajv>();

/** The shared Ajv of a dialect. */
export function ajvFor(dialect: Dialect): Ajv {
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = withFormats(dialect === '2020-12' ? (new Ajv2020(OPTIONS) as Ajv) : dialect === '2019-09' ? (new Ajv2019(OPTIONS) as Ajv) : new Ajv(OPTIONS));
    instances.set(dialect, ajv);
  }
  return ajv;
}

interface Compiled {
  readonly ajv: Ajv;
  readonly schema: Json;
  readonly validate: ValidateFunction;
}

const MAX_VALIDATORS = 64;
const byContent = new Map<string, Compiled>();
const byObject = new WeakMap<object, ValidateFunction>();

/** Compiles a copy of `schema` with the dialect's Ajv; throws Ajv's error (the copy is dropped). */
export function compileSchema(schema: Json): Compiled {
  const dialect = dialectOf(schema);
  if (!dialect) throw new Error(`unsupported $schema "${String(schema.$schema)}": use draft-07, 2019-09 or 2020-12, or leave $schema out`);
  const ajv = ajvFor(dialect);
  const copy = structuredClone(schema);
  try {
    return { ajv, schema: copy, validate: ajv.compile(copy) };
  } catch (error) {
    ajv.removeSchema(copy);
    throw error;
  }
}

/** The compiled validator of `schema` (cached; see the file comment). Throws when it does not compile. */
export function validatorFor(schema: Json): ValidateFunction {
  const known = byObject.get(schema);
  if (known) return known;
  const key = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
  let entry = byContent.get(key);
  if (entry) byContent.delete(key);
  else {
    entry = compileSchema(schema);
    if (byContent.size >= MAX_VALIDATORS) {
      const [oldestKey, oldest] = byContent.entries().next().value as [string, Compiled];
      byContent.delete(oldestKey);
      oldest.ajv.removeSchema(oldest.schema);
    }
  }
  byContent.set(key, entry);
  byObject.set(schema, entry.validate);
  return entry.validate;
}
