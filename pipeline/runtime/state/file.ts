/**
 * Durable state for one process (embedded mode, `STATE=file`): MemoryState's keyspace,
 * written behind to an SQLite file (Node's built-in `node:sqlite`, WAL mode) and loaded from
 * it at start, so a restart keeps the jobs' frontiers, counters, schedules and latches.
 *
 * Every call is served from memory exactly as MemoryState serves it (the same semantics, the
 * same contract suite); the keyspace tells this class of each key and member it changes, and
 * a flush writes what changed since the last one in one transaction, `flushMs` (default
 * FLUSH_MS) after the first change. A flush runs between two calls, never inside one, so the
 * file always holds the whole state as it was at one moment: a work queue's claim, its counter
 * and its item move together or not at all.
 *
 * Durability, what at most is lost (docs/architecture.md, "Durable embedded state"):
 * - the process killed (SIGKILL, a crash, OOM): the changes of the last `flushMs` at most;
 *   a committed transaction is in the WAL file the moment it commits;
 * - the machine losing power: also what the operating system had not written to disk. The
 *   file is opened with `synchronous=NORMAL`, and a checkpoint (which syncs the WAL to disk)
 *   runs at most every `checkpointMs` (default CHECKPOINT_MS) while changes come: the last
 *   second or so.
 *
 * One process owns the file (`locking_mode=EXCLUSIVE`): a second one started on the same
 * DATA_DIR fails at start with `state_unavailable`. Locks (`lock:*`) and the running latches
 * of due schedules (`…:running`, due-schedule.ts) taken by the process before are dropped at
 * load: their holder is gone (a monitor check or watch collection they held is resumed at
 * once, under its own id; its due time's slot is kept, so it is not started twice). Expired
 * keys are not loaded.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { RUNNING_LATCH_SUFFIX } from './due-schedule.js';
import { Fifo } from './fifo.js';
import type { Value } from './memory-keyspace.js';
import { MemoryState } from './memory.js';
import { SortedSet } from './sorted-set.js';
import { TrackedMap, TrackedSet, type KeyTracker } from './tracked.js';

/**
 * `node:sqlite`, loaded when a FileState first opens (memory and Redis state never load it),
 * without the one-line ExperimentalWarning Node 22 prints for it on stderr: the module is
 * stable enough for what this uses (one connection, prepared statements, transactions), and
 * the warning would be the first thing every `npm start` printed.
 */
let sqlite: typeof import('node:sqlite') | null = null;
function loadSqlite(): typeof import('node:sqlite') {
  if (sqlite) return sqlite;
  const emit = process.emitWarning;
  process.emitWarning = function quiet(this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (String(typeof warning === 'string' ? warning : warning?.message).includes('SQLite is an experimental feature')) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    sqlite = createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
  return sqlite;
}

/**
 * How long after a change its flush comes (ms): what a killed process loses at most. 50, not
 * 10: a crawl changes the state several times a page, and five times fewer transactions (each
 * rewriting the same counter and queue pages in the WAL) took the flushes from ~2.9% to ~1.7% of
 * a 10,000-page crawl's busy CPU.
 */
export const FLUSH_MS = 50;
/** How often, at most, the WAL is checkpointed (synced to disk) while changes come (ms). */
export const CHECKPOINT_MS = 1000;

export interface FileStateOptions {
  /** The SQLite file (created with its folder when absent). */
  path: string;
  log?: Logger;
  now?: () => number;
  flushMs?: number;
  checkpointMs?: number;
  sweepIntervalMs?: number;
}

interface Dirty {
  /** The key's row (kind, expiry, string value) is written again. */
  meta: boolean;
  /** Every member is written again (the collection was created or deleted). */
  whole: boolean;
  /** Members changed, when not `whole`. */
  readonly members: Set<string>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS state_keys (key TEXT PRIMARY KEY, kind TEXT NOT NULL, expires_at INTEGER, value TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS state_members (key TEXT NOT NULL, member TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (key, member)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS state_items (key TEXT NOT NULL, pos INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (key, pos)) WITHOUT ROWID;
`;

class Recorder implements KeyTracker {
  readonly dirty = new Map<string, Dirty>();
  loading = true;

  constructor(private readonly onFirst: () => void) {}

  private entry(key: string): Dirty {
    let d = this.dirty.get(key);
    if (!d) {
      d = { meta: false, whole: false, members: new Set() };
      this.dirty.set(key, d);
      if (this.dirty.size === 1) this.onFirst();
    }
    return d;
  }

  key(key: string, members: boolean): void {
    if (this.loading) return;
    const d = this.entry(key);
    d.meta = true;
    if (members) {
      d.whole = true;
      d.members.clear();
    }
  }

  member(key: string, member: string): void {
    if (this.loading) return;
    const d = this.entry(key);
    if (!d.whole) d.members.add(member);
  }
}

export class FileState extends MemoryState {
  private readonly db: DatabaseSync;
  private readonly recorder: Recorder;
  private readonly flushMs: number;
  private readonly checkpointMs: number;
  private readonly log: Logger | undefined;
  private timer: NodeJS.Timeout | null = null;
  private lastCheckpoint = 0;
  /** Per list: the position up to which its items are written. */
  private readonly listEnds = new Map<string, number>();
  private stopped = false;
  private readonly sql: Record<
    'putKey' | 'delKey' | 'putMember' | 'delMember' | 'delMembers' | 'putItem' | 'delItems' | 'delItemsBelow',
    StatementSync
  >;

  private constructor(options: FileStateOptions, recorder: Recorder, db: DatabaseSync) {
    super({
      tracker: recorder,
      ...(options.now ? { now: options.now } : {}),
      ...(options.sweepIntervalMs !== undefined ? { sweepIntervalMs: options.sweepIntervalMs } : {}),
    });
    this.recorder = recorder;
    this.db = db;
    this.flushMs = options.flushMs ?? FLUSH_MS;
    this.checkpointMs = options.checkpointMs ?? CHECKPOINT_MS;
    this.log = options.log;
    this.sql = {
      putKey: db.prepare('INSERT OR REPLACE INTO state_keys (key, kind, expires_at, value) VALUES (?, ?, ?, ?)'),
      delKey: db.prepare('DELETE FROM state_keys WHERE key = ?'),
      putMember: db.prepare('INSERT OR REPLACE INTO state_members (key, member, value) VALUES (?, ?, ?)'),
      delMember: db.prepare('DELETE FROM state_members WHERE key = ? AND member = ?'),
      delMembers: db.prepare('DELETE FROM state_members WHERE key = ?'),
      putItem: db.prepare('INSERT OR REPLACE INTO state_items (key, pos, value) VALUES (?, ?, ?)'),
      delItems: db.prepare('DELETE FROM state_items WHERE key = ?'),
      delItemsBelow: db.prepare('DELETE FROM state_items WHERE key = ? AND pos < ?'),
    };
  }

  /** Opens (or creates) the file and loads the state it holds. */
  static open(options: FileStateOptions): FileState {
    let db: DatabaseSync;
    try {
      mkdirSync(dirname(options.path), { recursive: true });
      db = new (loadSqlite().DatabaseSync)(options.path);
      db.exec('PRAGMA locking_mode = EXCLUSIVE');
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec(SCHEMA);
    } catch (error) {
      throw new AppError('state_unavailable', `the state file ${options.path} cannot be opened (is another process using this DATA_DIR?): ${(error as Error).message}`, {
        cause: error,
      });
    }
    let state: FileState | null = null;
    const recorder = new Recorder(() => state?.schedule());
    state = new FileState(options, recorder, db);
    state.load((options.now ?? Date.now)());
    recorder.loading = false;
    return state;
  }

  private load(nowMs: number): void {
    const { db } = this;
    db.exec('BEGIN');
    db.prepare('DELETE FROM state_keys WHERE expires_at IS NOT NULL AND expires_at <= ?').run(nowMs);
    db.exec(`DELETE FROM state_keys WHERE key >= 'lock:' AND key < 'lock;'`);
    db.prepare(`DELETE FROM state_keys WHERE substr(key, -?) = ?`).run(RUNNING_LATCH_SUFFIX.length, RUNNING_LATCH_SUFFIX);
    db.exec('DELETE FROM state_members WHERE key NOT IN (SELECT key FROM state_keys)');
    db.exec('DELETE FROM state_items WHERE key NOT IN (SELECT key FROM state_keys)');
    db.exec('COMMIT');
    const kinds = new Map<string, Value>();
    const keys = this.keys;
    const tracker = this.recorder;
    for (const row of db.prepare('SELECT key, kind, expires_at, value FROM state_keys').iterate() as Iterable<{
      key: string;
      kind: string;
      expires_at: number | null;
      value: string | null;
    }>) {
      const key = row.key;
      let value: Value;
      if (row.kind === 'string') value = { kind: 'string', data: row.value ?? '' };
      else if (row.kind === 'set') value = { kind: 'set', data: new TrackedSet((m) => tracker.member(key, m)) };
      else if (row.kind === 'hash') value = { kind: 'hash', data: new TrackedMap((f) => tracker.member(key, f)) };
      else if (row.kind === 'zset') value = { kind: 'zset', data: new SortedSet((m) => tracker.member(key, m)) };
      else if (row.kind === 'list') continue; // built from its items below
      else continue;
      kinds.set(key, value);
      keys.restore(key, value, row.expires_at === null ? null : Number(row.expires_at));
    }
    for (const row of db.prepare('SELECT key, member, value FROM state_members').iterate() as Iterable<{ key: string; member: string; value: string }>) {
      const value = kinds.get(row.key);
      if (value?.kind === 'set') value.data.add(row.member);
      else if (value?.kind === 'hash') value.data.set(row.member, row.value);
      else if (value?.kind === 'zset') value.data.add(row.member, Number(row.value));
    }
    const lists = db.prepare(`SELECT key, expires_at FROM state_keys WHERE kind = 'list'`).all() as { key: string; expires_at: number | null }[];
    const items = db.prepare('SELECT pos, value FROM state_items WHERE key = ? ORDER BY pos');
    for (const { key, expires_at } of lists) {
      const rows = items.all(key) as { pos: number; value: string }[];
      if (rows.length === 0) continue;
      const fifo = new Fifo(Number(rows[0]?.pos), () => tracker.member(key, ''));
      fifo.push(rows.map((r) => r.value));
      this.listEnds.set(key, fifo.end);
      keys.restore(key, { kind: 'list', data: fifo }, expires_at === null ? null : Number(expires_at));
    }
  }

  /** A flush `flushMs` from now, unless one is already due. */
  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  /**
   * Writes every change since the last flush in one transaction (the timer calls this; so
   * does close()). A failed write keeps the changes for the next flush and is logged.
   */
  flush(): void {
    const { dirty } = this.recorder;
    if (dirty.size === 0 || this.stopped) return;
    const { db } = this;
    try {
      db.exec('BEGIN');
      try {
        for (const [key, d] of dirty) this.write(key, d);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
      dirty.clear();
      const now = Date.now();
      if (now - this.lastCheckpoint >= this.checkpointMs) {
        this.lastCheckpoint = now;
        db.exec('PRAGMA wal_checkpoint(PASSIVE)');
      }
    } catch (error) {
      this.log?.error({ err: error }, 'the state file could not be written; the changes are kept for the next flush');
      this.schedule();
    }
  }

  private write(key: string, d: Dirty): void {
    const { sql } = this;
    const entry = this.keys.peek(key);
    if (!entry) {
      sql.delKey.run(key);
      sql.delMembers.run(key);
      sql.delItems.run(key);
      this.listEnds.delete(key);
      return;
    }
    if (d.whole) {
      sql.delMembers.run(key);
      sql.delItems.run(key);
      this.listEnds.delete(key);
    }
    const { value, expiresAt } = entry;
    if (d.meta || d.whole) sql.putKey.run(key, value.kind, expiresAt, value.kind === 'string' ? value.data : null);
    switch (value.kind) {
      case 'set':
        for (const m of d.whole ? value.data : d.members) {
          if (value.data.has(m)) sql.putMember.run(key, m, '');
          else sql.delMember.run(key, m);
        }
        break;
      case 'hash':
        for (const f of d.whole ? value.data.keys() : d.members) {
          const v = value.data.get(f);
          if (v !== undefined) sql.putMember.run(key, f, v);
          else sql.delMember.run(key, f);
        }
        break;
      case 'zset':
        for (const m of d.whole ? value.data.members() : d.members) {
          const score = value.data.scoreOf(m);
          if (score !== undefined) sql.putMember.run(key, m, String(score));
          else sql.delMember.run(key, m);
        }
        break;
      case 'list': {
        const fifo = value.data;
        const written = this.listEnds.get(key) ?? fifo.first;
        sql.delItemsBelow.run(key, fifo.first);
        let pos = Math.max(written, fifo.first);
        for (const item of fifo.from(pos)) sql.putItem.run(key, pos++, item);
        this.listEnds.set(key, fifo.end);
        break;
      }
      case 'string':
        break;
    }
  }

  async durable(): Promise<void> {
    this.open();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flush();
  }

  override async close(): Promise<void> {
    if (this.stopped) return super.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flush();
    this.stopped = true;
    await super.close();
    try {
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {
      // Closing is what matters; the WAL is read back at the next open.
    }
    this.db.close();
  }
}
