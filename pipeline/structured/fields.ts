/**
 * Which schema.org properties fill which field: a template says so itself
 * (schemas/templates.ts `schemaOrg`); a caller's field is matched by name or meaning, in this
 * order, each step adding paths after the ones before:
 *
 *   1. the name itself as a property, case- and separator-insensitively (`headline`,
 *      `date_published` → `datePublished`, `SKU` → `sku`); a duration field's name without
 *      its unit too (`prepTimeHours` → `prepTime`);
 *   2. the name in the synonym table (vocabulary.ts: `title` → `headline`, `name`;
 *      `price`/`cost`/`amount` → `offers.price` …);
 *   3. else the name's words (`authorName` → `author`, `product_price` → `price`): words that
 *      only say "a value" (`name`, `title`, `url`, `date` …) count only when no other word matched;
 *   4. else, the same with the words of the field's `description` (its first 40 words).
 *
 * Bounded and deterministic: a plan is a short list of paths, computed once per field.
 */
import type { ExtractionTemplate } from '../../schemas/templates.js';
import type { Json, TopField } from './json-schema.js';
import { type SourcePath, parseSource } from './things.js';
import { GENERIC_WORDS, SYNONYMS, durationUnit, norm, wordsOf } from './vocabulary.js';

export interface FieldPlan {
  readonly name: string;
  readonly node: Json;
  readonly required: boolean;
  /** Where it is filled from, in order. */
  readonly sources: readonly SourcePath[];
}

const MAX_DESCRIPTION_WORDS = 40;

function synonymsOfWord(word: string): readonly string[] | undefined {
  return SYNONYMS.get(word) ?? (word.length > 3 && word.endsWith('s') ? SYNONYMS.get(word.slice(0, -1)) : undefined);
}

function pathsOfWords(words: readonly string[]): string[] {
  const matched = words.filter((w) => synonymsOfWord(w) !== undefined);
  const specific = matched.filter((w) => !GENERIC_WORDS.has(w));
  return (specific.length ? specific : matched).flatMap((w) => synonymsOfWord(w) ?? []);
}

/** A duration field's name without its unit (`prepTimeHours` → `prepTime`), or null. */
function unitless(name: string): string | null {
  if (!durationUnit(name)) return null;
  const words = wordsOf(name).slice(0, -1);
  if (!words.length) return null;
  return words.map((w, i) => (i ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join('');
}

/** The schema.org paths a caller's field is filled from (see the file comment). */
export function pathsForName(name: string, description?: string): string[] {
  const paths = [name];
  const base = unitless(name);
  if (base) paths.push(base);
  const direct = SYNONYMS.get(norm(name)) ?? (base ? SYNONYMS.get(norm(base)) : undefined);
  if (direct) paths.push(...direct);
  else {
    const fromName = pathsOfWords(wordsOf(name));
    if (fromName.length) paths.push(...fromName);
    else if (description) paths.push(...pathsOfWords(wordsOf(description).slice(0, MAX_DESCRIPTION_WORDS)));
  }
  return [...new Set(paths)];
}

/** Plans by field schema node and name, and by template: a page's many things share them. */
const callerPlans = new WeakMap<Json, Map<string, FieldPlan>>();
const templatePlanLists = new WeakMap<ExtractionTemplate, FieldPlan[]>();

/** The plan of a caller's field. */
export function callerPlan(field: TopField): FieldPlan {
  let byName = callerPlans.get(field.node);
  const known = byName?.get(field.name);
  if (known && known.required === field.required) return known;
  const description = typeof field.node.description === 'string' ? field.node.description : undefined;
  const sources = pathsForName(field.name, description).map((p) => (p === field.name ? { path: [p] } : parseSource(p)));
  const plan: FieldPlan = { name: field.name, node: field.node, required: field.required, sources };
  if (!byName) callerPlans.set(field.node, (byName = new Map()));
  byName.set(field.name, plan);
  return plan;
}

/** The plans of a template's fields, in its order. */
export function templatePlans(template: ExtractionTemplate): FieldPlan[] {
  let plans = templatePlanLists.get(template);
  if (!plans) {
    plans = template.fields.map((f) => ({
      name: f.name,
      node: (template.schema.properties[f.name] ?? {}) as Json,
      required: f.required,
      sources: f.schemaOrg.map(parseSource),
    }));
    templatePlanLists.set(template, plans);
  }
  return plans;
}
