/**
 * Reading a JSON Schema the way filling needs it: a node's local `$ref` followed (`#`,
 * `#/$defs/X`, `#/definitions/X`; JSON Pointer escapes honoured, at most 16 hops), a
 * single-branch `allOf` unwrapped (pydantic wraps references so), and the one shape a value
 * is converted to: `type` (the first that is not `null` when several are listed), else the
 * first branch of `anyOf`/`oneOf` that is not `{type: null}` (`Optional[X]`), else what the
 * node's keywords imply (`properties` → object, `items` → array, an all-text `enum` →
 * string), else `any`. Whether `null` is allowed is kept beside it.
 */

export type Json = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null' | 'any';

export interface Shape {
  readonly kind: Kind;
  /** The node the kind was read from ($ref followed, branch chosen). */
  readonly node: Json;
  readonly nullable: boolean;
}

const MAX_HOPS = 16;
const KINDS: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

/** The node `ref` points at inside `root` (local references only), or null. */
export function resolveRef(root: Json, ref: string): Json | null {
  if (!ref.startsWith('#')) return null;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return null;
  }
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return null;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.split('~1').join('/').split('~0').join('~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isJsonObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return null;
  }
  return isJsonObject(node) ? node : null;
}

/** `node` with its local `$ref`s followed and a single-branch `allOf` unwrapped. */
export function deref(root: Json, node: Json): Json {
  let current = node;
  for (let hop = 0; hop < MAX_HOPS; hop += 1) {
    if (typeof current.$ref === 'string') {
      const target = resolveRef(root, current.$ref);
      if (!target) return current;
      current = target;
    } else if (Array.isArray(current.allOf) && current.allOf.length === 1 && isJsonObject(current.allOf[0]) && !current.properties && !current.type) {
      current = current.allOf[0];
    } else {
      return current;
    }
  }
  return current;
}

function kindFromKeywords(node: Json): Kind {
  if (isJsonObject(node.properties)) return 'object';
  if (node.items !== undefined || Array.isArray(node.prefixItems)) return 'array';
  const values = Array.isArray(node.enum) ? node.enum : node.const !== undefined ? [node.const] : null;
  if (values && values.length > 0) {
    if (values.every((v) => typeof v === 'string')) return 'string';
    if (values.every((v) => typeof v === 'number')) return Number.isInteger(values[0]) && values.every(Number.isInteger) ? 'integer' : 'number';
    if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  }
  return 'any';
}

const isNullNode = (root: Json, n: unknown): boolean => isJsonObject(n) && deref(root, n).type === 'null';

/** The shape a value for `node` takes (see the file comment). */
export function shapeOf(root: Json, node: Json, depth = 0): Shape {
  const n = deref(root, node);
  const nullableFlag = n.nullable === true;
  if (typeof n.type === 'string' && KINDS.has(n.type)) return { kind: n.type as Kind, node: n, nullable: nullableFlag || n.type === 'null' };
  if (Array.isArray(n.type)) {
    const types = n.type.filter((t): t is string => typeof t === 'string' && KINDS.has(t));
    const first = types.find((t) => t !== 'null');
    return { kind: (first ?? (types.length ? 'null' : 'any')) as Kind, node: n, nullable: nullableFlag || types.includes('null') };
  }
  const branches = Array.isArray(n.anyOf) ? n.anyOf : Array.isArray(n.oneOf) ? n.oneOf : null;
  if (branches && depth < MAX_HOPS) {
    const branch = branches.find((b) => isJsonObject(b) && !isNullNode(root, b));
    const nullable = nullableFlag || branches.some((b) => isNullNode(root, b));
    if (isJsonObject(branch)) return { ...shapeOf(root, branch, depth + 1), nullable };
    return { kind: 'null', node: n, nullable: true };
  }
  return { kind: kindFromKeywords(n), node: n, nullable: nullableFlag };
}

export interface TopField {
  readonly name: string;
  readonly node: Json;
  readonly required: boolean;
}

/** The properties of an object node (its $ref followed), in the schema's order. */
export function objectFields(root: Json, node: Json): TopField[] {
  const n = deref(root, node);
  const properties = isJsonObject(n.properties) ? n.properties : {};
  const required = new Set(Array.isArray(n.required) ? n.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(properties)
    .filter((entry): entry is [string, Json] => isJsonObject(entry[1]))
    .map(([name, field]) => ({ name, node: field, required: required.has(name) }));
}

/** The top-level fields a schema declares. */
export const topFields = (schema: Json): TopField[] => objectFields(schema, schema);

/** The item node of an array node (`items`, or the first of `prefixItems`/a tuple's `items`). */
export function itemsOf(node: Json): Json | null {
  if (isJsonObject(node.items)) return node.items;
  if (Array.isArray(node.items) && isJsonObject(node.items[0])) return node.items[0];
  if (Array.isArray(node.prefixItems) && isJsonObject(node.prefixItems[0])) return node.prefixItems[0];
  return null;
}
