/**
 * Converting what a page says (schema.org values: text, numbers, booleans, nested things) and
 * what a model answers (JSON) into the type a field's schema asks for. The rules, as published:
 *
 * - **text** ← text (HTML and entities never kept: text.ts `plainText`), a number or boolean
 *   written out, a nested thing's text (thing-text.ts): a PostalAddress as one line
 *   ("street, postal-code locality, region, country"), an ImageObject/VideoObject its `url`
 *   (else `contentUrl`), a HowToStep its `text`, any other thing (Person, Organization,
 *   Brand, Place …) its `name`.
 *   Several values: the first that converts — except a list property (`recipeIngredient`,
 *   `recipeInstructions`, `step`, `itemListElement`), whose items are joined one per line, and
 *   `keywords`, joined with ", ". A schema.org enumeration URL becomes its member name
 *   (`https://schema.org/InStock` → `InStock`); `mailto:` and `tel:` are dropped.
 * - **dates**: a field with `format: date-time` or `date`, a field whose name says date
 *   (`publishedAt`, `date_posted`, `lastUpdated`) or one filled from a date property
 *   (`datePublished`, `startDate` …) is read as a date (text.ts) and written as RFC 3339:
 *   `date` → `2024-03-12`; `date-time` → `2024-03-12T09:30:00Z` (a date alone at
 *   `T00:00:00Z`); without a format, a date alone stays a date and a date-time is written in
 *   full. Unreadable: not filled when a format asks for a date, kept as written otherwise.
 * - **numbers** ← a number, or the first number in text (text.ts `parseNumber`: `"1.299,00"`,
 *   `"1,299.00"`, `"€ 19.99"`); a nested thing's `value`, `price` or `ratingValue`. A
 *   duration (an ISO 8601 one such as `PT1H20M`, or written, `1 hour 20 min`; and any value
 *   of `prepTime`, `cookTime`, `totalTime`, `duration`) becomes minutes — hours or seconds
 *   when the field's name ends so (`…Hours`, `…Seconds`). A year field (`foundedYear`) reads
 *   the year of a date. `integer`: a whole number only (4.0 → 4; 4.5 is refused), durations
 *   rounded to the nearest unit.
 * - **booleans** ← true/false, 1/0, "true"/"yes"/"y"/"on"/"1" and "false"/"no"/"n"/"off"/"0";
 *   an offer availability (`InStock`, `LimitedAvailability`, `OnlineOnly`, `PreSale` … →
 *   true; `OutOfStock`, `SoldOut`, `Discontinued`, `PreOrder`, `BackOrder` → false).
 * - **lists of scalars** ← every value, each converted (those that do not convert are
 *   skipped), duplicates dropped, order kept; a HowToSection or ItemList contributes its
 *   items; a `keywords` text (or a tags/keywords field's) is split at commas; cut to
 *   `maxItems` with a note. A single value makes a one-item list.
 * - **enum / const**: the member equal to the value, else the one equal ignoring case and
 *   separators (`in_stock` ↔ `InStock`); none → not filled.
 * - **maxLength**: text cut at the last word boundary within it, with a note.
 *
 * Objects and lists of objects are filled from nested things by fill.ts, which calls back here
 * for their scalar parts.
 */
import { type Json, type Shape, isJsonObject, itemsOf, objectFields, shapeOf } from './json-schema.js';
import { cutAtWord, durationMinutes, formatDate, isoDurationMinutes, lengthOf, parseDate, parseNumber, plainText } from './text.js';
import { thingNumber, thingText } from './thing-text.js';
import { enumName, isThing, propValues } from './things.js';
import type { ThingValue } from './types.js';
import { AVAILABILITY, DATE_PROPERTIES, DURATION_PROPERTIES, LIST_PROPERTIES, durationUnit, isDateName, isYearName, norm } from './vocabulary.js';

/** What a value is converted for: the schema's root ($ref), the field's name, the property it came from. */
export interface CoerceContext {
  readonly root: Json;
  readonly field: string;
  readonly prop: string | null;
}

export type Coerced = { readonly ok: true; readonly value: unknown; readonly notes: readonly string[] } | { readonly ok: false; readonly reason: string };

const ok = (value: unknown, notes: readonly string[] = []): Coerced => ({ ok: true, value, notes });
const fail = (reason: string): Coerced => ({ ok: false, reason });

function show(value: unknown): string {
  if (isThing(value)) return `a ${value.types[0] ?? 'thing'}`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return JSON.stringify(value) ?? String(value);
}

function textOf(value: ThingValue): string | null {
  if (typeof value === 'string') return plainText(value) || null;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return thingText(value);
}

// ---- enum and const -------------------------------------------------------------------

function memberOf(value: unknown, members: readonly unknown[]): { found: boolean; value?: unknown } {
  if (members.some((m) => m === value)) return { found: true, value };
  if (typeof value === 'string') {
    const wanted = norm(value);
    const member = members.find((m) => typeof m === 'string' && norm(m) === wanted);
    if (member !== undefined) return { found: true, value: member };
  }
  return { found: false };
}

function applyEnum(result: Coerced, node: Json): Coerced {
  if (!result.ok) return result;
  if (Array.isArray(node.enum)) {
    const hit = memberOf(result.value, node.enum);
    if (!hit.found) return fail(`${show(result.value)} is not one of ${node.enum.slice(0, 8).map((m) => JSON.stringify(m)).join(', ')}`);
    return ok(hit.value, result.notes);
  }
  if (node.const !== undefined) {
    const hit = memberOf(result.value, [node.const]);
    return hit.found ? ok(hit.value, result.notes) : fail(`${show(result.value)} is not ${JSON.stringify(node.const)}`);
  }
  return result;
}

// ---- scalars --------------------------------------------------------------------------

const ENUM_URL = /^https?:\/\/(?:www\.)?schema\.org\/[A-Z][A-Za-z0-9]*$/;

function dateMode(node: Json, ctx: CoerceContext): 'date' | 'date-time' | 'auto' | null {
  if (node.format === 'date') return 'date';
  if (node.format === 'date-time') return 'date-time';
  if (isDateName(ctx.field) || (ctx.prop !== null && DATE_PROPERTIES.has(ctx.prop))) return 'auto';
  return null;
}

function finishText(raw: string, node: Json, ctx: CoerceContext): Coerced {
  let text = ENUM_URL.test(raw) ? enumName(raw) : raw;
  const mode = dateMode(node, ctx);
  if (mode) {
    const parts = parseDate(text);
    if (parts) text = formatDate(parts, mode);
    else if (mode !== 'auto') return fail(`${show(text)} is not a date`);
  }
  const lower = text.toLowerCase();
  if (lower.startsWith('mailto:')) text = text.slice(7).split('?')[0] ?? '';
  else if (lower.startsWith('tel:')) text = text.slice(4);
  if (!text) return fail('empty text');
  const notes: string[] = [];
  const max = node.maxLength;
  if (typeof max === 'number' && lengthOf(text) > max) {
    text = cutAtWord(text, max);
    notes.push(`cut "${ctx.field}" to ${max} characters`);
  }
  return applyEnum(ok(text, notes), node);
}

function toText(value: ThingValue, node: Json, ctx: CoerceContext): Coerced {
  const text = textOf(value);
  return text ? finishText(text, node, ctx) : fail(`${show(value)} has no text`);
}

const UNIT_MINUTES = { minutes: 1, hours: 60, seconds: 1 / 60 } as const;

function numberFromText(text: string, ctx: CoerceContext): { n: number | null; duration: boolean } {
  const unit = durationUnit(ctx.field);
  if ((ctx.prop !== null && DURATION_PROPERTIES.has(ctx.prop)) || unit || isoDurationMinutes(text) !== null) {
    const minutes = durationMinutes(text);
    if (minutes !== null) return { n: minutes / UNIT_MINUTES[unit ?? 'minutes'], duration: true };
  }
  if (isYearName(ctx.field)) {
    const parts = parseDate(text);
    if (parts) return { n: Number(parts.date.slice(0, 4)), duration: false };
  }
  return { n: parseNumber(text), duration: false };
}

function toNumber(value: ThingValue, node: Json, ctx: CoerceContext, integer: boolean): Coerced {
  if (typeof value === 'boolean') return fail(`${show(value)} is not a number`);
  const read = typeof value === 'number' ? { n: value, duration: false } : isThing(value) ? { n: thingNumber(value), duration: false } : numberFromText(plainText(value), ctx);
  let n = read.n;
  if (n === null || !Number.isFinite(n)) return fail(`${show(value)} is not a number`);
  if (integer) {
    if (read.duration) n = Math.round(n);
    else if (!Number.isInteger(n)) return fail(`${show(value)} is not an integer`);
  }
  return applyEnum(ok(n), node);
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'off', '0']);

function toBoolean(value: ThingValue, node: Json): Coerced {
  if (typeof value === 'boolean') return applyEnum(ok(value), node);
  if (typeof value === 'number') return value === 1 || value === 0 ? applyEnum(ok(value === 1), node) : fail(`${show(value)} is not a boolean`);
  if (isThing(value)) return fail(`${show(value)} is not a boolean`);
  const word = norm(enumName(plainText(value)));
  const known = AVAILABILITY.get(word) ?? (TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined);
  return known === undefined ? fail(`${show(value)} is not a boolean`) : applyEnum(ok(known), node);
}

/** One value as `shape`'s scalar kind; fails for object, array and null kinds. */
export function toScalar(value: ThingValue, shape: Shape, ctx: CoerceContext): Coerced {
  switch (shape.kind) {
    case 'string':
      return toText(value, shape.node, ctx);
    case 'number':
    case 'integer':
      return toNumber(value, shape.node, ctx, shape.kind === 'integer');
    case 'boolean':
      return toBoolean(value, shape.node);
    case 'any': {
      if (typeof value === 'number' || typeof value === 'boolean') return applyEnum(ok(value), shape.node);
      return toText(value, shape.node, ctx);
    }
    default:
      return fail(`a ${shape.kind} is not filled from ${show(value)}`);
  }
}

// ---- several values -------------------------------------------------------------------

/** How deep sections and lists are opened. */
const MAX_NESTING = 3;

/** Sections and lists opened into their items (HowToSection → its HowToSteps). */
export function expandLists(values: readonly ThingValue[], depth = 0): ThingValue[] {
  const out: ThingValue[] = [];
  for (const value of values) {
    const items = isThing(value) ? propValues(value, 'itemListElement') : [];
    if (items.length && depth < MAX_NESTING) out.push(...expandLists(items, depth + 1));
    else out.push(value);
  }
  return out;
}

const isKeywords = (ctx: CoerceContext): boolean => ctx.prop === 'keywords' || ['keywords', 'keyword', 'tags', 'tag', 'topics'].includes(norm(ctx.field));

/** A scalar field from a property's values (see the file comment: first that converts, or joined). */
export function fromValues(values: readonly ThingValue[], shape: Shape, ctx: CoerceContext): Coerced {
  if (shape.kind === 'string' && values.length > 1 && ctx.prop !== null && (LIST_PROPERTIES.has(ctx.prop) || ctx.prop === 'keywords')) {
    const texts = expandLists(values).map(textOf).filter((t): t is string => Boolean(t));
    if (texts.length) return finishText(texts.join(ctx.prop === 'keywords' ? ', ' : '\n'), shape.node, ctx);
  }
  let first: Coerced | null = null;
  for (const value of values) {
    const result = toScalar(value, shape, ctx);
    if (result.ok) return result;
    first ??= result;
  }
  return first ?? fail('no value');
}

/** A list of scalars from a property's values (see the file comment). */
export function listFromValues(values: readonly ThingValue[], node: Json, ctx: CoerceContext): Coerced {
  const itemNode = itemsOf(node) ?? {};
  const item = shapeOf(ctx.root, itemNode);
  let expanded = expandLists(values);
  if (isKeywords(ctx)) expanded = expanded.flatMap((v) => (typeof v === 'string' && v.includes(',') ? v.split(',').map((s) => s.trim()).filter(Boolean) : [v]));
  const items: unknown[] = [];
  const seen = new Set<string>();
  const notes: string[] = [];
  let first: Coerced | null = null;
  for (const value of expanded) {
    const result = toScalar(value, item, ctx);
    if (!result.ok) {
      first ??= result;
      continue;
    }
    const key = JSON.stringify(result.value);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(result.value);
    notes.push(...result.notes);
  }
  if (!items.length) return first ?? fail('no items');
  const max = node.maxItems;
  if (typeof max === 'number' && items.length > max) {
    items.length = Math.max(0, max);
    notes.push(`kept the first ${max} items of "${ctx.field}"`);
  }
  return ok(items, notes);
}

// ---- JSON (a model's answer) -----------------------------------------------------------

const isScalar = (value: unknown): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value);

/** A model's JSON value converted to `shape` by the same rules; parts that do not convert are dropped with a note. */
export function coerceJson(value: unknown, shape: Shape, ctx: CoerceContext, depth = 0): Coerced {
  if (value === null || value === undefined) return shape.nullable || shape.kind === 'null' ? ok(null) : fail('no value');
  if (depth > 16) return ok(value);
  if (shape.kind === 'any') return isScalar(value) ? toScalar(value, shape, ctx) : ok(value);
  if (shape.kind === 'array') {
    const list = Array.isArray(value) ? value : [value];
    const item = shapeOf(ctx.root, itemsOf(shape.node) ?? {});
    const out: unknown[] = [];
    const notes: string[] = [];
    for (const entry of list) {
      const result = coerceJson(entry, item, ctx, depth + 1);
      if (result.ok) {
        out.push(result.value);
        notes.push(...result.notes);
      } else notes.push(`dropped an item of "${ctx.field}": ${result.reason}`);
    }
    return list.length && !out.length ? fail(`no item of ${show(value)} converts`) : ok(out, notes);
  }
  if (shape.kind === 'object') {
    if (!isJsonObject(value)) return fail(`${show(value)} is not an object`);
    const out: Json = { ...value };
    const notes: string[] = [];
    for (const field of objectFields(ctx.root, shape.node)) {
      if (!Object.hasOwn(value, field.name)) continue;
      const result = coerceJson(value[field.name], shapeOf(ctx.root, field.node), { ...ctx, field: field.name, prop: null }, depth + 1);
      if (result.ok) {
        out[field.name] = result.value;
        notes.push(...result.notes);
      } else {
        delete out[field.name];
        notes.push(`dropped "${ctx.field}.${field.name}": ${result.reason}`);
      }
    }
    return ok(out, notes);
  }
  if (!isScalar(value)) return fail(`${show(value)} is not a ${shape.kind}`);
  return toScalar(value, shape, ctx);
}

