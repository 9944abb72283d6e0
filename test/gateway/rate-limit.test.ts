import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../gateway/rate-limit.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { AppError, hasCode } from '../../pipeline/runtime/errors.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

async function thrown(fn: () => Promise<void>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** A limiter over memory state with a clock the test moves. */
function limiterAt(perMinute: number, burst: number, clock: () => number): RateLimiter {
  return new RateLimiter(new MemoryState({ now: clock, sweepIntervalMs: 0 }), perMinute, burst);
}

describe('gateway/rate-limit', () => {
  describe('RateLimiter', () => {
    it('allows `burst` requests at once, then refuses with rate_limited and Retry-After', async () => {
      let now = 1_000_000;
      const limiter = limiterAt(60, 3, () => now);
      for (let i = 0; i < 3; i++) await limiter.take('a');
      const error = await thrown(() => limiter.take('a'));
      expect(error).toBeInstanceOf(AppError);
      expect(hasCode(error, 'rate_limited')).toBe(true);
      expect((error as AppError).status).toBe(429);
      expect((error as AppError).headers['retry-after']).toBe('1');
      now += 1; // still empty 1 ms later
      expect(hasCode(await thrown(() => limiter.take('a')), 'rate_limited')).toBe(true);
    });

    it('refills at the per-minute rate as time passes', async () => {
      let now = 0;
      const limiter = limiterAt(60, 3, () => now);
      for (let i = 0; i < 3; i++) await limiter.take('a');
      expect(await thrown(() => limiter.take('a'))).toBeDefined();
      now += 999;
      expect(await thrown(() => limiter.take('a'))).toBeDefined();
      now += 1; // one second at 60 per minute: one token
      expect(await thrown(() => limiter.take('a'))).toBeUndefined();
      expect(await thrown(() => limiter.take('a'))).toBeDefined();
      now += 60_000; // a full minute refills to the burst, not beyond it
      for (let i = 0; i < 3; i++) await limiter.take('a');
      expect(await thrown(() => limiter.take('a'))).toBeDefined();
    });

    it('computes Retry-After in whole seconds from the refill rate', async () => {
      let now = 0;
      const limiter = limiterAt(6, 1, () => now); // one token every 10 s
      await limiter.take('a');
      expect((await thrown(() => limiter.take('a')) as AppError).headers['retry-after']).toBe('10');
      now += 4_500;
      expect((await thrown(() => limiter.take('a')) as AppError).headers['retry-after']).toBe('6');
      now += 5_500;
      expect(await thrown(() => limiter.take('a'))).toBeUndefined();
    });

    it('keeps one bucket per key', async () => {
      const limiter = limiterAt(60, 1, () => 0);
      await limiter.take('a');
      expect(await thrown(() => limiter.take('a'))).toBeDefined();
      expect(await thrown(() => limiter.take('b'))).toBeUndefined();
    });

    it('never limits at 0 per minute', async () => {
      const limiter = limiterAt(0, 1, () => 0);
      for (let i = 0; i < 1000; i++) await limiter.take('a');
    });
  });

  describe('through the gateway', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await testGateway({ RATE_LIMIT_PER_MINUTE: '60', RATE_LIMIT_BURST: '3' });
    });
    afterAll(() => gw.close());

    const templates = (key: string) => gw.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer(key) });

    it('answers the 4th rapid request with 429 rate_limited and a positive integer Retry-After', async () => {
      const key = await gw.key();
      for (let i = 0; i < 3; i++) expect((await templates(key)).statusCode).toBe(200);
      const res = await templates(key);
      expect(res.statusCode).toBe(429);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'rate_limited', message: expect.any(String), retriable: true, requestId: res.headers['x-request-id'] },
      });
      const retryAfter = String(res.headers['retry-after']);
      expect(retryAfter).toMatch(/^[1-9]\d*$/);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    });

    it('does not affect another key', async () => {
      const busy = await gw.key();
      const other = await gw.key();
      for (let i = 0; i < 3; i++) await templates(busy);
      expect((await templates(busy)).statusCode).toBe(429);
      expect((await templates(other)).statusCode).toBe(200);
    });

    it('limits before reading the body: a rate-limited bad body is 429, not 400 or 422', async () => {
      const key = await gw.key();
      for (let i = 0; i < 3; i++) await templates(key);
      const res = await gw.app.inject({
        method: 'POST',
        url: '/v1/scrape',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload: '{not json',
      });
      expect(res.statusCode).toBe(429);
    });

    it('does not count requests without a valid key against anyone', async () => {
      const key = await gw.key();
      for (let i = 0; i < 10; i++) expect((await templates('wds_unknown')).statusCode).toBe(401);
      expect((await templates(key)).statusCode).toBe(200);
    });

    it('does not limit GET /v1/source', async () => {
      for (let i = 0; i < 6; i++) expect((await gw.app.inject({ method: 'GET', url: '/v1/source' })).statusCode).toBe(200);
    });
  });

  describe('with RATE_LIMIT_PER_MINUTE=0', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await testGateway({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_BURST: '1' });
    });
    afterAll(() => gw.close());

    it('never answers 429', async () => {
      const key = await gw.key();
      for (let i = 0; i < 20; i++) {
        expect((await gw.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer(key) })).statusCode).toBe(200);
      }
    });
  });
});
