/**
 * Batches inserts: ClickHouse wants few large inserts, actors produce many small ones.
 *
 * Contract:
 * - `write(table, rows)` adds rows to the table's open batch and resolves when THOSE rows
 *   are inserted (the store's insert returned), so an actor acks its event only after its
 *   rows landed. When the insert fails, every write in that batch rejects with the store's
 *   error (store_unavailable) and the rows are dropped: the actor retries its event.
 * - A batch is flushed when it reaches `maxRows` rows, or `maxDelayMs` after its first row,
 *   whichever comes first. A single write larger than maxRows is inserted whole.
 * - Per table, batches are inserted one at a time in the order they were opened, so rows of
 *   one writer land in write order (a job's pages in seq order, which keyset paging needs).
 *   Different tables flush independently.
 * - `flush()` inserts every open batch now; `close()` refuses further writes, flushes, and
 *   resolves when every batch has settled.
 */
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from './store.js';

export interface BatchWriterOptions {
  /** Rows at which a table's batch is flushed at once. */
  readonly maxRows: number;
  /** Longest time a row waits for its batch to fill. */
  readonly maxDelayMs: number;
}

type Row = Record<string, unknown>;

interface Batch {
  readonly rows: Row[];
  readonly waiters: { resolve: () => void; reject: (error: unknown) => void }[];
  timer: NodeJS.Timeout | null;
}

export class BatchWriter {
  private readonly open = new Map<string, Batch>();
  /** Per table, the promise of its last scheduled insert (the chain new batches wait on). */
  private readonly tails = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly store: Pick<Store, 'insert'>,
    private readonly options: BatchWriterOptions,
    private readonly log: Logger,
  ) {
    if (!(options.maxRows >= 1) || !(options.maxDelayMs >= 0)) {
      throw new RangeError(`BatchWriter needs maxRows >= 1 and maxDelayMs >= 0 (got ${JSON.stringify(options)})`);
    }
  }

  write(table: string, rows: readonly Row[]): Promise<void> {
    if (this.closed) return Promise.reject(new AppError('service_unavailable', `batch writer is closed (write to ${table})`));
    if (rows.length === 0) return Promise.resolve();
    let batch = this.open.get(table);
    if (!batch) {
      batch = { rows: [], waiters: [], timer: null };
      this.open.set(table, batch);
    }
    for (const row of rows) batch.rows.push(row);
    const landed = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    if (batch.rows.length >= this.options.maxRows) {
      void this.flushTable(table);
    } else if (!batch.timer) {
      batch.timer = setTimeout(() => void this.flushTable(table), this.options.maxDelayMs);
    }
    return landed;
  }

  /** Inserts the table's open batch after the batches before it; never rejects. */
  private flushTable(table: string): Promise<void> {
    const batch = this.open.get(table);
    if (!batch) return this.tails.get(table) ?? Promise.resolve();
    this.open.delete(table);
    if (batch.timer) clearTimeout(batch.timer);
    const previous = this.tails.get(table) ?? Promise.resolve();
    const done = previous.then(async () => {
      try {
        await this.store.insert(table, batch.rows);
        for (const w of batch.waiters) w.resolve();
      } catch (error) {
        this.log.warn({ table, rows: batch.rows.length, writes: batch.waiters.length, err: error }, 'batch insert failed');
        for (const w of batch.waiters) w.reject(error);
      }
    });
    this.tails.set(table, done);
    void done.then(() => {
      if (this.tails.get(table) === done) this.tails.delete(table);
    });
    return done;
  }

  /** Inserts every open batch now; resolves when all scheduled inserts have settled. */
  async flush(): Promise<void> {
    for (const table of [...this.open.keys()]) void this.flushTable(table);
    await Promise.all([...this.tails.values()]);
  }

  /** Refuses further writes and flushes what is open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
