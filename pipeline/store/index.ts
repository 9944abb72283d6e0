/**
 * The store for a configuration: `chdb` (embedded; the engine in this process, data in
 * `dataDir`, which main.ts sets to DATA_DIR/clickhouse) or `clickhouse` (a server over HTTP).
 * Construction does not run migrations; call `await store.migrate()` at start-up. A chdb
 * store opens its directory here, so a locked directory fails now with store_unavailable.
 */
import type { Logger } from '../log.js';
import { ChdbStore } from './chdb.js';
import { ClickHouseStore } from './clickhouse.js';
import type { Store } from './store.js';

export type { Params, Store } from './store.js';
export { BatchWriter, type BatchWriterOptions } from './batch-writer.js';
export { StoreError } from './store-error.js';

export type StoreOptions =
  | { kind: 'chdb'; dataDir: string }
  | { kind: 'clickhouse'; url: string; username?: string; password?: string; database?: string };

export function createStore(options: StoreOptions, log: Logger): Store {
  const child = log.child({ store: options.kind });
  switch (options.kind) {
    case 'chdb':
      return new ChdbStore({ dataDir: options.dataDir }, child);
    case 'clickhouse':
      return new ClickHouseStore(options, child);
  }
}
