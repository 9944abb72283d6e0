/**
 * Validating answers against a template's or a caller's JSON Schema (compiled by ajv.ts), and
 * keeping only what passes (`conform`): nothing that breaks the schema leaves, and nothing is
 * invented.
 *
 * Pruning (conform and the per-field checks of filling): validate; every error names the
 * value it is about (its instance path) and that value is removed — an array item is taken
 * out of its array, a property out of its object; a nested object missing a required
 * property goes as a whole; an unexpected property (`additionalProperties: false`) goes; an
 * `anyOf`/`oneOf`/`not` failure removes the value it is about, not its parts. Then again, up
 * to 8 rounds (removing an item can break `minItems` one level up); what still fails after
 * that is removed at the top level. A top-level field the schema requires is set to `null`
 * instead when the schema allows null there, else removed. A required field that was never
 * there is not an error here (`missing` says so); a rule on the whole object
 * (`minProperties`, a root `anyOf`) that no removal can meet is named in a warning.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { validatorFor } from './ajv.js';
import { type Json, isJsonObject, shapeOf, topFields } from './json-schema.js';

type Segment = string;

function segmentsOf(pointer: string): Segment[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.split('~1').join('/').split('~0').join('~'));
}

const isPrefix = (prefix: readonly Segment[], path: readonly Segment[]): boolean =>
  prefix.length <= path.length && prefix.every((s, i) => s === path[i]);

const MISSING = new Set(['required', 'dependentRequired', 'dependencies']);

/** The value an error is about, to remove; null when it is about the whole answer. */
function targetOf(error: ErrorObject): Segment[] | null {
  const path = segmentsOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') return [...path, params.additionalProperty];
  if (error.keyword === 'unevaluatedProperties' && typeof params.unevaluatedProperty === 'string') return [...path, params.unevaluatedProperty];
  return path.length ? path : null;
}

function compareDesc(a: readonly Segment[], b: readonly Segment[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    const nx = Number(x);
    const ny = Number(y);
    if (Number.isInteger(nx) && Number.isInteger(ny)) return ny - nx;
    return x < y ? 1 : -1;
  }
  return b.length - a.length;
}

/** The original index of each item of an array items were removed from (labels name what the caller sent). */
type IndexMaps = WeakMap<unknown[], number[]>;

function removeAt(data: Json, path: readonly Segment[], maps: IndexMaps): boolean {
  let parent: unknown = data;
  for (const segment of path.slice(0, -1)) {
    if (Array.isArray(parent)) parent = parent[Number(segment)];
    else if (isJsonObject(parent)) parent = parent[segment];
    else return false;
  }
  const last = path[path.length - 1] as string;
  if (Array.isArray(parent)) {
    const index = Number(last);
    if (!Number.isInteger(index) || index < 0 || index >= parent.length) return false;
    const map = maps.get(parent) ?? parent.map((_, i) => i);
    map.splice(index, 1);
    maps.set(parent, map);
    parent.splice(index, 1);
    return true;
  }
  if (isJsonObject(parent) && Object.hasOwn(parent, last)) {
    delete parent[last];
    return true;
  }
  return false;
}

/** `path` as the caller wrote it (`products.2.price`): array positions before any removal. */
function label(data: Json, path: readonly Segment[], maps: IndexMaps): string {
  const out: string[] = [];
  let node: unknown = data;
  for (const segment of path) {
    if (Array.isArray(node)) {
      const index = Number(segment);
      out.push(String(maps.get(node)?.[index] ?? index));
      node = node[index];
    } else {
      out.push(segment);
      node = isJsonObject(node) ? node[segment] : undefined;
    }
  }
  return out.join('.');
}

function messageOf(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') return 'not in the schema';
  return error.message ?? `breaks "${error.keyword}"`;
}

/** Errors of `errors` that are about something inside `scope` (all of them when scope is empty). */
function within(errors: readonly ErrorObject[], scope: readonly Segment[]): ErrorObject[] {
  return errors.filter((e) => {
    const target = targetOf(e);
    if (target === null) return false;
    if (MISSING.has(e.keyword) && segmentsOf(e.instancePath).length === 0) return false;
    return isPrefix(scope, target);
  });
}

export interface Pruned {
  readonly data: Json;
  readonly warnings: string[];
  /** Errors still standing (outside the scope, or about the whole answer). */
  readonly remaining: readonly ErrorObject[];
}

const MAX_ROUNDS = 8;

/** Removes from a copy of `data` what breaks `validate`, inside `scope` (see the file comment). */
export function prune(validate: ValidateFunction, data: Json, scope: readonly Segment[] = []): Pruned {
  const current = structuredClone(data);
  const warnings: string[] = [];
  const maps: IndexMaps = new WeakMap();
  for (let round = 0; round <= MAX_ROUNDS; round += 1) {
    if (validate(current)) return { data: current, warnings, remaining: [] };
    const errors = within(validate.errors ?? [], scope);
    if (!errors.length) return { data: current, warnings, remaining: validate.errors ?? [] };
    const lastRound = round === MAX_ROUNDS;
    const found = new Map<string, { path: Segment[]; error: ErrorObject }>();
    for (const error of errors) {
      const target = targetOf(error) as Segment[];
      const path = lastRound ? target.slice(0, Math.max(1, scope.length)) : target;
      const key = path.join('/');
      if (!found.has(key)) found.set(key, { path, error });
    }
    const targets = [...found.values()].filter((t) => ![...found.values()].some((o) => o !== t && o.path.length < t.path.length && isPrefix(o.path, t.path)));
    targets.sort((a, b) => compareDesc(a.path, b.path));
    let removed = 0;
    for (const { path, error } of targets) {
      const named = label(current, path, maps);
      if (removeAt(current, path, maps)) {
        removed += 1;
        warnings.push(`dropped "${named}": ${messageOf(error)}`);
      }
    }
    if (!removed) return { data: current, warnings, remaining: validate.errors ?? [] };
  }
  return { data: current, warnings, remaining: validate.errors ?? [] };
}

/**
 * `data` as it passes `schema`: what breaks it removed (a required top-level field set to null
 * when the schema allows null there) and named in warnings. A schema that does not compile
 * (never a template's; a caller's is checked when the request comes in) leaves `data` as it is,
 * with a warning.
 */
export function conform(schema: Record<string, unknown>, data: Record<string, unknown>): { data: Record<string, unknown>; warnings: string[] } {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    return { data, warnings: [`the answer could not be checked: the schema does not compile (${error instanceof Error ? error.message : String(error)})`] };
  }
  const pruned = prune(validate, data);
  const out = pruned.data;
  const warnings = [...pruned.warnings];
  for (const field of topFields(schema)) {
    if (field.required && field.name in data && !(field.name in out) && shapeOf(schema, field.node).nullable) {
      out[field.name] = null;
      warnings.push(`set "${field.name}" to null: its value broke the schema`);
    }
  }
  const rules = new Set(pruned.remaining.filter((e) => targetOf(e) === null && !MISSING.has(e.keyword)).map((e) => e.keyword));
  for (const rule of rules) warnings.push(`the answer does not meet the schema's "${rule}" rule`);
  return { data: out, warnings };
}

/** Whether `value` passes as field `name` of `schema`, after pruning what breaks it inside. */
export function checkField(schema: Json, name: string, value: unknown): { ok: true; value: unknown; warnings: string[] } | { ok: false; reason: string } {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    return { ok: false, reason: `the schema does not compile (${error instanceof Error ? error.message : String(error)})` };
  }
  const first = validate({ [name]: value }) ? [] : within(validate.errors ?? [], [name]);
  if (!first.length) return { ok: true, value, warnings: [] };
  const pruned = prune(validate, { [name]: value }, [name]);
  if (Object.hasOwn(pruned.data, name) && !within(pruned.remaining, [name]).length) {
    return { ok: true, value: pruned.data[name], warnings: pruned.warnings };
  }
  return { ok: false, reason: messageOf(first[0] as ErrorObject) };
}
