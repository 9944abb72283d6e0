import type { BucketRule } from './rules.js';
import type { TokenBucketResult } from './state.js';

/**
 * The token-bucket arithmetic, as a pure function. MemoryState runs it directly;
 * RedisState runs the same steps in Lua (redis-scripts.ts, `takeToken`), so a change here
 * must be made there too — the contract suite checks that both agree.
 *
 * A bucket that has never been used, or whose key expired, is full. Tokens refill
 * continuously at `refillPerSecond`, up to `capacity`. A call that finds at least `cost`
 * tokens takes them; otherwise it takes nothing and says how long until there will be
 * enough. `remaining` is rounded down to whole tokens; the stored count keeps fractions.
 */
export interface BucketSnapshot {
  tokens: number;
  /** When `tokens` was last computed (ms, the same clock as `nowMs`). */
  ts: number;
}

export interface BucketStep {
  result: TokenBucketResult;
  next: BucketSnapshot;
  /** How long the bucket must be kept: after this it would be full, the same as absent. */
  keepMs: number;
}

/** Extra time a bucket key lives past the moment it would be full again. */
export const BUCKET_SLACK_MS = 1000;

export function takeFromBucket(rule: BucketRule, stored: BucketSnapshot | null, nowMs: number): BucketStep {
  const { capacity, refillPerSecond, cost } = rule;
  const from = stored ?? { tokens: capacity, ts: nowMs };
  const elapsedMs = Math.max(0, nowMs - from.ts);
  let tokens = Math.min(capacity, from.tokens + (elapsedMs * refillPerSecond) / 1000);
  let allowed = false;
  let retryAfterMs = 0;
  if (tokens >= cost) {
    tokens -= cost;
    allowed = true;
  } else {
    retryAfterMs = Math.ceil(((cost - tokens) * 1000) / refillPerSecond);
  }
  return {
    result: { allowed, remaining: Math.floor(tokens), retryAfterMs },
    next: { tokens, ts: nowMs },
    keepMs: Math.ceil(((capacity - tokens) * 1000) / refillPerSecond) + BUCKET_SLACK_MS,
  };
}
