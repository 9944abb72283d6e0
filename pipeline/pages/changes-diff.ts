/**
 * The two diffs of the `changeTracking` format (pipeline/pages/changes.ts decides when they run):
 *
 * - `gitDiff`: a unified diff of two texts (`--- previous\t<ISO>` / `+++ current\t<ISO>`
 *   headers, `@@ -a,b +c,d @@` hunks, 3 lines of context) made by the `diff` package's
 *   structuredPatch + formatPatch, and the same hunks in the shape the `parse-diff` package
 *   gives (what Firecrawl answers): one file `{from, to, chunks}`, each chunk `{content: the
 *   @@ header, changes}`, each change `{type: add|del|normal, content: the line with its
 *   +/-/space marker}` with `ln` (the line in its own side) for add and del and `ln1`/`ln2`
 *   (old and new line) for normal lines. Built here from the hunks: no parse-diff dependency.
 * - `jsonFieldDiff`: the top-level fields of two JSON objects that differ (deep equality:
 *   objects by keys, arrays by order), as `{field: {previous, current}}`; a field present on
 *   one side only has `null` on the other.
 *
 * Bound: the line diff is Myers' O(ND) algorithm, D the number of changed lines (added +
 * removed), and the `diff` package's cost grows with D² in practice (measured on 200 KB pages:
 * 170 ms to give up at D = 1,000, 1.5 s at 4,000). So the diff is given up past
 * `MAX_EDIT_LINES` changed lines: first without running it, when the lines one text has and
 * the other lacks (counted as multisets, linear) already exceed the bound, which is the case
 * of two pages that differ everywhere; otherwise by the package's `maxEditLength`
 * (deterministic), with `DIFF_TIMEOUT_MS` as the last guard on a slow machine. The result says
 * so (`tooLarge`): the caller still answers `changed`, with a diff text that says why it has
 * no hunks.
 *
 * Both texts are expected to end with a newline (normalizeMarkdown guarantees it), so no
 * "\ No newline at end of file" marker ever appears.
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from 'diff';

/** Changed lines (added + removed) past which the line diff is given up. */
export const MAX_EDIT_LINES = 1000;
/** Wall-clock guard on one line diff, in ms. */
export const DIFF_TIMEOUT_MS = 1000;
const CONTEXT_LINES = 3;
export const PREVIOUS_FILE = 'previous';
export const CURRENT_FILE = 'current';

export interface DiffChange {
  type: 'add' | 'del' | 'normal';
  normal?: boolean;
  add?: boolean;
  del?: boolean;
  /** The line number on its own side (add: current, del: previous). */
  ln?: number;
  /** normal: the line number in the previous text. */
  ln1?: number;
  /** normal: the line number in the current text. */
  ln2?: number;
  /** The line with its marker: `+`, `-` or a space. */
  content: string;
}

export interface DiffChunk {
  /** The hunk header, `@@ -a,b +c,d @@`. */
  content: string;
  changes: DiffChange[];
}

export interface DiffFile {
  from: string;
  to: string;
  chunks: DiffChunk[];
}

export interface GitDiff {
  text: string;
  json: { files: DiffFile[] };
}

export interface GitDiffResult {
  readonly diff: GitDiff;
  /** True when the diff was given up (too many changed lines or too slow); `diff` is empty. */
  readonly tooLarge: boolean;
}

export interface DiffSide {
  readonly text: string;
  /** ISO time, written after the file name in the `---`/`+++` header. */
  readonly at: string;
}

/** The unified diff of `previous` → `current` and its parse-diff form; see the module doc. */
export function gitDiff(previous: DiffSide, current: DiffSide): GitDiffResult {
  if (unmatchedLines(previous.text, current.text) > MAX_EDIT_LINES) return { diff: tooLargeDiff(previous, current), tooLarge: true };
  const patch = structuredPatch(PREVIOUS_FILE, CURRENT_FILE, previous.text, current.text, previous.at, current.at, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LINES,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!patch) return { diff: tooLargeDiff(previous, current), tooLarge: true };
  const text = formatPatch(patch, FILE_HEADERS_ONLY);
  const headers = text.split('\n').filter((line) => line.startsWith('@@ '));
  const chunks = patch.hunks.map((hunk, i) => chunkOf(hunk, headers[i] ?? hunkHeader(hunk)));
  return { diff: { text, json: { files: [{ from: PREVIOUS_FILE, to: CURRENT_FILE, chunks }] } }, tooLarge: false };
}

/**
 * The lines of either text that the other lacks, as multisets: a lower bound on the changed
 * lines of any diff of the two (each must be added or removed), found in linear time.
 */
export function unmatchedLines(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const line of a.split('\n')) counts.set(line, (counts.get(line) ?? 0) + 1);
  let unmatched = 0;
  for (const line of b.split('\n')) {
    const left = counts.get(line) ?? 0;
    if (left > 0) counts.set(line, left - 1);
    else unmatched++;
  }
  for (const left of counts.values()) unmatched += left;
  return unmatched;
}

/** The parse-diff chunk of one hunk: line numbers counted from the hunk's starts. */
function chunkOf(hunk: StructuredPatchHunk, header: string): DiffChunk {
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  const changes: DiffChange[] = [];
  for (const line of hunk.lines) {
    const marker = line[0];
    if (marker === '+') changes.push({ type: 'add', add: true, ln: newLine++, content: line });
    else if (marker === '-') changes.push({ type: 'del', del: true, ln: oldLine++, content: line });
    else if (marker === ' ') changes.push({ type: 'normal', normal: true, ln1: oldLine++, ln2: newLine++, content: line });
  }
  return { content: header, changes };
}

/** The header formatPatch writes (used only if its text and the hunks ever disagree in count). */
function hunkHeader(hunk: StructuredPatchHunk): string {
  const range = (start: number, lines: number) => `${lines === 0 ? start - 1 : start},${lines}`;
  return `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`;
}

function lineCount(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/** The answer when the line diff was given up: headers, one line saying why, no chunks. */
function tooLargeDiff(previous: DiffSide, current: DiffSide): GitDiff {
  const reason =
    `# diff not computed: more than ${MAX_EDIT_LINES} lines changed ` +
    `(${lineCount(previous.text)} lines before, ${lineCount(current.text)} after)`;
  const text = `--- ${PREVIOUS_FILE}\t${previous.at}\n+++ ${CURRENT_FILE}\t${current.at}\n${reason}\n`;
  return { text, json: { files: [{ from: PREVIOUS_FILE, to: CURRENT_FILE, chunks: [] }] } };
}

export type JsonFieldDiff = Record<string, { previous: unknown; current: unknown }>;

/** The top-level fields whose values differ; see the module doc. */
export function jsonFieldDiff(previous: Readonly<Record<string, unknown>>, current: Readonly<Record<string, unknown>>): JsonFieldDiff {
  const out: JsonFieldDiff = {};
  const fields = new Set([...Object.keys(previous), ...Object.keys(current)]);
  for (const field of fields) {
    const before = (Object.hasOwn(previous, field) ? previous[field] : null) ?? null;
    const after = (Object.hasOwn(current, field) ? current[field] : null) ?? null;
    if (!jsonEqual(before, after)) out[field] = { previous: before, current: after };
  }
  return out;
}

/** Deep equality of JSON values: objects by their keys (any order), arrays element by element. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
}
