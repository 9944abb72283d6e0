/**
 * The service's regular expressions and recheck's verdict on each (test/regex-safety.test.ts).
 *
 * Found four ways: every regex literal of the source; every `RegExp` built from a constant
 * string; every `RegExp` a module builds while it loads (the modules with such a construction
 * are imported with `RegExp` watched); every `pattern` of the operations' JSON Schemas, which
 * Ajv runs with the `u` flag on request values (past a failed `maxLength` too: it collects
 * every error). A `RegExp` built inside a function from something not constant is returned
 * apart, as a construction, for the test's own list.
 *
 * recheck's ReDoS analysis (an automaton, or fuzzing where the automaton cannot decide) limits
 * its work by time as well as by steps, so the same pattern can get a different verdict on a
 * busy machine. Verdicts are therefore recorded, like a lock file, in test/regex-verdicts.json,
 * keyed by recheck's version, the flags and the source; the test computes only what is not
 * recorded, and fails until it is. After adding or changing a pattern, on a quiet machine:
 *
 *   node --import tsx test/helpers/regex-patterns.ts --write
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { check } from 'recheck';
import ts from 'typescript';
import { sourceFiles } from '../architecture-rules.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const VERDICTS_FILE = join(ROOT, 'test/regex-verdicts.json');
export const RECHECK_VERSION: string = (createRequire(import.meta.url)('recheck/package.json') as { version: string }).version;

export interface Pattern {
  readonly file: string;
  readonly line: number;
  readonly source: string;
  /** Without `g` and `y`, which do not change what one match attempt costs. */
  readonly flags: string;
}

export interface Construction {
  readonly file: string;
  readonly line: number;
  /** The first argument's text as written. */
  readonly argument: string;
  /** Inside a function (built per call), or when the module loads. */
  readonly perCall: boolean;
}

const attemptFlags = (flags: string) => flags.replace(/[gy]/g, '');

/** The key a verdict is recorded under. */
export const keyOf = (pattern: Pick<Pattern, 'source' | 'flags'>) => `/${pattern.source}/${pattern.flags}`;

/** Only a pattern that repeats something can backtrack past linear time. */
export const repeats = (source: string) => /[*+{]/.test(source.replace(/\\./g, ''));

/** The regex literals (and `RegExp`s of constant strings) and other `RegExp` constructions of one source text. */
export function readPatterns(file: string, text: string): { literals: Pattern[]; constructions: Construction[] } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const literals: Pattern[] = [];
  const constructions: Construction[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const inFunction = (node: ts.Node): boolean => {
    for (let at = node.parent; at; at = at.parent) if (ts.isFunctionLike(at) || ts.isClassStaticBlockDeclaration(at)) return true;
    return false;
  };
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const text = (node as ts.RegularExpressionLiteral).text;
      const end = text.lastIndexOf('/');
      literals.push({ file, line: lineOf(node), source: text.slice(1, end), flags: attemptFlags(text.slice(end + 1)) });
    } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
      const [pattern, flags] = node.arguments ?? [];
      if (pattern && ts.isStringLiteralLike(pattern) && (!flags || ts.isStringLiteralLike(flags))) {
        literals.push({ file, line: lineOf(node), source: pattern.text, flags: attemptFlags(flags ? flags.text : '') });
      } else if (pattern) {
        constructions.push({ file, line: lineOf(node), argument: pattern.getText(source), perCall: inFunction(node) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { literals, constructions };
}

/** Every pattern the given modules (and what they import) build while they load, `RegExp` watched meanwhile. */
export async function loadTimePatterns(files: readonly string[]): Promise<Pattern[]> {
  const seen: Pattern[] = [];
  const original = globalThis.RegExp;
  let loading = '';
  globalThis.RegExp = new Proxy(original, {
    construct(target, args: [string | RegExp, string?]) {
      const made = Reflect.construct(target, args) as RegExp;
      seen.push({ file: `built while ${loading} loaded`, line: 0, source: made.source, flags: attemptFlags(made.flags) });
      return made;
    },
  });
  try {
    for (const file of files) {
      loading = file;
      await import(pathToFileURL(join(ROOT, file)).href);
    }
  } finally {
    globalThis.RegExp = original;
  }
  return seen;
}

/** One pattern of each key among `patterns` that has no verdict in `verdicts`. */
export function unrecorded(patterns: readonly Pattern[], verdicts: Readonly<Record<string, string>>): Pattern[] {
  return [...new Map(patterns.filter((p) => !(keyOf(p) in verdicts)).map((p) => [keyOf(p), p])).values()];
}

/** Every `pattern` string of the operations' schemas (schemas/api/operations.ts) and the social endpoints' inputs, as Ajv runs it. */
export async function schemaPatterns(): Promise<Pattern[]> {
  const { OPERATIONS, PATH_PARAMS } = await import('../../schemas/api/operations.js');
  const { SOCIAL_ENDPOINTS } = await import('../../schemas/api/social.js');
  const out: Pattern[] = [];
  const seen = new Set<object>();
  const walk = (value: unknown, where: string): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    const record = value as Record<string, unknown>;
    if (typeof record.pattern === 'string' && (record.type === 'string' || record.type === undefined)) {
      out.push({ file: `schema of ${where}`, line: 0, source: record.pattern, flags: 'u' });
    }
    for (const child of Object.values(record)) walk(child, where);
  };
  for (const operation of OPERATIONS) walk(operation, operation.id);
  walk(PATH_PARAMS, 'path parameters');
  for (const endpoint of SOCIAL_ENDPOINTS) walk(endpoint, `social ${endpoint.platform} ${endpoint.endpoint}`);
  return out;
}

/**
 * What the service's source holds: every occurrence of a pattern that repeats something (a
 * pattern built while a module loads only when no literal has its key), and the other
 * constructions.
 */
export async function servicePatterns(): Promise<{ patterns: Pattern[]; keys: Set<string>; constructions: Construction[]; files: number }> {
  const files = sourceFiles();
  const read = files.map((file) => readPatterns(file, readFileSync(join(ROOT, file), 'utf8')));
  const constructions = read.flatMap((r) => r.constructions);
  const loaders = [...new Set(constructions.filter((c) => !c.perCall).map((c) => c.file))];
  const literals = read.flatMap((r) => r.literals).filter((p) => repeats(p.source));
  const keys = new Set(literals.map(keyOf));
  const patterns = [...literals];
  for (const built of [...(await loadTimePatterns(loaders)), ...(await schemaPatterns())]) {
    if (!repeats(built.source) || keys.has(keyOf(built))) continue;
    keys.add(keyOf(built));
    patterns.push(built);
  }
  return { patterns, keys, constructions, files: files.length };
}

/** recheck's verdict: 'safe', 'vulnerable (<complexity>)' or 'unknown (<why>)'. */
export async function verdict(pattern: Pick<Pattern, 'source' | 'flags'>): Promise<string> {
  const result = await check(pattern.source, pattern.flags, { timeout: 30_000 });
  if (result.status === 'vulnerable') {
    const c = result.complexity;
    return `vulnerable (${c.type}${c.type === 'polynomial' ? ` ${c.degree}` : ''})`;
  }
  return result.status === 'unknown' ? `unknown (${result.error.kind})` : result.status;
}

export interface Recorded {
  recheck: string;
  verdicts: Record<string, string>;
}

export function readRecorded(): Recorded {
  return JSON.parse(readFileSync(VERDICTS_FILE, 'utf8')) as Recorded;
}

/** Verdicts for the given keys, two checks at a time (recheck's checker runs as one process of its own). */
export async function verdicts(patterns: readonly Pattern[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const queue = [...patterns];
  const work = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) out.set(keyOf(next), await verdict(next));
  };
  await Promise.all([work(), work()]);
  return out;
}

/** Records the verdict of every pattern found, keeping those already recorded under this recheck version. */
async function write(): Promise<void> {
  const { patterns, keys } = await servicePatterns();
  let recorded: Recorded = { recheck: RECHECK_VERSION, verdicts: {} };
  try {
    recorded = readRecorded();
  } catch {
    // none yet
  }
  const keep = recorded.recheck === RECHECK_VERSION ? recorded.verdicts : {};
  const missing = unrecorded(patterns, keep);
  const fresh = await verdicts(missing);
  const all: Record<string, string> = {};
  for (const key of [...keys].sort()) all[key] = keep[key] ?? (fresh.get(key) as string);
  writeFileSync(VERDICTS_FILE, `${JSON.stringify({ recheck: RECHECK_VERSION, verdicts: all }, null, 1)}\n`);
  process.stdout.write(`${keys.size} patterns, ${missing.length} checked now, written to ${VERDICTS_FILE}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  await write();
}
