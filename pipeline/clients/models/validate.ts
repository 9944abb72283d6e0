/**
 * Checking a model's answer against the caller's ORIGINAL schema (schema.ts `original`, not the
 * strict form sent to OpenAI): what strict mode had to drop (`format`, `pattern`, `minLength`,
 * bounds) is still enforced here, and a breach earns the model one repair attempt.
 *
 * - ajv (draft-07 vocabulary, `strict: false`: a caller's schema may carry keywords ajv does not
 *   know), with ajv-formats for `format`.
 * - `pattern` is a caller's regular expression run against model output: it runs in RE2
 *   (pipeline/runtime/linear-regex.ts), never in V8's backtracking engine.
 * - Compiled validators are kept by schema text, at most 128 (the oldest dropped): the fill of
 *   empty fields asks with the same few schemas all day, and compiling costs far more than a check.
 * - A schema ajv cannot compile is the request's fault: `bad_request`, naming ajv's reason.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { AppError } from '../../runtime/errors.js';
import { compileLinearRegex } from '../../runtime/linear-regex.js';
import type { JsonSchema } from './schema.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (ajv: Ajv) => Ajv;

const MAX_CACHED = 128;
/** Breaches quoted back to the model (and in the final error): enough to act on. */
const MAX_PROBLEMS = 8;

/** ajv's hook for regular expressions: RE2 through re2js (the `u` flag is RE2's default behaviour). */
const re2Engine = Object.assign((pattern: string) => compileLinearRegex(pattern), { code: 're2js (pipeline/runtime/linear-regex.ts)' });

let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction>();

function instance(): Ajv {
  if (ajv === null) {
    ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true, code: { regExp: re2Engine } });
    addFormats(ajv);
  }
  return ajv;
}

export type Check = (value: unknown) => string[];

/** A function listing how a value breaks `schema` (empty: it fits). Throws `bad_request` when the schema does not compile. */
export function compileCheck(schema: JsonSchema): Check {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    try {
      validate = instance().compile(schema);
    } catch (error) {
      throw new AppError('bad_request', `the schema cannot be used: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, validate);
  }
  const fn = validate;
  return (value) => (fn(value) ? [] : (fn.errors ?? []).slice(0, MAX_PROBLEMS).map(describe));
}

/** `/price must be number`: where and what, never the offending value (it may quote the page). */
function describe(error: ErrorObject): string {
  return `${error.instancePath || '(the top level)'} ${error.message ?? 'is invalid'}`;
}
