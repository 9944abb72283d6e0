/**
 * Batches inserts: ClickHouse wants few large inserts, actors produce many small ones.
 *
 * Contract:
 * - `write(table, rows)` adds rows to the table's open batch and resolves when THOSE rows
 *   are inserted (the store's insert returned), so an actor acks its event only after its
 *   rows landed. When the insert fails, every write in that batch rejects with the store's
 *   error (store_unavailable) and the rows are dropped: the actor retries its event.
 * - A batch is due when it reaches `maxRows` rows, or `maxDelayMs` after its first row,
 *   whichever comes first. A single write larger than maxRows is inserted whole.
 * - Group commit: a due batch keeps taking rows until its insert actually starts, that is
 *   until the table's previous insert has returned and, with `maxConcurrentInserts`, an
 *   insert slot is free. An idle store sees each batch `maxDelayMs` after its first row, as
 *   before; a busy one sees fewer, larger inserts instead of a queue of small ones, with no
 *   write waiting longer than it would have (it joins a batch that was waiting anyway). A
 *   batch that reaches maxRows while it waits is closed: later rows open the next one.
 *   chdb runs one statement at a time per process, so its runtime gives it one slot: what
 *   would queue inside the engine queues here, where it can still join a batch.
 * - Per table, batches are inserted one at a time in the order they were opened, so rows of
 *   one writer land in write order (a job's pages in seq order, which keyset paging needs).
 *   Different tables flush independently, within the slots.
 * - `flush()` makes every open batch due now; `close()` refuses further writes, flushes, and
 *   resolves when every batch has settled.
 */
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from './store.js';

export interface BatchWriterOptions {
  /** Rows at which a table's batch is flushed at once. */
  readonly maxRows: number;
  /** Longest time a row waits for its batch to fill (on an idle store). */
  readonly maxDelayMs: number;
  /** Inserts running at once across tables (default: no limit). */
  readonly maxConcurrentInserts?: number;
}

type Row = Record<string, unknown>;

interface Batch {
  readonly rows: Row[];
  readonly waiters: { resolve: () => void; reject: (error: unknown) => void }[];
  timer: NodeJS.Timeout | null;
  /** Due: its insert is scheduled (it still takes rows until the insert starts). */
  due: boolean;
}

export class BatchWriter {
  private readonly open = new Map<string, Batch>();
  /** Per table, the promise of its last scheduled insert (the chain new batches wait on). */
  private readonly tails = new Map<string, Promise<void>>();
  private closed = false;
  private running = 0;
  /** Inserts waiting for a slot, oldest first. */
  private readonly slotWaiters: (() => void)[] = [];

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
      batch = { rows: [], waiters: [], timer: null, due: false };
      this.open.set(table, batch);
    }
    for (const row of rows) batch.rows.push(row);
    const landed = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    if (batch.rows.length >= this.options.maxRows) {
      // Full: closed to later rows, which open the next batch.
      this.open.delete(table);
      if (!batch.due) void this.schedule(table, batch);
    } else if (!batch.timer && !batch.due) {
      const open = batch;
      batch.timer = setTimeout(() => void this.schedule(table, open), this.options.maxDelayMs);
    }
    return landed;
  }

  private async slot(): Promise<void> {
    const limit = this.options.maxConcurrentInserts ?? Number.POSITIVE_INFINITY;
    if (this.running < limit) {
      this.running += 1;
      return;
    }
    // The releasing insert hands its slot over (running stays the same).
    await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  private release(): void {
    const next = this.slotWaiters.shift();
    if (next) next();
    else this.running -= 1;
  }

  /**
   * Inserts the batch after the table's batches before it, once a slot is free; until then
   * it stays open to later rows (unless full). Never rejects.
   */
  private schedule(table: string, batch: Batch): Promise<void> {
    batch.due = true;
    if (batch.timer) clearTimeout(batch.timer);
    batch.timer = null;
    const previous = this.tails.get(table) ?? Promise.resolve();
    const done = previous.then(async () => {
      await this.slot();
      // From here on the batch takes no more rows: the next write opens a new one.
      if (this.open.get(table) === batch) this.open.delete(table);
      try {
        await this.store.insert(table, batch.rows);
        for (const w of batch.waiters) w.resolve();
      } catch (error) {
        this.log.warn({ table, rows: batch.rows.length, writes: batch.waiters.length, err: error }, 'batch insert failed');
        for (const w of batch.waiters) w.reject(error);
      } finally {
        this.release();
      }
    });
    this.tails.set(table, done);
    void done.then(() => {
      if (this.tails.get(table) === done) this.tails.delete(table);
    });
    return done;
  }

  /** Makes every open batch due now; resolves when all scheduled inserts have settled. */
  async flush(): Promise<void> {
    for (const [table, batch] of [...this.open]) if (!batch.due) void this.schedule(table, batch);
    await Promise.all([...this.tails.values()]);
  }

  /** Refuses further writes and flushes what is open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
