/**
 * The DDL files: `infra/clickhouse/NNNN_name.sql` at the repository root, applied in version
 * order. A file holds one or more statements, each ending with `;` at the end of a line;
 * `--` comment lines never end a statement. The directory is found relative to this module
 * by walking up to the directory holding package.json, so it resolves the same from source
 * (tsx: pipeline/runtime/store/) and from the build (dist/pipeline/store/).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StoreError } from './store-error.js';

export interface Migration {
  readonly version: number;
  /** The file name without `.sql`, e.g. `0001_init`. */
  readonly name: string;
  readonly statements: readonly string[];
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** The nearest directory at or above `start` that holds package.json. */
export function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new StoreError(`no package.json above ${start}; cannot locate infra/clickhouse`, { rejected: true });
    dir = parent;
  }
}

/** infra/clickhouse of the package this module belongs to. */
export function migrationsDir(moduleUrl: string = import.meta.url): string {
  return join(findPackageRoot(dirname(fileURLToPath(moduleUrl))), 'infra', 'clickhouse');
}

/** Statements of one file: split at `;` ending a non-comment line; comment-only chunks dropped. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  const finish = () => {
    const text = current.join('\n').trim();
    const hasCode = current.some((line) => line.trim() !== '' && !line.trim().startsWith('--'));
    if (hasCode) statements.push(text);
    current = [];
  };
  for (const line of sql.split(/\r?\n/)) {
    const trimmed = line.trimEnd();
    if (!trimmed.trimStart().startsWith('--') && trimmed.endsWith(';')) {
      current.push(trimmed.slice(0, -1));
      finish();
    } else {
      current.push(line);
    }
  }
  finish();
  return statements;
}

/** Every migration in `dir`, in version order. Rejects duplicate versions and stray .sql names. */
export function readMigrations(dir: string = migrationsDir()): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
    const match = FILE_NAME.exec(file);
    if (!match) throw new StoreError(`migration file ${file} in ${dir} is not named NNNN_name.sql`, { rejected: true });
    const version = Number(match[1]);
    if (migrations.some((m) => m.version === version)) throw new StoreError(`two migrations have version ${version} in ${dir}`, { rejected: true });
    migrations.push({ version, name: file.slice(0, -4), statements: splitStatements(readFileSync(join(dir, file), 'utf8')) });
  }
  return migrations;
}
