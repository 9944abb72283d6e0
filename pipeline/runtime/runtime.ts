/**
 * The runtime a process runs on, built from config: bus, codec, events, store, state and
 * blob store. Embedded defaults (memory bus, chdb, memory state) and the distributed engines
 * (Kafka, ClickHouse server, Redis) implement the same interfaces, so everything above this
 * file is the same code in both modes.
 */
import { join } from 'node:path';
import type { Role } from '../../schemas/topics.js';
import { MemoryBlobs, StoreBlobs, type BlobStore } from './blobs.js';
import type { Bus } from './bus/bus.js';
import { createBus } from './bus/index.js';
import type { EventCodec } from './codec/codec.js';
import { createCodec } from './codec/index.js';
import type { RuntimeConfig } from './config.js';
import { Events } from './events.js';
import type { Logger } from './log.js';
import { meteredBus, meteredInserts } from './metrics/metered.js';
import { Metrics } from './metrics/metrics.js';
import type { State } from './state/state.js';
import { createState } from './state/index.js';
import type { Store } from './store/store.js';
import { BatchWriter, createStore } from './store/index.js';
import { applyEmbeddedMerges } from './store/merges.js';
import { applyJobRetention } from './store/retention.js';

/** Encoded events above this size travel by reference when the bus is Kafka. */
export const KAFKA_INLINE_LIMIT_BYTES = 512 * 1024;

/** `C`: the config the process was started with; the runtime itself reads only its own part. */
export interface Runtime<C extends RuntimeConfig = RuntimeConfig> {
  readonly config: C;
  readonly log: Logger;
  readonly bus: Bus;
  readonly codec: EventCodec;
  readonly events: Events;
  readonly store: Store;
  readonly state: State;
  readonly blobs: BlobStore;
  /** Batched inserts for rows written often and read later (ledger entries, pages). */
  readonly writer: BatchWriter;
  /** This process's metrics (metrics/metrics.ts): the bus and the writer count into it, the pools and the gateway too. */
  readonly metrics: Metrics;
  close(): Promise<void>;
}

/** The file of STATE=file, in DATA_DIR. */
export const STATE_FILE = 'state.sqlite';

/** Rows at which a table's batch is sent at once; how long it waits otherwise is STORE_BATCH_MAX_DELAY_MS. */
export const BATCH_MAX_ROWS = 1000;
/** Inserts at once into the embedded engine (store/batch-writer.ts: group commit). */
export const CHDB_INSERT_SLOTS = 1;

/** Closes what start-up opened so far, newest first; failures to close are not the story. */
async function closeAll(opened: readonly (() => Promise<void>)[]): Promise<void> {
  for (const close of [...opened].reverse()) await close().catch(() => undefined);
}

/**
 * Builds the runtime, each engine ready (store migrated, state and bus connected). When a
 * step fails, what the earlier steps opened is closed before the error is rethrown, so a
 * failed start leaves no chdb lock, Redis connection or Kafka client behind in the process.
 */
export async function createRuntime<C extends RuntimeConfig>(config: C, log: Logger, role: Role | 'all'): Promise<Runtime<C>> {
  const codec = await createCodec(config.schemaRegistryUrl ? { registryUrl: config.schemaRegistryUrl } : {});
  const opened: (() => Promise<void>)[] = [];
  try {
    const store =
      config.store === 'chdb'
        ? await createStore(
            {
              kind: 'chdb',
              dataDir: join(config.dataDir, 'clickhouse'),
              idleReleaseMs: config.storeIdleReleaseMs,
              busyReleaseMs: config.storeBusyReleaseMs,
              mallocConf: config.storeMallocConf,
            },
            log,
          )
        : await createStore(
            {
              kind: 'clickhouse',
              url: config.clickhouseUrl,
              username: config.clickhouseUser,
              password: config.clickhousePassword,
              database: config.clickhouseDatabase,
            },
            log,
          );
    opened.push(() => store.close());
    const applied = await store.migrate();
    if (applied.length) log.info({ migrations: applied }, 'store migrations applied');
    await applyJobRetention(store, config.jobRetentionHours, log);
    await applyEmbeddedMerges(store, log);
    const state =
      config.state === 'redis'
        ? await createState({ kind: 'redis', url: config.redisUrl, namespace: config.redisNamespace, log })
        : config.state === 'file'
          ? await createState({ kind: 'file', path: join(config.dataDir, STATE_FILE), log })
          : await createState({ kind: 'memory' });
    opened.push(() => state.close());
    const metrics = new Metrics();
    const engine =
      config.bus === 'kafka'
        ? await createBus({
            kind: 'kafka',
            brokers: config.kafkaBrokers.split(',').map((b) => b.trim()).filter(Boolean),
            clientId: `${config.kafkaClientId}-${role}`,
            connectTimeoutMs: config.kafkaConnectTimeoutMs,
            sessionTimeoutMs: config.kafkaSessionTimeoutMs,
            heartbeatIntervalMs: Math.max(500, Math.floor(config.kafkaSessionTimeoutMs / 10)),
            leaderSyncDelayMs: config.kafkaLeaderSyncDelayMs,
            maxWaitTimeMs: config.kafkaFetchMaxWaitMs,
            log,
          })
        : await createBus({ kind: 'memory', log });
    opened.push(() => engine.close());
    const bus = meteredBus(engine, metrics);
    // chdb runs one statement at a time: one insert slot, so batches grow while it is busy.
    const insertSlots = store.driver === 'chdb' ? { maxConcurrentInserts: CHDB_INSERT_SLOTS } : {};
    const writer = new BatchWriter(meteredInserts(store, metrics), { maxRows: BATCH_MAX_ROWS, maxDelayMs: config.storeBatchMaxDelayMs, ...insertSlots }, log);
    opened.push(() => writer.close());
    const blobs: BlobStore = bus.kind === 'kafka' ? new StoreBlobs(store) : new MemoryBlobs();
    const events = new Events(bus, codec, blobs, bus.kind === 'kafka' ? KAFKA_INLINE_LIMIT_BYTES : Number.POSITIVE_INFINITY);
    await events.ensureTopics();
    return {
      config,
      log,
      bus,
      codec,
      events,
      store,
      state,
      blobs,
      writer,
      metrics,
      async close() {
        await bus.close();
        await writer.close();
        await state.close();
        await store.close();
      },
    };
  } catch (error) {
    await closeAll(opened);
    throw error;
  }
}
