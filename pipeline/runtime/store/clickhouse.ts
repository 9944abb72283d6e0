/**
 * The distributed driver: a ClickHouse server over HTTP through @clickhouse/client.
 *
 * Contract, beyond store.ts:
 * - Parameters travel as `param_<name>` (the client's `query_params`) and are bound by the
 *   server; values are normalized first (wire.ts) so both drivers send the same text.
 * - Inserts are `INSERT INTO <table> FORMAT JSONEachRow` with the rows as the body; query
 *   results are JSONEachRow with 64-bit integers as strings (SESSION_SETTINGS on every
 *   request).
 * - Request and response bodies are gzip-compressed unless `compression: false`; request
 *   bodies (inserts: a page's HTML and document) at REQUEST_GZIP_LEVEL 1, not zlib's default 6:
 *   on pages' text it costs about two thirds of the CPU for about 5% more bytes
 *   (bench/README.md "Scaling apart").
 * - The database must exist; migrate() creates tables in it, not the database itself. A
 *   migration may copy data (0008 fills a table from another), so its statements run on a
 *   client of their own with MIGRATION_TIMEOUT_MS, not the per-request timeout.
 * - Any failure — HTTP, socket, ClickHouse exception — rejects with AppError
 *   `store_unavailable` carrying ClickHouse's message and code (store-error.ts). The client's
 *   own log lines go to the pino logger, never to the console.
 */
import {
  ClickHouseLogLevel,
  createClient,
  type ClickHouseSettings,
  type ClickHouseClient,
  type ErrorLogParams,
  type Logger as ClientLogger,
  type LogParams,
  type WarnLogParams,
} from '@clickhouse/client';
import type { Logger } from '../log.js';
import { migrate } from './migrate.js';
import { storeError } from './store-error.js';
import type { Params, Store } from './store.js';
import { bindable, checkTable, SESSION_SETTINGS, toJson } from './wire.js';

export interface ClickHouseStoreOptions {
  /** HTTP(S) endpoint, e.g. http://localhost:8123 */
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly database?: string;
  /** Per-request timeout; default 30 s (migrations: MIGRATION_TIMEOUT_MS at least). */
  readonly requestTimeoutMs?: number;
  /** gzip request and response bodies; default true. */
  readonly compression?: boolean;
  /** Settings sent with every request besides SESSION_SETTINGS. */
  readonly settings?: ClickHouseSettings;
}

/** gzip level of request bodies: 1 costs ~0.65× the CPU of zlib's default 6 on page text, for ~5% more bytes. */
export const REQUEST_GZIP_LEVEL = 1;

/** How long one migration statement may take. */
export const MIGRATION_TIMEOUT_MS = 30 * 60_000;

/**
 * The options of the client migrations run on: the store's, with at least MIGRATION_TIMEOUT_MS a
 * request, and the server sending progress headers every 60 s while a statement runs, so a
 * proxy's idle timeout does not cut a long one.
 */
export function migrationOptions(options: ClickHouseStoreOptions): ClickHouseStoreOptions {
  return {
    ...options,
    requestTimeoutMs: Math.max(options.requestTimeoutMs ?? 0, MIGRATION_TIMEOUT_MS),
    settings: { ...options.settings, send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '60000' },
  };
}

/** The client's logger interface, writing into `log`. */
function loggerClass(log: Logger): new () => ClientLogger {
  const line = (p: LogParams & { err?: Error }) => ({ module: p.module, ...p.args, ...(p.err ? { err: p.err } : {}) });
  return class PinoClientLogger implements ClientLogger {
    trace(p: LogParams) {
      log.trace(line(p), p.message);
    }
    debug(p: LogParams) {
      log.debug(line(p), p.message);
    }
    info(p: LogParams) {
      log.info(line(p), p.message);
    }
    warn(p: WarnLogParams) {
      log.warn(line(p), p.message);
    }
    // A failed request is also thrown to the caller, which decides how loud to be.
    error(p: ErrorLogParams) {
      log.debug(line(p), p.message);
    }
  };
}

export class ClickHouseStore implements Store {
  readonly driver = 'clickhouse' as const;
  private readonly client: ClickHouseClient;
  private closed = false;

  constructor(
    private readonly options: ClickHouseStoreOptions,
    private readonly log: Logger,
  ) {
    const compression = options.compression ?? true;
    this.client = createClient({
      url: options.url,
      username: options.username ?? 'default',
      password: options.password ?? '',
      database: options.database ?? 'default',
      request_timeout: options.requestTimeoutMs ?? 30_000,
      compression: { request: compression ? { codec: 'gzip', level: REQUEST_GZIP_LEVEL } : false, response: compression },
      clickhouse_settings: { ...SESSION_SETTINGS, ...options.settings },
      json: { stringify: toJson },
      log: { LoggerClass: loggerClass(log), level: ClickHouseLogLevel.WARN },
    });
  }

  private async guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      if (this.closed) throw new Error('the store is closed');
      return await run();
    } catch (error) {
      throw storeError('clickhouse', error);
    }
  }

  async migrate(): Promise<string[]> {
    if (this.closed) throw storeError('clickhouse', new Error('the store is closed'));
    const runner = new ClickHouseStore(migrationOptions(this.options), this.log);
    try {
      return await migrate(runner, this.log);
    } finally {
      await runner.close();
    }
  }

  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    return this.guard(async () => {
      if (rows.length === 0) return;
      await this.client.insert({ table: checkTable(table), values: rows as Record<string, unknown>[], format: 'JSONEachRow' });
    });
  }

  query<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    return this.guard(async () => {
      const result = await this.client.query({ query: sql, format: 'JSONEachRow', ...(params ? { query_params: bindable(params) } : {}) });
      return result.json<T>();
    });
  }

  command(sql: string, params?: Params): Promise<void> {
    return this.guard(async () => {
      await this.client.command({ query: sql, ...(params ? { query_params: bindable(params) } : {}) });
    });
  }

  /** Closes the client's sockets. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
  }
}
