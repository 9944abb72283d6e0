/**
 * The questions the markup reader asks of schema.org's type hierarchy (the table is
 * pipeline/structured/schema-org.ts, shared with filling): is a thing of a type or one of its
 * subtypes, and which things of a page are.
 */
import type { Thing } from '../types.js';
import { isSubtype } from '../schema-org.js';
import { hasValues, shortName } from './values.js';

/** Whether the thing is of `type` or of one of its subtypes (`type` as a short name or schema.org IRI). */
export function isType(thing: Thing, type: string): boolean {
  const wanted = shortName(type);
  return thing.types.some((t) => isSubtype(t, wanted));
}

/**
 * Every thing of the page (top-level and nested, depth-first, each once) of one of `types` or a
 * subtype. A thing without values (the stub a reference cycle leaves) is not listed: the thing
 * it stands for is.
 */
export function findThings(data: { readonly things: readonly Thing[] }, types: readonly string[]): Thing[] {
  const out: Thing[] = [];
  const seen = new Set<Thing>();
  const stack: Thing[] = [];
  for (let i = data.things.length - 1; i >= 0; i -= 1) stack.push(data.things[i] as Thing);
  for (let thing = stack.pop(); thing; thing = stack.pop()) {
    if (seen.has(thing)) continue;
    seen.add(thing);
    if (hasValues(thing) && types.some((type) => isType(thing, type))) out.push(thing);
    const nested: Thing[] = [];
    for (const values of Object.values(thing.props)) for (const v of values) if (typeof v === 'object') nested.push(v);
    for (let i = nested.length - 1; i >= 0; i -= 1) stack.push(nested[i] as Thing);
  }
  return out;
}
