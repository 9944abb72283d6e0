/**
 * A Thing as a plain JSON-LD-like object, for answering "the page's own structured data":
 * `{'@type': 'Product' | [...], '@id'?, prop: value | value[]}` — `@type` left out when the
 * thing has none, a single value unwrapped, nested things written in full, keys in the
 * thing's order. Things are never cyclic as the readers build them; a thing met again inside
 * itself (a hand-built cycle) is written as a reference (`@type`, `@id`), and so is a thing
 * written before once an answer has grown past 10,000 objects (shared things repeated down
 * many paths cannot blow the answer up).
 */
import type { Thing, ThingValue } from '../types.js';

const MAX_OBJECTS = 10_000;

interface Writer {
  readonly open: Set<Thing>;
  readonly written: Set<Thing>;
  count: number;
}

function head(thing: Thing): [string, unknown][] {
  const out: [string, unknown][] = [];
  if (thing.types.length) out.push(['@type', thing.types.length === 1 ? thing.types[0] : [...thing.types]]);
  if (thing.id) out.push(['@id', thing.id]);
  return out;
}

function write(thing: Thing, w: Writer): Record<string, unknown> {
  if (w.open.has(thing) || (w.count > MAX_OBJECTS && w.written.has(thing))) return Object.fromEntries(head(thing));
  w.open.add(thing);
  w.written.add(thing);
  w.count += 1;
  const entries = head(thing);
  for (const [prop, values] of Object.entries(thing.props)) {
    if (prop.startsWith('@') || !values.length) continue;
    const json = values.map((v: ThingValue) => (typeof v === 'object' ? write(v, w) : v));
    entries.push([prop, json.length === 1 ? json[0] : json]);
  }
  w.open.delete(thing);
  return Object.fromEntries(entries);
}

/** The thing as a plain JSON-LD-like object (see the file comment). */
export function thingToJson(thing: Thing): Record<string, unknown> {
  return write(thing, { open: new Set(), written: new Set(), count: 0 });
}
