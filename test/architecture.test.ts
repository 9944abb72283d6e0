/**
 * The layering of style habit 1, checked on the source: schemas ← pipeline ← actors/gateway,
 * with pipeline/ split in two (docs/architecture.md): pipeline/runtime/ knows no product rule,
 * and the product rules (pages, jobs, keys, webhooks, …) build on it; infra/ holds the tools,
 * which nothing in the service imports. Per folder, the import table (docs/architecture.md's
 * folder table, read by test/architecture-rules.ts; style habit 17) says what each may
 * import: every local import is checked against it, and no two of its folders import each
 * other. No circular imports (madge), engine clients confined to their adapters, no console,
 * `process.env` read in one file, and docs/architecture.md names only paths that exist.
 *
 * Imports are read with the TypeScript parser (static, type-only, re-exports, dynamic
 * `import()` and `require()`), so a comment or a string never counts as an import.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DOC, folderTable, holds, IMPORT_RULES, ownerOf, parseMayImport, LAYERS, readImportRules, sourceFiles, type ImportRule } from './architecture-rules.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * pipeline/'s product half, read from the import table: every folder of pipeline/ but the
 * runtime (the families' rules, the clients of outside services, the service's assembly).
 */
const PRODUCT: readonly string[] = IMPORT_RULES.map((r) => r.path)
  .filter((p) => /^pipeline\/[^/]+\/$/.test(p) && p !== 'pipeline/runtime/')
  .map((p) => p.slice(0, -1));

interface SourceFacts {
  /** Repository files it imports, relative to the root with `/`. */
  local: string[];
  /** Relative specifiers that name no file. */
  unresolved: string[];
  /** Package names it imports (`node:` built-ins left out). */
  packages: string[];
  /** Lines (1-based) that use `console`. */
  consoleLines: number[];
}

type Graph = Map<string, SourceFacts>;

// ---- reading the source ---------------------------------------------------------------

function posix(path: string): string {
  return path.split(sep).join('/');
}

/** `./x.js` → `dir/x.ts` (NodeNext: imports name the emitted file). */
function resolveLocal(from: string, specifier: string): string | null {
  const base = resolve(ROOT, dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, join(base, 'index.ts')];
  const hit = candidates.find((c) => existsSync(c) && !c.endsWith(sep));
  return hit ? posix(relative(ROOT, hit)) : null;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

function specifiersOf(source: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteral(e)) out.push(e.text);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const arg = node.arguments[0];
      if ((isImport || isRequire) && arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function consoleLinesOf(source: ts.SourceFile): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'console'
    ) {
      lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

function readGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles()) {
    const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const facts: SourceFacts = { local: [], unresolved: [], packages: [], consoleLines: consoleLinesOf(source) };
    for (const specifier of specifiersOf(source)) {
      if (specifier.startsWith('.')) {
        const hit = resolveLocal(file, specifier);
        if (hit) facts.local.push(hit);
        else facts.unresolved.push(specifier);
      } else if (!specifier.startsWith('node:')) {
        facts.packages.push(packageName(specifier));
      }
    }
    graph.set(file, facts);
  }
  return graph;
}

// ---- the rules ------------------------------------------------------------------------

const under = (file: string, dir: string) => file.startsWith(`${dir}/`);

/** `actors/fetcher/fetch.ts` → `fetcher`; `actors/fetcher.ts` → `fetcher`. */
function actorOf(file: string): string | null {
  if (!under(file, 'actors')) return null;
  return (file.split('/')[1] as string).replace(/\.ts$/, '');
}

const CONFINED_PACKAGES: readonly { pattern: RegExp; homes: readonly string[] }[] = [
  { pattern: /^kafkajs$/, homes: ['pipeline/runtime/bus'] },
  // infra/chdb-http serves an embedded store over ClickHouse's HTTP interface (a tool).
  { pattern: /^chdb$/, homes: ['pipeline/runtime/store', 'infra/chdb-http'] },
  { pattern: /^@clickhouse\/client(-web)?$/, homes: ['pipeline/runtime/store'] },
  { pattern: /^playwright(-core)?$/, homes: ['actors/renderer'] },
  // Model providers are spoken to by one client (docs/architecture.md, pipeline/clients/).
  { pattern: /^(ai|@ai-sdk\/.+)$/, homes: ['pipeline/clients/models'] },
];

/** Every way the graph breaks habit 1, one line per offence, naming the file. */
function violations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, facts] of graph) {
    for (const specifier of facts.unresolved) out.push(`${file}: import "${specifier}" names no file`);
    for (const target of facts.local) {
      const edge = `${file} imports ${target}`;
      if (target === 'main.ts') out.push(`${edge}: nothing imports the composition root`);
      if (under(file, 'schemas') && ['pipeline', 'gateway', 'actors'].some((d) => under(target, d))) {
        out.push(`${edge}: schemas/ holds pure contracts and imports no other layer`);
      }
      if (under(file, 'pipeline') && ['gateway', 'actors'].some((d) => under(target, d))) {
        out.push(`${edge}: pipeline/ imports neither gateway/ nor actors/`);
      }
      if (under(file, 'pipeline/runtime') && PRODUCT.some((d) => under(target, d))) {
        out.push(`${edge}: pipeline/runtime/ knows no product rule`);
      }
      if (!under(file, 'infra') && under(target, 'infra')) out.push(`${edge}: infra/ holds tools, which the service never imports`);
      const actor = actorOf(file);
      if (actor !== null && under(target, 'gateway')) out.push(`${edge}: an actor never imports the gateway`);
      const other = actorOf(target);
      if (actor !== null && other !== null && other !== actor) out.push(`${edge}: an actor never imports another actor`);
    }
    for (const pkg of facts.packages) {
      for (const { pattern, homes } of CONFINED_PACKAGES) {
        if (pattern.test(pkg) && !homes.some((home) => under(file, home))) out.push(`${file} imports ${pkg}: only ${homes.map((h) => `${h}/`).join(' and ')} may`);
      }
    }
    if (['gateway', 'pipeline', 'actors'].some((d) => under(file, d))) {
      for (const line of facts.consoleLines) out.push(`${file}:${line}: console; use the pino logger`);
    }
  }
  return out;
}

// ---- the import table (test/architecture-rules.ts) ------------------------------------

/** Every local import the table does not allow, and every file no row holds; one line each. */
function tableViolations(graph: Graph, rules: readonly ImportRule[] = IMPORT_RULES): string[] {
  const out: string[] = [];
  for (const [file, facts] of graph) {
    const owner = ownerOf(file, rules);
    if (owner === null) {
      out.push(`${file}: no row of the import table holds it`);
      continue;
    }
    for (const target of facts.local) {
      if (holds(owner.own, target) || owner.rule.mayImport.some((p) => holds(p, target))) continue;
      out.push(`${file} imports ${target}: ${owner.own} may import ${owner.rule.mayImport.join(', ') || 'nothing'}`);
    }
  }
  return out;
}

/** Imports between rows of the table: own folder → the folders (or files) it imports. */
function folderEdges(graph: Graph, rules: readonly ImportRule[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const [file, facts] of graph) {
    const from = ownerOf(file, rules)?.own;
    for (const target of facts.local) {
      const to = ownerOf(target, rules)?.own;
      if (from === undefined || to === undefined || from === to) continue;
      edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

/** Groups of folders that import each other, directly or around a loop (`a <-> b`), sorted. */
function folderCycles(graph: Graph, rules: readonly ImportRule[] = IMPORT_RULES): string[] {
  const edges = folderEdges(graph, rules);
  const reach = (from: string): Set<string> => {
    const seen = new Set<string>();
    const todo = [...(edges.get(from) ?? [])];
    for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      todo.push(...(edges.get(next) ?? []));
    }
    return seen;
  };
  const reached = new Map([...edges.keys()].map((f) => [f, reach(f)]));
  const groups = new Set<string>();
  for (const [folder, seen] of reached) {
    const loop = [...seen].filter((other) => reached.get(other)?.has(folder));
    if (loop.length > 0) groups.add([...new Set([folder, ...loop])].sort().join(' <-> '));
  }
  return [...groups].sort();
}

// ---- docs/architecture.md --------------------------------------------------------------

const readDoc = () => readFileSync(DOC, 'utf8');

/** `a/{b,c}.ts` → `a/b.ts`, `a/c.ts`. */
function expandBraces(path: string): string[] {
  const m = /\{([^{}]*)\}/.exec(path);
  if (!m) return [path];
  return m[1]!.split(',').flatMap((alt) => expandBraces(path.slice(0, m.index) + alt + path.slice(m.index + m[0].length)));
}

/** Whether a path exists; `<Name>` and `*` in a segment stand for any name. */
function pathExists(path: string, base = ROOT): boolean {
  const [head, ...rest] = path.replace(/\/$/, '').split('/');
  if (head === undefined || head === '') return true;
  const pattern = /[<*]/.test(head) ? new RegExp(`^${head.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/<[^>]+>|\*/g, '[^/]+')}$`) : null;
  const names = pattern ? (existsSync(base) ? readdirSync(base).filter((n) => pattern.test(n)) : []) : [head];
  return names.some((n) => existsSync(join(base, n)) && pathExists(rest.join('/'), join(base, n)));
}

const ROOT_ENTRIES = new Set(readdirSync(ROOT).filter((n) => n !== 'node_modules' && !n.startsWith('.')));
const FILE_NAME = /^[\w.<>{},*-]+(\/[\w.<>{},*-]+)*(\/|\.(ts|json|sql|avsc|md|yml))$/;

/** Backticked paths from the repository's root: their first segment is a root entry. */
function rootPaths(doc: string): string[] {
  const spans = [...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return spans.filter((t) => FILE_NAME.test(t) && ROOT_ENTRIES.has(t.split('/')[0]!)).flatMap(expandBraces);
}

/** Backticked names in a folder row's cell, read below the row's folder (`bus/`, `config.ts`). */
function rowPaths(folder: string, cell: string): string[] {
  const spans = [...cell.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return spans.filter((t) => FILE_NAME.test(t) && !ROOT_ENTRIES.has(t.split('/')[0]!)).flatMap(expandBraces).map((t) => `${folder}${t}`);
}

/** Service files that read `process.env` (property access, so a comment never counts). */
function processEnvReaders(): string[] {
  return sourceFiles().filter((file) => {
    const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    let found = false;
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'process' && node.name.text === 'env') found = true;
      if (!found) ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  });
}

// ---- madge ----------------------------------------------------------------------------

interface MadgeResult {
  obj(): Record<string, string[]>;
  circular(): string[][];
  warnings(): { skipped: string[] };
}
type Madge = (paths: string[], config: Record<string, unknown>) => Promise<MadgeResult>;

// madge is CommonJS with no type declarations.
const madge = createRequire(import.meta.url)('madge') as Madge;

/** `paths` relative to `baseDir`; the graph's names are too. */
function runMadge(baseDir: string, paths: string[]): Promise<MadgeResult> {
  return madge(paths.map((p) => join(baseDir, p)), {
    baseDir,
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false, skipAsyncImports: false, mixedImports: true } },
  });
}

const madgePaths = () => ['main.ts', ...LAYERS].filter((p) => existsSync(join(ROOT, p)));

// ---- the tests ------------------------------------------------------------------------

describe('architecture', () => {
  const graph = readGraph();

  it('reads the source it is meant to check', () => {
    for (const dir of ['schemas', 'pipeline', 'gateway']) {
      expect([...graph.keys()].some((f) => under(f, dir)), dir).toBe(true);
    }
    expect(graph.get('gateway/app.ts')?.local).toContain('gateway/routes.ts');
    expect(graph.get('gateway/app.ts')?.packages).toContain('fastify');
  });

  it('has no circular imports (madge)', async () => {
    const result = await runMadge(ROOT, madgePaths());
    expect(result.warnings().skipped, 'imports madge could not resolve').toEqual([]);
    const tree = result.obj();
    // madge resolves the `.js` specifiers to the `.ts` files: its graph has every edge ours has.
    const missed = [...graph].flatMap(([file, facts]) =>
      facts.local.filter((t) => !(tree[file] ?? []).includes(t)).map((t) => `${file} -> ${t}`),
    );
    expect(missed, 'edges madge did not see').toEqual([]);
    const cycles = result.circular().map((cycle) => [...cycle, cycle[0]].join(' -> '));
    expect(cycles, `circular imports:\n${cycles.join('\n')}`).toEqual([]);
  }, 120_000); // madge parses every source file with TypeScript's compiler: ~10 s alone, longer beside another suite

  it('lets madge see a cycle written with .js specifiers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wds-arch-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = () => b;\n");
      writeFileSync(join(dir, 'b.ts'), "import type { a } from './a.js';\nexport const b = 1 as unknown as typeof a;\n");
      const result = await runMadge(dir, ['a.ts']);
      expect(result.circular()).toEqual([['a.ts', 'b.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('imports point one way, engine clients stay in their adapters, and nothing logs to console', () => {
    const found = violations(graph);
    expect(found, `architecture violations:\n${found.join('\n')}`).toEqual([]);
  });

  it('every local import is one the import table allows, and every file has its row (test/architecture-rules.ts)', () => {
    const found = tableViolations(graph);
    expect(found, `imports the table does not allow:\n${found.join('\n')}`).toEqual([]);
  });

  it('has no cycles between the folders of the import table', () => {
    expect(folderCycles(graph)).toEqual([]);
  });

  it('catches a planted import the table forbids, a file no row holds, and folders that import each other', () => {
    const facts = (local: string[]): SourceFacts => ({ local, unresolved: [], packages: [], consoleLines: [] });
    const planted: Graph = new Map([
      ['pipeline/runtime/store/records.ts', facts(['pipeline/runtime/store/store.ts', 'pipeline/clients/models/seal.ts'])],
      ['pipeline/clients/searxng.ts', facts(['pipeline/clients/service-http.ts', 'pipeline/runtime/net/http.ts', 'pipeline/search/types.ts'])],
      ['pipeline/search/providers.ts', facts(['pipeline/clients/searxng.ts', 'pipeline/pages/cache.ts'])],
      ['pipeline/mentions/web.ts', facts(['pipeline/search/fallback.ts', 'pipeline/pages/cache.ts'])],
      ['actors/fetcher/index.ts', facts(['actors/fetcher/fetch.ts', 'pipeline/pages/cache.ts', 'actors/parser/index.ts'])],
      ['schemas/api/x.ts', facts(['schemas/errors.ts', 'pipeline/runtime/log.ts'])],
      ['infra/train/t.ts', facts(['pipeline/mentions/classifier.ts', 'main.ts'])],
      ['pipeline/loose.ts', facts([])],
    ]);
    expect(tableViolations(planted).sort()).toEqual(
      [
        'pipeline/runtime/store/records.ts imports pipeline/clients/models/seal.ts: pipeline/runtime/ may import schemas/',
        'pipeline/clients/searxng.ts imports pipeline/search/types.ts: pipeline/clients/ may import schemas/, pipeline/runtime/',
        'pipeline/mentions/web.ts imports pipeline/pages/cache.ts: pipeline/mentions/ may import schemas/, pipeline/runtime/, pipeline/clients/, pipeline/search/',
        'actors/fetcher/index.ts imports actors/parser/index.ts: actors/fetcher/ may import schemas/, pipeline/',
        'schemas/api/x.ts imports pipeline/runtime/log.ts: schemas/api/ may import schemas/',
        'infra/train/t.ts imports main.ts: infra/train/ may import schemas/, pipeline/',
        'pipeline/loose.ts: no row of the import table holds it',
      ].sort(),
    );
    // records.ts → clients and searxng.ts → runtime close one loop, searxng.ts ↔ providers.ts another: one group.
    expect(folderCycles(planted)).toEqual(['pipeline/clients/ <-> pipeline/runtime/ <-> pipeline/search/']);
  });

  it('has a row of the import table for every folder of schemas/, pipeline/, actors/ and infra/', () => {
    const folders = ['schemas', 'pipeline', 'actors', 'infra'].flatMap((top) =>
      readdirSync(join(ROOT, top), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => `${top}/${e.name}/`),
    );
    const rowless = folders.filter((f) => {
      const row = ownerOf(`${f}x.ts`)?.rule.path;
      return row !== f && row !== 'actors/<pool>/';
    });
    expect(rowless).toEqual([]);
  });

  it("reads the import table from docs/architecture.md's folder table, and refuses a May import cell it cannot read", () => {
    expect(IMPORT_RULES.length).toBeGreaterThan(20);
    expect(IMPORT_RULES.find((r) => r.path === 'pipeline/runtime/')?.mayImport).toEqual(['schemas/']);
    expect(parseMayImport('`schemas/`, `pipeline/pages/cache.ts` (why, with `code`, and a comma)')).toEqual(['schemas/', 'pipeline/pages/cache.ts']);
    expect(parseMayImport('nothing')).toEqual([]);
    for (const cell of ['the two above', '`schemas/` and `pipeline/`', '`schemas/`, (why)', 'everything but `main.ts`']) expect(parseMayImport(cell), cell).toBeNull();
    const doc = '## The folders\n\n| Folder | What | May import |\n|---|---|---|\n| `pipeline/x/` | rules | the runtime |\n\n## Next\n';
    expect(() => readImportRules(doc)).toThrow('row pipeline/x/');
  });

  it('docs/architecture.md names only paths that exist', () => {
    const doc = readDoc();
    const named = [
      ...rootPaths(doc),
      ...[...folderTable(doc)].flatMap(([path, cells]) => (path.endsWith('/') && !path.includes('<') ? rowPaths(path, cells.slice(1, -1).join(' ')) : [])),
    ];
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter((p) => !pathExists(p))).toEqual([]);
    // The reading itself: placeholders and braces stand for what exists, a moved file does not.
    const patterns = ['actors/<pool>/index.ts', 'schemas/events/<Event>/v<N>.avsc', 'pipeline/clients/{searxng,serpapi}.ts', 'test/actors/fetcher.*.test.ts'];
    expect(patterns.flatMap(expandBraces).filter((p) => !pathExists(p))).toEqual([]);
    expect(['pipeline/search/types.ts', 'actors/<pool>/nothing.ts', 'schemas/events/<Event>.v<N>.avsc'].filter((p) => pathExists(p))).toEqual([]);
  });

  it('reads process.env in one file only: the settings are parsed once (style habit 9)', () => {
    expect(processEnvReaders()).toEqual(['pipeline/service/config.ts']);
  });

  it('keeps pipeline/ split: the runtime in pipeline/runtime/, product rules and clients in folders of their own', () => {
    const loose = readdirSync(join(ROOT, 'pipeline'), { withFileTypes: true }).filter((e) => !e.isDirectory());
    expect(loose.map((e) => e.name), 'files directly in pipeline/').toEqual([]);
    const folders = readdirSync(join(ROOT, 'pipeline'), { withFileTypes: true }).map((e) => `pipeline/${e.name}`);
    expect(folders.filter((f) => f !== 'pipeline/runtime' && f !== 'pipeline/clients' && !PRODUCT.includes(f))).toEqual([]);
  });

  it('docs/architecture.md names every folder of pipeline/, actors/ and infra/', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const folders = ['pipeline', 'actors', 'infra'].flatMap((top) =>
      readdirSync(join(ROOT, top), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => `${top}/${e.name}/`),
    );
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((f) => !doc.includes(f))).toEqual([]);
  });

  it('names each kind of violation with its file', () => {
    const facts = (f: Partial<SourceFacts>): SourceFacts => ({ local: [], unresolved: [], packages: [], consoleLines: [], ...f });
    const bad: Graph = new Map([
      ['schemas/x.ts', facts({ local: ['pipeline/runtime/log.ts'] })],
      ['pipeline/y.ts', facts({ local: ['gateway/app.ts', 'actors/fetcher/index.ts'], packages: ['kafkajs', 'chdb'] })],
      ['pipeline/runtime/bus/kafka.ts', facts({ packages: ['kafkajs', '@clickhouse/client'] })],
      ['pipeline/runtime/store/chdb.ts', facts({ packages: ['chdb', '@clickhouse/client'] })],
      ['pipeline/runtime/pool.ts', facts({ local: ['pipeline/jobs/record.ts'] })],
      ['pipeline/jobs/record.ts', facts({ local: ['pipeline/runtime/store/store.ts', 'infra/cli/keys.ts'] })],
      ['actors/fetcher/index.ts', facts({ local: ['actors/parser/index.ts', 'actors/fetcher/fetch.ts', 'gateway/replies.ts'] })],
      ['gateway/z.ts', facts({ local: ['main.ts'], unresolved: ['./gone.js'], consoleLines: [7] })],
      ['main.ts', facts({ consoleLines: [3] })],
    ]);
    expect(violations(bad).sort()).toEqual(
      [
        'schemas/x.ts imports pipeline/runtime/log.ts: schemas/ holds pure contracts and imports no other layer',
        'pipeline/y.ts imports gateway/app.ts: pipeline/ imports neither gateway/ nor actors/',
        'pipeline/y.ts imports actors/fetcher/index.ts: pipeline/ imports neither gateway/ nor actors/',
        'pipeline/y.ts imports kafkajs: only pipeline/runtime/bus/ may',
        'pipeline/runtime/bus/kafka.ts imports @clickhouse/client: only pipeline/runtime/store/ may',
        'pipeline/y.ts imports chdb: only pipeline/runtime/store/ and infra/chdb-http/ may',
        'pipeline/runtime/pool.ts imports pipeline/jobs/record.ts: pipeline/runtime/ knows no product rule',
        'pipeline/jobs/record.ts imports infra/cli/keys.ts: infra/ holds tools, which the service never imports',
        'actors/fetcher/index.ts imports actors/parser/index.ts: an actor never imports another actor',
        'actors/fetcher/index.ts imports gateway/replies.ts: an actor never imports the gateway',
        'gateway/z.ts imports main.ts: nothing imports the composition root',
        'gateway/z.ts: import "./gone.js" names no file',
        'gateway/z.ts:7: console; use the pino logger',
      ].sort(),
    );
  });
});
