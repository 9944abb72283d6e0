/**
 * What a command prints and writes. Three modes:
 *
 * - **pretty** (standard output is a terminal): a page's markdown, records as short lines,
 *   anything else as indented, coloured data;
 * - **JSON lines** (standard output is a pipe or a file, or `--json`): one JSON object a line:
 *   each record (page, link, result, lead, …) on its own line, else the answer as one line;
 * - **files** (`-o DIR`, with either): each page as DIR/<host>/<path>.md (paths from the page's
 *   URL, made safe: no `..`, no absolute path, no character a file system refuses), tabular
 *   results (leads, mentions, products, places) as DIR/<name>.csv with the answer's attribution
 *   notices in DIR/<name>.ATTRIBUTION.txt, anything else as DIR/<operation>.json.
 *
 * Notes for a person (progress, where files went, attribution) go to standard error, so
 * standard output carries the data alone.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { inspect } from 'node:util';

export type Json = Record<string, unknown>;

export interface Output {
  readonly json: boolean;
  /** The directory of `-o`, resolved; null without. */
  readonly dir: string | null;
  /** Data lines: standard output. */
  out(line: string): void;
  /** Notes for a person: standard error. */
  note(line: string): void;
  readonly colors: boolean;
}

export function createOutput(opts: { json?: boolean; output?: string }): Output {
  const tty = process.stdout.isTTY === true;
  return {
    json: opts.json === true || !tty,
    dir: opts.output ? resolve(opts.output) : null,
    out: (line) => void process.stdout.write(`${line}\n`),
    note: (line) => void process.stderr.write(`${line}\n`),
    colors: tty && process.stderr.isTTY === true,
  };
}

/** The records of an answer: its `rows` field, else its one array field. */
export function rowsOf(data: unknown, field: string | undefined): Json[] | null {
  if (typeof data !== 'object' || data === null) return null;
  const d = data as Json;
  if (field && Array.isArray(d[field])) return d[field] as Json[];
  return null;
}

function safeSegment(segment: string): string {
  let s = segment;
  try {
    s = decodeURIComponent(segment);
  } catch {
    /* kept as it is */
  }
  s = s.replace(/[\u0000-\u001f<>:"/\\|?*]/g, '_').replace(/^\.+$/, '').slice(0, 120);
  return s.trim();
}

/** A page's file under `dir`: <host>/<path segments>.md, `index` for a directory; never outside `dir`. */
export function pageFilePath(dir: string, url: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  const host = safeSegment(parsed ? parsed.host.replace(/:/g, '_') : 'pages') || 'pages';
  const raw = parsed ? parsed.pathname : url;
  const segments = raw.split('/').map(safeSegment).filter((s) => s !== '');
  if (raw.endsWith('/') || segments.length === 0) segments.push('index');
  let last = (segments.pop() as string).replace(/\.(html?|php|aspx?)$/i, '');
  if (parsed?.search) last += `-${createHash('sha256').update(parsed.search).digest('hex').slice(0, 8)}`;
  const file = resolve(dir, host, ...segments, `${last || 'index'}.md`);
  const inside = relative(dir, file);
  if (inside.startsWith('..') || inside.split(sep).includes('..')) throw new Error(`refusing to write outside ${dir}: ${url}`);
  return file;
}

/** Writes `content` at `file`, making its folders. */
export function writeFile(file: string, content: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** A page document as markdown with its source in front matter. */
export function pageMarkdown(doc: Json): string {
  const meta = (doc.metadata ?? {}) as Json;
  const url = String(meta.sourceURL ?? meta.url ?? '');
  const title = typeof meta.title === 'string' ? meta.title : '';
  const front = ['---', `url: ${JSON.stringify(url)}`, ...(title ? [`title: ${JSON.stringify(title)}`] : []), '---', ''];
  return `${front.join('\n')}\n${typeof doc.markdown === 'string' ? doc.markdown : ''}\n`;
}

export const pageUrl = (doc: Json): string => {
  const meta = (doc.metadata ?? {}) as Json;
  return String(meta.sourceURL ?? meta.url ?? doc.url ?? '');
};

/** Writes one page under `dir`, a name taken twice getting `-2`, `-3`, …; the file written. */
export function writePage(dir: string, doc: Json, taken: Set<string>): string {
  const base = pageFilePath(dir, pageUrl(doc));
  let file = base;
  for (let n = 2; taken.has(file); n += 1) file = base.replace(/\.md$/, `-${n}.md`);
  taken.add(file);
  writeFile(file, pageMarkdown(doc));
  return file;
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? (Array.isArray(value) && value.every((v) => typeof v !== 'object') ? value.join('; ') : JSON.stringify(value)) : String(value);
  // A cell a spreadsheet would run as a formula is quoted as text; a phone number or a
  // negative number (`+33 1 …`, `-4.5`) is left as it is.
  const formula = /^[=@\t\r]/.test(text) || (/^[+-]/.test(text) && !/^[+-][\d\s().\-/]*$/.test(text));
  const safe = formula ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows as CSV: the columns of every row's fields, nested objects one level flattened (`address.street`). */
export function toCsv(rows: readonly Json[]): string {
  const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
  // A field that is an object in some row is its fields' columns in every row (null: empty cells).
  const nested = new Set(rows.flatMap((row) => Object.entries(row).filter(([, v]) => isObject(v)).map(([k]) => k)));
  const flat = rows.map((row) => {
    const out: Json = {};
    for (const [k, v] of Object.entries(row)) {
      if (isObject(v)) for (const [k2, v2] of Object.entries(v)) out[`${k}.${k2}`] = v2;
      else if (!nested.has(k)) out[k] = v;
    }
    return out;
  });
  const columns = [...new Set(flat.flatMap((r) => Object.keys(r)))];
  return `${[columns.map(csvCell).join(','), ...flat.map((r) => columns.map((c) => csvCell(r[c])).join(','))].join('\r\n')}\r\n`;
}

/** The attribution notices an answer carries (leads' `summary.attribution`, places' `attribution`), as lines. */
export function attributionOf(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const d = data as Json;
  const found = (d.summary as Json | undefined)?.attribution ?? d.attribution;
  const list = Array.isArray(found) ? found : found ? [found] : [];
  return list.map((n) => {
    if (typeof n === 'string') return n;
    const notice = n as Json;
    return [notice.text, notice.license ? `(${String(notice.license)})` : '', notice.url ?? ''].filter((s) => s !== '').join(' ');
  });
}

/** Writes `rows` as DIR/<name>.csv and the notices beside them; the files written. */
export function writeTable(dir: string, name: string, rows: readonly Json[], notices: readonly string[]): string[] {
  const csv = join(dir, `${name}.csv`);
  writeFile(csv, toCsv(rows));
  if (notices.length === 0) return [csv];
  const notice = join(dir, `${name}.ATTRIBUTION.txt`);
  writeFile(notice, `The data in ${name}.csv carries these notices; show them with it:\n\n${notices.join('\n')}\n`);
  return [csv, notice];
}

/** One record as a short line for a terminal. */
export function rowLine(row: Json): string {
  const title = row.title ?? row.name ?? row.text ?? row.status ?? '';
  const where = row.url ?? row.link ?? row.website ?? row.id ?? '';
  const parts = [String(title).slice(0, 100), String(where)].filter((s) => s !== '');
  return parts.length > 0 ? parts.join('  ') : JSON.stringify(row);
}

/** Anything, for a terminal. */
export function pretty(data: unknown, colors: boolean): string {
  return inspect(data, { depth: 8, colors, breakLength: process.stdout.columns || 100, maxArrayLength: 200, maxStringLength: 4000 });
}
