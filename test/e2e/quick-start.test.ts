/**
 * The README's quick start, as a newcomer runs it: the start command is read from the quick
 * start block and run exactly as written (`sh -c`, in the checkout, no tsx and no helper), with
 * no API_KEY, a fresh DATA_DIR, FETCH_ALLOW_PRIVATE so it may read a local fixture site, and a
 * free port. It must print where it listens and the key it made; that key scrapes a page;
 * /docs and /v1/openapi.json answer; SIGTERM to the service stops it, and the command exits 0; started again on the
 * same data directory it prints no new key and the first one still works; the README's
 * `npm run keys -- list` lists that key.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { processGroup, REPO_ROOT, spawnCommand, type Exit, type Spawned } from '../helpers/process.js';
import { scrape } from '../helpers/scrape.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The first fenced block after `## Quick start`, as lines without their `#` comments. */
function quickStartCommands(): string[] {
  const section = README.slice(README.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

const START = quickStartCommands().find((line) => /\bnpm start\b/.test(line)) ?? '';
/** `npm run keys -- list`, as the README's keys section writes it. */
const KEYS_LIST = /^(npm run keys -- list)\b/m.exec(README)?.[1] ?? '';

let site: FixtureSite;
let dataDir = '';
const running: Spawned[] = [];

function start(): Spawned {
  const proc = spawnCommand(START, { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', FETCH_ALLOW_PRIVATE: '1' });
  running.push(proc);
  return proc;
}

async function listening(proc: Spawned): Promise<string> {
  const match = await proc.waitFor(/listening on (http:\/\/[\w.:-]+)\n/, 240_000);
  await proc.waitFor(/API reference: \S+\n/, 5_000);
  return match[1] as string;
}

/**
 * SIGTERM to the service's own process (`node dist/main.js`, started by npm through a shell),
 * as `kill PID` or a service manager sends it; the command line then ends with its exit code.
 */
async function terminate(proc: Spawned): Promise<Exit> {
  const service = processGroup(proc.child.pid ?? -1).filter((p) => p.argv.some((a) => a.endsWith('dist/main.js')) && !p.argv.includes('-c'));
  expect(service.map((p) => p.argv.join(' '))).toEqual(['node dist/main.js']);
  process.kill((service[0] as { pid: number }).pid, 'SIGTERM');
  return proc.exited;
}

beforeAll(async () => {
  site = await startFixtureSite();
  dataDir = mkdtempSync(join(tmpdir(), 'wds-quick-start-'));
});

afterAll(async () => {
  for (const proc of running) await proc.stop(10_000);
  await site?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('e2e/quick-start', () => {
  it('the README names one start command and the keys list command', () => {
    expect(START).toBe('npm install && npm start');
    expect(KEYS_LIST).toBe('npm run keys -- list');
  });

  it('starts as the README says, prints a key that works, stops on SIGTERM and starts again with the same key', async () => {
    const first = start();
    const base = await listening(first);
    const key = (await first.waitFor(/Your API key[^\n]*:\n(wds_\S+)\n/, 5_000))[1] as string;

    const scraped = await scrape(base, key, { url: site.url('/html'), formats: ['markdown'] });
    expect(scraped.status, JSON.stringify(scraped.body)).toBe(200);
    expect(scraped.body.data.markdown).toContain('Hello fixture');

    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('Web Data Service API reference');
    const openapi = await fetch(`${base}/v1/openapi.json`);
    expect(openapi.status).toBe(200);
    const doc = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/v1/scrape');

    expect(await terminate(first)).toEqual({ code: 0, signal: null });
    expect(first.stdout()).toContain('"msg":"shutting down"');

    const second = start();
    const again = await listening(second);
    const rescraped = await scrape(again, key, { url: site.url('/html'), formats: ['markdown'] });
    expect(rescraped.status, JSON.stringify(rescraped.body)).toBe(200);
    expect(second.stdout()).not.toContain('Your API key');
    expect(await terminate(second)).toEqual({ code: 0, signal: null });

    const list = spawnCommand(KEYS_LIST, { DATA_DIR: dataDir });
    running.push(list);
    expect(await list.exited).toEqual({ code: 0, signal: null });
    expect(list.stdout()).toContain(key.slice(0, 12));
  }, 600_000);
});
