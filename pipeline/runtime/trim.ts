/**
 * Trimming a run of given characters from a string's end or start without a regular expression.
 * `/\.+$/` and its kin are quadratic on outside input: the engine tries the run from every
 * character of a long inner run before it fails at the run's end. These walk once, from the end
 * (or the start) inward. For whitespace, `String.prototype.trimEnd` / `trimStart` already do this.
 */

/** `text` without the run of characters from `chars` at its end (`/[<chars>]+$/` replaced by ''). */
export function trimEndOf(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1] as string)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the run of characters from `chars` at its start (`/^[<chars>]+/` replaced by ''). */
export function trimStartOf(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text[start] as string)) start++;
  return start === 0 ? text : text.slice(start);
}
