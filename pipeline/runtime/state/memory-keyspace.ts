import { Fifo } from './fifo.js';
import { SortedSet } from './sorted-set.js';
import { TrackedMap, TrackedSet, type KeyTracker } from './tracked.js';

/**
 * The data behind MemoryState: one map of keys to typed values, each with an optional
 * expiry on the injected clock. Expiry is enforced lazily — a read of an expired key deletes
 * it and reports it absent — and `sweep()` drops the expired keys nobody reads.
 *
 * Like Redis, a key holds one kind of value; asking for another kind throws the WRONGTYPE
 * error, and a collection left empty is deleted (with its expiry).
 */
export interface Kinds {
  string: string;
  set: Set<string>;
  hash: Map<string, string>;
  list: Fifo;
  zset: SortedSet;
}

export type Kind = keyof Kinds;

export type Value = { [K in Kind]: { kind: K; data: Kinds[K] } }[Kind];

interface Entry {
  value: Value;
  /** Absolute time on the clock, or null for no expiry. */
  expiresAt: number | null;
}

type Collections = { [K in Exclude<Kind, 'string'>]: (key: string) => Kinds[K] };

const EMPTY: Collections = {
  set: () => new Set(),
  hash: () => new Map(),
  list: () => new Fifo(),
  zset: () => new SortedSet(),
};

/** Collections that tell `tracker` of each member they change (FileState's write-behind). */
function trackedCollections(tracker: KeyTracker): Collections {
  return {
    set: (key) => new TrackedSet((member) => tracker.member(key, member)),
    hash: (key) => new TrackedMap((field) => tracker.member(key, field)),
    list: (key) => new Fifo(0, () => tracker.member(key, '')),
    zset: (key) => new SortedSet((member) => tracker.member(key, member)),
  };
}

export const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';

export class Keyspace {
  private readonly entries = new Map<string, Entry>();
  /** Keys that carry an expiry: what `sweep()` walks. */
  private readonly expiring = new Set<string>();

  private readonly empty: Collections;

  /**
   * `tracker`, when given, hears of every change: a key written, deleted, created or given an
   * expiry, and each member of a collection added, changed or removed (FileState persists them).
   */
  constructor(
    readonly now: () => number,
    private readonly tracker?: KeyTracker,
  ) {
    this.empty = tracker ? trackedCollections(tracker) : EMPTY;
  }

  /** The entry at `key` as stored, expired or not (what FileState writes). */
  peek(key: string): { value: Value; expiresAt: number | null } | undefined {
    return this.entries.get(key);
  }

  /** Every stored key (FileState's full write). */
  allKeys(): IterableIterator<string> {
    return this.entries.keys();
  }

  /** Puts a restored entry in place without telling the tracker (FileState's load). */
  restore(key: string, value: Value, expiresAt: number | null): void {
    this.entries.set(key, { value, expiresAt });
    if (expiresAt !== null) this.expiring.add(key);
  }

  /** An empty collection of `kind` for `key`, tracked like the ones this keyspace creates. */
  emptyCollection<K extends Exclude<Kind, 'string'>>(key: string, kind: K): Kinds[K] {
    return this.empty[kind](key) as Kinds[K];
  }

  /** The live entry at `key`, deleting it first when it has expired. */
  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= this.now()) {
      this.delete(key);
      return undefined;
    }
    return entry;
  }

  has(key: string): boolean {
    return this.live(key) !== undefined;
  }

  /** The value at `key` when it is of `kind`; undefined when absent; throws on another kind. */
  read<K extends Kind>(key: string, kind: K): Kinds[K] | undefined {
    const entry = this.live(key);
    if (!entry) return undefined;
    if (entry.value.kind !== kind) throw new Error(WRONGTYPE);
    return entry.value.data as Kinds[K];
  }

  /** The collection at `key`, created empty (without expiry) when absent. */
  collection<K extends Exclude<Kind, 'string'>>(key: string, kind: K): Kinds[K] {
    const found = this.read(key, kind);
    if (found !== undefined) return found;
    const data = this.empty[kind](key) as Kinds[K];
    this.entries.set(key, { value: { kind, data } as Value, expiresAt: null });
    this.tracker?.key(key, true);
    return data;
  }

  /** Replaces whatever is at `key` with a string. `keepTtl` keeps a live key's expiry. */
  writeString(key: string, data: string, expiresAt: number | null, keepTtl = false): void {
    const previous = keepTtl ? this.live(key) : undefined;
    this.delete(key);
    this.entries.set(key, { value: { kind: 'string', data }, expiresAt: previous?.expiresAt ?? expiresAt });
    if ((previous?.expiresAt ?? expiresAt) !== null) this.expiring.add(key);
    this.tracker?.key(key, false);
  }

  delete(key: string): boolean {
    this.expiring.delete(key);
    const deleted = this.entries.delete(key);
    if (deleted) this.tracker?.key(key, true);
    return deleted;
  }

  /** Deletes the collection at `key` when it has become empty. */
  dropIfEmpty(key: string, size: number): void {
    if (size === 0) this.delete(key);
  }

  /** Expiry time of a live key: null when it has none, undefined when the key is absent. */
  expiresAt(key: string): number | null | undefined {
    return this.live(key)?.expiresAt;
  }

  /** Sets a live key's expiry; false when the key is absent. */
  setExpiry(key: string, expiresAt: number): boolean {
    const entry = this.live(key);
    if (!entry) return false;
    entry.expiresAt = expiresAt;
    this.expiring.add(key);
    this.tracker?.key(key, false);
    return true;
  }

  /** Deletes every expired key; returns how many. */
  sweep(): number {
    let dropped = 0;
    for (const key of [...this.expiring]) {
      if (this.entries.has(key) && !this.live(key)) dropped += 1;
    }
    return dropped;
  }

  /** How many keys are stored, expired-but-unswept included (for tests and metrics). */
  get storedKeys(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.expiring.clear();
  }
}
