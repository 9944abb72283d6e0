/**
 * `npm run bench`: runs every scenario file bench/<scenario>.ts (all but this one, quick.ts, the shared lib.ts, corpus.ts and seeded-random.ts, and gateway-instructions.ts, which needs valgrind)
 * one after another, each in its own process; their JSON lines pass straight through. Exits
 * non-zero when a scenario fails.
 */
import { fork } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const NOT_SCENARIOS = new Set(['run.ts', 'quick.ts', 'lib.ts', 'corpus.ts', 'seeded-random.ts', 'gateway-instructions.ts']);

function runScenario(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = fork(`${dir}${file}`, [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !NOT_SCENARIOS.has(f)).sort();
const failed: string[] = [];
for (const file of files) {
  if ((await runScenario(file)) !== 0) failed.push(file);
}
if (failed.length) {
  process.stderr.write(`bench: failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
