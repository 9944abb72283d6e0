/**
 * The SQL the HTTP interface puts around a request's own statement. A request's settings are
 * applied with one `SET` when its connection is set up, its parameters with one `SET` before
 * each statement (connections.ts), so each
 * `param_<name>` text reaches the engine exactly as a ClickHouse server receives it (the
 * engine then parses it as the placeholder's type). The only text spliced into SQL is
 * through `sqlString` (a quoted literal) and `quoteIdentifier`; names are checked against
 * `[A-Za-z_][A-Za-z0-9_]*`.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A ClickHouse single-quoted string literal whose value is exactly `value`. */
export function sqlString(value: string): string {
  return `'${value.replace(/[\\'\0]/g, (c) => (c === '\0' ? '\\0' : `\\${c}`))}'`;
}

/** A back-quoted identifier. */
export function quoteIdentifier(name: string): string {
  return `\`${name.replace(/[\\`]/g, (c) => `\\${c}`)}\``;
}

export class BadName extends Error {
  constructor(readonly kind: 'parameter' | 'setting', readonly badName: string) {
    super(`invalid ${kind} name ${JSON.stringify(badName)}`);
    this.name = 'BadName';
  }
}

/**
 * `SET a = '1', param_x = '…'` for the settings the engine knows (`known`) and every
 * parameter; null when there is nothing to set. Unknown settings are returned in `ignored`.
 */
export function setStatement(
  settings: ReadonlyMap<string, string>,
  params: ReadonlyMap<string, string>,
  known: ReadonlySet<string>,
): { sql: string | null; ignored: string[] } {
  const parts: string[] = [];
  const ignored: string[] = [];
  for (const [name, value] of settings) {
    if (NAME.test(name) && known.has(name)) parts.push(`${name} = ${sqlString(value)}`);
    else ignored.push(name);
  }
  for (const [name, value] of params) {
    if (!NAME.test(name)) throw new BadName('parameter', name);
    parts.push(`param_${name} = ${sqlString(value)}`);
  }
  return { sql: parts.length > 0 ? `SET ${parts.join(', ')}` : null, ignored };
}

/** `SET param_x = '…', …` for every parameter (connections.ts files a connection under their names); null when none. */
export function paramsStatement(params: ReadonlyMap<string, string>): string | null {
  return setStatement(new Map(), params, new Set()).sql;
}

/** Formats chdb can take as raw INSERT bytes (zero-copy, parsed by the engine). */
const RAW_INSERT_FORMATS = new Set([
  'JSONEachRow',
  'JSONCompactEachRow',
  'CSV',
  'CSVWithNames',
  'TSV',
  'TabSeparated',
  'TSVWithNames',
  'TabSeparatedWithNames',
]);

export interface InsertTarget {
  readonly table: string;
  readonly columns: string[] | undefined;
  readonly format: 'JSONEachRow' | 'JSONCompactEachRow' | 'CSV' | 'CSVWithNames' | 'TSV' | 'TabSeparated' | 'TSVWithNames' | 'TabSeparatedWithNames';
}

/** `\w` (without the u flag: `[A-Za-z0-9_]`), for one character. */
const WORD_CHAR = /^\w$/;

/**
 * The statement's trailing `FORMAT <name>` (`FORMAT\s+(\w+)\s*;?\s*$`, `FORMAT` in any case):
 * where `FORMAT` starts and the name; null when the statement does not end so. Read from the
 * end in one pass: the statement arrives over the network (up to the body limit), and the
 * pattern `\s*;?\s*$` after a word, tried from every start, was quadratic over a long run of
 * spaces that does not end the statement.
 */
function formatClause(sql: string): { at: number; format: string } | null {
  let end = sql.trimEnd().length;
  if (sql[end - 1] === ';') end = sql.slice(0, end - 1).trimEnd().length;
  let start = end;
  while (start > 0 && WORD_CHAR.test(sql[start - 1] as string)) start -= 1;
  if (start === end) return null;
  const keywordEnd = sql.slice(0, start).trimEnd().length;
  const at = keywordEnd - 'FORMAT'.length;
  if (keywordEnd === start || at < 0 || !/^format$/i.test(sql.slice(at, keywordEnd))) return null;
  return { at, format: sql.slice(start, end) };
}

/** What comes before the FORMAT clause of `INSERT INTO [TABLE] t [(a, b)] FORMAT F`, its trailing spaces cut. */
const INSERT_HEAD = /^\s*INSERT\s+INTO\s+(?:TABLE\s+)?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)(?:\s*\(([^()]*)\))?$/i;

/**
 * The table, columns and format of a plain `INSERT INTO t [(a, b)] FORMAT F` whose rows come
 * separately; null for anything else (which then runs as `<statement>\n<rows>`).
 */
export function insertTarget(sql: string): InsertTarget | null {
  const clause = formatClause(sql);
  if (!clause || !RAW_INSERT_FORMATS.has(clause.format)) return null;
  const match = INSERT_HEAD.exec(sql.slice(0, clause.at).trimEnd());
  if (!match?.[1]) return null;
  const columns = match[2]?.split(',').map((c) => c.trim());
  if (columns && !columns.every((c) => NAME.test(c))) return null;
  return { table: match[1], columns, format: clause.format as InsertTarget['format'] };
}

/** The output format: the statement's trailing FORMAT clause (`\bFORMAT …`), else `fallback`. */
export function outputFormat(sql: string, fallback: string | null): string {
  const clause = formatClause(sql);
  const own = clause !== null && (clause.at === 0 || !WORD_CHAR.test(sql[clause.at - 1] as string)) ? clause.format : null;
  return own ?? fallback ?? 'TabSeparated';
}
