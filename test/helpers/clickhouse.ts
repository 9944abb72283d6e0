/**
 * ClickHouse for tests: whether chdb is installed (through the engine policy of engines.ts),
 * throw-away data directories, and the "ClickHouse server" process — chdb's HTTP interface
 * (infra/chdb-http/server.ts) run as its own Node process, which is how the `clickhouse`
 * driver gets a real server to talk to here.
 *
 * chdb binds one data directory per process: a test process that opens a ChdbStore must give
 * every in-process chdb user the same directory; a second directory needs a second process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../pipeline/runtime/log.js';
import { BatchWriter, createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { engine } from './engines.js';
import { spawnTs, type Spawned } from './process.js';

export const CHDB_INSTALL = 'npm install chdb';

/** True when chdb and its native engine load (skips or fails the suite otherwise). */
export function chdbAvailable(): Promise<boolean> {
  return engine(
    'chdb',
    async () => {
      const chdb = await import('chdb');
      return typeof chdb.Session === 'function';
    },
    CHDB_INSTALL,
  );
}

/** A logger that writes nothing (TEST_LOG_LEVEL=debug shows the store's lines). */
export const quietLog = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

export interface TempDir {
  readonly path: string;
  remove(): void;
}

export function tempDir(prefix: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface ClickHouseProcess extends Spawned {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
}

/** Starts `infra/chdb-http/server.ts --data <dataDir> --port 0` and waits until it listens. */
export async function startClickHouseProcess(dataDir: string, extraArgs: string[] = [], timeoutMs = 30000): Promise<ClickHouseProcess> {
  const proc = spawnTs('infra/chdb-http/server.ts', ['--data', dataDir, '--port', '0', ...extraArgs], {});
  try {
    const match = await proc.waitFor(/listening on (http:\/\/[\d.:]+)\n/, timeoutMs);
    return Object.assign(proc, { url: match[1] as string });
  } catch (error) {
    await proc.stop();
    throw error;
  }
}

/** A store on a ClickHouse server of its own (chdb over HTTP in a temp dir), and how to remove both. */
export async function clickhouseHttpStore(prefix: string): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  const dir = tempDir(prefix);
  let server: ClickHouseProcess;
  try {
    server = await startClickHouseProcess(dir.path);
  } catch (error) {
    dir.remove();
    throw error;
  }
  const store = await createStore({ kind: 'clickhouse', url: server.url }, quietLog);
  return {
    store,
    cleanup: async () => {
      await server.stop();
      dir.remove();
    },
  };
}

export interface OpenedStore {
  readonly store: Store;
  readonly writer: BatchWriter;
  /** Closes the writer (flushing it), the store and what `open` started. */
  close(): Promise<void>;
}

/** A store opened by `open`, migrated, with a batch writer over it: a store suite's `beforeAll`. */
export async function openMigrated(
  open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>,
  writerOptions: { maxRows: number; maxDelayMs: number } = { maxRows: 100, maxDelayMs: 5 },
): Promise<OpenedStore> {
  const { store, cleanup } = await open();
  await store.migrate();
  const writer = new BatchWriter(store, writerOptions, quietLog);
  return {
    store,
    writer,
    async close() {
      await writer.close();
      await store.close();
      await cleanup();
    },
  };
}

/** A chdb store in `dir` (this process's one chdb directory), for `openMigrated`. */
export async function chdbIn(dir: TempDir): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  return { store: await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog), cleanup: async () => dir.remove() };
}

/**
 * Declares `body`'s tests twice, each on a migrated store of its own with a batch writer: chdb
 * in this process (embedded mode) and a ClickHouse server served by chdb over HTTP in its own
 * process (distributed mode). Skipped unless `enabled` (`await chdbAvailable()`).
 */
export function describeOnBothStores(name: string, prefix: string, enabled: boolean, body: (opened: () => OpenedStore) => void): void {
  const drivers: [string, () => Promise<{ store: Store; cleanup: () => Promise<void> }>][] = [
    ['chdb in-process', () => chdbIn(tempDir(`${prefix}-chdb`))],
    ['ClickHouse HTTP served by chdb', () => clickhouseHttpStore(`${prefix}-chdb-http`)],
  ];
  for (const [driver, open] of drivers) {
    describe.skipIf(!enabled)(`${name} (${driver})`, () => {
      let opened: OpenedStore | undefined;
      beforeAll(async () => {
        opened = await openMigrated(open);
      });
      afterAll(() => opened?.close());
      body(() => opened as OpenedStore);
    });
  }
}
