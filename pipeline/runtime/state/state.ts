/**
 * Coordination state: small, hot, shared facts that actors and gateways agree on — frontier
 * sets and queues, per-host politeness, job counters, locks, rate limits, credit balances.
 * Two implementations of this one interface: `memory` (one process, embedded mode) and
 * `redis` (ioredis, any number of processes). Every operation is atomic on its own.
 *
 * Keys are plain strings; implementations may prefix them (`namespace`). TTLs are in
 * milliseconds. A key holds one kind of value; using it as another kind is a programming
 * error and implementations may throw.
 */
export interface Lock {
  readonly name: string;
  /** Releases the lock if this holder still owns it; false when it had expired or moved on. */
  release(): Promise<boolean>;
  /** Extends the expiry if this holder still owns it. */
  extend(ttlMs: number): Promise<boolean>;
}

export interface TokenBucketOptions {
  /** Most tokens the bucket holds (burst). */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
  /** Tokens this call takes (default 1). */
  cost?: number;
}

export interface TokenBucketResult {
  allowed: boolean;
  /** Tokens left after this call. */
  remaining: number;
  /** When not allowed: ms until `cost` tokens are available. */
  retryAfterMs: number;
}

/**
 * The keys of one work queue with claims: a crawl or batch job's frontier
 * (actors/frontier/jobs/queue.ts). The `queue*` operations below move an item through them in
 * one atomic step each, so a process killed between two steps leaves no item half-moved:
 * offered (seen, counted and queued, or not at all), claimed (popped, numbered and held, or
 * not at all), settled (released, counted and marked, or not at all). Each step is one script
 * on Redis: on a Redis Cluster the keys must be in one hash slot, so they share one hash tag
 * (`job:{<id>}`, `job:{<id>}:seen`, …).
 */
export interface WorkQueueKeys {
  /** Set: the dedupe key of every item ever offered. */
  readonly seen: string;
  /** List: items waiting to be claimed, oldest first. */
  readonly queue: string;
  /** Hash of counters: `total` (items admitted), `seq` (the last claim number), `inflight` (claims held), and what settling adds. */
  readonly counters: string;
  /** Hash: claim number → item, for claims not settled yet. */
  readonly claims: string;
  /** Hash: claim number → when it was claimed (ms), for claims not settled yet. */
  readonly claimedAt: string;
  /** Set: claim numbers settled (the caller's watermark consumes them). */
  readonly settled: string;
  /** Hash: dedupe key → the smallest rank it was offered with (a crawl's link depth). */
  readonly ranks: string;
}

/** The most offers one `queueAdmitMany` takes (one Redis script holds the server that long). */
export const QUEUE_OFFERS_MAX = 500;

export type Admission = 'added' | 'seen' | 'full';

/** One item offered to a work queue (State.queueAdmitMany): what `queueAdmit` takes of it. */
export interface QueueOffer {
  readonly dedupeKey: string;
  readonly item: string;
  readonly rank: number;
}

export interface Claim {
  /** The claim number: counters.seq after this claim (1, 2, …). */
  readonly seq: number;
  readonly item: string;
  /**
   * Whether a next claim could be taken now: fewer than `maxInflight` held after this one and
   * more queued. False spares the caller the round trip that would answer `busy` or `empty`.
   */
  readonly more: boolean;
}

export interface State {
  // Plain keys and counters.
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  del(...keys: string[]): Promise<number>;
  /** Remaining time to live in ms; -1 when the key has no expiry, -2 when absent. */
  ttl(key: string): Promise<number>;
  expire(key: string, ttlMs: number): Promise<boolean>;
  /** Adds `by` (default 1) to an integer counter, creating it at 0; returns the new value. */
  incr(key: string, by?: number): Promise<number>;
  /**
   * Subtracts `amount` from an integer counter only when the counter is at least `amount`
   * (an absent counter is 0); returns the new value, or null when it was not enough.
   */
  decrIfAtLeast(key: string, amount: number): Promise<number | null>;

  // Sets.
  /** Adds members; returns how many were new. */
  sadd(key: string, ...members: string[]): Promise<number>;
  sismember(key: string, member: string): Promise<boolean>;
  srem(key: string, ...members: string[]): Promise<number>;
  scard(key: string): Promise<number>;

  // Hashes.
  hset(key: string, fields: Record<string, string>): Promise<void>;
  hget(key: string, field: string): Promise<string | null>;
  hgetall(key: string): Promise<Record<string, string>>;
  hincrby(key: string, field: string, by: number): Promise<number>;
  hdel(key: string, ...fields: string[]): Promise<number>;

  // Queues (FIFO lists).
  push(key: string, ...values: string[]): Promise<number>;
  /** Removes and returns up to `count` values from the head. */
  pop(key: string, count: number): Promise<string[]>;
  qlen(key: string): Promise<number>;

  // Schedules (sorted by a numeric score, such as a due time in ms).
  zadd(key: string, score: number, member: string): Promise<void>;
  /** Atomically removes and returns up to `limit` members with score <= maxScore, lowest first. */
  zpopDue(key: string, maxScore: number, limit: number): Promise<{ member: string; score: number }[]>;
  zcard(key: string): Promise<number>;

  // Work queues with claims (WorkQueueKeys), each call one atomic step.
  /**
   * Marks `dedupeKey` seen; when it had not been and `counters.total` is below `limit`,
   * adds one to `total`, queues `item` and records `rank` in `ranks`. `seen`: it had been (its
   * rank is lowered to `rank` if that is smaller); `full`: seen now, not queued.
   */
  queueAdmit(keys: WorkQueueKeys, dedupeKey: string, item: string, limit: number, rank: number): Promise<Admission>;
  /**
   * `queueAdmit` for each offer in order, in one atomic step (one round trip where a page's
   * links would each be one), stopping after the first `full`: the admissions of the offers
   * looked at, the last of them `full` when the queue filled. At most QUEUE_OFFERS_MAX offers.
   */
  queueAdmitMany(keys: WorkQueueKeys, offers: readonly QueueOffer[], limit: number): Promise<Admission[]>;
  /**
   * Takes the queue's head as the next claim number when fewer than `maxInflight` claims are
   * held: `counters.seq` and `counters.inflight` + 1, the item in `claims`, `nowMs` in
   * `claimedAt`. `busy`: `maxInflight` are held; `empty`: nothing is queued. A claim says
   * whether another could follow at once (`more`). With `ended` (a string key sharing the
   * keys' hash tag, such as a job's end latch): `ended` and nothing changes while that key is
   * set or `counters` does not exist (the queue's owner was dropped) — the check a caller
   * would otherwise make in round trips of its own before each claim.
   */
  queueClaim(keys: WorkQueueKeys, maxInflight: number, nowMs: number, ended?: string): Promise<Claim | 'busy' | 'empty' | 'ended'>;
  /**
   * Settles claim `seq` once: drops it from `claims` and `claimedAt`, adds `counts` to the
   * counters and -1 to `inflight`, adds `seq` to `settled`. False when it is not held (settled
   * before, or never claimed): nothing changes. With `marked` (a set sharing the keys' hash
   * tag; see queueAdvance) `seq` is added to it first, whether or not the claim is held: a
   * mark and a settle in one step, where a mark before a settle would be two.
   */
  queueSettle(keys: WorkQueueKeys, seq: number, counts: Readonly<Record<string, number>>, marked?: string): Promise<boolean>;
  /**
   * Moves `counters.watermark` over every consecutive claim number in `settled` past it,
   * taking each out of `settled`, and adds to `counters.listed` how many of them were in the
   * set `marked` (taking them out of it too); returns the watermark. One step where a lock,
   * a read and a write per claim number would be a dozen round trips a settled claim.
   * `marked` shares the keys' hash tag (one Redis Cluster slot), as they share one another's.
   */
  queueAdvance(keys: WorkQueueKeys, marked: string): Promise<number>;

  // Locks and rate limits.
  /** Takes a lock with an expiry; null when someone else holds it. */
  lock(name: string, ttlMs: number): Promise<Lock | null>;
  takeToken(bucket: string, options: TokenBucketOptions): Promise<TokenBucketResult>;

  /**
   * Makes every change made so far durable, for the one implementation that writes behind
   * (FileState: a flush now); absent elsewhere (every call of the others is durable, or
   * nothing is). A caller about to record something outside the state that must not outlive
   * the change (a page's charge after its settle) calls it first.
   */
  durable?(): Promise<void>;

  close(): Promise<void>;
}
