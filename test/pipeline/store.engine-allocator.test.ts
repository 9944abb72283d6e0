/**
 * STORE_MALLOC_CONF (pipeline/runtime/store/engine-allocator.ts): the options reach the engine's
 * own jemalloc, which reads them once when the library loads. This file's process creates its
 * first chdb store before anything else loads the engine (vitest runs each file in a process
 * of its own), so the options it passes are the ones the engine reports.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checkMallocConf } from '../../pipeline/runtime/store/engine-allocator.js';
import { createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { quietLog, tempDir } from '../helpers/clickhouse.js';

const CONF = 'dirty_decay_ms:1000,prof_active:false';
const dir = tempDir('engine-allocator');
let store: Store | null = null;
try {
  store = await createStore({ kind: 'chdb', dataDir: dir.path, mallocConf: CONF }, quietLog);
} catch {
  store = null; // chdb not installed here
}
// Only now: importing chdb.ts loads the engine.
const { ENGINE_SERVER_SETTINGS } = await import('../../pipeline/runtime/store/chdb.js');

describe.skipIf(!store)('pipeline/runtime/store/engine-allocator (chdb)', () => {
  afterAll(async () => {
    await store?.close();
    dir.remove();
  });

  it("gives the engine's jemalloc the options before its library loads", async () => {
    const [row] = await store!.query<Record<string, string>>('SELECT * FROM system.jemalloc_stats');
    const stats = Object.values(row ?? {}).join('\n');
    expect(stats).toContain(`MALLOC_CONF: "${CONF}"`);
    expect(stats).toMatch(/opt\.dirty_decay_ms: 1000\b/);
    expect(stats).toMatch(/opt\.prof_active: false\b/);
  });

  it('gives the engine its server settings (chdb.ts ENGINE_SERVER_SETTINGS) when it starts', async () => {
    const rows = await store!.query<{ name: string; value: string }>(
      'SELECT name, value FROM system.server_settings WHERE has({names:Array(String)}, name)',
      { names: Object.keys(ENGINE_SERVER_SETTINGS) },
    );
    expect(Object.fromEntries(rows.map((r) => [r.name, Number(r.value)]))).toEqual(ENGINE_SERVER_SETTINGS);
  });
});

describe('checkMallocConf', () => {
  it('takes name:value pairs separated by commas', () => {
    expect(() => checkMallocConf(CONF)).not.toThrow();
    expect(() => checkMallocConf('narenas:2')).not.toThrow();
  });

  it('refuses anything else with store_rejected', () => {
    for (const bad of ['dirty_decay_ms', 'dirty_decay_ms:', ':1000', 'a:1,', 'a:1;b:2', 'a:1 ,b:2', 'A:1', 'a:$(x)']) {
      expect(() => checkMallocConf(bad), bad).toThrow(expect.objectContaining({ code: 'store_rejected' }));
    }
  });
});
