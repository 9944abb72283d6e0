import { Redis } from 'ioredis';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';

export interface RedisLinkOptions {
  /** `redis://[user:password@]host:port/db` or `rediss://…`. */
  url: string;
  log: Logger;
  /** How long `connect()` waits for a first working connection (default 5000). */
  connectTimeoutMs?: number;
  /** Longest pause between reconnect attempts (default 2000). */
  maxRetryDelayMs?: number;
  /** How long one operation may wait, offline or in flight, before it fails (default 5000). */
  commandTimeoutMs?: number;
}

/** The URL as it may be logged: any password replaced by `***`. */
export function safeUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** Exponential backoff from 50 ms, capped at `maxMs`, with ±20% jitter. */
export function retryDelayMs(attempt: number, maxMs: number): number {
  const base = Math.min(maxMs, 50 * 2 ** Math.min(attempt - 1, 20));
  return Math.round(base * (0.8 + 0.4 * Math.random()));
}

/** A reply Redis sent (WRONGTYPE, a script error): the caller's mistake, passed on as is. */
const isReplyError = (error: unknown): boolean => error instanceof Error && error.name === 'ReplyError';

/**
 * One ioredis connection and its lifecycle, for RedisState.
 *
 * - Nothing connects until `connect()`, which resolves on the first ready connection or
 *   rejects with `state_unavailable` after `connectTimeoutMs`, having logged one error line
 *   naming the URL and the last socket error; it then stops reconnecting for good (make a
 *   new link to try again).
 * - Once connected, a lost connection is retried for as long as the process runs, with
 *   capped backoff; the first failure and every tenth after it are logged, and so is the
 *   recovery. Meanwhile each operation fails within `commandTimeoutMs` (or sooner, after one
 *   failed reconnect) with `state_unavailable`, which is retriable.
 * - `run()` maps every failure except a Redis reply error to `state_unavailable`; after
 *   `close()` or a failed `connect()` it rejects at once.
 */
export class RedisLink {
  readonly client: Redis;
  readonly where: string;
  private readonly log: Logger;
  private readonly connectTimeoutMs: number;
  private lastError: Error | null = null;
  private failures = 0;
  /** Set when `connect()` gave up or `close()` ran: every later call fails with it at once. */
  private finished: AppError | null = null;

  constructor(options: RedisLinkOptions) {
    const parsed = new URL(options.url);
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw new TypeError(`state URL must start with redis:// or rediss://, got ${parsed.protocol}`);
    }
    this.where = safeUrl(options.url);
    this.log = options.log;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    const maxRetryDelayMs = options.maxRetryDelayMs ?? 2000;
    this.client = new Redis(options.url, {
      lazyConnect: true,
      connectTimeout: this.connectTimeoutMs,
      commandTimeout: options.commandTimeoutMs ?? 5000,
      maxRetriesPerRequest: 1,
      retryStrategy: (attempt) => (this.finished ? null : this.onRetry(attempt, retryDelayMs(attempt, maxRetryDelayMs))),
    });
    this.client.on('error', (error: Error) => {
      this.lastError = error;
    });
    this.client.on('ready', () => this.onReady());
  }

  private onRetry(attempt: number, delayMs: number): number {
    this.failures += 1;
    if (attempt === 1 || attempt % 10 === 0) {
      this.log.warn(
        { redis: this.where, attempt, delayMs, err: this.lastError?.message },
        `redis at ${this.where} is unreachable (${this.lastError?.message ?? 'connection closed'}); retrying`,
      );
    }
    return delayMs;
  }

  private onReady(): void {
    if (this.failures > 0) this.log.info({ redis: this.where, failures: this.failures }, `redis at ${this.where} is reachable again`);
    this.failures = 0;
  }

  /** Resolves once connected; rejects with `state_unavailable` after `connectTimeoutMs`. */
  connect(): Promise<void> {
    if (this.finished) return Promise.reject(this.finished);
    if (this.client.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const settle = (error?: AppError): void => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('end', onEnd);
        if (error) reject(error);
        else resolve();
      };
      const giveUp = (why: string): void => {
        const cause = this.lastError;
        this.log.error(
          { redis: this.where, waitedMs: this.connectTimeoutMs, err: cause?.message },
          `redis at ${this.where} is unavailable at start: ${why} (last error: ${cause?.message ?? 'none'})`,
        );
        this.finished = new AppError('state_unavailable', `redis at ${this.where} is unavailable: ${why}`, { cause });
        settle(this.finished);
        this.client.disconnect();
      };
      const onReady = (): void => settle();
      const onEnd = (): void => giveUp('the connection ended');
      const timer = setTimeout(() => giveUp(`no connection within ${this.connectTimeoutMs} ms`), this.connectTimeoutMs);
      this.client.on('ready', onReady);
      this.client.on('end', onEnd);
      // The first refusal rejects this promise while ioredis keeps retrying; the events decide.
      if (this.client.status === 'wait' || this.client.status === 'end') this.client.connect().catch(() => {});
    });
  }

  /** Runs one client call; a failure that is not a Redis reply becomes `state_unavailable`. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.finished) throw this.finished;
    try {
      return await call();
    } catch (error) {
      if (isReplyError(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new AppError('state_unavailable', `redis at ${this.where}: ${message}`, { cause: error });
    }
  }

  /** Quits cleanly when connected, otherwise drops the socket and stops reconnecting. */
  async close(): Promise<void> {
    this.finished ??= new AppError('state_unavailable', `redis state for ${this.where} is closed`);
    if (this.client.status === 'ready') {
      await this.client.quit().catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }
}
