/**
 * The embedded driver: the ClickHouse engine in this process (chdb), its data in one
 * directory on disk (main.ts passes DATA_DIR/clickhouse). Importing this module loads the
 * engine (~150 MB resident): the service reaches it only through createStore (index.ts),
 * which imports it when a chdb store is asked for.
 *
 * Contract, beyond store.ts:
 * - The directory is locked by the process that opens it: a second process gets
 *   `Cannot lock file …/status` (raised here as store_unavailable). In embedded mode only
 *   the server process opens it; other processes reach it through chdb-http.ts. Within one
 *   process chdb binds ONE data directory: every ChdbStore and startChdbHttp in a process
 *   must use the same one.
 * - Every call is asynchronous and runs off the event loop (queryAsync / queryBindAsync /
 *   raw insert). Parameters are bound by the engine (`queryBindAsync`); chdb runs
 *   parameterized statements one at a time per process, plain ones concurrently.
 * - `query` reads JSONEachRow; 64-bit integers come back as strings (wire.ts).
 * - Any failure — open, bad SQL, closed store — rejects with AppError `store_unavailable`
 *   carrying ClickHouse's message and code (store-error.ts).
 */
import { mkdirSync } from 'node:fs';
import { drainPending, Session } from 'chdb';
import type { Logger } from '../log.js';
import { releaseEngineStartupPages } from './code-pages.js';
import { IdleRelease, releaseIdleMemory } from './idle-release.js';
import { migrate } from './migrate.js';
import { StoreError, storeError } from './store-error.js';
import type { Params, Store } from './store.js';
import { bindable, checkTable, jsonEachRow, parseJsonEachRow, SESSION_SETTINGS } from './wire.js';

export interface ChdbStoreOptions {
  /** The engine's own directory (created when missing). */
  readonly dataDir: string;
  /** Memory goes back to the kernel once no call has been in flight this long (idle-release.ts); 0 or unset: never. */
  readonly idleReleaseMs?: number;
  /** While in use, give the same memory back at most this often (ms); 0: only when idle. */
  readonly busyReleaseMs?: number;
}

/**
 * Server settings of the embedded engine, read when it starts (the first connection of the
 * process). `max_thread_pool_free_size`: how many idle threads the engine's global thread pool
 * keeps (ClickHouse's default 1,000, sized for a server). A 10,000-page crawl runs on ~24 of
 * them, but once or twice the engine starts 100–145 at once (as a merge dropped many parts)
 * and, at the default, keeps them for the process's life: 39 → 140–164 threads, each holding
 * its stack and its allocator's thread cache. 32 keeps the crawl's own threads; a burst's
 * should end with it (the engine reports the setting; a full crawl with it was not traced yet).
 */
export const ENGINE_SERVER_SETTINGS = { max_thread_pool_free_size: 32 } as const;

/** SESSION_SETTINGS (applied to every statement of the connection) and ENGINE_SERVER_SETTINGS as engine arguments. */
export function chdbConnectionArgs(): string[] {
  return Object.entries({ ...SESSION_SETTINGS, ...ENGINE_SERVER_SETTINGS }).map(([name, value]) => `--${name}=${value}`);
}

export class ChdbStore implements Store {
  readonly driver = 'chdb' as const;
  readonly dataDir: string;
  private session: Session | null;
  private readonly idle: IdleRelease;

  /** Opens the engine on `dataDir` now, so a locked or unusable directory fails at start-up. */
  constructor(options: ChdbStoreOptions, private readonly log: Logger) {
    this.dataDir = options.dataDir;
    try {
      mkdirSync(options.dataDir, { recursive: true });
      this.session = new Session(options.dataDir, { connectionArgs: chdbConnectionArgs() });
    } catch (error) {
      throw storeError('chdb', error);
    }
    this.idle = new IdleRelease({
      idleMs: options.idleReleaseMs ?? 0,
      busyMs: options.busyReleaseMs ?? 0,
      release: (busy) => releaseIdleMemory(log, busy),
    });
    this.idle.start();
    log.debug({ dataDir: options.dataDir }, 'chdb store opened');
  }

  private live(): Session {
    if (!this.session) throw new StoreError('chdb: the store is closed');
    return this.session;
  }

  private async run(sql: string, params: Params | undefined, format: string): Promise<string> {
    return this.idle.around(() => this.runNow(sql, params, format));
  }

  private async runNow(sql: string, params: Params | undefined, format: string): Promise<string> {
    try {
      const session = this.live();
      const result =
        params && Object.keys(params).length > 0
          ? await session.queryBindAsync(sql, bindable(params), { format })
          : await session.queryAsync(sql, { format });
      return result.text();
    } catch (error) {
      throw storeError('chdb', error);
    }
  }

  /**
   * Applies the migrations, then gives back the engine library's start-up pages
   * (code-pages.ts): start-up is over once the tables exist.
   */
  async migrate(): Promise<string[]> {
    const applied = await migrate(this, this.log);
    releaseEngineStartupPages(this.log);
    return applied;
  }

  async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      const session = this.live();
      await this.idle.around(() => session.insert({ table: checkTable(table), values: Buffer.from(jsonEachRow(rows)), format: 'JSONEachRow' }));
    } catch (error) {
      throw storeError('chdb', error);
    }
  }

  async query<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    return parseJsonEachRow<T>(await this.run(sql, params, 'JSONEachRow'));
  }

  async command(sql: string, params?: Params): Promise<void> {
    await this.run(sql, params, 'TabSeparated');
  }

  /** Releases the connection; resolves once the engine has let go of it. Idempotent. */
  async close(): Promise<void> {
    const session = this.session;
    this.session = null;
    this.idle.stop();
    if (!session) return;
    session.close();
    await drainPending();
    this.log.debug({ dataDir: this.dataDir }, 'chdb store closed');
  }
}
