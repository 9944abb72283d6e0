/**
 * An embedded service (BUS=memory, STATE=file, STORE=chdb, no model, no MCP client) never
 * loads the packages of the engines and features it does not use: each is imported where it
 * is first needed (bus/index.ts, state/index.ts, store/index.ts, codec/index.ts,
 * clients/models/generate.ts, gateway/mcp/http.ts, main.ts's `mcp` command). Their code would
 * otherwise sit in every process's heap (~15 MB together). The AI SDK itself (`ai`, with zod:
 * ~8 MB; clients/models/errors.ts recognises its errors by their marker) and tinyld's language
 * profiles (~8 MB; mentions/match.ts loads them at the first post whose language it reads) wait
 * for their first use the same way. And the command line
 * (`main.js <command>`) loads neither the gateway nor any actor: main.ts imports each when its
 * part starts, so a command starts in a fraction of the service's import time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const NOT_LOADED = ['kafkajs', 'ioredis', '@clickhouse/client', '@kafkajs/confluent-schema-registry', '@ai-sdk/openai', '@ai-sdk/anthropic', '@modelcontextprotocol/sdk', 'ai', 'zod', 'tinyld'];

/** main.ts and what the embedded service imports when it starts: the gateway and every actor. */
const SERVICE_MODULES = ['main.ts', 'gateway/app.ts', ...readdirSync(join(ROOT, 'actors'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `actors/${e.name}/index.ts`)];

/** Every module URL a process loads while importing `modules` (an ESM load hook writes them to a file). */
function modulesLoaded(dir: string, name: string, modules: readonly string[]): string[] {
  const log = join(dir, `${name}.txt`);
  const hook = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }`;
  const script = [
    "import { register } from 'node:module';",
    `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`,
    ...modules.map((m) => `await import(${JSON.stringify(pathToFileURL(join(ROOT, m)).href)});`),
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(run.status, run.stderr).toBe(0);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

describe('lazy engine and feature packages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wds-lazy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the service\'s modules load none of Kafka, Redis, the ClickHouse client, the AI SDK and its providers, tinyld or the MCP SDK', () => {
    const urls = modulesLoaded(dir, 'service', SERVICE_MODULES);
    expect(urls.some((u) => u.endsWith('/main.ts'))).toBe(true);
    expect(urls.some((u) => u.endsWith('/actors/parser/index.ts'))).toBe(true);
    expect(urls.some((u) => u.includes('/node_modules/fastify/'))).toBe(true);
    for (const name of NOT_LOADED) expect(urls.filter((u) => u.includes(`/node_modules/${name}/`)), name).toEqual([]);
  });

  it('importing main.ts, as the command line does, loads no actor, no gateway module and not Fastify', () => {
    const urls = modulesLoaded(dir, 'main', ['main.ts']);
    expect(urls.some((u) => u.endsWith('/main.ts'))).toBe(true);
    expect(urls.filter((u) => /\/(actors|gateway)\/[^?]*\.ts/.test(u) && !u.includes('/node_modules/'))).toEqual([]);
    expect(urls.filter((u) => u.includes('/node_modules/fastify/'))).toEqual([]);
  });
});
