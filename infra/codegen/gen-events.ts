/**
 * `npm run gen:events`: writes schemas/events/types.generated.ts and each event's
 * schemas/events/<EventName>/types.generated.ts from the newest version of every event schema.
 *
 *   npm run gen:events                 regenerate the types
 *   npm run gen:events -- --check      exit 1 (and change nothing) when the file is stale
 *   npm run gen:events -- --fixtures   also write the wire fixture of each event's newest
 *                                      version (test/fixtures/events/), where none exists;
 *                                      existing fixtures are never rewritten
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { findPackageRoot, loadEventDefinitions, eventSchemasDir } from '../../schemas/events/load.js';
import { GENERATED_TYPES_PATH, renderEventTypes } from './generate-types.js';

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { check: { type: 'boolean' }, fixtures: { type: 'boolean' } } });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const root = findPackageRoot();
  const rendered = Object.entries(renderEventTypes(loadEventDefinitions(eventSchemasDir(root))));
  const stale = rendered.filter(([path, text]) => readOrEmpty(join(root, path)) !== text).map(([path]) => path);
  if (values.check) {
    out(stale.length === 0 ? `the event types (${GENERATED_TYPES_PATH} and each <Event>/types.generated.ts): every file is up to date` : `stale: ${stale.join(', ')}: run npm run gen:events`);
    return stale.length === 0 ? 0 : 1;
  }
  for (const [path, text] of rendered) if (stale.includes(path)) writeFileSync(join(root, path), text);
  out(stale.length === 0 ? 'the event types: unchanged' : `written: ${stale.join(', ')}`);
  if (values.fixtures) {
    // Loaded only now: the fixtures use the event registry, which checks the generated file.
    const { writeMissingFixtures } = await import('./event-fixtures.js');
    for (const line of writeMissingFixtures(root)) out(line);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`gen:events: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
