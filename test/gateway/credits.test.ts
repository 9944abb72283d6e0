import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HandlerContext, HandlerResult, OperationHandler } from '../../gateway/handler.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

interface LedgerLine {
  t: string;
  id: string;
  amount?: number;
  reason?: string;
  requestId?: string;
  op?: string;
}

/**
 * A handler for POST /v1/scrape whose behaviour each test sets: `estimate` and `run` are
 * swapped per test; `calls` counts the requests that reached `handle`.
 */
class Plug implements OperationHandler {
  calls = 0;
  estimateCredits = 0;
  run: (ctx: HandlerContext) => Promise<HandlerResult> = async () => ({ data: {} });
  estimate(): number {
    return this.estimateCredits;
  }
  async handle(ctx: HandlerContext): Promise<HandlerResult> {
    this.calls += 1;
    return this.run(ctx);
  }
  reset(): void {
    this.calls = 0;
    this.estimateCredits = 0;
    this.run = async () => ({ data: {} });
  }
}

describe('pipeline/keys/credits', () => {
  const scrape = new Plug();
  const freeList: OperationHandler = { handle: async () => ({ data: { monitors: [] } }) };
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await testGateway({}, { handlers: { scrape, monitorList: freeList } });
  });
  afterAll(() => gw.close());
  /** Gates still closed when a test ends are opened, so no request is left hanging. */
  const gates: (() => void)[] = [];
  afterEach(() => {
    scrape.reset();
    for (const open of gates.splice(0)) open();
  });

  function newGate(): { gate: Promise<void>; release: () => void } {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    gates.push(release);
    return { gate, release };
  }

  const post = (key: string) =>
    gw.app.inject({ method: 'POST', url: '/v1/scrape', headers: bearer(key), payload: { url: 'https://example.com' } });

  async function keyWith(credits: number | 'unlimited'): Promise<{ secret: string; id: string }> {
    const secret = await gw.key(credits);
    const record = await gw.keys.authenticate(secret);
    return { secret, id: record?.id as string };
  }

  async function balance(id: string): Promise<number | null | undefined> {
    return (await gw.keys.get(id))?.balance;
  }

  function ledger(id: string): LedgerLine[] {
    return readFileSync(join(gw.dataDir, 'keys.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LedgerLine)
      .filter((line) => line.id === id);
  }

  const charges = (id: string) => ledger(id).filter((l) => l.t === 'credit' && l.reason === 'charge');

  it('reserves the estimate and charges what the handler reports', async () => {
    const { secret, id } = await keyWith(10);
    scrape.estimateCredits = 5;
    scrape.run = async () => ({ data: { markdown: '# hi' }, credits: 3 });
    const res = await post(secret);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { markdown: '# hi', cost: { credits: 3, remaining: 7 } } });
    expect(await balance(id)).toBe(7);
    const lines = charges(id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ amount: -3, op: 'scrape', requestId: res.headers['x-request-id'] });
  });

  it('refuses with 402 before the handler runs when the balance cannot cover the estimate', async () => {
    const { secret, id } = await keyWith(4);
    scrape.estimateCredits = 5;
    scrape.run = async () => ({ data: {}, credits: 1 });
    const res = await post(secret);
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'insufficient_credits', retriable: false } });
    expect(scrape.calls).toBe(0);
    expect(await balance(id)).toBe(4);
    expect(charges(id)).toEqual([]);
  });

  it('allows an estimate equal to the balance', async () => {
    const { secret, id } = await keyWith(5);
    scrape.estimateCredits = 5;
    scrape.run = async () => ({ data: {}, credits: 5 });
    const res = await post(secret);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.cost).toEqual({ credits: 5, remaining: 0 });
    expect(await balance(id)).toBe(0);
  });

  it('charges nothing when the handler throws, and answers with the error code', async () => {
    const { secret, id } = await keyWith(10);
    scrape.estimateCredits = 4;
    scrape.run = async () => {
      throw new AppError('upstream_timeout', 'the page did not answer in 30 s');
    };
    const res = await post(secret);
    expect(res.statusCode).toBe(504);
    expect(res.json()).toEqual({
      success: false,
      error: {
        code: 'upstream_timeout',
        message: 'the page did not answer in 30 s',
        retriable: true,
        requestId: res.headers['x-request-id'],
      },
    });
    expect(await balance(id)).toBe(10);
    expect(charges(id)).toEqual([]);
  });

  it('releases the reservation of a failed request', async () => {
    const { secret, id } = await keyWith(5);
    scrape.estimateCredits = 5;
    scrape.run = async () => {
      throw new AppError('upstream_error', 'boom');
    };
    expect((await post(secret)).statusCode).toBe(502);
    scrape.run = async () => ({ data: {}, credits: 2 });
    const res = await post(secret);
    expect(res.statusCode, res.body).toBe(200);
    expect(await balance(id)).toBe(3);
  });

  it('answers 500 internal_error for an unexpected throw, hides its message and charges nothing', async () => {
    const { secret, id } = await keyWith(10);
    scrape.estimateCredits = 1;
    scrape.run = async () => {
      throw new Error('database password is hunter2');
    };
    const res = await post(secret);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'internal_error', retriable: true } });
    expect(res.body).not.toContain('hunter2');
    expect(await balance(id)).toBe(10);
  });

  it('does not let concurrent requests overspend: in-flight reservations count', async () => {
    const { secret, id } = await keyWith(5);
    scrape.estimateCredits = 3;
    const { gate, release } = newGate();
    scrape.run = async () => {
      await gate;
      return { data: {}, credits: 3 };
    };
    const first = post(secret);
    const second = post(secret);
    // The refused request answers while the other one is held inside its handler.
    const early = await Promise.race([first, second]);
    expect(early.statusCode).toBe(402);
    expect(early.json().error.code).toBe('insufficient_credits');
    expect(scrape.calls).toBe(1);
    release();
    const statuses = (await Promise.all([first, second])).map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 402]);
    expect(await balance(id)).toBe(2);
    expect(charges(id)).toHaveLength(1);
  });

  it('lets concurrent requests through when the balance covers all reservations', async () => {
    const { secret, id } = await keyWith(6);
    scrape.estimateCredits = 3;
    const { gate, release } = newGate();
    scrape.run = async () => {
      await gate;
      return { data: {}, credits: 2 };
    };
    const pending = [post(secret), post(secret)];
    const deadline = Date.now() + 5000;
    while (scrape.calls < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    expect(scrape.calls).toBe(2);
    // A third would need 3 more than the 6 already held.
    const third = await post(secret);
    expect(third.statusCode).toBe(402);
    release();
    const done = await Promise.all(pending);
    expect(done.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(done.map((r) => r.json().data.cost.remaining).sort()).toEqual([2, 4]);
    expect(await balance(id)).toBe(2);
  });

  it('reports remaining null for an unlimited key and still records the charge', async () => {
    const { secret, id } = await keyWith('unlimited');
    scrape.estimateCredits = 1000000;
    scrape.run = async () => ({ data: {}, credits: 3 });
    const res = await post(secret);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.cost).toEqual({ credits: 3, remaining: null });
    expect(await balance(id)).toBeNull();
    expect(charges(id)).toHaveLength(1);
  });

  it('charges nothing for free operations, even on a key with no credits left', async () => {
    const { secret, id } = await keyWith(0);
    const templates = await gw.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer(secret) });
    expect(templates.statusCode).toBe(200);
    expect(templates.json().data.cost).toEqual({ credits: 0, remaining: 0 });
    const monitors = await gw.app.inject({ method: 'GET', url: '/v1/monitor', headers: bearer(secret) });
    expect(monitors.statusCode).toBe(200);
    expect(monitors.json()).toEqual({ success: true, data: { monitors: [], cost: { credits: 0, remaining: 0 } } });
    expect(charges(id)).toEqual([]);
  });

  it('reports the remaining balance on a free operation', async () => {
    const { secret } = await keyWith(42);
    const res = await gw.app.inject({ method: 'GET', url: '/v1/templates', headers: bearer(secret) });
    expect(res.json().data.cost).toEqual({ credits: 0, remaining: 42 });
  });

  it.each(['fresh', 'cache', 'index'] as const)('passes cost.source %s through from the handler', async (source) => {
    const { secret } = await keyWith(10);
    scrape.estimateCredits = 1;
    scrape.run = async () => ({ data: {}, credits: source === 'cache' ? 0 : 1, source });
    const res = await post(secret);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.cost).toEqual({ credits: source === 'cache' ? 0 : 1, remaining: source === 'cache' ? 10 : 9, source });
  });

  it('omits cost.source when the handler does not give one', async () => {
    const { secret } = await keyWith(10);
    const res = await post(secret);
    expect(res.json().data.cost).toEqual({ credits: 0, remaining: 10 });
  });

  it('sees a top-up made after the key was created', async () => {
    const { secret, id } = await keyWith(1);
    scrape.estimateCredits = 3;
    expect((await post(secret)).statusCode).toBe(402);
    await gw.keys.topup(id, 5);
    scrape.run = async () => ({ data: {}, credits: 3 });
    const res = await post(secret);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.cost).toEqual({ credits: 3, remaining: 3 });
  });
});
