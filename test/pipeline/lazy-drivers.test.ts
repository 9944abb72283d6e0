/**
 * An embedded service (BUS=memory, STATE=file, STORE=chdb, no model, no MCP client) never
 * loads the packages of the engines and features it does not use: each is imported where it
 * is first needed (bus/index.ts, state/index.ts, store/index.ts, codec/index.ts,
 * clients/models/generate.ts, gateway/mcp/http.ts, main.ts's `mcp` command). Their code would
 * otherwise sit in every process's heap (~15 MB together).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const NOT_LOADED = ['kafkajs', 'ioredis', '@clickhouse/client', '@kafkajs/confluent-schema-registry', '@ai-sdk/openai', '@ai-sdk/anthropic', '@modelcontextprotocol/sdk'];

/** Every module URL a process loads while importing main.ts (an ESM load hook writes them to a file). */
function modulesLoadedByMain(dir: string): string[] {
  const log = join(dir, 'modules.txt');
  const hook = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }`;
  const script = [
    "import { register } from 'node:module';",
    `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`,
    `await import(${JSON.stringify(pathToFileURL(join(ROOT, 'main.ts')).href)});`,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(run.status, run.stderr).toBe(0);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

describe('lazy engine and feature packages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wds-lazy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('importing the service loads none of Kafka, Redis, the ClickHouse client, the model providers or the MCP SDK', () => {
    const urls = modulesLoadedByMain(dir);
    expect(urls.some((u) => u.endsWith('/main.ts'))).toBe(true);
    expect(urls.some((u) => u.includes('/node_modules/fastify/'))).toBe(true);
    for (const name of NOT_LOADED) expect(urls.filter((u) => u.includes(`/node_modules/${name}/`)), name).toEqual([]);
  });
});
