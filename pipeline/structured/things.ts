/**
 * Reading schema.org things (types.ts) the way filling needs: a property's values by name
 * (exact, else case- and separator-insensitive: `date_published` finds `datePublished`), a
 * path's values (`offers.price`: the `price` of every `offers` thing), every thing nested in
 * a page's things (depth-first, document order, each once, bounded), type tests that honour
 * subtypes, and whether two things can describe the same subject.
 *
 * A source path may end in a value rule, `jobLocationType=TELECOMMUTE->remote`: where the
 * property's value is the named one (case-insensitive), the field takes the given text.
 */
import type { Thing, ThingSource, ThingValue } from './types.js';
import { isSubtype, norm } from './vocabulary.js';

/** Markup before the page: JSON-LD, microdata, RDFa, then meta tags, then the page rules. */
export const SOURCE_RANK: Readonly<Record<ThingSource, number>> = { 'json-ld': 0, microdata: 1, rdfa: 2, meta: 3, page: 4 };

/** At most this many things are walked on one page, this deep. */
const MAX_THINGS = 2000;
const MAX_DEPTH = 8;
/** A path never yields more than this many values. */
const MAX_VALUES = 1000;

export const isThing = (value: unknown): value is Thing =>
  typeof value === 'object' && value !== null && Array.isArray((value as Thing).types) && typeof (value as Thing).props === 'object';

/** Each thing's properties by normalised name, built on first need. */
const normalised = new WeakMap<Thing, Map<string, readonly ThingValue[]>>();

function byNormalisedName(thing: Thing): Map<string, readonly ThingValue[]> {
  let map = normalised.get(thing);
  if (!map) {
    map = new Map();
    for (const [key, values] of Object.entries(thing.props)) {
      const n = norm(key);
      if (!map.has(n)) map.set(n, values);
    }
    normalised.set(thing, map);
  }
  return map;
}

/** The values of property `name`: exactly as named, else the first property whose normalised name matches. */
export function propValues(thing: Thing, name: string): readonly ThingValue[] {
  const exact = Object.hasOwn(thing.props, name) ? thing.props[name] : undefined;
  if (exact) return exact;
  return byNormalisedName(thing).get(norm(name)) ?? [];
}

/** A field's source: a dotted path, optionally with a value rule (`prop=VALUE->text`). */
export interface SourcePath {
  readonly path: readonly string[];
  readonly equals?: string;
  readonly gives?: string;
}

export function parseSource(text: string): SourcePath {
  const eq = text.indexOf('=');
  const arrow = text.indexOf('->');
  if (eq > 0 && arrow > eq) {
    return { path: text.slice(0, eq).split('.'), equals: text.slice(eq + 1, arrow), gives: text.slice(arrow + 2) };
  }
  return { path: text.split('.') };
}

/** Every value at `path` below `thing` (a text met before the path's end yields nothing). */
export function valuesAt(thing: Thing, path: readonly string[]): ThingValue[] {
  let current: ThingValue[] = [thing];
  for (const segment of path) {
    const next: ThingValue[] = [];
    for (const value of current) {
      if (!isThing(value)) continue;
      for (const v of propValues(value, segment)) {
        if (next.length < MAX_VALUES) next.push(v);
      }
    }
    current = next;
    if (!current.length) break;
  }
  return current;
}

/** The values a source yields on `thing` (a value rule turns matching values into its text). */
export function sourceValues(thing: Thing, source: SourcePath): ThingValue[] {
  const values = valuesAt(thing, source.path);
  if (source.equals === undefined) return values;
  const wanted = source.equals.toLowerCase();
  return values.some((v) => typeof v === 'string' && enumName(v).toLowerCase() === wanted) ? [source.gives ?? ''] : [];
}

/** `https://schema.org/InStock` → `InStock`; other text as written. */
export function enumName(text: string): string {
  const slash = text.lastIndexOf('/');
  return slash >= 0 && text.toLowerCase().includes('schema.org') ? text.slice(slash + 1) : text;
}

/** A thing met while walking: how deep and in which order. */
export interface Walked {
  readonly thing: Thing;
  readonly depth: number;
  readonly order: number;
}

/** Every thing in `roots` and nested in them, depth-first in document order, each once. */
export function walkThings(roots: readonly Thing[]): Walked[] {
  const out: Walked[] = [];
  const seen = new Set<Thing>();
  const visit = (thing: Thing, depth: number): void => {
    if (seen.has(thing) || out.length >= MAX_THINGS) return;
    seen.add(thing);
    out.push({ thing, depth, order: out.length });
    if (depth >= MAX_DEPTH) return;
    for (const values of Object.values(thing.props)) {
      for (const value of values) if (isThing(value)) visit(value, depth + 1);
    }
  };
  for (const root of roots) visit(root, 0);
  return out;
}

/** The index in `wanted` of the first type `thing` is (or is a subtype of); -1 when none. */
export function typeRank(thing: Thing, wanted: readonly string[]): number {
  for (let i = 0; i < wanted.length; i += 1) {
    if (thing.types.some((t) => isSubtype(t, wanted[i] as string))) return i;
  }
  return -1;
}

function firstText(thing: Thing, name: string): string | null {
  const value = propValues(thing, name)[0];
  return typeof value === 'string' || typeof value === 'number' ? norm(String(value)) : null;
}

/**
 * Whether `a` and `b` may describe one subject: they do not when both carry an `@id`, a
 * name (or headline), a url or a sku and these differ. A thing without any of them (a bare
 * Offer) may complete any other.
 */
export function sameSubject(a: Thing, b: Thing): boolean {
  if (a.id && b.id) return a.id === b.id;
  for (const prop of ['name', 'headline', 'url', 'sku']) {
    const x = firstText(a, prop);
    const y = firstText(b, prop);
    if (x && y && x !== y) return false;
  }
  return true;
}
