/**
 * Per-key token buckets in coordination state, so the limit holds across every gateway
 * process: `burst` requests at once, refilled at `perMinute`. An exhausted key gets 429
 * `rate_limited` with `Retry-After` in whole seconds.
 */
import { AppError } from '../pipeline/runtime/errors.js';
import type { State } from '../pipeline/runtime/state/state.js';

export class RateLimiter {
  constructor(
    private readonly state: State,
    private readonly perMinute: number,
    private readonly burst: number,
  ) {}

  /** False when the limit is 0 per minute: `take` always succeeds. */
  get enabled(): boolean {
    return this.perMinute !== 0;
  }

  /** Takes one token for `id` or throws `rate_limited`. A limit of 0 per minute turns it off. */
  async take(id: string): Promise<void> {
    if (!this.enabled) return;
    const result = await this.state.takeToken(`ratelimit:${id}`, {
      capacity: this.burst,
      refillPerSecond: this.perMinute / 60,
    });
    if (result.allowed) return;
    const retryAfter = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
    throw new AppError('rate_limited', `rate limit of ${this.perMinute} requests per minute reached`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}
