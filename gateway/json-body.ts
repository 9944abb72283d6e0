/**
 * What the gateway answers for a JSON body that Fastify's parser (secure-json-parse, with
 * `protoAction` and `constructorAction` 'error') refused: invalid JSON is 400 `invalid_json`,
 * and valid JSON holding a member that names a prototype is a 422 listing each such member.
 *
 * The members refused, anywhere in a body, are the two secure-json-parse refuses:
 * - a `__proto__` key. JSON.parse makes it an own data property and never sets a prototype,
 *   but any later `Object.assign`, `target[key] = value` copy or deep merge of the value sets
 *   the target's prototype (`out[field.name] = …` in pipeline/structured/coerce.ts, with a
 *   caller's schema naming a field `__proto__`), or, merging into `target.__proto__`, writes
 *   Object.prototype itself for the whole process;
 * - a `constructor` key whose value is an object with a `prototype` key: a deep merge reaches
 *   `target.constructor.prototype`, Object.prototype again.
 * Keeping them (secure-json-parse's 'ignore') would make every walk, copy and merge of a body,
 * its open objects included (a caller's JSON Schema, webhook metadata), downstream in every
 * pool, a place to get this right; deleting them ('remove') would answer a request other than
 * the one sent, silently. Refusing them as a 422 keeps the body that reaches a handler free of
 * them and tells the caller which member, as for any field a closed object does not take
 * (`extra_forbidden`). A `constructor` with any other value (`"constructor": 1`, or a caller's
 * schema with a property named `constructor`) is an ordinary field, left to the schema: a closed
 * object refuses it as unknown, an open one keeps it.
 *
 * The value parsed here is only read, by its own keys, to find those members, then dropped: it
 * never reaches a handler, and nothing is copied out of it.
 */
import { AppError } from '../pipeline/runtime/errors.js';
import { ValidationFailed } from './replies.js';
import { MAX_DETAILS, moreProblems, type ValidationDetail } from './validation.js';

const PROTO_MSG = "`__proto__` is not accepted as a field name, here or anywhere in a body: JavaScript reads it as the object's prototype";
const CONSTRUCTOR_MSG =
  'a `constructor` field holding a `prototype` field is not accepted, here or anywhere in a body: JavaScript reads the pair as a prototype';

/** Whether `value[key]` is one of the members refused (secure-json-parse's two checks). */
function refused(record: Record<string, unknown>, key: string): boolean {
  if (key === '__proto__') return true;
  if (key !== 'constructor') return false;
  const value = record[key];
  return value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype');
}

interface Frame {
  readonly value: object;
  readonly parent: Frame | null;
  readonly key: string | number;
  /** A refused member (its key is `key`, in `parent`), to report rather than walk. */
  readonly refused?: true;
}

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let f: Frame | null = frame; f && f.parent; f = f.parent) path.push(f.key);
  return path.reverse();
}

/**
 * The 422 details of the members of `value` that name a prototype, in the order they are
 * written (at most MAX_DETAILS, then one `too_many_errors`). Without recursion: the body's
 * depth is not checked yet. A refused member's own value is not looked into.
 */
export function prototypeKeyDetails(value: unknown): ValidationDetail[] {
  const out: ValidationDetail[] = [];
  if (value === null || typeof value !== 'object') return out;
  const stack: Frame[] = [{ value, parent: null, key: '' }];
  while (stack.length) {
    const frame = stack.pop() as Frame;
    if (frame.refused) {
      if (out.length === MAX_DETAILS) {
        out.push(moreProblems('body'));
        return out;
      }
      out.push({ loc: ['body', ...pathOf(frame)], msg: frame.key === '__proto__' ? PROTO_MSG : CONSTRUCTOR_MSG, type: 'extra_forbidden' });
      continue;
    }
    const members: Frame[] = [];
    if (Array.isArray(frame.value)) {
      frame.value.forEach((child: unknown, i) => {
        if (child !== null && typeof child === 'object') members.push({ value: child, parent: frame, key: i });
      });
    } else {
      const record = frame.value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const child = record[key];
        if (refused(record, key)) members.push({ value: record, parent: frame, key, refused: true });
        else if (child !== null && typeof child === 'object') members.push({ value: child, parent: frame, key });
      }
    }
    // Pushed last to first, so they are taken in the order they were written.
    for (let i = members.length - 1; i >= 0; i -= 1) stack.push(members[i] as Frame);
  }
  return out;
}

/**
 * The failure for a body Fastify's JSON parser refused (`message` is its error's): the 422 of
 * the members that name a prototype when the text is valid JSON, else 400 `invalid_json`.
 */
export function refusedJsonBody(text: string, message: string): AppError | ValidationFailed {
  let value: unknown;
  try {
    // As secure-json-parse reads it: a byte order mark first is skipped.
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return new AppError('invalid_json', `the body is not valid JSON: ${message}`);
  }
  const details = prototypeKeyDetails(value);
  // Valid JSON the parser refused holds such a member; should it not, the parser's answer stands.
  return details.length ? new ValidationFailed(details) : new AppError('invalid_json', `the body is not valid JSON: ${message}`);
}
