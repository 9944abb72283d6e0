/**
 * Limits on JSON that comes from outside, checked without recursion: a request body parsed by
 * the gateway (JSON.parse itself is iterative in V8) may nest objects and arrays thousands
 * deep, and every recursive walk over such a value (JSON.stringify, Ajv compiling a caller's
 * schema, a schema walk, a deep copy) overflows the stack with a RangeError. The gateway runs
 * `inspectJson` on every JSON body before anything else reads it (gateway/validation.ts
 * `inputProblems`, 422 `too_deep` and `string_invalid`); code that takes a value from
 * elsewhere asks `depthOver` before a recursive walk.
 *
 * Depth counts containers: a scalar is 0 deep, `{}` and `[]` are 1, `{"a": []}` is 2.
 *
 * Text must be well-formed Unicode: a lone UTF-16 surrogate (an unpaired `\ud800`…`\udfff`,
 * which JSON's `\u` escapes can write and UTF-8 cannot) is refused in values and in object
 * keys. ClickHouse refuses such a string in a query, and what is sent on (webhook bodies, model
 * prompts, provider queries) would carry it further.
 */

export type JsonPath = (string | number)[];

export interface JsonFinding {
  /** `too_deep`: a container nested deeper than the limit (not walked further); `ill_formed`: text with a lone surrogate. */
  readonly kind: 'too_deep' | 'ill_formed';
  /** Where, from the inspected value: object keys and array indexes. */
  readonly path: JsonPath;
  /** For `ill_formed`: true when the object key at the end of `path` is the ill-formed text, not its value. */
  readonly inKey: boolean;
}

/** An unpaired high surrogate, or a low surrogate without its high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Any surrogate at all: most strings have none, and this test is the cheaper one. */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

/** Node 22's String.prototype.isWellFormed (ES2024; this project's lib is ES2023), else the expressions above. */
const nativeWellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;

/** Whether `text` is well-formed Unicode (String.prototype.isWellFormed). */
export const isWellFormedText: (text: string) => boolean = nativeWellFormed
  ? (text) => nativeWellFormed.call(text)
  : (text) => !ANY_SURROGATE.test(text) || !LONE_SURROGATE.test(text);

/**
 * Whether `value` holds anything `inspectJson` reports: the walk every request makes, with no
 * allocation per node (a small body costs well under a microsecond); the paths are found
 * afterwards, only for a value that has something to report.
 */
function anyFinding(root: object, maxDepth: number): boolean {
  if (maxDepth < 1) return true;
  // Most bodies, and every path and query, are one flat object: its own strings checked, and
  // no stack is made unless it holds a container.
  if (!hasContainerOrIllFormed(root)) return false;
  const values: unknown[] = [root];
  const depths: number[] = [1];
  while (values.length) {
    const value = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > maxDepth) return true;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        const child: unknown = value[i];
        if (typeof child === 'string') {
          if (!isWellFormedText(child)) return true;
        } else if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (!isWellFormedText(key)) return true;
        const child = record[key];
        if (typeof child === 'string') {
          if (!isWellFormedText(child)) return true;
        } else if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/**
 * Whether `value`'s own members include a container (whose depth and text the walk must see)
 * or ill-formed text; true in either case, since the walk decides which.
 */
function hasContainerOrIllFormed(value: object): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const child: unknown = value[i];
      if (typeof child === 'string') {
        if (!isWellFormedText(child)) return true;
      } else if (child !== null && typeof child === 'object') return true;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!isWellFormedText(key)) return true;
    const child = record[key];
    if (typeof child === 'string') {
      if (!isWellFormedText(child)) return true;
    } else if (child !== null && typeof child === 'object') return true;
  }
  return false;
}

interface Frame {
  readonly value: object;
  readonly depth: number;
  readonly parent: Frame | null;
  readonly key: string | number;
}

function pathOf(frame: Frame | null, last?: string | number): JsonPath {
  const path: JsonPath = last === undefined ? [] : [last];
  for (let f = frame; f && f.parent; f = f.parent) path.push(f.key);
  return path.reverse();
}

/**
 * The first findings in `value` (at most `limit`, document order): containers deeper than
 * `maxDepth` and strings or keys that are not well-formed Unicode. Empty when there is none.
 * Iterative: any depth is walked in constant stack.
 */
export function inspectJson(value: unknown, maxDepth: number, limit = 10): JsonFinding[] {
  const found: JsonFinding[] = [];
  if (typeof value === 'string') {
    if (!isWellFormedText(value)) found.push({ kind: 'ill_formed', path: [], inKey: false });
    return found;
  }
  if (value === null || typeof value !== 'object' || !anyFinding(value, maxDepth)) return found;
  const stack: Frame[] = [{ value, depth: 1, parent: null, key: '' }];
  while (stack.length && found.length < limit) {
    const frame = stack.pop() as Frame;
    if (frame.depth > maxDepth) {
      found.push({ kind: 'too_deep', path: pathOf(frame), inKey: false });
      continue;
    }
    const children: Frame[] = [];
    const visit = (child: unknown, key: string | number) => {
      if (typeof child === 'string') {
        if (!isWellFormedText(child) && found.length < limit) found.push({ kind: 'ill_formed', path: pathOf(frame, key), inKey: false });
      } else if (child !== null && typeof child === 'object') {
        children.push({ value: child, depth: frame.depth + 1, parent: frame, key });
      }
    };
    if (Array.isArray(frame.value)) {
      const list = frame.value as unknown[];
      for (let i = 0; i < list.length; i += 1) visit(list[i], i);
    } else {
      const record = frame.value as Record<string, unknown>;
      for (const key in record) {
        if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
        if (!isWellFormedText(key) && found.length < limit) found.push({ kind: 'ill_formed', path: pathOf(frame, key), inKey: true });
        visit(record[key], key);
      }
    }
    // Pushed last first, so the next popped is the first child: document order.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as Frame);
  }
  return found;
}

/**
 * Whether `value` nests objects and arrays deeper than `maxDepth` (iterative; stops at the
 * first). Containers and their depths ride on two parallel stacks, and an object's children are
 * read with for…in: no allocation a node, so walking a large answer (a products page of 10,000
 * nodes) costs little beside the parse that made it.
 */
export function depthOver(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    if (depth > maxDepth) return true;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        const child: unknown = node[i];
        if (child !== null && typeof child === 'object') {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        const child: unknown = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`, told before it is parsed by one
 * pass over its characters (brackets inside strings skipped). Cheaper than walking the parsed
 * value, and a deep text is never parsed at all.
 */
export function jsonDepthOver(text: string, max: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // To the closing quote: the next quote not escaped (an even run of backslashes before it),
      // found by indexOf rather than a character at a time. Each backslash is counted at most
      // once (the run before one quote), so the pass stays linear.
      let end = text.indexOf('"', i + 1);
      for (;;) {
        if (end === -1) return false; // unterminated: JSON.parse refuses it
        let k = end - 1;
        while (k > i && text.charCodeAt(k) === 92 /* \ */) k -= 1;
        if ((end - 1 - k) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      i = end;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth -= 1;
    }
  }
  return false;
}
