/**
 * The store for a configuration: `chdb` (embedded; the engine in this process, data in
 * `dataDir`, which main.ts sets to DATA_DIR/clickhouse) or `clickhouse` (a server over HTTP).
 * Construction does not run migrations; call `await store.migrate()` at start-up. A chdb
 * store opens its directory here, so a locked directory fails now with store_unavailable.
 *
 * The chdb driver (chdb.ts, and with it the `chdb` package and its 540 MB engine library,
 * ~150 MB resident once loaded) is imported only when a chdb store is created: a process on a
 * ClickHouse server (STORE=clickhouse, every distributed role) never loads the engine.
 * Nothing else may import chdb.ts statically outside the store's own tests and benchmarks.
 * STORE_MALLOC_CONF (`mallocConf`) is handed to the engine's allocator before that import
 * (engine-allocator.ts). Likewise the server driver (clickhouse.ts, @clickhouse/client) is imported only when a
 * server store is asked for: an embedded process never loads it.
 */
import type { Logger } from '../log.js';
import { storeError } from './store-error.js';
import type { Store } from './store.js';

export type { Params, Store } from './store.js';
export { BatchWriter, type BatchWriterOptions } from './batch-writer.js';
export { StoreError } from './store-error.js';

export type StoreOptions =
  | { kind: 'chdb'; dataDir: string; idleReleaseMs?: number; busyReleaseMs?: number; mallocConf?: string }
  | { kind: 'clickhouse'; url: string; username?: string; password?: string; database?: string };

export async function createStore(options: StoreOptions, log: Logger): Promise<Store> {
  const child = log.child({ store: options.kind });
  switch (options.kind) {
    case 'chdb': {
      let driver: typeof import('./chdb.js');
      try {
        // The engine's allocator reads its options when the library loads (engine-allocator.ts).
        if (options.mallocConf) {
          const { checkMallocConf, setEngineMallocConf } = await import('./engine-allocator.js');
          checkMallocConf(options.mallocConf);
          const failed = setEngineMallocConf(options.mallocConf);
          if (failed) child.warn({ reason: failed }, 'the engine allocator options could not be set');
        }
        driver = await import('./chdb.js');
      } catch (error) {
        // chdb not installed, or its engine library not loadable on this platform.
        throw storeError('chdb', error);
      }
      return new driver.ChdbStore(
        { dataDir: options.dataDir, idleReleaseMs: options.idleReleaseMs ?? 0, busyReleaseMs: options.busyReleaseMs ?? 0 },
        child,
      );
    }
    case 'clickhouse': {
      const { ClickHouseStore } = await import('./clickhouse.js');
      return new ClickHouseStore(options, child);
    }
  }
}
