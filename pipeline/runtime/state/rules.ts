import { QUEUE_OFFERS_MAX, type QueueOffer, type TokenBucketOptions } from './state.js';

/**
 * Argument rules and key names shared by both State implementations, so that `memory` and
 * `redis` refuse the same calls and store locks and buckets under the same keys.
 *
 * A broken argument (a TTL of 0, a fractional counter step, a bucket that can never serve
 * its cost) is a programming error: these throw RangeError, not an AppError.
 */

/** The key a lock named `name` is stored under (its value is the holder's token). */
export const lockKey = (name: string): string => `lock:${name}`;

/** The key a token bucket named `name` is stored under (a hash: `tokens`, `ts`). */
export const bucketKey = (name: string): string => `bucket:${name}`;

/** A TTL must be a positive whole number of milliseconds. */
export function checkTtl(ttlMs: number): number {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  }
  return ttlMs;
}

/** Counter steps are whole numbers. */
export function checkInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer, got ${value}`);
  return value;
}

/** Counts and limits are whole numbers of at least 0. */
export function checkCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

/** A batch of work-queue offers: at most QUEUE_OFFERS_MAX, each rank an integer. */
export function checkOffers(offers: readonly QueueOffer[]): readonly QueueOffer[] {
  if (offers.length > QUEUE_OFFERS_MAX) throw new RangeError(`at most ${QUEUE_OFFERS_MAX} offers at once, got ${offers.length}`);
  for (const offer of offers) checkInteger('rank', offer.rank);
  return offers;
}

/** Scores are numbers; ±Infinity is allowed (Redis's `+inf`/`-inf`), NaN is not. */
export function checkScore(score: number): number {
  if (Number.isNaN(score)) throw new RangeError('score must be a number, got NaN');
  return score;
}

export interface BucketRule {
  capacity: number;
  refillPerSecond: number;
  cost: number;
}

/**
 * Capacity and refill rate are positive; cost (default 1) is between 0 and capacity, since a
 * cost above capacity could never be served and no honest `retryAfterMs` exists for it.
 */
export function checkBucket(options: TokenBucketOptions): BucketRule {
  const { capacity, refillPerSecond } = options;
  const cost = options.cost ?? 1;
  if (!Number.isFinite(capacity) || capacity <= 0) throw new RangeError(`capacity must be positive, got ${capacity}`);
  if (!Number.isFinite(refillPerSecond) || refillPerSecond <= 0) {
    throw new RangeError(`refillPerSecond must be positive, got ${refillPerSecond}`);
  }
  if (!Number.isFinite(cost) || cost < 0 || cost > capacity) {
    throw new RangeError(`cost must be between 0 and capacity (${capacity}), got ${cost}`);
  }
  return { capacity, refillPerSecond, cost };
}
