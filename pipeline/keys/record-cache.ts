/**
 * The key records a process answers `get` from (pipeline/keys/store-registry.ts), so a crawl's
 * page events do not each send a `SELECT … FROM api_keys FINAL`:
 *
 * - A record (or "no such key") read within `ttlMs` is answered as it was read; 0: never kept,
 *   every get reads the record as it is now.
 * - The gets that miss a record at once share one read: the page events a frontier handles
 *   together all miss when a record's TTL ends (3.7 reads a refresh in a two-parser drain
 *   before they shared one, bench/README.md "The ClickHouse server's statements in a drain").
 * - `forget` drops what is kept under the names given, and a read that began before it is
 *   answered but not kept: a write through this process shows at once. A failed read is not kept.
 * - At most `maxEntries` are kept; past it the longest-read one goes.
 */
export class RecordCache<T> {
  /** What was read, by the name it was asked for, with when it was read. */
  private readonly records = new Map<string, { value: T | null; at: number }>();
  /** Reads under way, by name. */
  private readonly reading = new Map<string, Promise<T | null>>();
  /** Moves on every `forget`: a read that started before it is not kept. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  /** The record of `name`: kept, or shared with a read under way, or read by `read` now. */
  get(name: string, read: () => Promise<T | null>): Promise<T | null> {
    if (this.ttlMs === 0) return read();
    const now = this.now();
    const kept = this.records.get(name);
    if (kept && now - kept.at < this.ttlMs) return Promise.resolve(kept.value);
    const under = this.reading.get(name);
    if (under) return under;
    const generation = this.generation;
    const reading = read()
      .then((value) => {
        // A write through this process since the read began: its answer may predate it.
        if (generation === this.generation) {
          this.records.delete(name);
          if (this.records.size >= this.maxEntries) this.records.delete(this.records.keys().next().value as string);
          this.records.set(name, { value, at: now });
        }
        return value;
      })
      .finally(() => {
        if (this.reading.get(name) === reading) this.reading.delete(name);
      });
    this.reading.set(name, reading);
    return reading;
  }

  /** Drops what is kept or being read under `names`. */
  forget(...names: string[]): void {
    this.generation++;
    for (const name of names) {
      this.records.delete(name);
      this.reading.delete(name);
    }
  }
}
