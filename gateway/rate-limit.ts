/**
 * Per-key token buckets in coordination state, so the limit holds across every gateway
 * process: `burst` requests at once, refilled at `perMinute`. An exhausted key gets 429
 * `rate_limited` with `Retry-After` in whole seconds.
 *
 * Requests with an unknown or revoked key have no key to count against: they are counted per
 * client address instead (`InvalidKeyLimiter`, INVALID_KEYS_PER_MINUTE and _BURST), so one
 * address cannot try keys, nor make the registry look them up, without bound.
 */
import { AppError } from '../pipeline/runtime/errors.js';
import type { State } from '../pipeline/runtime/state/state.js';

/** Token buckets in coordination state, `burst` at once, refilled at `perMinute`; 0 per minute turns them off. */
abstract class Buckets {
  constructor(
    protected readonly state: State,
    protected readonly perMinute: number,
    protected readonly burst: number,
  ) {}

  /** False when the limit is 0 per minute: nothing is counted or refused. */
  get enabled(): boolean {
    return this.perMinute !== 0;
  }

  /** Takes `cost` tokens (0: only looks) from `bucket`. */
  protected takeFrom(bucket: string, cost = 1): ReturnType<State['takeToken']> {
    return this.state.takeToken(bucket, { capacity: this.burst, refillPerSecond: this.perMinute / 60, cost });
  }
}

export class RateLimiter extends Buckets {
  /** Takes one token for `id` or throws `rate_limited`. A limit of 0 per minute turns it off. */
  async take(id: string): Promise<void> {
    if (!this.enabled) return;
    const result = await this.takeFrom(`ratelimit:${id}`);
    if (result.allowed) return;
    const retryAfter = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
    throw new AppError('rate_limited', `rate limit of ${this.perMinute} requests per minute reached`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}

/**
 * Invalid keys per client address, in the same token buckets: each unknown or revoked key an
 * address presents takes a token (`failed`); once its bucket is empty, that address's next
 * keys are refused with 429 before the registry is asked (`admit`, which takes nothing), until
 * the bucket refills. Keys the gateway has already seen valid are never held up by it
 * (gateway/routes.ts asks `admit` only for a key it does not know).
 */
export class InvalidKeyLimiter extends Buckets {
  private bucket(address: string): string {
    return `ratelimit:invalid-key:${address}`;
  }

  private refused(retryAfterMs: number): AppError {
    const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return new AppError('rate_limited', `too many invalid API keys from this address (at most ${this.perMinute} per minute); retry after ${retryAfter} s`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }

  /** Throws `rate_limited` when `address` has no invalid key left to present; takes nothing. */
  async admit(address: string): Promise<void> {
    if (!this.enabled) return;
    const result = await this.takeFrom(this.bucket(address), 0);
    // Less than a whole token left: at most one token's refill away.
    if (result.remaining < 1) throw this.refused(60_000 / this.perMinute);
  }

  /** Counts an invalid key from `address`; throws `rate_limited` when it is one too many. */
  async failed(address: string): Promise<void> {
    if (!this.enabled) return;
    const result = await this.takeFrom(this.bucket(address));
    if (!result.allowed) throw this.refused(result.retryAfterMs);
  }
}
