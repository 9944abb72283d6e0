import { AppError } from '../errors.js';
import { HeldLock, newLockToken, type LockOps } from './lock.js';
import { Keyspace } from './memory-keyspace.js';
import { bucketKey, checkBucket, checkCount, checkInteger, checkOffers, checkScore, checkTtl, lockKey } from './rules.js';
import type { Admission, Claim, Lock, QueueOffer, State, TokenBucketOptions, TokenBucketResult, WorkQueueKeys } from './state.js';
import { takeFromBucket } from './token-bucket.js';
import type { KeyTracker } from './tracked.js';

export interface MemoryStateOptions {
  /** The clock, in ms (default `Date.now`); tests inject their own. */
  now?: () => number;
  /** How often expired keys nobody reads are dropped (default 1000 ms; 0 turns it off). */
  sweepIntervalMs?: number;
  /** Hears of every change (FileState writes them behind). */
  tracker?: KeyTracker;
}

const NOT_INTEGER = 'ERR value is not an integer or out of range';

function parseInteger(value: string | undefined): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n)) throw new Error(NOT_INTEGER);
  return n;
}

/**
 * State for one process (embedded mode), with the semantics of RedisState: every method
 * runs to completion without awaiting, so each one is atomic, and values, expiry, empty
 * collections and errors behave as they do in Redis. The sweep timer is `unref()`ed so it
 * never keeps a process alive. After `close()` every call rejects with `state_unavailable`.
 */
export class MemoryState implements State {
  protected readonly keys: Keyspace;
  private readonly sweeper: NodeJS.Timeout | null;
  private closed = false;
  private readonly lockOps: LockOps = {
    releaseIfOwner: async (key, token) => {
      const keys = this.open();
      return keys.read(key, 'string') === token && keys.delete(key);
    },
    extendIfOwner: async (key, token, ttlMs) => {
      const keys = this.open();
      checkTtl(ttlMs);
      return keys.read(key, 'string') === token && keys.setExpiry(key, keys.now() + ttlMs);
    },
  };

  constructor(options: MemoryStateOptions = {}) {
    this.keys = new Keyspace(options.now ?? Date.now, options.tracker);
    const every = options.sweepIntervalMs ?? 1000;
    this.sweeper = every > 0 ? setInterval(() => this.keys.sweep(), every).unref() : null;
  }

  /** Drops expired keys now; returns how many (the timer calls this too). */
  sweep(): number {
    return this.keys.sweep();
  }

  /** Keys held in memory, expired-but-unswept included. */
  get storedKeys(): number {
    return this.keys.storedKeys;
  }

  protected open(): Keyspace {
    if (this.closed) throw new AppError('state_unavailable', 'memory state is closed');
    return this.keys;
  }

  private expiry(ttlMs: number | undefined): number | null {
    return ttlMs === undefined ? null : this.keys.now() + checkTtl(ttlMs);
  }

  // ---- plain keys and counters ----------------------------------------------------------

  async get(key: string): Promise<string | null> {
    return this.open().read(key, 'string') ?? null;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.open().writeString(key, value, this.expiry(ttlMs));
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const keys = this.open();
    const expiresAt = this.expiry(ttlMs);
    if (keys.has(key)) return false;
    keys.writeString(key, value, expiresAt);
    return true;
  }

  async del(...names: string[]): Promise<number> {
    const keys = this.open();
    return names.filter((key) => keys.has(key) && keys.delete(key)).length;
  }

  async ttl(key: string): Promise<number> {
    const at = this.open().expiresAt(key);
    if (at === undefined) return -2;
    return at === null ? -1 : Math.max(0, Math.ceil(at - this.keys.now()));
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    const keys = this.open();
    return keys.setExpiry(key, keys.now() + checkTtl(ttlMs));
  }

  async incr(key: string, by = 1): Promise<number> {
    const keys = this.open();
    const next = parseInteger(keys.read(key, 'string')) + checkInteger('by', by);
    if (!Number.isSafeInteger(next)) throw new Error(NOT_INTEGER);
    keys.writeString(key, String(next), null, true);
    return next;
  }

  async decrIfAtLeast(key: string, amount: number): Promise<number | null> {
    const keys = this.open();
    const current = parseInteger(keys.read(key, 'string'));
    if (current < checkCount('amount', amount)) return null;
    keys.writeString(key, String(current - amount), null, true);
    return current - amount;
  }

  // ---- sets -----------------------------------------------------------------------------

  async sadd(key: string, ...members: string[]): Promise<number> {
    if (members.length === 0) return 0;
    const set = this.open().collection(key, 'set');
    const before = set.size;
    for (const member of members) set.add(member);
    return set.size - before;
  }

  async sismember(key: string, member: string): Promise<boolean> {
    return this.open().read(key, 'set')?.has(member) ?? false;
  }

  async srem(key: string, ...members: string[]): Promise<number> {
    const keys = this.open();
    const set = keys.read(key, 'set');
    if (!set) return 0;
    const removed = members.filter((member) => set.delete(member)).length;
    keys.dropIfEmpty(key, set.size);
    return removed;
  }

  async scard(key: string): Promise<number> {
    return this.open().read(key, 'set')?.size ?? 0;
  }

  // ---- hashes ---------------------------------------------------------------------------

  async hset(key: string, fields: Record<string, string>): Promise<void> {
    const entries = Object.entries(fields);
    if (entries.length === 0) return;
    const hash = this.open().collection(key, 'hash');
    for (const [field, value] of entries) hash.set(field, value);
  }

  async hget(key: string, field: string): Promise<string | null> {
    return this.open().read(key, 'hash')?.get(field) ?? null;
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    return Object.fromEntries(this.open().read(key, 'hash') ?? []);
  }

  async hincrby(key: string, field: string, by: number): Promise<number> {
    const keys = this.open();
    checkInteger('by', by);
    return this.addToCounter(keys, key, field, by);
  }

  async hdel(key: string, ...fields: string[]): Promise<number> {
    const keys = this.open();
    const hash = keys.read(key, 'hash');
    if (!hash) return 0;
    const removed = fields.filter((field) => hash.delete(field)).length;
    keys.dropIfEmpty(key, hash.size);
    return removed;
  }

  // ---- queues ---------------------------------------------------------------------------

  async push(key: string, ...values: string[]): Promise<number> {
    const keys = this.open();
    if (values.length === 0) return keys.read(key, 'list')?.length ?? 0;
    return keys.collection(key, 'list').push(values);
  }

  async pop(key: string, count: number): Promise<string[]> {
    const keys = this.open();
    const list = keys.read(key, 'list');
    if (!list || checkCount('count', count) === 0) return [];
    const out = list.shift(count);
    keys.dropIfEmpty(key, list.length);
    return out;
  }

  async qlen(key: string): Promise<number> {
    return this.open().read(key, 'list')?.length ?? 0;
  }

  // ---- work queues with claims (each method runs without awaiting: one atomic step) -----

  private addToCounter(keys: Keyspace, key: string, field: string, by: number): number {
    const next = parseInteger(keys.read(key, 'hash')?.get(field)) + by;
    if (!Number.isSafeInteger(next)) throw new Error(NOT_INTEGER);
    keys.collection(key, 'hash').set(field, String(next));
    return next;
  }

  async queueAdmit(q: WorkQueueKeys, dedupeKey: string, item: string, limit: number, rank: number): Promise<Admission> {
    checkCount('limit', limit);
    checkInteger('rank', rank);
    return this.admitOne(this.open(), q, dedupeKey, item, limit, rank);
  }

  async queueAdmitMany(q: WorkQueueKeys, offers: readonly QueueOffer[], limit: number): Promise<Admission[]> {
    checkCount('limit', limit);
    checkOffers(offers);
    const keys = this.open();
    const out: Admission[] = [];
    for (const offer of offers) {
      const admission = this.admitOne(keys, q, offer.dedupeKey, offer.item, limit, offer.rank);
      out.push(admission);
      if (admission === 'full') break;
    }
    return out;
  }

  private admitOne(keys: Keyspace, q: WorkQueueKeys, dedupeKey: string, item: string, limit: number, rank: number): Admission {
    const seen = keys.collection(q.seen, 'set');
    if (seen.has(dedupeKey)) {
      const ranks = keys.read(q.ranks, 'hash');
      const held = ranks?.get(dedupeKey);
      if (ranks && held !== undefined && rank < Number(held)) ranks.set(dedupeKey, String(rank));
      return 'seen';
    }
    seen.add(dedupeKey);
    if (parseInteger(keys.read(q.counters, 'hash')?.get('total')) >= limit) return 'full';
    this.addToCounter(keys, q.counters, 'total', 1);
    keys.collection(q.queue, 'list').push([item]);
    keys.collection(q.ranks, 'hash').set(dedupeKey, String(rank));
    return 'added';
  }

  async queueClaim(q: WorkQueueKeys, maxInflight: number, nowMs: number, ended?: string): Promise<Claim | 'busy' | 'empty' | 'ended'> {
    const keys = this.open();
    checkCount('maxInflight', maxInflight);
    const counters = keys.read(q.counters, 'hash');
    if (ended !== undefined && (keys.read(ended, 'string') !== undefined || counters === undefined)) return 'ended';
    if (parseInteger(counters?.get('inflight')) >= maxInflight) return 'busy';
    const list = keys.read(q.queue, 'list');
    if (!list || list.length === 0) return 'empty';
    const [item] = list.shift(1) as [string];
    keys.dropIfEmpty(q.queue, list.length);
    const seq = this.addToCounter(keys, q.counters, 'seq', 1);
    const inflight = this.addToCounter(keys, q.counters, 'inflight', 1);
    keys.collection(q.claims, 'hash').set(String(seq), item);
    keys.collection(q.claimedAt, 'hash').set(String(seq), String(nowMs));
    return { seq, item, more: inflight < maxInflight && list.length > 0 };
  }

  async queueSettle(q: WorkQueueKeys, seq: number, counts: Readonly<Record<string, number>>, marked?: string): Promise<boolean> {
    const keys = this.open();
    for (const by of Object.values(counts)) checkInteger('count', by);
    const field = String(seq);
    if (marked !== undefined) keys.collection(marked, 'set').add(field);
    const claims = keys.read(q.claims, 'hash');
    if (!claims?.delete(field)) return false;
    keys.dropIfEmpty(q.claims, claims.size);
    const at = keys.read(q.claimedAt, 'hash');
    if (at?.delete(field)) keys.dropIfEmpty(q.claimedAt, at.size);
    for (const [name, by] of Object.entries(counts)) if (by !== 0) this.addToCounter(keys, q.counters, name, by);
    this.addToCounter(keys, q.counters, 'inflight', -1);
    keys.collection(q.settled, 'set').add(field);
    return true;
  }

  async queueAdvance(q: WorkQueueKeys, marked: string): Promise<number> {
    const keys = this.open();
    let mark = parseInteger(keys.read(q.counters, 'hash')?.get('watermark'));
    const settled = keys.read(q.settled, 'set');
    const stored = keys.read(marked, 'set');
    let listed = 0;
    const start = mark;
    while (settled?.delete(String(mark + 1))) {
      mark += 1;
      if (stored?.delete(String(mark))) listed += 1;
    }
    if (mark === start) return mark;
    keys.dropIfEmpty(q.settled, settled?.size ?? 0);
    keys.dropIfEmpty(marked, stored?.size ?? 0);
    keys.collection(q.counters, 'hash').set('watermark', String(mark));
    if (listed > 0) this.addToCounter(keys, q.counters, 'listed', listed);
    return mark;
  }

  // ---- schedules ------------------------------------------------------------------------

  async zadd(key: string, score: number, member: string): Promise<void> {
    this.open().collection(key, 'zset').add(member, checkScore(score));
  }

  async zpopDue(key: string, maxScore: number, limit: number): Promise<{ member: string; score: number }[]> {
    const keys = this.open();
    const zset = keys.read(key, 'zset');
    if (!zset || checkCount('limit', limit) === 0) return [];
    const out = zset.popUpTo(checkScore(maxScore), limit);
    keys.dropIfEmpty(key, zset.size);
    return out;
  }

  async zcard(key: string): Promise<number> {
    return this.open().read(key, 'zset')?.size ?? 0;
  }

  // ---- locks and rate limits ------------------------------------------------------------

  async lock(name: string, ttlMs: number): Promise<Lock | null> {
    const token = newLockToken();
    const won = await this.setIfAbsent(lockKey(name), token, ttlMs);
    return won ? new HeldLock(name, lockKey(name), token, this.lockOps) : null;
  }


  async takeToken(bucket: string, options: TokenBucketOptions): Promise<TokenBucketResult> {
    const keys = this.open();
    const rule = checkBucket(options);
    const key = bucketKey(bucket);
    const hash = keys.read(key, 'hash');
    const tokens = Number(hash?.get('tokens'));
    const ts = Number(hash?.get('ts'));
    const stored = Number.isFinite(tokens) && Number.isFinite(ts) ? { tokens, ts } : null;
    const now = keys.now();
    const step = takeFromBucket(rule, stored, now);
    keys.collection(key, 'hash').set('tokens', String(step.next.tokens)).set('ts', String(step.next.ts));
    keys.setExpiry(key, now + step.keepMs);
    return step.result;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.keys.clear();
  }
}
