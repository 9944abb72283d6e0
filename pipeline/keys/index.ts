/**
 * Which key registry a configuration uses. With a ClickHouse server and Redis (the
 * distributed mode) keys live in the store and balances in state, shared by every process.
 * Otherwise (embedded) they live in the ledger file under DATA_DIR, which the server and
 * `npm run keys` share even though chdb itself admits one process at a time.
 */
import type { RuntimeConfig as Config } from '../runtime/config.js';
import type { Logger } from '../runtime/log.js';
import { createState } from '../runtime/state/index.js';
import type { State } from '../runtime/state/state.js';
import { createStore, type BatchWriter } from '../runtime/store/index.js';
import type { Store } from '../runtime/store/store.js';
import { FileKeyRegistry } from './ledger-file.js';
import type { KeyRegistry } from './registry.js';
import { StoreKeyRegistry } from './store-registry.js';

export type { KeyRecord, KeyRegistry, NewKeyOptions } from './registry.js';

export function sharedKeys(config: Config): boolean {
  return config.store === 'clickhouse' && config.state === 'redis';
}

/** The registry for a process that already has the runtime's store, state and batch writer. */
export function keyRegistryFor(config: Config, engines: { store: Store; state: State; writer?: BatchWriter }): KeyRegistry {
  if (!sharedKeys(config)) return new FileKeyRegistry(config.dataDir);
  const { writer } = engines;
  return new StoreKeyRegistry(engines.store, engines.state, undefined, writer ? (table, rows) => writer.write(table, rows) : undefined);
}

/** A registry for a short-lived process (the keys command line); `close` releases its engines. */
export async function openKeyRegistry(config: Config, log: Logger): Promise<KeyRegistry> {
  if (!sharedKeys(config)) return new FileKeyRegistry(config.dataDir);
  const store = await createStore(
    { kind: 'clickhouse', url: config.clickhouseUrl, username: config.clickhouseUser, password: config.clickhousePassword, database: config.clickhouseDatabase },
    log,
  );
  await store.migrate();
  const state = await createState({ kind: 'redis', url: config.redisUrl, namespace: config.redisNamespace, log });
  return new StoreKeyRegistry(store, state, () => {
    void state.close();
    void store.close();
  });
}
