/**
 * JSON text of the small answers the gateway writes most (the 422 body, the access line),
 * byte for byte what JSON.stringify writes, without its generic path: for a 422, serializing
 * `{detail}` with JSON.stringify cost more than validating the body (bench/gateway.ts).
 */

/** Characters that JSON writes as they are: printable ASCII but `"` and `\`. */
const PLAIN = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as JSON text; plain ASCII (nearly every one) needs no escaping. */
export function jsonString(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

/** A value as JSON text, as an element or property value (undefined only where JSON.stringify omits it). */
function jsonValue(value: unknown): string | undefined {
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i += 1) text += `${i ? ',' : ''}${jsonValue(value[i]) ?? 'null'}`;
    return `${text}]`;
  }
  return JSON.stringify(value);
}

/** A plain object of strings, numbers and arrays of them (a 422 detail) as JSON text. */
export function jsonObject(object: Record<string, unknown>): string {
  let text = '{';
  for (const key of Object.keys(object)) {
    const value = jsonValue(object[key]);
    if (value !== undefined) text += `${text.length > 1 ? ',' : ''}${jsonString(key)}:${value}`;
  }
  return `${text}}`;
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
