/**
 * Reading outside text by hand where a pattern would backtrack: the pieces the linear readers
 * share (actors/frontier/sitemaps.ts, actors/parser/document/text.ts, actors/parser/formats/clean.ts,
 * pipeline/search/index/text.ts). A trailing run is trimmed with trim.ts.
 */

const SPACE_CHAR = /^\s$/;

/** Whether `c`, one character, is whitespace as `\s` reads it. */
export const isSpace = (c: string): boolean => SPACE_CHAR.test(c);

/** The first index at or after `from` that is not whitespace (else the length). */
export function skipSpaces(text: string, from: number): number {
  let at = from;
  while (at < text.length && isSpace(text[at] as string)) at++;
  return at;
}

/**
 * A finder of the first index at or after a position where `stops` (a global pattern of one
 * character class, `/[)\n]/g`) matches (else the length). Asked with positions that rise, it
 * reads each character once: a position inside the stretch last read gets that stretch's end,
 * since nothing in it stops. The search itself is the engine's, not a loop of ours.
 */
export function nextStop(text: string, stops: RegExp): (from: number) => number {
  if (!stops.global) throw new Error(`nextStop: ${stops} must be global`);
  let readFrom = 0;
  let found = -1;
  return (from) => {
    if (from >= readFrom && from <= found) return found;
    stops.lastIndex = from;
    const stop = stops.exec(text);
    readFrom = from;
    found = stop ? stop.index : text.length;
    return found;
  };
}

/** `text` through its last `char` (empty when it has none). */
export const throughLast = (text: string, char: string): string => text.slice(0, text.lastIndexOf(char) + 1);

/**
 * `text` with `pattern` (global, every match ending in `char`) replaced only up to its last
 * `char`: past it a match can only fail, and a pattern such as `<[^>]*>` fails there only after
 * scanning to the end from every `<` (quadratic); before it, each attempt ends at the next `char`.
 */
export function replaceThroughLast(text: string, char: string, pattern: RegExp, replacement: string): string {
  const end = text.lastIndexOf(char) + 1;
  return text.slice(0, end).replace(pattern, replacement) + text.slice(end);
}
