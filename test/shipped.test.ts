/**
 * What ships is what runs: every module under `schemas/`, `pipeline/`, `actors/` and `gateway/`
 * is reached by an import chain from the composition root (`main.ts`) or from a command-line
 * tool (`infra/cli/`). Code that only tests, benchmarks or generators use (samples, fixtures,
 * fakes) lives in `test/`, `bench/` or `infra/`, not in a shipped folder.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHIPPED = ['schemas', 'pipeline', 'actors', 'gateway'];

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The repository files `file` imports (static, re-exported, type-only and dynamic). */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) specifiers.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s.replace(/\.js$/, '.ts'))).split('\\').join('/'))
    .filter((p) => existsSync(join(ROOT, p)));
}

/** Every file reached from `roots` through imports. */
export function reached(roots: readonly string[], imports: (file: string) => string[] = importsOf): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...imports(file));
  }
  return seen;
}

describe('what ships', () => {
  it('every module of a shipped folder is used by the service or its command-line tools', () => {
    const roots = ['main.ts', ...walk('infra/cli')];
    const live = reached(roots);
    const shipped = SHIPPED.flatMap((d) => walk(d));
    expect(shipped.length).toBeGreaterThan(100);
    const unused = shipped.filter((f) => !live.has(f));
    expect(unused, 'shipped modules nothing in the service imports (move test-only code to test/, bench/ or infra/)').toEqual([]);
  });

  it('finds a module only a test imports', () => {
    const graph: Record<string, string[]> = { 'main.ts': ['pipeline/a.ts'], 'pipeline/a.ts': ['pipeline/b.ts'], 'test/x.test.ts': ['pipeline/samples.ts'] };
    const live = reached(['main.ts'], (f) => graph[f] ?? []);
    expect(['pipeline/a.ts', 'pipeline/b.ts', 'pipeline/samples.ts'].filter((f) => !live.has(f))).toEqual(['pipeline/samples.ts']);
  });
});
