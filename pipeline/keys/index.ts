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
import { LEDGER_BATCH_MS, StoreKeyRegistry } from './store-registry.js';

export type { KeyRecord, KeyRegistry, NewKeyOptions } from './registry.js';

export function sharedKeys(config: Config): boolean {
  return config.store === 'clickhouse' && config.state === 'redis';
}

/**
 * The registry for a process that already has the runtime's store, state and batch writer.
 * `batchCharges` (the actors, which charge a crawl's pages one by one): a charge joins a
 * `credit_ledger` batch of up to LEDGER_BATCH_MS without the caller waiting for it, held in
 * state's pending ledger until it lands (store-registry.ts). The gateway's charges are
 * written before its answer, so a caller reading the ledger next finds them.
 */
export function keyRegistryFor(
  config: Config,
  engines: { store: Store; state: State; writer?: BatchWriter; log?: Logger },
  options: { batchCharges?: boolean } = {},
): KeyRegistry {
  if (!sharedKeys(config)) return new FileKeyRegistry(config.dataDir);
  const { writer, log } = engines;
  return new StoreKeyRegistry(engines.store, engines.state, {
    ...(writer ? { writer } : {}),
    ...(writer && options.batchCharges ? { ledgerDelayMs: LEDGER_BATCH_MS } : {}),
    ...(log ? { log: log.child({ component: 'keys' }) } : {}),
  });
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
  return new StoreKeyRegistry(store, state, {
    onClose: () => {
      void state.close();
      void store.close();
    },
  });
}
