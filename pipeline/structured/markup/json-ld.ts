/**
 * JSON-LD blocks → things. Not a JSON-LD processor (no remote contexts, no expansion to
 * IRIs): the blocks pages write are schema.org objects, and this reads them as such.
 *
 * - Top-level things: each block's value(s) in order; an array's items; a `@graph`'s nodes
 *   (flattened, the wrapper's `@context` applying to them; a wrapper that also describes a
 *   thing is one too). A bare reference (`{"@id": …}` alone) at the top is not a thing.
 * - Names: `@type` and property names shortened (values.ts); a prefix the `@context` binds
 *   to schema.org (`{"s": "http://schema.org/"}`) counts as `schema:`. Keywords other than
 *   `@type`, `@id`, `@value`, `@list`, `@set` and `@graph` are ignored.
 * - Values: strings normalised (HTML reduced to text, URLs absolute, enumeration URLs
 *   short), numbers and booleans kept, `{"@value": v}` → v, `@list`/`@set` → their items,
 *   arrays flattened, objects → nested things.
 * - `@id`: made absolute against the page. Every node with an `@id` and something more, in
 *   any block and at any depth, is indexed; nodes sharing an id are one thing (their types
 *   and values merged in document order). A reference (`{"@id": …}`, maybe with `@type`) is
 *   that node's Thing — built once and shared, so a thing referenced from three places is
 *   one object. A reference back to a node still being built (a cycle) is a stub (its types
 *   and id, no values), so the result is never cyclic; an unresolved reference is the id
 *   itself (a URL string), or a stub when it names a type.
 * - Nesting deeper than 32 objects is dropped.
 */
import type { Thing, ThingValue } from '../types.js';
import { parseJsonBlock } from './json-text.js';
import { absoluteRef, hasValues, isSchemaIri, normalizeText, shortName, ThingBuilder } from './values.js';

type JsonObject = Record<string, unknown>;

/** The prefixes (besides `schema`) that a `@context` binds to schema.org. */
type Context = ReadonlySet<string>;

const NO_PREFIXES: Context = new Set();
const MAX_DEPTH = 32;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The context in force inside `node`: `parent`, plus prefixes its `@context` binds to schema.org. */
function contextOf(node: JsonObject, parent: Context): Context {
  const ctx = node['@context'];
  if (ctx === undefined) return parent;
  let out: Set<string> | null = null;
  for (const entry of Array.isArray(ctx) ? ctx : [ctx]) {
    if (!isObject(entry)) continue;
    for (const [prefix, iri] of Object.entries(entry)) {
      const target = isObject(iri) ? iri['@id'] : iri;
      if (!prefix.startsWith('@') && typeof target === 'string' && isSchemaIri(target)) (out ??= new Set(parent)).add(prefix);
    }
  }
  return out ?? parent;
}

/** A type or property name, shortened; a context prefix bound to schema.org is dropped too. */
function nameIn(raw: string, ctx: Context): string {
  const colon = raw.indexOf(':');
  if (colon > 0 && ctx.size && ctx.has(raw.slice(0, colon))) return raw.slice(colon + 1).trim();
  return shortName(raw);
}

/** Keys of a node that only points to another: `@id` (and maybe `@type`, `@context`). */
function isReference(node: JsonObject): boolean {
  if (typeof node['@id'] !== 'string') return false;
  for (const key of Object.keys(node)) if (key !== '@id' && key !== '@type' && key !== '@context') return false;
  return true;
}

interface Located {
  readonly node: JsonObject;
  readonly ctx: Context;
}

/** Reads the JSON-LD of one page: indexes the nodes, then builds the top-level things. */
class JsonLdReader {
  /** Definitions by absolute `@id`, in document order. */
  private readonly definitions = new Map<string, Located[]>();
  private readonly built = new Map<string, Thing>();
  private readonly building = new Set<string>();

  constructor(private readonly base: string) {}

  read(blocks: readonly string[]): Thing[] {
    const tops: Located[] = [];
    for (const block of blocks) for (const value of parseJsonBlock(block)) this.collectTops(value, NO_PREFIXES, tops, 0);
    for (const top of tops) this.index(top.node, top.ctx, 0);
    const out: Thing[] = [];
    const seen = new Set<Thing>();
    for (const { node, ctx } of tops) {
      const thing = this.thing(node, ctx, 0);
      if (!seen.has(thing) && hasValues(thing)) {
        seen.add(thing);
        out.push(thing);
      }
    }
    return out;
  }

  private idOf(node: JsonObject): string | undefined {
    const id = node['@id'];
    return typeof id === 'string' && id.trim() ? absoluteRef(id, this.base) : undefined;
  }

  /** The top-level nodes of a block value: arrays and `@graph`s flattened. */
  private collectTops(value: unknown, parent: Context, out: Located[], depth: number): void {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      for (const item of value) this.collectTops(item, parent, out, depth + 1);
      return;
    }
    if (!isObject(value)) return;
    const ctx = contextOf(value, parent);
    const graph = value['@graph'];
    if (graph === undefined) {
      if (!isReference(value)) out.push({ node: value, ctx });
      return;
    }
    // A `@graph` wrapper is a thing itself only when it says more than its context and id.
    if (Object.keys(value).some((k) => k !== '@context' && k !== '@graph' && k !== '@id')) out.push({ node: value, ctx });
    this.collectTops(graph, ctx, out, depth + 1);
  }

  /** Indexes every node with an `@id` and a description, at any depth. */
  private index(node: JsonObject, parent: Context, depth: number): void {
    if (depth > MAX_DEPTH) return;
    const ctx = contextOf(node, parent);
    const id = this.idOf(node);
    if (id && !isReference(node)) {
      const list = this.definitions.get(id);
      if (!list) this.definitions.set(id, [{ node, ctx }]);
      else if (!list.some((d) => d.node === node)) list.push({ node, ctx });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '@context') continue;
      this.indexValue(value, ctx, depth + 1);
    }
  }

  private indexValue(value: unknown, ctx: Context, depth: number): void {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(value)) for (const item of value) this.indexValue(item, ctx, depth + 1);
    else if (isObject(value)) this.index(value, ctx, depth);
  }

  /** The Thing a node stands for: its id's (shared) thing, or a fresh one for a node without id. */
  private thing(node: JsonObject, ctx: Context, depth: number): Thing {
    const id = this.idOf(node);
    if (!id) return this.build([{ node, ctx: contextOf(node, ctx) }], undefined, depth);
    const done = this.built.get(id);
    if (done) return done;
    const definitions = this.definitions.get(id);
    if (!definitions) return this.stub([{ node, ctx }], id);
    if (this.building.has(id)) return this.stub(definitions, id);
    this.building.add(id);
    const thing = this.build(definitions.map((d) => ({ node: d.node, ctx: contextOf(d.node, d.ctx) })), id, depth);
    this.building.delete(id);
    this.built.set(id, thing);
    return thing;
  }

  /** A reference that cannot be followed (unknown, or a cycle): the types its definitions give, its id, no values. */
  private stub(definitions: readonly Located[], id: string): Thing {
    const b = new ThingBuilder('json-ld');
    for (const { node, ctx } of definitions) for (const type of this.typesOf(node, contextOf(node, ctx))) b.addType(type);
    b.id = id;
    return b.build();
  }

  private typesOf(node: JsonObject, ctx: Context): string[] {
    const raw = node['@type'];
    const list = Array.isArray(raw) ? raw : [raw];
    return list.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => nameIn(t, ctx));
  }

  private build(definitions: readonly Located[], id: string | undefined, depth: number): Thing {
    const b = new ThingBuilder('json-ld');
    b.id = id;
    const merged = definitions.length > 1;
    for (const { node, ctx } of definitions) {
      for (const type of this.typesOf(node, ctx)) b.addType(type);
      for (const [key, raw] of Object.entries(node)) {
        if (key.startsWith('@')) continue;
        const prop = nameIn(key, ctx);
        for (const value of this.values(raw, prop, ctx, depth + 1)) b.add(prop, value, merged);
      }
    }
    return b.build();
  }

  /** The values of one property value: arrays flattened, `@value`/`@list`/`@set` read, objects as things. */
  private values(raw: unknown, prop: string, ctx: Context, depth: number): ThingValue[] {
    if (raw === null || raw === undefined) return [];
    if (typeof raw === 'string') {
      const text = normalizeText(prop, raw, this.base, { html: true });
      return text === null ? [] : [text];
    }
    if (typeof raw === 'number') return Number.isFinite(raw) ? [raw] : [];
    if (typeof raw === 'boolean') return [raw];
    if (depth > MAX_DEPTH) return [];
    if (Array.isArray(raw)) return raw.flatMap((item) => this.values(item, prop, ctx, depth + 1));
    if (!isObject(raw)) return [];
    if ('@value' in raw) return this.values(raw['@value'], prop, ctx, depth + 1);
    if ('@list' in raw) return this.values(raw['@list'], prop, ctx, depth + 1);
    if ('@set' in raw) return this.values(raw['@set'], prop, ctx, depth + 1);
    return this.nested(raw, ctx, depth);
  }

  private nested(node: JsonObject, ctx: Context, depth: number): ThingValue[] {
    const id = this.idOf(node);
    if (id && isReference(node) && !this.definitions.has(id)) {
      return this.typesOf(node, ctx).length ? [this.stub([{ node, ctx }], id)] : [id];
    }
    return [this.thing(node, ctx, depth)];
  }
}

/** The things of a page's JSON-LD blocks (their script text), in document order. */
export function readJsonLd(blocks: readonly string[], base: string): Thing[] {
  if (!blocks.length) return [];
  return new JsonLdReader(base).read(blocks);
}
