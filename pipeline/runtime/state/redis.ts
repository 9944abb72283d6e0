import { keySlot } from './key-slot.js';
import { HeldLock, newLockToken, type LockOps } from './lock.js';
import { RedisLink, type RedisLinkOptions } from './redis-link.js';
import { defineScripts, QUEUE_KEY_ORDER, type StateScripts } from './redis-scripts.js';
import { bucketKey, checkBucket, checkCount, checkInteger, checkOffers, checkScore, checkTtl, lockKey } from './rules.js';
import type { Admission, Claim, Lock, QueueOffer, State, TokenBucketOptions, TokenBucketResult, WorkQueueKeys } from './state.js';
import { BUCKET_SLACK_MS } from './token-bucket.js';

export interface RedisStateOptions extends RedisLinkOptions {
  /**
   * Prefix of every key this State touches (`<namespace>:<key>`), so tenants and test runs
   * can share one Redis database. Letters, digits, `_`, `.` and `-` (default `wds`).
   */
  namespace?: string;
}

/** A score as Redis reads it: ±Infinity is `+inf`/`-inf`. */
function scoreArg(score: number): string {
  if (Number.isFinite(score)) return String(score);
  return score > 0 ? '+inf' : '-inf';
}

/**
 * State shared by any number of processes through one Redis (≥ 6.2: `LPOP key count`).
 *
 * Every command and script touches keys of one hash slot, so the same keys work on a Redis
 * Cluster: a multi-key DEL is sent per slot, and a work queue's keys (WorkQueueKeys, one
 * script) must share a hash tag, as a job's keys do (`job:{<id>}…`, pipeline/jobs/record.ts).
 *
 * Single commands where one suffices (`SET … NX PX` for `setIfAbsent` and `lock`); Lua
 * scripts (redis-scripts.ts) where a read decides a write: `decrIfAtLeast`, lock release
 * and extend (compare the token, then act), `zpopDue` and `takeToken`. Token buckets refill
 * on the Redis server's clock (`TIME` inside the script), never a client's.
 *
 * Call `connect()` before use (createState does); connection failures surface as
 * AppError `state_unavailable`, Redis replies such as WRONGTYPE as they are.
 */
export class RedisState implements State {
  readonly namespace: string;
  private readonly link: RedisLink;
  private readonly scripts: StateScripts;
  private readonly lockOps: LockOps = {
    releaseIfOwner: async (key, token) => (await this.link.run(() => this.scripts.wdsReleaseLock(key, token))) === 1,
    extendIfOwner: async (key, token, ttlMs) => {
      checkTtl(ttlMs);
      return (await this.link.run(() => this.scripts.wdsExtendLock(key, token, ttlMs))) === 1;
    },
  };

  constructor(options: RedisStateOptions) {
    const namespace = options.namespace ?? 'wds';
    if (!/^[A-Za-z0-9_.-]+$/.test(namespace)) {
      throw new TypeError(`namespace must be letters, digits, "_", "." or "-", got "${namespace}"`);
    }
    this.namespace = namespace;
    this.link = new RedisLink(options);
    this.scripts = defineScripts(this.link.client);
  }

  /** Connects, or rejects with `state_unavailable` after `connectTimeoutMs`. */
  connect(): Promise<void> {
    return this.link.connect();
  }

  /** The Redis key for `key`. */
  private k(key: string): string {
    return `${this.namespace}:${key}`;
  }

  private get redis() {
    return this.link.client;
  }

  // ---- plain keys and counters ----------------------------------------------------------

  get(key: string): Promise<string | null> {
    return this.link.run(() => this.redis.get(this.k(key)));
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    if (ttlMs === undefined) {
      await this.link.run(() => this.redis.set(this.k(key), value));
      return;
    }
    const px = checkTtl(ttlMs);
    await this.link.run(() => this.redis.set(this.k(key), value, 'PX', px));
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    if (ttlMs === undefined) return (await this.link.run(() => this.redis.set(this.k(key), value, 'NX'))) === 'OK';
    const px = checkTtl(ttlMs);
    return (await this.link.run(() => this.redis.set(this.k(key), value, 'PX', px, 'NX'))) === 'OK';
  }

  /** One DEL per hash slot among `keys` (key-slot.ts), so it runs on a Redis Cluster too; one DEL when they share a slot. */
  async del(...keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const bySlot = new Map<number, string[]>();
    for (const key of keys) {
      const full = this.k(key);
      const slot = keySlot(full);
      const group = bySlot.get(slot);
      if (group) group.push(full);
      else bySlot.set(slot, [full]);
    }
    const counts = await Promise.all([...bySlot.values()].map((group) => this.link.run(() => this.redis.del(...group))));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  ttl(key: string): Promise<number> {
    return this.link.run(() => this.redis.pttl(this.k(key)));
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    return (await this.link.run(() => this.redis.pexpire(this.k(key), ttlMs))) === 1;
  }

  async incr(key: string, by = 1): Promise<number> {
    checkInteger('by', by);
    return this.link.run(() => this.redis.incrby(this.k(key), by));
  }

  async decrIfAtLeast(key: string, amount: number): Promise<number | null> {
    checkCount('amount', amount);
    const [done, value] = await this.link.run(() => this.scripts.wdsDecrIfAtLeast(this.k(key), amount));
    return done === 1 ? value : null;
  }

  // ---- sets -----------------------------------------------------------------------------

  async sadd(key: string, ...members: string[]): Promise<number> {
    if (members.length === 0) return 0;
    return this.link.run(() => this.redis.sadd(this.k(key), ...members));
  }

  async sismember(key: string, member: string): Promise<boolean> {
    return (await this.link.run(() => this.redis.sismember(this.k(key), member))) === 1;
  }

  async srem(key: string, ...members: string[]): Promise<number> {
    if (members.length === 0) return 0;
    return this.link.run(() => this.redis.srem(this.k(key), ...members));
  }

  scard(key: string): Promise<number> {
    return this.link.run(() => this.redis.scard(this.k(key)));
  }

  // ---- hashes ---------------------------------------------------------------------------

  async hset(key: string, fields: Record<string, string>): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    await this.link.run(() => this.redis.hset(this.k(key), fields));
  }

  hget(key: string, field: string): Promise<string | null> {
    return this.link.run(() => this.redis.hget(this.k(key), field));
  }

  hgetall(key: string): Promise<Record<string, string>> {
    return this.link.run(() => this.redis.hgetall(this.k(key)));
  }

  async hincrby(key: string, field: string, by: number): Promise<number> {
    checkInteger('by', by);
    return this.link.run(() => this.redis.hincrby(this.k(key), field, by));
  }

  async hdel(key: string, ...fields: string[]): Promise<number> {
    if (fields.length === 0) return 0;
    return this.link.run(() => this.redis.hdel(this.k(key), ...fields));
  }

  // ---- queues ---------------------------------------------------------------------------

  async push(key: string, ...values: string[]): Promise<number> {
    if (values.length === 0) return this.qlen(key);
    return this.link.run(() => this.redis.rpush(this.k(key), ...values));
  }

  async pop(key: string, count: number): Promise<string[]> {
    if (checkCount('count', count) === 0) return [];
    return (await this.link.run(() => this.redis.lpop(this.k(key), count))) ?? [];
  }

  qlen(key: string): Promise<number> {
    return this.link.run(() => this.redis.llen(this.k(key)));
  }

  // ---- work queues with claims ---------------------------------------------------------

  private queueKeys(q: WorkQueueKeys): [string, string, string, string, string, string, string] {
    return QUEUE_KEY_ORDER.map((name) => this.k(q[name])) as [string, string, string, string, string, string, string];
  }

  async queueAdmit(q: WorkQueueKeys, dedupeKey: string, item: string, limit: number, rank: number): Promise<Admission> {
    // One offer through the batch's script: the same checks, the same codes.
    const [admission] = await this.queueAdmitMany(q, [{ dedupeKey, item, rank }], limit);
    return admission as Admission;
  }

  async queueAdmitMany(q: WorkQueueKeys, offers: readonly QueueOffer[], limit: number): Promise<Admission[]> {
    checkCount('limit', limit);
    checkOffers(offers);
    if (offers.length === 0) return [];
    const args: (string | number)[] = [];
    for (const offer of offers) args.push(offer.dedupeKey, offer.item, offer.rank);
    const codes = await this.link.run(() => this.scripts.wdsQueueAdmitMany(...this.queueKeys(q), limit, ...args));
    return codes.map((done) => (done === 1 ? 'added' : done === 2 ? 'full' : 'seen'));
  }

  async queueClaim(q: WorkQueueKeys, maxInflight: number, nowMs: number, ended?: string): Promise<Claim | 'busy' | 'empty' | 'ended'> {
    checkCount('maxInflight', maxInflight);
    // Without `ended` the script's eighth key is the counters' own (one slot), not looked at.
    const endKey = this.k(ended ?? q.counters);
    const out = await this.link.run(() => this.scripts.wdsQueueClaim(...this.queueKeys(q), endKey, maxInflight, nowMs, ended === undefined ? 0 : 1));
    if (out[0] === 0) return 'busy';
    if (out[0] === 1) return 'empty';
    if (out[0] === 3) return 'ended';
    return { seq: Number(out[1]), item: out[2], more: out[3] === 1 };
  }

  async queueSettle(q: WorkQueueKeys, seq: number, counts: Readonly<Record<string, number>>, marked?: string): Promise<boolean> {
    const pairs: (string | number)[] = [];
    for (const [name, by] of Object.entries(counts)) if (checkInteger('count', by) !== 0) pairs.push(name, by);
    // Without `marked` the script's eighth key is the settled set's own (one slot), not touched.
    const markKey = this.k(marked ?? q.settled);
    return (await this.link.run(() => this.scripts.wdsQueueSettle(...this.queueKeys(q), markKey, String(seq), marked === undefined ? 0 : 1, ...pairs))) === 1;
  }

  async queueAdvance(q: WorkQueueKeys, marked: string): Promise<number> {
    return Number(await this.link.run(() => this.scripts.wdsQueueAdvance(...this.queueKeys(q), this.k(marked))));
  }

  // ---- schedules ------------------------------------------------------------------------

  async zadd(key: string, score: number, member: string): Promise<void> {
    const arg = scoreArg(checkScore(score));
    await this.link.run(() => this.redis.zadd(this.k(key), arg, member));
  }

  async zpopDue(key: string, maxScore: number, limit: number): Promise<{ member: string; score: number }[]> {
    const max = scoreArg(checkScore(maxScore));
    if (checkCount('limit', limit) === 0) return [];
    const flat = await this.link.run(() => this.scripts.wdsZpopDue(this.k(key), max, limit));
    const out: { member: string; score: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ member: flat[i] as string, score: Number(flat[i + 1]) });
    return out;
  }

  zcard(key: string): Promise<number> {
    return this.link.run(() => this.redis.zcard(this.k(key)));
  }

  // ---- locks and rate limits ------------------------------------------------------------

  async lock(name: string, ttlMs: number): Promise<Lock | null> {
    const token = newLockToken();
    const won = await this.setIfAbsent(lockKey(name), token, ttlMs);
    return won ? new HeldLock(name, this.k(lockKey(name)), token, this.lockOps) : null;
  }

  async takeToken(bucket: string, options: TokenBucketOptions): Promise<TokenBucketResult> {
    const { capacity, refillPerSecond, cost } = checkBucket(options);
    const [allowed, tokens, retryAfterMs] = await this.link.run(() =>
      this.scripts.wdsTakeToken(this.k(bucketKey(bucket)), capacity, refillPerSecond, cost, BUCKET_SLACK_MS),
    );
    return { allowed: allowed === 1, remaining: Math.floor(Number(tokens)), retryAfterMs };
  }

  close(): Promise<void> {
    return this.link.close();
  }
}
