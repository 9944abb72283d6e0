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
 * - A write may ask for a longer (or shorter) wait than `maxDelayMs`: `write(table, rows,
 *   {maxDelayMs})`. The batch is due at the earliest due time of the writes in it, so a
 *   write that asks for the default wait makes a batch of lazier ones due with it. Writes
 *   that nobody waits on (a derived table, as the local search index) take a long wait: one
 *   large insert a second instead of dozens of small ones, each of which costs the engine a
 *   part to write and later merge.
 * - `pending(table)` is how many rows of the table were written and have not landed yet (in
 *   its open batch or in batches waiting for their insert): a writer that does not wait for
 *   its rows reads it to wait when they pile up.
 * - `flush()` makes every open batch due now (`flush(tables)`: those tables' only); `close()` refuses further writes, flushes, and
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
  /** When the timer fires (performance.now() ms); Infinity without a timer. */
  dueAt: number;
  /** Due: its insert is scheduled (it still takes rows until the insert starts). */
  due: boolean;
}

export interface WriteOptions {
  /** Longest time these rows wait for their batch to fill (default: the writer's maxDelayMs). */
  readonly maxDelayMs?: number;
}

export class BatchWriter {
  private readonly open = new Map<string, Batch>();
  /** Per table, the promise of its last scheduled insert (the chain new batches wait on). */
  private readonly tails = new Map<string, Promise<void>>();
  private closed = false;
  private running = 0;
  /** Inserts waiting for a slot, oldest first. */
  private readonly slotWaiters: (() => void)[] = [];
  /** Per table, rows written and not yet landed (or failed). */
  private readonly unlanded = new Map<string, number>();

  constructor(
    private readonly store: Pick<Store, 'insert'>,
    private readonly options: BatchWriterOptions,
    private readonly log: Logger,
  ) {
    if (!(options.maxRows >= 1) || !(options.maxDelayMs >= 0)) {
      throw new RangeError(`BatchWriter needs maxRows >= 1 and maxDelayMs >= 0 (got ${JSON.stringify(options)})`);
    }
  }

  write(table: string, rows: readonly Row[], options: WriteOptions = {}): Promise<void> {
    if (this.closed) return Promise.reject(new AppError('service_unavailable', `batch writer is closed (write to ${table})`));
    if (rows.length === 0) return Promise.resolve();
    let batch = this.open.get(table);
    if (!batch) {
      batch = { rows: [], waiters: [], timer: null, dueAt: Number.POSITIVE_INFINITY, due: false };
      this.open.set(table, batch);
    }
    for (const row of rows) batch.rows.push(row);
    this.unlanded.set(table, (this.unlanded.get(table) ?? 0) + rows.length);
    const landed = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    if (batch.rows.length >= this.options.maxRows) {
      // Full: closed to later rows, which open the next batch.
      this.open.delete(table);
      if (!batch.due) void this.schedule(table, batch);
    } else if (!batch.due) {
      const delayMs = Math.max(0, options.maxDelayMs ?? this.options.maxDelayMs);
      const dueAt = performance.now() + delayMs;
      if (dueAt < batch.dueAt) {
        // This write's wait ends before the batch's: the batch is due then.
        if (batch.timer) clearTimeout(batch.timer);
        const open = batch;
        batch.dueAt = dueAt;
        batch.timer = setTimeout(() => void this.schedule(table, open), delayMs);
      }
    }
    return landed;
  }

  /** Rows of `table` written and not yet landed (open, or waiting for or in their insert). */
  pending(table: string): number {
    return this.unlanded.get(table) ?? 0;
  }

  private landed(table: string, rows: number): void {
    const left = (this.unlanded.get(table) ?? 0) - rows;
    if (left > 0) this.unlanded.set(table, left);
    else this.unlanded.delete(table);
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
        this.landed(table, batch.rows.length);
        for (const w of batch.waiters) w.resolve();
      } catch (error) {
        this.landed(table, batch.rows.length);
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

  /**
   * Makes every open batch due now (or only those of `tables`); resolves when their scheduled
   * inserts have settled.
   */
  async flush(tables?: readonly string[]): Promise<void> {
    const only = tables ? new Set(tables) : null;
    for (const [table, batch] of [...this.open]) if (!batch.due && (!only || only.has(table))) void this.schedule(table, batch);
    await Promise.all([...this.tails].filter(([table]) => !only || only.has(table)).map(([, tail]) => tail));
  }

  /** Refuses further writes and flushes what is open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}

export interface QueueOptions extends WriteOptions {
  /** Rows of the table not yet landed at or past which the write is waited for after all. */
  readonly maxPendingRows: number;
}

/**
 * A write nobody waits on: the rows go into the table's batch (with `maxDelayMs`, typically a
 * long one) and the promise resolves at once, unless `maxPendingRows` rows of the table are
 * already waiting: then it resolves when these landed, so a caller that outruns the store slows
 * down instead of the queue growing. A failed insert is given to `failed` (never rejected).
 */
export async function queueWrite(
  writer: Pick<BatchWriter, 'write' | 'pending'>,
  table: string,
  rows: readonly Row[],
  options: QueueOptions,
  failed: (error: unknown) => void,
): Promise<void> {
  const behind = writer.pending(table) >= options.maxPendingRows;
  const landed = writer.write(table, rows, options).catch(failed);
  if (behind) await landed;
}

