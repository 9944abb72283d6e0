/**
 * The build's second step (`npm run build`, after tsc): copies the files the built modules
 * read beside themselves into dist, where tsc does not put them: the dashboard's page and
 * its scripts (`gateway/dashboard/static/`) and its SQL (`pipeline/dashboard/queries.sql`).
 * Run from the built file (`node dist/infra/build/copy-assets.js`), so the build needs
 * nothing but tsc and Node.
 */
import { cpSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Source paths (from the package root) copied to the same path under dist/. */
export const ASSETS = ['gateway/dashboard/static', 'pipeline/dashboard/queries.sql'] as const;

/** The package root: the nearest directory above this file holding package.json. */
function packageRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export function copyAssets(root: string, out = join(root, 'dist')): string[] {
  for (const path of ASSETS) cpSync(join(root, path), join(out, path), { recursive: true });
  return ASSETS.map((path) => join(out, path));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  copyAssets(packageRoot(dirname(fileURLToPath(import.meta.url))));
}
