/**
 * Per-key token buckets: `burst` requests at once, refilled at `perMinute`. An exhausted key
 * gets 429 `rate_limited` with `Retry-After` in whole seconds.
 */
import { AppError } from '../pipeline/errors.js';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `id` or throws `rate_limited`. A limit of 0 per minute turns it off. */
  take(id: string): void {
    if (this.perMinute === 0) return;
    const now = this.now();
    const ratePerMs = this.perMinute / 60000;
    const bucket = this.buckets.get(id) ?? { tokens: this.burst, updatedMs: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.updatedMs) * ratePerMs);
    bucket.updatedMs = now;
    this.buckets.set(id, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000));
    throw new AppError('rate_limited', `rate limit of ${this.perMinute} requests per minute reached`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}
