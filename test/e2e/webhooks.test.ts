/**
 * Job webhooks through the production actors in embedded mode (gateway → JobEvent → frontier
 * … parser → JobEvent → notifier → receiver): a local receiver on 127.0.0.1 recomputes the
 * HMAC of every delivery with the key's secret (derived from DATA_DIR/webhook-secret, as
 * `npm run keys -- webhook-secret` prints it) and records what arrives. A crawl and a batch
 * send started, page and completed with the Firecrawl v1 body; `events` filters; the
 * caller's headers arrive; cancel and a balance that runs out send `crawl.cancelled` and
 * `crawl.failed`; a receiver failing twice with 500 gets the delivery on the third
 * attempt (small retry delays via WEBHOOK_RETRY_*); a 400 is not retried; every attempt is
 * a `webhook_deliveries` row holding the receiver's origin only; headers that could not be
 * sent or that the HTTP stack owns are a 422. Then, with FETCH_ALLOW_PRIVATE off, a webhook to
 * a private address, and a crawl or batch start URL the guard refuses, are refused when the
 * job starts (a batch lists them in `invalidURLs`).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { serverWebhookSecret } from '../../pipeline/webhooks/secret.js';
import { keyWebhookSecret, verifySignature } from '../../pipeline/webhooks/signing.js';
import { apiKeyWebhookSecret, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startMapSite, type MapSite } from '../helpers/map-site.js';
import { until } from '../helpers/wait.js';
import { runtimeCapturingActors } from '../helpers/capture-runtime.js';

const API_KEY = 'e2e-webhooks-key-0123456789';
/** Deliveries cross the embedded service and a webhook receiver: wait up to 25 s, checking every 50 ms. */
const WAIT = { timeoutMs: 25_000, intervalMs: 50 };

type Body = Record<string, any>;

interface Delivery {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly raw: string;
  readonly body: Body;
  /** Whether the signature matched the raw body under the key's secret. */
  readonly signed: boolean;
  readonly status: number;
}

interface Started extends Embedded {
  runtime: ServiceRuntime;
}

/** The service with the production actors, capturing the runtime to read the store. */
async function start(env: Record<string, string>): Promise<Started> {
  const built = runtimeCapturingActors();
  const running = await startEmbedded({ apiKey: API_KEY, env, actors: built.actors });
  return Object.assign(running, { runtime: built.runtime() });
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

describe('e2e/webhooks', () => {
  let site: MapSite;
  let slow: MapSite;
  let svc: Started;
  let receiver: http.Server;
  let hookOrigin = '';
  let secret = '';
  const deliveries: Delivery[] = [];
  /** The signing secret of another key, by receiver path. */
  const secretsByPath = new Map<string, string>();
  /** Statuses to answer per path, in turn (then 200). */
  const script = new Map<string, number[]>();

  const at = (path: string) => deliveries.filter((d) => d.path === path);
  const types = (path: string) => at(path).map((d) => d.body.type as string);

  beforeAll(async () => {
    site = await startMapSite();
    slow = await startMapSite({ delayMs: (path) => (path.startsWith('/page/') ? 300 : 0) });
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        const path = req.url ?? '/';
        const status = script.get(path)?.shift() ?? 200;
        let body: Body = {};
        try {
          body = JSON.parse(raw) as Body;
        } catch {
          body = {};
        }
        const signed = verifySignature(secretsByPath.get(path) ?? secret, raw, String(req.headers['x-wds-signature'] ?? ''));
        deliveries.push({ path, headers: req.headers, raw, body, signed, status });
        res.writeHead(status).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    hookOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    svc = await start({ FETCH_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_MS: '200', WEBHOOK_ATTEMPTS: '4', WEBHOOK_TIMEOUT_MS: '3000' });
    secret = await apiKeyWebhookSecret(svc);
  });

  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await slow?.close();
    receiver?.closeAllConnections();
    receiver?.close();
  });

  it('a crawl sends crawl.started, a crawl.page with each document and crawl.completed, signed, with the caller\'s headers and metadata', async () => {
    const res = await call(svc.base, 'POST', '/v1/crawl', {
      url: site.url('/'),
      ignoreSitemap: true,
      maxDepth: 1,
      limit: 4,
      webhook: { url: `${hookOrigin}/crawl`, headers: { 'x-receiver-token': 'tok-123', 'X-Tab-Value': 'a\tb é' }, metadata: { run: 'r1' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id as string;
    await until('crawl.completed', () => types('/crawl').includes('crawl.completed'), WAIT);
    const status = await call(svc.base, 'GET', `/v1/crawl/${id}`);
    expect(status.body.data.status).toBe('completed');
    // Pages whose delivery may still be in flight when completed lands.
    await until('every page', () => types('/crawl').filter((t) => t === 'crawl.page').length >= (status.body.data.completed as number), WAIT);

    const got = at('/crawl');
    expect(got.every((d) => d.signed)).toBe(true);
    expect(got.every((d) => d.headers['x-receiver-token'] === 'tok-123')).toBe(true);
    expect(got.every((d) => d.headers.host === new URL(hookOrigin).host)).toBe(true);
    expect(got.every((d) => d.headers['content-type'] === 'application/json')).toBe(true);
    expect(got.every((d) => d.body.id === id && d.body.success === true)).toBe(true);
    expect(got.every((d) => JSON.stringify(d.body.metadata) === JSON.stringify({ run: 'r1' }))).toBe(true);
    expect(types('/crawl').filter((t) => t === 'crawl.started')).toHaveLength(1);
    expect(types('/crawl').filter((t) => t === 'crawl.completed')).toHaveLength(1);
    const pages = got.filter((d) => d.body.type === 'crawl.page');
    expect(pages).toHaveLength(4);
    for (const page of pages) {
      expect(page.body.data).toHaveLength(1);
      expect(typeof page.body.data[0].markdown).toBe('string');
      expect(page.body.data[0].metadata.sourceURL.startsWith(site.origin)).toBe(true);
    }
    // Each page's document is the one the pages listing returns.
    const listed = await call(svc.base, 'GET', `/v1/crawl/${id}/pages?limit=10`);
    const byUrl = new Map((listed.body.data.data as Body[]).map((d) => [d.metadata.sourceURL as string, d]));
    expect(byUrl.size).toBe(4);
    for (const page of pages) expect(page.body.data[0]).toEqual(byUrl.get(page.body.data[0].metadata.sourceURL));
    expect(pages.find((p) => p.body.data[0].metadata.sourceURL === site.url('/'))?.body.data[0].markdown).toMatch(/Section 0/);
    expect(got.find((d) => d.body.type === 'crawl.started')?.body.data).toEqual([]);
  });

  it('a batch with a bare URL sends batch_scrape.started, .page and .completed', async () => {
    const urls = [1, 2, 3].map((n) => site.url(`/page/${n}`));
    const res = await call(svc.base, 'POST', '/v1/batch/scrape', { urls, webhook: `${hookOrigin}/batch` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await until('batch pages and completed', () => types('/batch').filter((t) => t === 'batch_scrape.page').length === 3 && types('/batch').includes('batch_scrape.completed'), WAIT);
    expect(types('/batch').sort()).toEqual(['batch_scrape.completed', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.started']);
    expect(at('/batch').every((d) => d.signed && d.body.id === res.body.data.id)).toBe(true);
    expect(at('/batch').map((d) => d.body.data[0]?.metadata?.sourceURL).filter(Boolean).sort()).toEqual([...urls].sort());
  });

  it('sends only the events asked for', async () => {
    const res = await call(svc.base, 'POST', '/v1/batch/scrape', { urls: [site.url('/page/4'), site.url('/page/5')], webhook: { url: `${hookOrigin}/only-completed`, events: ['completed'] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id as string;
    await until('completed', () => types('/only-completed').includes('batch_scrape.completed'), WAIT);
    // The job's other events have long been handled by then (a page's event precedes completed).
    await new Promise((r) => setTimeout(r, 300));
    expect(types('/only-completed')).toEqual(['batch_scrape.completed']);
    const rows = await svc.runtime.store.query<{ event: string }>('SELECT event FROM webhook_deliveries FINAL WHERE source_id = {id:String}', { id });
    expect(rows.map((r) => r.event)).toEqual(['batch_scrape.completed']);
  });

  it('retries a receiver answering 500 twice and records every attempt; a 400 is not retried', async () => {
    script.set('/flaky', [500, 500]);
    const flaky = await call(svc.base, 'POST', '/v1/batch/scrape', { urls: [site.url('/page/6')], webhook: { url: `${hookOrigin}/flaky`, events: ['started'] } });
    expect(flaky.status).toBe(200);
    const flakyId = flaky.body.data.id as string;
    await until('the third attempt', () => at('/flaky').length >= 3, WAIT);
    expect(at('/flaky').map((d) => d.status)).toEqual([500, 500, 200]);
    // The same body each attempt, each signed afresh.
    expect(new Set(at('/flaky').map((d) => d.raw)).size).toBe(1);
    expect(at('/flaky').every((d) => d.signed)).toBe(true);
    const flakyRows = await until('three recorded attempts', async () => {
      const rows = await svc.runtime.store.query<Record<string, any>>('SELECT * FROM webhook_deliveries FINAL WHERE source_id = {id:String} ORDER BY attempt', { id: flakyId });
      return rows.length === 3 ? rows : null;
    }, WAIT);
    expect(flakyRows.map((r) => [Number(r.attempt), Number(r.status_code), Number(r.ok)])).toEqual([
      [1, 500, 0],
      [2, 500, 0],
      [3, 200, 1],
    ]);
    // The receiver's origin only: its path and query often hold its secret.
    expect(flakyRows[0]).toMatchObject({ event: 'batch_scrape.started', url: hookOrigin, id: `${flakyId}:started` });
    expect(flakyRows.every((r) => r.tenant !== '')).toBe(true);

    script.set('/rejecting', [400, 400, 400]);
    const rejected = await call(svc.base, 'POST', '/v1/batch/scrape', { urls: [site.url('/page/7')], webhook: { url: `${hookOrigin}/rejecting`, events: ['started'] } });
    expect(rejected.status).toBe(200);
    const rejectedId = rejected.body.data.id as string;
    const rows = await until('the 400 recorded', async () => {
      const r = await svc.runtime.store.query<Record<string, any>>('SELECT * FROM webhook_deliveries FINAL WHERE source_id = {id:String}', { id: rejectedId });
      return r.length ? r : null;
    }, WAIT);
    await new Promise((r) => setTimeout(r, 400)); // longer than any backoff: a retry would have come
    expect(at('/rejecting')).toHaveLength(1);
    expect(rows.map((r) => [Number(r.attempt), Number(r.status_code), Number(r.ok), r.error])).toEqual([[1, 400, 0, 'the receiver answered 400']]);
  });

  it('sends crawl.cancelled when a crawl is cancelled', async () => {
    const res = await call(svc.base, 'POST', '/v1/crawl', { url: slow.url('/'), ignoreSitemap: true, maxConcurrency: 1, webhook: { url: `${hookOrigin}/cancel`, events: ['started', 'cancelled'] } });
    expect(res.status).toBe(200);
    const id = res.body.data.id as string;
    await until('started', () => types('/cancel').includes('crawl.started'), WAIT);
    expect((await call(svc.base, 'DELETE', `/v1/crawl/${id}`)).body.data.status).toBe('cancelled');
    await until('cancelled', () => types('/cancel').includes('crawl.cancelled'), WAIT);
    const cancelled = at('/cancel').find((d) => d.body.type === 'crawl.cancelled');
    expect(cancelled).toMatchObject({ signed: true, body: { success: true, id, data: [], metadata: {} } });
  });

  it('sends crawl.failed with the error when the balance runs out, signed with that key\'s own secret', async () => {
    const keys = new FileKeyRegistry(svc.dataDir);
    let key = '';
    try {
      const made = await keys.create({ name: 'metered', credits: 2 });
      key = made.key;
      secretsByPath.set('/failed', keyWebhookSecret(serverWebhookSecret(svc.config), made.record.id));
    } finally {
      keys.close();
    }
    expect(secretsByPath.get('/failed')).not.toBe(secret);
    const res = await fetch(`${svc.base}/v1/crawl`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/'), limit: 50, maxConcurrency: 2, webhook: { url: `${hookOrigin}/failed`, events: ['failed'] } }),
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as Body).data.id as string;
    await until('failed', () => types('/failed').includes('crawl.failed'), WAIT);
    const failed = at('/failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ signed: true, body: { success: false, type: 'crawl.failed', id, data: [] } });
    expect(failed[0]?.body.error).toMatch(/insufficient_credits/);
  });

  it('answers 422 for headers that could not be sent or that the HTTP stack owns, creating nothing', async () => {
    // Jobs of the earlier tests may still write new versions: count jobs, not rows.
    const jobCount = 'SELECT uniqExact(id) AS n FROM jobs';
    const before = await svc.runtime.store.query<{ n: string }>(jobCount);
    for (const [headers, type] of [
      [{ 'X-Token': 'abc\r\nX-Injected: 1' }, 'header_value_invalid'],
      [{ Host: 'internal.example' }, 'header_forbidden'],
      [{ 'Transfer-Encoding': 'chunked' }, 'header_forbidden'],
      [{ 'bad name': 'x' }, 'header_name_invalid'],
    ] as const) {
      const res = await call(svc.base, 'POST', '/v1/crawl', { url: site.url('/'), webhook: { url: `${hookOrigin}/never`, headers } });
      expect(res.status, JSON.stringify(headers)).toBe(422);
      expect(res.body.detail).toEqual([{ loc: ['body', 'webhook', 'headers', Object.keys(headers)[0]], msg: expect.any(String), type }]);
    }
    expect(await svc.runtime.store.query<{ n: string }>(jobCount)).toEqual(before);
    expect(at('/never')).toEqual([]);
  });

  it('answers 422 for a webhook that is not a URL, and keeps the webhook out of the stored job', async () => {
    const bad = await call(svc.base, 'POST', '/v1/batch/scrape', { urls: [site.url('/page/8')], webhook: { url: 'ftp://example.com/x' } });
    expect(bad.status).toBe(422);
    const res = await call(svc.base, 'POST', '/v1/batch/scrape', { urls: [site.url('/page/8')], webhook: { url: `${hookOrigin}/quiet`, headers: { authorization: 'Bearer receiver-secret' }, events: ['completed'] } });
    expect(res.status).toBe(200);
    const id = res.body.data.id as string;
    await until('completed', () => types('/quiet').includes('batch_scrape.completed'), WAIT);
    expect(at('/quiet')[0]?.headers.authorization).toBe('Bearer receiver-secret');
    const stored = await svc.runtime.store.query<{ params: string }>('SELECT params FROM jobs FINAL WHERE id = {id:String}', { id });
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain('receiver-secret');
  });
});

describe('e2e/webhooks: FETCH_ALLOW_PRIVATE off', () => {
  let svc: Started;
  beforeAll(async () => {
    svc = await start({});
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('refuses a webhook to a loopback or private address when the job starts, creating nothing', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.0.0.5/hook', 'http://localhost/hook']) {
      const res = await call(svc.base, 'POST', '/v1/crawl', { url: 'https://example.com/', webhook: { url } });
      expect(res.status, url).toBe(403);
      expect(res.body.error.code).toBe('url_blocked');
      expect(res.body.error.message).toMatch(/^webhook: refused/);
    }
    const bare = await call(svc.base, 'POST', '/v1/batch/scrape', { urls: ['https://example.com/'], webhook: 'http://192.168.1.1/hook' });
    expect(bare.status).toBe(403);
    expect(bare.body.error.code).toBe('url_blocked');
    const jobs = await svc.runtime.store.query('SELECT id FROM jobs');
    expect(jobs).toEqual([]);
  });

  it("refuses a crawl whose start URL is private with 403 url_blocked, as a scrape's, creating nothing", async () => {
    for (const url of ['http://127.0.0.1:9/', 'http://169.254.169.254/latest/meta-data/', 'http://localhost/']) {
      const res = await call(svc.base, 'POST', '/v1/crawl', { url });
      expect(res.status, url).toBe(403);
      expect(res.body.error.code).toBe('url_blocked');
      expect(res.body.error.message).toMatch(/^refused to fetch /);
    }
    const none = await call(svc.base, 'POST', '/v1/batch/scrape', { urls: ['http://10.0.0.5/', 'http://[::1]/'] });
    expect(none.status).toBe(403);
    expect(none.body.error.code).toBe('url_blocked');
    expect(await svc.runtime.store.query('SELECT id FROM jobs')).toEqual([]);
  });

  it('starts a batch with the URLs the guard allows and lists the others in invalidURLs', async () => {
    // `.invalid` never resolves: not refused at the start (its page fails dns_failed).
    const res = await call(svc.base, 'POST', '/v1/batch/scrape', { urls: ['http://127.0.0.1:9/a', 'https://site.invalid/b', 'http://metadata.google.internal/'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.invalidURLs).toEqual(['http://127.0.0.1:9/a', 'http://metadata.google.internal/']);
    const id = res.body.data.id as string;
    const stored = await svc.runtime.store.query<{ params: string }>('SELECT params FROM jobs FINAL WHERE id = {id:String}', { id });
    expect(JSON.parse(stored[0]?.params ?? '{}').urls).toEqual(['https://site.invalid/b']);
    const status = await until('the batch ends', async () => {
      const r = await call(svc.base, 'GET', `/v1/batch/${id}`);
      return ['completed', 'failed'].includes(r.body.data.status) ? r.body.data : null;
    }, WAIT);
    expect(status).toMatchObject({ completed: 0, failed: 1 });
  });
});
