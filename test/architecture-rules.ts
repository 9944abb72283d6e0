/**
 * The import table, read from its one source: the folder table of docs/architecture.md
 * ("## The folders"), whose first column names a folder (or file) and whose "May import"
 * column names what its files may import. test/architecture.test.ts checks every local import
 * against it and finds cycles between its rows, so adding a folder is one row in the doc.
 *
 * A row's path is a folder (`pipeline/pages/`), a file (`main.ts`), or `actors/<pool>/`: every
 * folder directly under actors/, each its own row. A file belongs to the row with the most
 * specific path that holds it and may always import within that row's own folder (or file).
 * The "May import" cell is `nothing`, or backticked folders (every file below) and files
 * separated by `, `, each optionally followed by its reason in parentheses: the reason of an
 * allowance that is not simply "downward".
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ImportRule {
  readonly path: string;
  readonly mayImport: readonly string[];
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DOC = join(ROOT, 'docs/architecture.md');

/** The folders the service's own source lives in (main.ts beside them). */
export const LAYERS = ['schemas', 'pipeline', 'actors', 'gateway', 'infra', 'cli'] as const;

/** Every TypeScript file of the service's own source, relative to the root with `/`, sorted. */
export function sourceFiles(): string[] {
  const out = ['main.ts'];
  const walk = (dir: string) => {
    if (!existsSync(join(ROOT, dir))) return;
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
    }
  };
  LAYERS.forEach(walk);
  return out.sort();
}

/** The folder table's rows: the first cell's backticked path → the row's cells. */
export function folderTable(doc: string): Map<string, string[]> {
  const start = doc.indexOf('## The folders');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const cells = line.slice(1, -1).split(' | ').map((c) => c.trim());
    rows.set((cells[0] ?? '').replace(/^`|`$/g, ''), cells);
  }
  return rows;
}

/** `a`, `b` (why, with `code`) → ['a', 'b']; null when the cell does not read as the table's form. */
export function parseMayImport(cell: string): string[] | null {
  if (cell === 'nothing') return [];
  const items: string[] = [];
  let depth = 0;
  let item = '';
  for (const ch of `${cell}, `) {
    depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
    item += ch;
    if (depth === 0 && item.endsWith(', ')) {
      items.push(item.slice(0, -2));
      item = '';
    }
  }
  const paths = items.map((i) => /^`([^`]+)`(?: \(.+\))?$/.exec(i)?.[1] ?? null);
  return item === '' && paths.every((p) => p !== null) ? (paths as string[]) : null;
}

/** The table's rules; a row whose "May import" cell does not parse is an error naming it. */
export function readImportRules(doc: string = readFileSync(DOC, 'utf8')): ImportRule[] {
  return [...folderTable(doc)].map(([path, cells]) => {
    const mayImport = parseMayImport(cells.at(-1) ?? '');
    if (mayImport === null) throw new Error(`docs/architecture.md, row ${path}: its May import cell does not read as \`path\`, … or nothing`);
    return { path, mayImport };
  });
}

export const IMPORT_RULES: readonly ImportRule[] = readImportRules();

/** The row's `path` with `<pool>` filled in: `actors/fetcher/x.ts` → `actors/fetcher/`. */
function ownPath(rule: ImportRule, file: string): string | null {
  if (rule.path.includes('<')) {
    const prefix = rule.path.slice(0, rule.path.indexOf('<'));
    const rest = file.startsWith(prefix) ? file.slice(prefix.length) : '';
    const slash = rest.indexOf('/');
    return slash > 0 ? `${prefix}${rest.slice(0, slash + 1)}` : null;
  }
  return holds(rule.path, file) ? rule.path : null;
}

/** Whether a table path (folder ending in `/`, or a file) holds a file. */
export function holds(path: string, file: string): boolean {
  return path.endsWith('/') ? file.startsWith(path) : file === path;
}

/** The row a file belongs to, and its own folder (or file): the most specific path that holds it. */
export function ownerOf(file: string, rules: readonly ImportRule[] = IMPORT_RULES): { rule: ImportRule; own: string } | null {
  let best: { rule: ImportRule; own: string } | null = null;
  for (const rule of rules) {
    const own = ownPath(rule, file);
    if (own !== null && (best === null || own.length > best.own.length)) best = { rule, own };
  }
  return best;
}
