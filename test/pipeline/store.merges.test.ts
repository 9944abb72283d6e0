/**
 * The embedded store's merge settings (pipeline/runtime/store/merges.ts): set once on every
 * small-insert table of a chdb store, left alone on the next start, never on a server by
 * itself; `applyMergeSelector` sets them on a server whose operator asks (the multi-process
 * tests' chdb-served one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEmbeddedMerges, applyMergeSelector, MERGE_SELECTOR_BASE, SMALL_INSERT_TABLES } from '../../pipeline/runtime/store/merges.js';
import { createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { chdbAvailable, clickhouseHttpStore, quietLog, tempDir, type TempDir } from '../helpers/clickhouse.js';

const hasChdb = await chdbAvailable();

describe.skipIf(!hasChdb)('pipeline/runtime/store/merges (chdb)', () => {
  let dir: TempDir;
  let store: Store;

  beforeAll(async () => {
    dir = tempDir('merges');
    store = await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog);
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    dir?.remove();
  });

  it('sets merge_selector_base on every small-insert table once, and leaves them alone after', async () => {
    expect((await applyEmbeddedMerges(store, quietLog)).sort()).toEqual([...SMALL_INSERT_TABLES].sort());
    for (const table of SMALL_INSERT_TABLES) {
      const [ddl] = await store.query<{ statement: string }>(`SHOW CREATE TABLE ${table}`);
      expect(ddl?.statement, table).toContain(`merge_selector_base = ${MERGE_SELECTOR_BASE}`);
    }
    expect(await applyEmbeddedMerges(store, quietLog)).toEqual([]);
  });

  it('does nothing to a ClickHouse server', async () => {
    const calls: string[] = [];
    const server = { driver: 'clickhouse' as const, query: async () => (calls.push('query'), []), command: async () => void calls.push('command') };
    expect(await applyEmbeddedMerges(server, quietLog)).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('sets them on a ClickHouse server when asked, once, over HTTP', async () => {
    const server = await clickhouseHttpStore('merges-http');
    try {
      await server.store.migrate();
      expect(await applyEmbeddedMerges(server.store, quietLog)).toEqual([]);
      expect((await applyMergeSelector(server.store, quietLog)).sort()).toEqual([...SMALL_INSERT_TABLES].sort());
      const [ddl] = await server.store.query<{ statement: string }>('SHOW CREATE TABLE job_pages');
      expect(ddl?.statement).toContain(`merge_selector_base = ${MERGE_SELECTOR_BASE}`);
      expect(await applyMergeSelector(server.store, quietLog)).toEqual([]);
    } finally {
      await server.cleanup();
    }
  });
});
