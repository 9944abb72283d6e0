/**
 * The notifier's parts without a bus: signatures and per-key secrets, the server secret in
 * DATA_DIR, which answers are retried, and deliver() against a local receiver on 127.0.0.1
 * (retries on 5xx, 429 and timeouts with exponential backoff, no retry on 400 or a refused
 * address, every attempt recorded, the caller's headers sent but never over the service's own).
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleJobEvent } from '../../actors/notifier/handler.js';
import { handleMentionsStored } from '../../actors/notifier/mentions.js';
import { handleMonitorChecked } from '../../actors/notifier/monitor.js';
import { createWatch, watchSpecOf } from '../../pipeline/mentions/watch.js';
import { createMonitor } from '../../pipeline/monitors/record.js';
import { deliver, deliveryBudgetMs, retriableAnswer, webhookBody, type Delivery, type RetryPolicy } from '../../actors/notifier/index.js';
import { createJob } from '../../pipeline/jobs/record.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { guardedAgents } from '../../pipeline/runtime/net/agents.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { serverWebhookSecret, SERVER_SECRET_FILE } from '../../pipeline/webhooks/secret.js';
import { keyWebhookSecret, signatureHeader, signatureOf, verifySignature } from '../../pipeline/webhooks/signing.js';

describe('pipeline/webhooks/signing', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 and verifies it, refusing a changed body, another secret or an old timestamp', () => {
    const body = '{"success":true,"type":"crawl.started","id":"crawl_1","data":[],"metadata":{}}';
    const header = signatureHeader('whsec_test', body, 1_700_000_000);
    expect(header).toBe(`t=1700000000,v1=${signatureOf('whsec_test', 1_700_000_000, body)}`);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature('whsec_test', body, header, 300, 1_700_000_100)).toBe(true);
    expect(verifySignature('whsec_test', `${body} `, header, 300, 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_other', body, header, 300, 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_test', body, header, 300, 1_700_000_301)).toBe(false);
    expect(verifySignature('whsec_test', body, 'v1=00', 300, 1_700_000_000)).toBe(false);
  });

  it('derives one stable secret per key from the server secret', () => {
    const a = keyWebhookSecret('s'.repeat(32), 'key_a');
    expect(a).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(keyWebhookSecret('s'.repeat(32), 'key_a')).toBe(a);
    expect(keyWebhookSecret('s'.repeat(32), 'key_b')).not.toBe(a);
    expect(keyWebhookSecret('t'.repeat(32), 'key_a')).not.toBe(a);
  });
});

describe('pipeline/webhooks/secret', () => {
  it('uses WEBHOOK_SECRET when set, else generates one into DATA_DIR once (mode 0600) and keeps it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wds-whsec-'));
    try {
      expect(serverWebhookSecret({ webhookSecret: 'x'.repeat(40), dataDir })).toBe('x'.repeat(40));
      const first = serverWebhookSecret({ webhookSecret: null, dataDir });
      expect(first).toMatch(/^[0-9a-f]{64}$/);
      expect(readFileSync(join(dataDir, SERVER_SECRET_FILE), 'utf8').trim()).toBe(first);
      expect(statSync(join(dataDir, SERVER_SECRET_FILE)).mode & 0o777).toBe(0o600);
      expect(serverWebhookSecret({ webhookSecret: null, dataDir })).toBe(first);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('actors/notifier', () => {
  it('retries no answer, 408, 429 and 5xx; not 2xx, 3xx or other 4xx', () => {
    expect([0, 408, 429, 500, 502, 503, 504].map((statusCode) => retriableAnswer({ statusCode }))).toEqual([true, true, true, true, true, true, true]);
    expect([200, 204, 301, 400, 401, 403, 404, 410, 422].map((statusCode) => retriableAnswer({ statusCode }))).toEqual(Array(9).fill(false));
  });

  it('budgets a delivery for every attempt timing out and every backoff at its ceiling', () => {
    expect(deliveryBudgetMs({ attempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000, timeoutMs: 10_000 })).toBe(50_000 + 1000 + 2000 + 4000 + 8000);
    expect(deliveryBudgetMs({ attempts: 3, baseDelayMs: 1000, maxDelayMs: 1500, timeoutMs: 100 })).toBe(300 + 1000 + 1500);
  });

  it('builds the Firecrawl v1 body', () => {
    expect(JSON.parse(webhookBody('batch', 'failed', 'batch_1', [], { run: 7 }, 'out of credits'))).toEqual({
      success: false,
      type: 'batch_scrape.failed',
      id: 'batch_1',
      data: [],
      metadata: { run: 7 },
      error: 'out of credits',
    });
    expect(JSON.parse(webhookBody('crawl', 'page', 'crawl_1', [{ markdown: '# Hi' }], {}))).toEqual({
      success: true,
      type: 'crawl.page',
      id: 'crawl_1',
      data: [{ markdown: '# Hi' }],
      metadata: {},
    });
  });

  describe('deliver', () => {
    interface Received {
      path: string;
      headers: http.IncomingHttpHeaders;
      body: string;
    }
    let server: http.Server;
    let origin = '';
    const received: Received[] = [];
    /** Status codes to answer per path, in turn; `hang` never answers. */
    const script = new Map<string, (number | 'hang')[]>();
    const guard = new NetGuard({ allowPrivate: true });
    const agents = guardedAgents(guard);

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          const path = req.url ?? '/';
          received.push({ path, headers: req.headers, body });
          const next = script.get(path)?.shift() ?? 200;
          if (next === 'hang') return;
          res.writeHead(next).end('ok');
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      agents.destroy();
      for (const a of made) a.destroy();
      server.closeAllConnections();
      server.close();
    });

    const made: ReturnType<typeof guardedAgents>[] = [];
    const policy: RetryPolicy = { attempts: 4, baseDelayMs: 40, maxDelayMs: 1000, timeoutMs: 300 };
    function setup(overrides: Partial<RetryPolicy> = {}, useGuard: NetGuard = guard) {
      const rows: Record<string, unknown>[] = [];
      const sleeps: number[] = [];
      const deps = {
        guard: useGuard,
        agents: guardedAgents(useGuard),
        writer: { write: async (table: string, r: readonly Record<string, unknown>[]) => void (table === 'webhook_deliveries' && rows.push(...r)) },
        policy: { ...policy, ...overrides },
        sleep: async (ms: number) => {
          sleeps.push(ms);
          await new Promise((r) => setTimeout(r, ms));
        },
      };
      made.push(deps.agents);
      return { deps, rows, sleeps };
    }
    const delivery = (path: string, headers: Record<string, string> = {}): Delivery => ({
      tenant: 'key_a',
      jobId: 'crawl_1',
      id: `crawl_1:${path.split('?')[0]}`,
      event: 'crawl.started',
      url: `${origin}${path}`,
      headers,
      body: JSON.stringify({ success: true, type: 'crawl.started', id: 'crawl_1', data: [], metadata: {} }),
      secret: 'whsec_unit',
    });
    const hits = (path: string) => received.filter((r) => r.path === path);

    it('delivers on the third attempt after two 500s, backing off exponentially, every attempt signed and recorded', async () => {
      script.set('/flaky', [500, 500, 200]);
      const { deps, rows, sleeps } = setup();
      // The forged and stack-owned headers of an old record (the gateway refuses them now) are not sent as given.
      const d = delivery('/flaky', { authorization: 'Bearer receiver-token', 'x-wds-signature': 'forged', 'content-type': 'text/plain', Host: 'evil.example', 'X-Split': 'a\r\nInjected: 1' });
      const result = await deliver(deps, d);
      expect(result).toEqual({ ok: true, attempts: 3, statusCode: 200, error: '' });
      const got = hits('/flaky');
      expect(got).toHaveLength(3);
      for (const r of got) {
        expect(r.body).toBe(d.body);
        expect(r.headers.authorization).toBe('Bearer receiver-token');
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['x-wds-event']).toBe('crawl.started');
        expect(r.headers['x-wds-delivery']).toBe('crawl_1:/flaky');
        expect(r.headers.host).toBe(new URL(origin).host);
        expect(r.headers['x-split']).toBeUndefined();
        expect(r.headers.injected).toBeUndefined();
        expect(verifySignature('whsec_unit', r.body, String(r.headers['x-wds-signature']))).toBe(true);
      }
      // Backoff ceilings 40, 80 ms; each delay between half and all of its ceiling.
      expect(sleeps).toHaveLength(2);
      expect(sleeps[0]).toBeGreaterThanOrEqual(20);
      expect(sleeps[0]).toBeLessThanOrEqual(40);
      expect(sleeps[1]).toBeGreaterThanOrEqual(40);
      expect(sleeps[1]).toBeLessThanOrEqual(80);
      expect(rows.map((r) => [r.attempt, r.status_code, r.ok])).toEqual([
        [1, 500, 0],
        [2, 500, 0],
        [3, 200, 1],
      ]);
      // The record keeps the receiver's origin only: its path and query often hold a secret.
      expect(rows[0]).toMatchObject({ tenant: 'key_a', source_id: 'crawl_1', id: 'crawl_1:/flaky', event: 'crawl.started', url: origin, error: 'the receiver answered 500' });
      expect(JSON.stringify(rows)).not.toContain('receiver-token');
    });

    it('delivers a v2 MonitorChecked and MentionsStored from what they carry, reading nothing from the store', async () => {
      const { deps } = setup();
      const noStore = { query: async () => Promise.reject(new Error('the notifier read the store')) };
      const ctx = { ...deps, store: noStore, secretFor: () => 'whsec_unit', serverSecret: 'server-secret-unit', log: createLogger('silent') };
      const noWrites = { write: async () => undefined };
      const monitor = await createMonitor(noWrites, 'key_a', { name: 'm', url: 'https://site.test/', urls: [], intervalMinutes: 5, goal: null, webhook: `${origin}/monitor-v2` }, Date.now(), ctx.serverSecret);
      const checkBody = JSON.stringify({ type: 'monitor.check.completed', check: { id: 'chk_v2' }, pages: [], truncated: false });
      const checked = { tenant: 'key_a', monitorId: monitor.id, checkId: 'chk_v2', createdAtMs: Date.now(), sealedWebhook: monitor.sealedWebhook, body: checkBody };
      expect(await handleMonitorChecked(checked, ctx, new AbortController().signal)).toEqual({ kind: 'ack' });
      expect(hits('/monitor-v2').map((r) => r.body)).toEqual([checkBody]);
      const watch = await createWatch(noWrites, 'key_a', { ...watchSpecOf({ name: 'w', keywords: ['acme'] }), webhook: `${origin}/mentions-v2` }, Date.now(), ctx.serverSecret);
      const mentionsBody = JSON.stringify({ type: 'mentions.found', mentions: [{ id: 'men_1' }], truncated: false });
      const stored = { tenant: 'key_a', watchId: watch.id, collectionId: 'col_v2', mentionIds: ['men_1'], createdAtMs: Date.now(), sealedWebhook: watch.sealedWebhook, body: mentionsBody };
      expect(await handleMentionsStored(stored, ctx, new AbortController().signal)).toEqual({ kind: 'ack' });
      expect(hits('/mentions-v2').map((r) => r.body)).toEqual([mentionsBody]);
    });

    it('does not retry a 400, and gives up after the last attempt of 503s', async () => {
      script.set('/bad', [400, 200]);
      const bad = setup();
      expect(await deliver(bad.deps, delivery('/bad'))).toMatchObject({ ok: false, attempts: 1, statusCode: 400 });
      expect(hits('/bad')).toHaveLength(1);
      expect(bad.rows).toHaveLength(1);
      expect(bad.sleeps).toEqual([]);

      script.set('/down', [503, 503, 503, 503, 200]);
      const down = setup();
      expect(await deliver(down.deps, delivery('/down'))).toMatchObject({ ok: false, attempts: 4, statusCode: 503 });
      expect(hits('/down')).toHaveLength(4);
      expect(down.rows.map((r) => r.ok)).toEqual([0, 0, 0, 0]);
    });

    it('retries a 429 and a receiver that does not answer in time', async () => {
      script.set('/busy', [429, 200]);
      const busy = setup();
      expect(await deliver(busy.deps, delivery('/busy'))).toMatchObject({ ok: true, attempts: 2 });

      script.set('/slow', ['hang', 200]);
      const slow = setup({ timeoutMs: 150 });
      const result = await deliver(slow.deps, delivery('/slow'));
      expect(result).toMatchObject({ ok: true, attempts: 2, statusCode: 200 });
      expect(slow.rows[0]).toMatchObject({ attempt: 1, status_code: 0, ok: 0, error: 'no answer within 150 ms' });
    });

    it('refuses a private address when private addresses are not allowed, without a request or a retry', async () => {
      const strict = new NetGuard({ allowPrivate: false });
      const { deps, rows, sleeps } = setup({}, strict);
      const before = received.length;
      const result = await deliver(deps, delivery('/never/hook-s3cret?token=sekrit'));
      expect(result).toMatchObject({ ok: false, attempts: 1, statusCode: 0 });
      expect(result.error).toMatch(/^url_blocked: /);
      // Neither the record nor the error shows the URL's path or query (either may hold a token).
      expect(JSON.stringify([rows, result])).not.toContain('sekrit');
      expect(JSON.stringify([rows[0]?.url, rows[0]?.error, result])).not.toContain('hook-s3cret');
      expect(rows[0]?.url).toBe(origin);
      expect(received.length).toBe(before);
      expect(sleeps).toEqual([]);
      expect(rows).toHaveLength(1);
    });
  });
});

describe('actors/notifier/handler', () => {
  let server: http.Server;
  let origin = '';
  const got: { path: string; body: Record<string, any>; raw: string; signature: string }[] = [];
  const state = new MemoryState({ sweepIntervalMs: 0 });
  const guard = new NetGuard({ allowPrivate: true });
  const agents = guardedAgents(guard);
  const rows: Record<string, unknown>[] = [];
  const queries: Record<string, unknown>[] = [];
  /** job_pages as the store would answer: seq → document JSON. */
  const pages = new Map<number, string>([[1, JSON.stringify({ markdown: '# One', metadata: { sourceURL: 'https://example.com/1', statusCode: 200 } })]]);
  const deps = {
    state,
    store: {
      query: async <T>(_sql: string, params?: Record<string, unknown>) => {
        queries.push(params ?? {});
        const doc = pages.get(Number(params?.upTo));
        return (doc ? [{ document: doc }] : []) as T[];
      },
    },
    writer: { write: async (_t: string, r: readonly Record<string, unknown>[]) => void rows.push(...r) },
    guard,
    agents,
    policy: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10, timeoutMs: 1000 },
    secretFor: (keyId: string) => `whsec_${keyId}`,
    log: createLogger('silent'),
  };
  const signal = new AbortController().signal;
  const event = (jobId: string, type: string, data: object = {}, tenant = 'key_a') => ({ tenant, jobId, kind: jobId.split('_')[0] as string, type, atMs: Date.now(), data: JSON.stringify(data) });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        got.push({ path: req.url ?? '', body: JSON.parse(raw) as Record<string, any>, raw, signature: String(req.headers['x-wds-signature']) });
        res.writeHead(204).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const hook = (path: string, extra: object = {}) => JSON.stringify({ url: `${origin}${path}`, headers: {}, metadata: { m: 1 }, events: null, ...extra });
    const base = { tenant: 'key_a', params: '{}', nowMs: Date.now(), retentionMs: 60_000 };
    await createJob({ state, writer: deps.writer }, { ...base, id: 'crawl_a', kind: 'crawl', webhook: hook('/a') });
    await createJob({ state, writer: deps.writer }, { ...base, id: 'batch_b', kind: 'batch', webhook: hook('/b', { events: ['completed'] }) });
    await createJob({ state, writer: deps.writer }, { ...base, id: 'crawl_none', kind: 'crawl' });
    rows.length = 0;
  });
  afterAll(async () => {
    agents.destroy();
    server.closeAllConnections();
    server.close();
    await state.close();
  });

  it('sends a page with its stored document, or its summary when the row cannot be read, signed with the tenant\'s secret', async () => {
    expect(await handleJobEvent(event('crawl_a', 'page', { seq: 1, url: 'https://example.com/1', statusCode: 200 }), deps, signal)).toEqual({ kind: 'ack' });
    expect(await handleJobEvent(event('crawl_a', 'page', { seq: 2, url: 'https://example.com/2', statusCode: 200 }), deps, signal)).toEqual({ kind: 'ack' });
    expect(queries.slice(-2)).toEqual([
      { tenant: 'key_a', jobId: 'crawl_a', after: 0, upTo: 1, limit: 1 },
      { tenant: 'key_a', jobId: 'crawl_a', after: 1, upTo: 2, limit: 1 },
    ]);
    const [one, two] = got.filter((g) => g.path === '/a');
    expect(one?.body).toEqual({ success: true, type: 'crawl.page', id: 'crawl_a', data: [JSON.parse(pages.get(1) as string)], metadata: { m: 1 } });
    expect(two?.body.data).toEqual([{ metadata: { sourceURL: 'https://example.com/2', statusCode: 200 } }]);
    expect(verifySignature('whsec_key_a', one?.raw ?? '', one?.signature ?? '')).toBe(true);
    expect(rows.map((r) => r.id)).toEqual(['crawl_a:page:1', 'crawl_a:page:2']);
  });

  it('sends failed with its error; nothing for pageFailed, an unwanted event, a job without a webhook or another tenant\'s event', async () => {
    const before = got.length;
    await handleJobEvent(event('crawl_a', 'pageFailed', { seq: 3 }), deps, signal);
    await handleJobEvent(event('batch_b', 'started'), deps, signal);
    await handleJobEvent(event('crawl_none', 'completed'), deps, signal);
    await handleJobEvent(event('crawl_a', 'completed', {}, 'key_other'), deps, signal);
    await handleJobEvent(event('crawl_unknown', 'completed'), deps, signal);
    expect(got.length).toBe(before);
    await handleJobEvent(event('batch_b', 'completed', { total: 1 }), deps, signal);
    await handleJobEvent(event('crawl_a', 'failed', { error: 'insufficient_credits: the balance ran out' }), deps, signal);
    expect(got.slice(before).map((g) => [g.path, g.body.type, g.body.success, g.body.error])).toEqual([
      ['/b', 'batch_scrape.completed', true, undefined],
      ['/a', 'crawl.failed', false, 'insufficient_credits: the balance ran out'],
    ]);
  });
});
