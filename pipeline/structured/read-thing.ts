/**
 * A field's value from one thing (fill.ts decides which things): the field's paths tried in
 * order, the first value that converts (coerce.ts) and, at the top level, passes the schema
 * (validate.ts `checkField`, nested parts that break it pruned).
 *
 * - A list of scalars takes the values of all its paths at once (`image.url` and `image`),
 *   duplicates dropped, order kept.
 * - An object is filled from the nested thing its path leads to, property by property, with
 *   a caller field's matching (fields.ts); a plain text gives an object with just its `name`;
 *   an object that declares no properties gets the thing as plain JSON. At most 6 levels.
 * - A list of objects takes one item per nested thing (a ListItem stands for its `item`;
 *   sections and lists are opened), items with no values and duplicates dropped, at most 500
 *   or `maxItems`.
 */
import { type Coerced, expandLists, fromValues, listFromValues } from './coerce.js';
import { type FieldPlan, callerPlan } from './fields.js';
import { type Json, type Shape, isJsonObject, itemsOf, objectFields, shapeOf } from './json-schema.js';
import { plainText } from './text.js';
import { isThing, sourceValues } from './things.js';
import type { Thing, ThingValue } from './types.js';
import { checkField } from './validate.js';

const MAX_OBJECT_DEPTH = 6;
const MAX_LIST_ITEMS = 500;
/** Nothing to answer: null, empty text, an empty list or object. */
export const isEmpty = (value: unknown): boolean =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0) || (isJsonObject(value) && Object.keys(value).length === 0);

/** A thing as plain JSON, for an object field that declares no properties. */
function thingJson(thing: Thing, depth = 0): Json {
  const out: Json = thing.types.length ? { '@type': thing.types.length === 1 ? thing.types[0] : [...thing.types] } : {};
  for (const [prop, values] of Object.entries(thing.props)) {
    const plain = values.map((v) => (isThing(v) ? (depth < 3 ? thingJson(v, depth + 1) : null) : typeof v === 'string' ? plainText(v) : v)).filter((v) => v !== null);
    if (plain.length) out[prop] = plain.length === 1 ? plain[0] : plain;
  }
  return out;
}

/** An object from a text value: `{name: text}` when the object has a text `name`. */
function textObject(value: ThingValue, node: Json, root: Json): Json | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const name = objectFields(root, node).find((f) => f.name === 'name');
  if (!name || shapeOf(root, name.node).kind !== 'string') return null;
  const text = plainText(String(value));
  return text ? { name: text } : null;
}

/** An object node filled from one thing, property by property. */
function fillObject(thing: Thing, node: Json, root: Json, depth: number): Json {
  if (depth > MAX_OBJECT_DEPTH) return {};
  const fields = objectFields(root, node);
  if (!fields.length) return node.additionalProperties === false ? {} : thingJson(thing);
  const out: Json = {};
  for (const field of fields) {
    const found = valueOn(thing, callerPlan(field), root, depth);
    if ('value' in found) out[field.name] = found.value;
  }
  return out;
}

/** A ListItem stands for the thing it lists (`item`), when that is a thing. */
function listedItem(value: ThingValue): ThingValue {
  if (!isThing(value) || !value.types.includes('ListItem')) return value;
  const item = value.props.item?.[0];
  return item !== undefined && isThing(item) ? item : value;
}

export function objectsFrom(values: readonly ThingValue[], itemNode: Json, arrayNode: Json, root: Json, depth: number): Coerced {
  const items: Json[] = [];
  const seen = new Set<string>();
  const max = Math.min(MAX_LIST_ITEMS, typeof arrayNode.maxItems === 'number' ? arrayNode.maxItems : MAX_LIST_ITEMS);
  for (const listed of expandLists(values)) {
    if (items.length >= max) break;
    const value = listedItem(listed);
    const item = isThing(value) ? fillObject(value, itemNode, root, depth + 1) : textObject(value, itemNode, root);
    if (!item || isEmpty(item)) continue;
    const key = JSON.stringify(item);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
  }
  return items.length ? { ok: true, value: items, notes: [] } : { ok: false, reason: 'no item has values' };
}

/** The values a path found, converted to the field's shape. */
function convert(values: readonly ThingValue[], plan: FieldPlan, prop: string | null, root: Json, depth: number): Coerced {
  const shape = shapeOf(root, plan.node);
  const ctx = { root, field: plan.name, prop };
  if (shape.kind === 'object') {
    for (const value of values) {
      const object = isThing(value) ? fillObject(value, shape.node, root, depth + 1) : textObject(value, shape.node, root);
      if (object && !isEmpty(object)) return { ok: true, value: object, notes: [] };
    }
    return { ok: false, reason: 'no nested values' };
  }
  if (shape.kind === 'array') {
    const item = shapeOf(root, itemsOf(shape.node) ?? {});
    return item.kind === 'object' ? objectsFrom(values, item.node, shape.node, root, depth) : listFromValues(values, shape.node, ctx);
  }
  if (shape.kind === 'null') return { ok: false, reason: 'the schema allows only null' };
  return fromValues(values, shape, ctx);
}

export type Attempt = { value: unknown; notes: readonly string[] } | { dropped: string | null };

const isScalarList = (shape: Shape, root: Json): boolean => shape.kind === 'array' && shapeOf(root, itemsOf(shape.node) ?? {}).kind !== 'object';

/** A list of scalars from every path of `thing` at once (`image.url` and `image`), duplicates dropped; null when no path has values. */
function mergedList(thing: Thing, plan: FieldPlan, node: Json, root: Json): Coerced | null {
  const items: unknown[] = [];
  const seen = new Set<string>();
  const notes: string[] = [];
  let failure: Coerced | null = null;
  for (const source of plan.sources) {
    const values = sourceValues(thing, source);
    if (!values.length) continue;
    const result = listFromValues(values, node, { root, field: plan.name, prop: source.path[source.path.length - 1] ?? null });
    if (!result.ok) {
      failure ??= result;
      continue;
    }
    notes.push(...result.notes);
    for (const item of result.value as unknown[]) {
      const key = JSON.stringify(item);
      if (!seen.has(key)) {
        seen.add(key);
        items.push(item);
      }
    }
  }
  if (typeof node.maxItems === 'number' && items.length > node.maxItems) items.length = Math.max(0, node.maxItems);
  return items.length ? { ok: true, value: items, notes: [...new Set(notes)] } : failure;
}

/** What each of a field's paths yields on `thing`, converted (a list of scalars: all paths merged). */
function* conversions(thing: Thing, plan: FieldPlan, root: Json, depth: number): Generator<Coerced> {
  const shape = shapeOf(root, plan.node);
  if (isScalarList(shape, root)) {
    const merged = mergedList(thing, plan, shape.node, root);
    if (merged) yield merged;
    return;
  }
  for (const source of plan.sources) {
    const values = sourceValues(thing, source);
    if (values.length) yield convert(values, plan, source.path[source.path.length - 1] ?? null, root, depth);
  }
}

/**
 * Field `plan` from one thing: its paths in order, the first value that converts (and, at
 * the top level, passes the schema: nested parts that break it are pruned).
 */
export function valueOn(thing: Thing, plan: FieldPlan, root: Json, depth: number): Attempt {
  let dropped: string | null = null;
  for (const result of conversions(thing, plan, root, depth)) {
    if (!result.ok) {
      dropped ??= result.reason;
      continue;
    }
    if (isEmpty(result.value)) continue;
    if (depth > 0) return { value: result.value, notes: result.notes };
    const checked = checkField(root, plan.name, result.value);
    if (!checked.ok) {
      dropped ??= checked.reason;
      continue;
    }
    if (isEmpty(checked.value)) continue;
    return { value: checked.value, notes: [...result.notes, ...checked.warnings] };
  }
  return { dropped };
}
