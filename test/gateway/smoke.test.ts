import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, gatewayWithKey, type TestGateway } from '../helpers/gateway.js';

describe('gateway/app', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => ({ gw, key } = await gatewayWithKey()));
  afterAll(() => gw.close());

  it('lists the extraction templates for free', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data.templates.map((t: { name: string }) => t.name)).toContain('product');
    expect(body.data.cost).toEqual({ credits: 0, remaining: null });
  });

  it('names the exact field of a bad crawl body', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/crawl',
      headers: bearer(key),
      payload: { url: 'https://example.com', scrapeOptions: { waitFor: 120001 } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: [{ loc: ['body', 'scrapeOptions', 'waitFor'], msg: 'must be <= 120000', type: 'less_than_equal' }],
    });
  });
});
