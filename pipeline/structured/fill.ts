/**
 * Filling a template or a caller's JSON Schema from what the page says — markup first, a
 * model only for what is left.
 *
 * Where each top-level field looks, in order (the first value that converts to the field's
 * type, coerce.ts, and passes the schema, validate.ts, wins):
 *
 *   1. the **main thing** of the page's markup syntaxes (JSON-LD, microdata, RDFa). For a
 *      template: among the things of its `schemaOrgTypes` (subtypes included, nested ones
 *      too: a NewsArticle in a WebPage's `mainEntity`), the one that has values for the most
 *      fields (required fields count twice), then by type order, nesting, syntax and
 *      document order. For a caller's schema: the same among all things except site
 *      furniture (breadcrumbs, WebSite, search boxes …);
 *   2. the other things of those types (for a caller's schema: sharing a type with the main
 *      one) that can describe the same subject (things.ts `sameSubject`: no differing
 *      `@id`, name, url or sku), by type order, syntax and document order;
 *   3. the page's meta tags (the Open Graph / meta thing, whatever its type);
 *   4. the page rules' thing (what the visible page says).
 * (main-thing.ts chooses and orders the things; read-thing.ts reads a field from one.)
 *
 * Within a thing, a field's paths are tried in order (fields.ts: a template's `schemaOrg`, a
 * caller's field matched by name, synonym or description). An object field is filled from
 * the nested thing its path leads to, property by property, with the same matching (a plain
 * text gives an object with just its `name`); a list of objects takes one item per nested
 * thing (every `offers` Offer). A list of objects that no path fills is filled from the page's
 * things of one type: the type its name names (`products` → Product, `jobs` → JobPosting) or
 * else whose things fill most of the item's properties, every such thing in the syntax that
 * has most of them, one item each (duplicates dropped; at most 500 or `maxItems`).
 * Without a template or schema there is nothing to fill here (the answer is the page's own
 * structured data, written by the parser).
 *
 * A model is then asked (actors/extractor) for the `missing` fields only, against
 * `schemaForMissing`; `mergeModelAnswer` adds what it answers without overwriting anything,
 * each value converted and checked the same way.
 */
import type { ExtractionTemplate } from '../../schemas/templates.js';
import { coerceJson } from './coerce.js';
import { callerPlan, templatePlans } from './fields.js';
import { type Json, shapeOf, topFields } from './json-schema.js';
import { candidates, listFromPage } from './main-thing.js';
import { isEmpty, valueOn } from './read-thing.js';
import { walkThings } from './things.js';
import { type FieldSource, type Thing, sourceOfThing } from './types.js';
import { checkField } from './validate.js';

export { conform } from './validate.js';
export { confidenceOf } from './confidence.js';
export { checkCallerSchema, normalizeCallerSchema } from './schema.js';

export type ExtractTarget =
  | { kind: 'template'; template: ExtractionTemplate }
  /** The caller's schema, already checked and normalised (schema.ts). */
  | { kind: 'schema'; schema: Record<string, unknown> }
  /** Neither: the answer is the page's own structured data (written by the parser). */
  | { kind: 'none' };

export interface FilledField {
  path: string;
  source: FieldSource;
}

export interface Filled {
  /** Only fields that were filled, each valid against the schema. */
  data: Record<string, unknown>;
  /** Top-level field → where it came from. */
  sources: Record<string, FieldSource>;
  /** Top-level fields the schema declares that are still empty, in schema order. */
  missing: string[];
  warnings: string[];
}

/** The schema of a target (a template's own); null for none. */
export function targetSchema(target: ExtractTarget): Record<string, unknown> | null {
  if (target.kind === 'template') return target.template.schema as unknown as Record<string, unknown>;
  if (target.kind === 'schema') return target.schema;
  return null;
}

const MISSING_NOTE = 'no value found for ';

const missingWarning = (missing: readonly string[]): string => `${MISSING_NOTE}${missing.map((m) => JSON.stringify(m)).join(', ')}`;

/**
 * Fills the target's fields from the page's markup things, then its page-rules thing (see
 * the file comment). Each field takes the first source that yields a value that conforms.
 */
export function fillFromThings(target: ExtractTarget, things: readonly Thing[], pageThing: Thing | null): Filled {
  const filled: Filled = { data: {}, sources: {}, missing: [], warnings: [] };
  const schema = targetSchema(target);
  if (!schema) return filled;
  const root = schema as Json;
  const plans = target.kind === 'template' ? templatePlans(target.template) : topFields(root).map(callerPlan);
  const walked = walkThings(things);
  const order = [...candidates(target.kind === 'template' ? target.template.schemaOrgTypes : null, plans, walked), ...(pageThing ? [pageThing] : [])];
  for (const plan of plans) {
    let dropped: string | null = null;
    let found: { value: unknown; thing: Thing; notes: readonly string[] } | null = null;
    for (const thing of order) {
      const attempt = valueOn(thing, plan, root, 0);
      if ('value' in attempt) {
        found = { ...attempt, thing };
        break;
      }
      dropped ??= attempt.dropped;
    }
    found ??= listFromPage(plan, walked, root);
    if (found) {
      filled.data[plan.name] = found.value;
      filled.sources[plan.name] = sourceOfThing(found.thing.source);
      filled.warnings.push(...found.notes);
    } else {
      filled.missing.push(plan.name);
      if (dropped) filled.warnings.push(`dropped "${plan.name}": ${dropped}`);
    }
  }
  if (filled.missing.length) filled.warnings.push(missingWarning(filled.missing));
  return filled;
}

/**
 * Adds a model's answer for the missing fields only (a model value never overwrites a markup
 * or page one), each converted (coerce.ts `coerceJson`) and checked against the schema; a
 * value that does not pass is dropped and named. `null` means the model found nothing.
 */
export function mergeModelAnswer(filled: Filled, answer: Record<string, unknown>, schema: Record<string, unknown>): Filled {
  const root = schema as Json;
  const data = { ...filled.data };
  const sources = { ...filled.sources };
  const warnings = filled.warnings.filter((w) => !w.startsWith(MISSING_NOTE));
  const fields = new Map(topFields(root).map((f) => [f.name, f]));
  for (const name of filled.missing) {
    const field = fields.get(name);
    if (!field || !Object.hasOwn(answer, name) || answer[name] === null || answer[name] === undefined) continue;
    const coerced = coerceJson(answer[name], shapeOf(root, field.node), { root, field: name, prop: null });
    if (!coerced.ok) {
      warnings.push(`dropped the model's "${name}": ${coerced.reason}`);
      continue;
    }
    const checked = checkField(root, name, coerced.value);
    if (!checked.ok) {
      warnings.push(`dropped the model's "${name}": ${checked.reason}`);
      continue;
    }
    if (isEmpty(checked.value)) continue;
    data[name] = checked.value;
    sources[name] = 'model';
    warnings.push(...coerced.notes, ...checked.warnings);
  }
  const missing = filled.missing.filter((name) => !Object.hasOwn(data, name));
  if (missing.length) warnings.push(missingWarning(missing));
  return { data, sources, missing, warnings };
}

/**
 * The JSON Schema a model answers: the target's restricted to the `missing` fields (their
 * definitions as they are, `$defs`/`definitions` and `$schema` kept so references resolve),
 * none of them required, nothing else allowed.
 */
export function schemaForMissing(schema: Record<string, unknown>, missing: readonly string[]): Record<string, unknown> {
  const root = schema as Json;
  const fields = topFields(root).filter((f) => missing.includes(f.name));
  const out: Json = {};
  for (const key of ['$schema', '$defs', 'definitions']) if (key in root) out[key] = root[key];
  return {
    ...out,
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, f.node])),
    required: [],
    additionalProperties: false,
  };
}
