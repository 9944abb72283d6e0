import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidKeyLimiter, RateLimiter } from '../../gateway/rate-limit.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { RedisState } from '../../pipeline/runtime/state/redis.js';
import { engine } from '../helpers/engines.js';
import { dropNamespace, REDIS_INSTALL, redisProbe, TEST_REDIS_URL, testNamespace } from '../helpers/redis.js';
import { AppError, hasCode } from '../../pipeline/runtime/errors.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

const hasRedis = await engine('redis', () => redisProbe(), REDIS_INSTALL);

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

    it('does not count requests without a valid key against any key', async () => {
      const key = await gw.key();
      for (let i = 0; i < 10; i++) {
        const res = await gw.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer('wds_unknown'), remoteAddress: `10.1.0.${i}` });
        expect(res.statusCode).toBe(401);
      }
      expect((await templates(key)).statusCode).toBe(200);
    });

    it('does not limit GET /v1/source', async () => {
      for (let i = 0; i < 6; i++) expect((await gw.app.inject({ method: 'GET', url: '/v1/source' })).statusCode).toBe(200);
    });
  });

  describe('invalid keys per client address (INVALID_KEYS_PER_MINUTE, INVALID_KEYS_BURST)', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await testGateway({ INVALID_KEYS_PER_MINUTE: '30', INVALID_KEYS_BURST: '3' });
    });
    afterAll(() => gw.close());

    const from = (address: string, secret: string) =>
      gw.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer(secret), remoteAddress: address });

    it('answers 401 for the first BURST invalid keys of an address, then 429 rate_limited with Retry-After, before asking the registry', async () => {
      for (let i = 0; i < 3; i++) expect((await from('10.2.0.1', `wds_guess_${i}`)).statusCode).toBe(401);
      const res = await from('10.2.0.1', 'wds_guess_3');
      expect(res.statusCode).toBe(429);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'rate_limited', message: expect.stringMatching(/^too many invalid API keys from this address/), retriable: true, requestId: res.headers['x-request-id'] },
      });
      expect(String(res.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(2);
      // Refused without a registry lookup while the address is over its limit.
      const asked: string[] = [];
      const authenticate = gw.keys.authenticate.bind(gw.keys);
      gw.keys.authenticate = async (secret: string) => (asked.push(secret), authenticate(secret));
      try {
        for (let i = 0; i < 20; i++) expect((await from('10.2.0.1', `wds_more_${i}`)).statusCode).toBe(429);
        expect(asked).toEqual([]);
      } finally {
        gw.keys.authenticate = authenticate;
      }
    });

    it('never holds up a key the gateway has seen valid, nor another address', async () => {
      const key = await gw.key();
      expect((await from('10.3.0.1', key)).statusCode).toBe(200);
      for (let i = 0; i < 4; i++) await from('10.3.0.1', `wds_guess_${i}`);
      expect((await from('10.3.0.1', 'wds_guess_x')).statusCode).toBe(429);
      expect((await from('10.3.0.1', key)).statusCode).toBe(200);
      expect((await from('10.3.0.2', 'wds_guess_x')).statusCode).toBe(401);
    });

    it('counts revoked keys as invalid', async () => {
      const secret = await gw.key();
      const [record] = (await gw.keys.list()).filter((k) => secret.startsWith(k.prefix));
      await gw.keys.revoke(record?.id ?? '');
      for (let i = 0; i < 3; i++) expect((await from('10.4.0.1', secret)).statusCode).toBe(401);
      expect((await from('10.4.0.1', secret)).statusCode).toBe(429);
    });

    it('refills at the per-minute rate', async () => {
      let now = 1_000_000;
      const limiter = new InvalidKeyLimiter(new MemoryState({ now: () => now, sweepIntervalMs: 0 }), 30, 2);
      await limiter.admit('a');
      await limiter.failed('a');
      await limiter.failed('a');
      expect(await thrown(() => limiter.admit('a'))).toMatchObject({ code: 'rate_limited', headers: { 'retry-after': '2' } });
      expect(await thrown(() => limiter.failed('a'))).toMatchObject({ code: 'rate_limited' });
      now += 2_000; // 30 a minute: one every 2 s
      await limiter.admit('a');
      await limiter.failed('a');
      expect(await thrown(() => limiter.admit('a'))).toMatchObject({ code: 'rate_limited' });
    });

    it('is off at 0 per minute', async () => {
      const off = await testGateway({ INVALID_KEYS_PER_MINUTE: '0', INVALID_KEYS_BURST: '1' });
      try {
        for (let i = 0; i < 10; i++) expect((await off.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer('wds_x') })).statusCode).toBe(401);
      } finally {
        await off.close();
      }
    });
  });

  describe.skipIf(!hasRedis)('invalid keys per client address over Redis (distributed mode)', () => {
    const namespace = testNamespace();
    let state: RedisState;
    beforeAll(async () => {
      state = new RedisState({ url: TEST_REDIS_URL, namespace, log: createLogger('silent'), connectTimeoutMs: 2000 });
      await state.connect();
    });
    afterAll(async () => {
      await state?.close();
      await dropNamespace(namespace);
    });

    it('shares the count between gateway processes: one limiter counts, another refuses', async () => {
      const one = new InvalidKeyLimiter(state, 30, 2);
      const other = new InvalidKeyLimiter(state, 30, 2);
      await one.admit('10.5.0.1');
      await one.failed('10.5.0.1');
      await other.failed('10.5.0.1');
      expect(await thrown(() => other.admit('10.5.0.1'))).toMatchObject({ code: 'rate_limited' });
      expect(await thrown(() => one.failed('10.5.0.1'))).toMatchObject({ code: 'rate_limited', headers: { 'retry-after': expect.stringMatching(/^[12]$/) } });
      await other.admit('10.5.0.2');
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
