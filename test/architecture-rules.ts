/**
 * The import table: for each folder (or file) of the service, which other folders its files
 * may import. It is the one source of the rules: test/architecture.test.ts checks every local
 * import against it and finds cycles between its rows, and the "May import" column of
 * docs/architecture.md's folder table must read as `mayImportCell` renders each row (a test
 * compares them).
 *
 * `path` is a folder (`pipeline/pages/`), a file (`main.ts`), or `actors/<pool>/`: every folder
 * directly under actors/, each its own row. A file belongs to the row with the most specific
 * path that holds it and may always import within that row's own folder (or file). `mayImport`
 * names folders (every file below) or files; `because` gives the reason of an allowance that is
 * not simply "downward", and the doc prints it beside the entry.
 */
export interface ImportRule {
  readonly path: string;
  readonly mayImport: readonly string[];
  readonly because?: Readonly<Record<string, string>>;
}

const RUNTIME_ONLY = ['schemas/', 'pipeline/runtime/'] as const;
const ANY_PIPELINE = ['schemas/', 'pipeline/'] as const;

export const IMPORT_RULES: readonly ImportRule[] = [
  { path: 'schemas/api/', mayImport: ['schemas/'] },
  { path: 'schemas/events/', mayImport: ['schemas/'] },
  { path: 'schemas/topics.ts', mayImport: ['schemas/'] },
  { path: 'schemas/errors.ts', mayImport: ['schemas/'] },
  { path: 'schemas/capabilities.ts', mayImport: ['schemas/'] },
  { path: 'schemas/templates.ts', mayImport: ['schemas/'] },
  { path: 'pipeline/runtime/', mayImport: ['schemas/'] },
  { path: 'pipeline/clients/', mayImport: RUNTIME_ONLY },
  { path: 'pipeline/pages/', mayImport: RUNTIME_ONLY },
  { path: 'pipeline/jobs/', mayImport: RUNTIME_ONLY },
  { path: 'pipeline/keys/', mayImport: RUNTIME_ONLY },
  { path: 'pipeline/webhooks/', mayImport: RUNTIME_ONLY },
  { path: 'pipeline/extract/', mayImport: [...RUNTIME_ONLY, 'pipeline/pages/', 'pipeline/jobs/'] },
  {
    path: 'pipeline/search/',
    mayImport: [...RUNTIME_ONLY, 'pipeline/clients/', 'pipeline/pages/cache.ts'],
    because: { 'pipeline/pages/cache.ts': 'the local index files a page under the URL and shareable flag of its cache plan, as `pages` files it' },
  },
  { path: 'pipeline/monitors/', mayImport: [...RUNTIME_ONLY, 'pipeline/pages/'] },
  { path: 'pipeline/mentions/', mayImport: [...RUNTIME_ONLY, 'pipeline/clients/', 'pipeline/search/'] },
  {
    path: 'pipeline/service/',
    mayImport: ANY_PIPELINE,
    because: { 'pipeline/': 'it assembles the families: their settings parts into the one table' },
  },
  { path: 'actors/index.ts', mayImport: ANY_PIPELINE },
  { path: 'actors/<pool>/', mayImport: ANY_PIPELINE },
  { path: 'gateway/', mayImport: ANY_PIPELINE },
  { path: 'infra/clickhouse/', mayImport: [] },
  { path: 'infra/kafka/', mayImport: [] },
  { path: 'infra/cli/', mayImport: ANY_PIPELINE },
  { path: 'infra/codegen/', mayImport: ANY_PIPELINE },
  { path: 'infra/chdb-http/', mayImport: ANY_PIPELINE },
  { path: 'infra/train/', mayImport: ANY_PIPELINE },
  { path: 'main.ts', mayImport: ['schemas/', 'pipeline/', 'actors/', 'gateway/'] },
];

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

/** The doc's "May import" cell of a row: each entry in backticks, a reason in parentheses. */
export function mayImportCell(rule: ImportRule): string {
  if (rule.mayImport.length === 0) return 'nothing';
  return rule.mayImport.map((p) => (rule.because?.[p] ? `\`${p}\` (${rule.because[p]})` : `\`${p}\``)).join(', ');
}
