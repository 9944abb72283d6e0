import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../schemas/api/operations.js';
import { ERRORS, type ErrorCode } from '../../schemas/errors.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

/** The operation's path with every `{param}` filled with a valid dummy value. */
function pathOf(op: Operation): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name: string) => `dummy_${name}`);
}

function expectError(res: LightMyRequestResponse, code: ErrorCode): void {
  expect(res.statusCode, res.body).toBe(ERRORS[code].status);
  const body = res.json();
  expect(body).toEqual({
    success: false,
    error: { code, message: expect.any(String), retriable: ERRORS[code].retriable, requestId: res.headers['x-request-id'] },
  });
}

describe('gateway/auth', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    // Every operation below is tried with invalid keys from the one inject address: the limit
    // on invalid keys per address (test/gateway/rate-limit.test.ts) would answer 429 midway.
    gw = await testGateway({ INVALID_KEYS_PER_MINUTE: '0' });
    key = await gw.key();
  });
  afterAll(() => gw.close());

  const templates = (headers: Record<string, string>) => gw.app.inject({ method: 'GET', url: '/v1/templates', headers });

  it('answers 401 missing_api_key without an Authorization header', async () => {
    expectError(await templates({}), 'missing_api_key');
  });

  it.each([
    ['Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a token', 'Bearer'],
    ['Bearer with only spaces', 'Bearer    '],
    ['a bare token', 'wds_abc'],
    ['two tokens', 'Bearer a b'],
  ])('answers 401 for %s', async (_name, authorization) => {
    const res = await templates({ authorization });
    expect(res.statusCode).toBe(401);
    expectError(res, 'missing_api_key');
  });

  it('answers 401 invalid_api_key for an unknown key', async () => {
    expectError(await templates(bearer('wds_0000000000000000000000000000000000000000')), 'invalid_api_key');
  });

  it('accepts a known key, whatever the case of the scheme', async () => {
    expect((await templates(bearer(key))).statusCode).toBe(200);
    expect((await templates({ authorization: `bearer ${key}` })).statusCode).toBe(200);
  });

  it('answers 401 invalid_api_key for a revoked key, from the next request on', async () => {
    const secret = await gw.key(10, 'to revoke');
    expect((await templates(bearer(secret))).statusCode).toBe(200);
    const record = await gw.keys.authenticate(secret);
    await gw.keys.revoke(record?.id as string);
    expectError(await templates(bearer(secret)), 'invalid_api_key');
  });

  it('tells two remembered keys apart when their requests alternate', async () => {
    // A known header is taken from a memo of the last one seen (gateway/routes.ts): each
    // request must still be judged by its own key.
    const kept = await gw.key(10, 'kept');
    const revoked = await gw.key(10, 'revoked');
    expect((await templates(bearer(kept))).statusCode).toBe(200);
    expect((await templates(bearer(revoked))).statusCode).toBe(200);
    const record = await gw.keys.authenticate(revoked);
    await gw.keys.revoke(record?.id as string);
    for (let i = 0; i < 3; i += 1) {
      expect((await templates(bearer(kept))).statusCode).toBe(200);
      expectError(await templates(bearer(revoked)), 'invalid_api_key');
      expectError(await templates(bearer(revoked)), 'invalid_api_key');
    }
  });

  it('never echoes the presented key in the error', async () => {
    const unknown = 'wds_SECRETSECRETSECRETSECRETSECRETSECRETSE';
    const res = await templates(bearer(unknown));
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain(unknown);
  });

  it('serves GET /v1/source with no key', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/v1/source' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: { license: 'AGPL-3.0', url: expect.any(String) } });
  });

  it('serves the OpenAPI document and the reference page with no key', async () => {
    const doc = await gw.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json()).toHaveProperty('openapi');
    const withBadKey = await gw.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: bearer('wds_unknown') });
    expect(withBadKey.statusCode).toBe(200);
    const page = await gw.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('covers every operation in the loop below', () => {
    expect(OPERATIONS.filter((op) => !op.auth).map((op) => op.id)).toEqual(['source']);
  });

  describe.each(OPERATIONS.filter((op) => op.auth).map((op) => [`${op.method} ${op.path}`, op] as const))(
    '%s',
    (_name, op) => {
      it('requires a key', async () => {
        const res = await gw.app.inject({ method: op.method, url: pathOf(op) });
        expectError(res, 'missing_api_key');
      });

      it('checks the key before the body (no key and a bad body is 401, not 400/415/422)', async () => {
        if (op.method === 'GET' || op.method === 'DELETE') {
          // No body: a bad query string instead.
          const res = await gw.app.inject({ method: op.method, url: `${pathOf(op)}?limit=-1&unknown=x`, headers: bearer('nope') });
          expectError(res, 'invalid_api_key');
          return;
        }
        const invalid = await gw.app.inject({
          method: op.method,
          url: pathOf(op),
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ notAField: [1, 2, 3] }),
        });
        expectError(invalid, 'missing_api_key');
        const malformed = await gw.app.inject({
          method: op.method,
          url: pathOf(op),
          headers: { 'content-type': 'application/json' },
          payload: '{"url": ',
        });
        expectError(malformed, 'missing_api_key');
        const wrongType = await gw.app.inject({
          method: op.method,
          url: pathOf(op),
          headers: { 'content-type': 'text/plain', ...bearer('wds_unknown') },
          payload: 'hello',
        });
        expectError(wrongType, 'invalid_api_key');
      });
    },
  );
});
