/**
 * JSON text of the small answers the gateway writes most (the 422 body, the access line),
 * byte for byte what JSON.stringify writes, without its generic path: for a 422, serializing
 * `{detail}` with JSON.stringify cost more than validating the body (bench/gateway.ts), and
 * a writer that knows the detail's three fields takes 60% of the time of one that walks its
 * keys (~290 against ~470 ns for one detail).
 */

/** Characters that JSON writes as they are: printable ASCII but `"` and `\`. */
const PLAIN = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Up to this length a string is checked a character at a time: for the short strings of a
 * 422 (a field name, a message, a type) entering the regular expression costs more than the
 * loop (callgrind: ~200 instructions a test); a longer one (a path) is left to `PLAIN`.
 */
const LOOP_UP_TO = 48;

/** Whether `s` holds only characters JSON writes as they are. */
function plain(s: string): boolean {
  if (s.length > LOOP_UP_TO) return PLAIN.test(s);
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** A string as JSON text; plain ASCII (nearly every one) needs no escaping. */
export function jsonString(s: string): string {
  return plain(s) ? `"${s}"` : JSON.stringify(s);
}

/** A 422 detail's `loc` as JSON text: field names as strings, array indexes as numbers. */
export function locJson(loc: readonly (string | number)[]): string {
  let text = '[';
  for (let i = 0; i < loc.length; i += 1) {
    const part = loc[i] as string | number;
    text += `${i ? ',' : ''}${typeof part === 'number' ? (Number.isFinite(part) ? String(part) : 'null') : jsonString(part)}`;
  }
  return `${text}]`;
}

/**
 * `tenths / 10` as JSON text, for a whole number of tenths from 0 to 2^53 / 1000 (about 285
 * years in tenths of a millisecond): the double nearest "a.b" prints as "a.b", so the digits
 * are written without formatting a fraction, several times slower.
 */
export function tenthsJson(tenths: number): string {
  const rest = tenths % 10;
  return rest === 0 ? `${tenths / 10}` : `${(tenths - rest) / 10}.${rest}`;
}
