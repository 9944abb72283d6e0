/**
 * Regular expressions that come from outside (a caller's `includePaths`, `excludePaths`) run
 * in RE2's engine (re2js, a JavaScript port of RE2/J), never in V8's backtracking one: V8 takes
 * exponential time on `(a+)+$` against a long path, and the frontier that runs them schedules
 * every key's jobs. RE2 matches in time linear in the input.
 *
 * The syntax is RE2's, written as in JavaScript (`\/`, `(?<name>…)` are accepted): no
 * lookaround and no backreferences; a pattern RE2 cannot run is refused where it enters (a 422
 * `regex_invalid` naming the field), not when a crawl reaches it.
 */
import { RE2JS } from 're2js';

/** A compiled pattern: whether it matches anywhere in the input, as `RegExp.prototype.test`. */
export interface LinearRegex {
  test(input: string): boolean;
}

/**
 * Compiled patterns by source, as V8 keeps its own: a crawl reads its params again for every
 * page it settles, and compiling costs RE2 ~18 µs a pattern where a match costs ~1 µs. A
 * pattern is immutable once compiled; past MAX_CACHED sources the oldest is dropped.
 */
const compiled = new Map<string, LinearRegex>();
const MAX_CACHED = 256;

/** Compiles `pattern` (or takes it compiled); throws (RE2JS's syntax error) when RE2 cannot run it. */
export function compileLinearRegex(pattern: string): LinearRegex {
  let regex = compiled.get(pattern);
  if (!regex) {
    regex = RE2JS.compile(RE2JS.translateRegExp(pattern));
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Whether RE2 can run `pattern` (the `regex` format of the API's schemas). */
export function isLinearRegex(pattern: string): boolean {
  try {
    compileLinearRegex(pattern);
    return true;
  } catch {
    return false;
  }
}
