/**
 * pipeline/runtime/store loads chdb only for a chdb store: the engine library (libchdb.so, ~150 MB
 * resident once loaded) is imported by createStore when STORE=chdb, never by a process on a
 * ClickHouse server (STORE=clickhouse, every distributed role) — whatever else that process
 * imports. Checked on the processes' own memory maps (/proc/<pid>/maps), against chdb's
 * ClickHouse HTTP interface as the server (test/helpers/clickhouse.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../schemas/topics.js';
import { chdbAvailable, startClickHouseProcess, tempDir, type ClickHouseProcess, type TempDir } from '../helpers/clickhouse.js';
import { runTs, spawnTs, type Spawned } from '../helpers/process.js';

const hasChdb = await chdbAvailable();
const hasProc = existsSync('/proc/self/maps');

function mapsLibchdb(pid: number): boolean {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libchdb');
}

describe.skipIf(!hasChdb || !hasProc)('pipeline/runtime/store: chdb is loaded only by a chdb store', () => {
  let dir: TempDir;
  let clickhouse: ClickHouseProcess;

  beforeAll(async () => {
    dir = tempDir('wds-store-loading');
    clickhouse = await startClickHouseProcess(join(dir.path, 'server'));
  });
  afterAll(async () => {
    await clickhouse?.stop();
    dir?.remove();
  });

  const onServer = () => ({ STORE: 'clickhouse', CLICKHOUSE_URL: clickhouse.url, DATA_DIR: join(dir.path, 'data-clickhouse'), LOG_LEVEL: 'warn' });

  it('a main.ts --role gateway process with STORE=clickhouse never maps libchdb; main.ts with STORE=chdb does', async () => {
    // The stand-in server itself runs chdb: the check sees libchdb where it is loaded.
    expect(mapsLibchdb(clickhouse.child.pid!)).toBe(true);
    let gateway: Spawned | null = null;
    let embedded: Spawned | null = null;
    try {
      gateway = await listening(['--role', 'gateway'], onServer());
      expect(mapsLibchdb(gateway.child.pid!)).toBe(false);
      embedded = await listening([], { STORE: 'chdb', DATA_DIR: join(dir.path, 'data-chdb'), LOG_LEVEL: 'warn' });
      expect(mapsLibchdb(embedded.child.pid!)).toBe(true);
    } finally {
      await gateway?.stop();
      await embedded?.stop();
    }
  }, 120_000);

  it('no role maps libchdb with STORE=clickhouse: every role, and all of them in one process, started in turn', async () => {
    const roles = [...ROLES, 'all'];
    const res = await runTs('test/helpers/roles-chdb.ts', roles, { ...onServer(), HOST: '127.0.0.1', PORT: '0' }, 110_000);
    expect(res.code, res.stderr + res.stdout).toBe(0);
    const reports = res.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { role: string; libchdb: boolean });
    expect(reports.map((r) => r.role)).toEqual(roles);
    expect(reports.filter((r) => r.libchdb)).toEqual([]);
  }, 120_000);
});

/** `main.ts <args>` on 127.0.0.1 and a free port, once it listens. */
async function listening(args: string[], env: Record<string, string>): Promise<Spawned> {
  const proc = spawnTs('main.ts', args, { HOST: '127.0.0.1', PORT: '0', ...env });
  try {
    await proc.waitFor(/listening on http:\/\/\S+\n/, 60_000);
    return proc;
  } catch (error) {
    await proc.stop();
    throw error;
  }
}
