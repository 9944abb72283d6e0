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

/** Compiles `pattern`; throws (RE2JS's syntax error) when RE2 cannot run it. */
export function compileLinearRegex(pattern: string): LinearRegex {
  return RE2JS.compile(RE2JS.translateRegExp(pattern));
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
