/**
 * Monitors end to end in embedded mode, through the production actors (gateway → the
 * frontier's schedule → MonitorCheckRequested → classifier → the scrape path → store →
 * MonitorChecked → notifier → receiver), against a local site whose pages change on command
 * and a webhook receiver that checks every signature.
 *
 * A monitor's first check runs at once (every page `new`, the webhook called); a real change
 * is `changed` with its diff and lines, a page whose only difference is noise (a clock, a
 * cache-busting query string, reordered attributes, whitespace) is `same`; a 404 is `removed`, an unreachable page
 * an `error` of a completed check; a receiver that is down does not hold the next check and
 * its failed delivery is on the check; a key that cannot pay gets a `skipped_no_credits`
 * check and a 402; another key sees 404s; bad bodies are 422s. PATCH changes the fields it
 * names (the next check reads the new pages), pauses (a run is 409 `monitor_paused`, the
 * record shows `paused` with no next check) and resumes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyWebhookSecret, meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { page, startHookReceiver, startMonitorSite, type HookReceiver, type MonitorSite } from '../helpers/monitor-site.js';
import { until } from '../helpers/wait.js';
import { apiCaller, type Body } from '../helpers/api.js';

const API_KEY = 'e2e-monitors-key-0123456789';
const WAIT = { timeoutMs: 30_000, intervalMs: 100 };

describe('e2e/monitors (embedded)', () => {
  let svc: Embedded;
  let site: MonitorSite;
  let hooks: HookReceiver;

  const call = apiCaller(() => svc.base, API_KEY);

  const checks = async (id: string, key = API_KEY) => (await call('GET', `/v1/monitor/${id}/checks`, undefined, key)).body.data?.checks as Body[];

  beforeAll(async () => {
    site = await startMonitorSite();
    hooks = await startHookReceiver();
    svc = await startEmbedded({
      apiKey: API_KEY,
      env: { FETCH_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_MS: '100', WEBHOOK_ATTEMPTS: '2', WEBHOOK_TIMEOUT_MS: '2000' },
    });
    hooks.secret = await apiKeyWebhookSecret(svc);
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hooks?.close();
  });

  it('checks at once, finds changes and ignores noise, and calls the signed webhook each time', async () => {
    site.set('/pricing', { html: page('Pricing', '<p>Starter plan: $19 a month.</p><p>Team plan: $49 a month.</p>') });
    site.set('/status', { html: page('Status', '<p>All systems normal.</p><p>Last updated 2026-11-26 23:15:10 UTC</p><p><a class="doc" href="/docs" title="Docs">Read the docs</a></p><img src="/logo.png?v=1795734910" alt="logo">') });
    site.set('/gone', { html: page('Old', '<p>An old page.</p>') });
    const created = await call('POST', '/v1/monitor', {
      name: 'Competitor pricing',
      url: `${site.origin}/pricing`,
      urls: [`${site.origin}/status`, `${site.origin}/gone`, `${site.origin}/pricing`],
      intervalMinutes: 5,
      goal: 'Tell me when prices move',
      webhook: `${hooks.origin}/hook`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const monitor = created.body.data;
    expect(monitor).toMatchObject({ name: 'Competitor pricing', status: 'active', intervalMinutes: 5, goal: 'Tell me when prices move', lastCheckAt: null, lastCheckSummary: null });
    expect(monitor.id).toMatch(/^mon_/);

    // The first check runs at once: every page new; the webhook is called with it.
    const [first] = await until('the first check', async () => {
      const list = await checks(monitor.id);
      return list?.[0]?.status === 'completed' ? list : null;
    }, WAIT);
    expect(first).toMatchObject({ trigger: 'scheduled', summary: { totalPages: 3, new: 3, same: 0, changed: 0, removed: 0, error: 0 }, creditsUsed: 3 });
    expect(first?.pages.map((p: Body) => p.url)).toEqual([`${site.origin}/pricing`, `${site.origin}/status`, `${site.origin}/gone`]);
    const hook1 = await until('the first delivery', () => hooks.received.find((h) => h.body.check?.id === first?.id), WAIT);
    expect(hook1.signed).toBe(true);
    expect(hook1.headers['x-wds-event']).toBe('monitor.check.completed');
    expect(hook1.body).toMatchObject({ type: 'monitor.check.completed', monitor: { id: monitor.id, name: 'Competitor pricing' }, check: { summary: { new: 3 } }, links: { checks: `/v1/monitor/${monitor.id}/checks` } });

    // A real change, a noise-only change, a page gone.
    site.set('/pricing', { html: page('Pricing', '<p>Starter plan: $24 a month.</p><p>Team plan: $49 a month.</p>') });
    site.set('/status', { html: page('Status', '<p>All systems   normal.</p>\n<p>Last updated 2026-11-27 08:02:44 UTC</p><p><a title="Docs" href="/docs" class="doc">Read the docs</a></p><img alt="logo" src="/logo.png?v=1795771364">') });
    site.set('/gone', { status: 404, html: page('Not found', '<p>Gone.</p>') });
    const run = await call('POST', `/v1/monitor/${monitor.id}/run`);
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const second = run.body.data;
    expect(second).toMatchObject({ trigger: 'manual', status: 'completed', summary: { totalPages: 3, changed: 1, same: 1, removed: 1, new: 0, error: 0 } });
    const byUrl = new Map<string, Body>(second.pages.map((p: Body) => [p.url.replace(site.origin, ''), p]));
    expect(byUrl.get('/pricing')).toMatchObject({ status: 'changed', statusCode: 200, added: ['Starter plan: $24 a month.'], removed: ['Starter plan: $19 a month.'] });
    expect(byUrl.get('/pricing')?.diff).toContain('-Starter plan: $19 a month.\n+Starter plan: $24 a month.');
    expect(byUrl.get('/status')).toMatchObject({ status: 'same', diff: null });
    expect(byUrl.get('/gone')).toMatchObject({ status: 'removed', statusCode: 404 });

    const hook2 = await until('the second delivery', () => hooks.received.find((h) => h.body.check?.id === second.id), WAIT);
    expect(hook2.signed).toBe(true);
    // Only the pages that were not `same`, each with its diff.
    expect(hook2.body.pages.map((p: Body) => [p.url.replace(site.origin, ''), p.status])).toEqual([
      ['/pricing', 'changed'],
      ['/gone', 'removed'],
    ]);
    expect(hook2.body.pages[0].diff).toContain('+Starter plan: $24 a month.');

    // The delivery is on the check; the record shows the last check.
    const listed = await until('the delivery recorded', async () => {
      const c = (await checks(monitor.id)).find((x) => x.id === second.id);
      return c?.webhook.deliveries.length ? c : null;
    }, WAIT);
    expect(listed.webhook.deliveries).toEqual([expect.objectContaining({ event: 'monitor.check.completed', status: 'delivered', attempts: 1, statusCode: 200, lastError: null })]);
    const got = await call('GET', `/v1/monitor/${monitor.id}`);
    expect(got.body.data).toMatchObject({ id: monitor.id, currentCheckId: null, lastCheckSummary: { totalPages: 3, changed: 1, same: 1, removed: 1 } });
    expect(Date.parse(got.body.data.nextCheckAt)).toBeGreaterThan(Date.parse(monitor.createdAt) + 4 * 60_000);
    // Newest first.
    expect((await checks(monitor.id)).map((c) => c.id)).toEqual([second.id, first?.id]);

    // Still gone is reported once; nothing changed is not sent.
    const third = (await call('POST', `/v1/monitor/${monitor.id}/run`)).body.data;
    expect(third.summary).toMatchObject({ same: 3, changed: 0, removed: 0 });
    expect(third.creditsUsed).toBe(3);
  }, 90_000);

  it('reports an unreachable page as an error of a completed check, and a receiver that is down does not hold the next check', async () => {
    site.set('/up', { html: page('Up', '<p>Here.</p>') });
    hooks.script('/down', [500, 500, 500, 500]);
    const created = await call('POST', '/v1/monitor', { name: 'Flaky', urls: [`${site.origin}/up`, 'http://127.0.0.1:9/nothing-listens'], webhook: `${hooks.origin}/down` });
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    const first = await until('the first check', async () => (await checks(id))?.find((c) => c.status === 'completed'), WAIT);
    expect(first.summary).toMatchObject({ new: 1, error: 1 });
    const failed = first.pages.find((p: Body) => p.status === 'error');
    expect(failed).toMatchObject({ url: 'http://127.0.0.1:9/nothing-listens', statusCode: null });
    expect(failed.error.code).toBe('connection_refused');
    expect(first.creditsUsed).toBe(1);
    // The receiver answers 500 twice (WEBHOOK_ATTEMPTS 2): the delivery failed and says so.
    const recorded = await until('the failed delivery recorded', async () => {
      const c = (await checks(id)).find((x) => x.id === first.id);
      return c?.webhook.deliveries[0]?.status === 'failed' ? c : null;
    }, WAIT);
    expect(recorded.webhook.deliveries[0]).toMatchObject({ attempts: 2, statusCode: 500 });
    const next = await call('POST', `/v1/monitor/${id}/run`);
    expect(next.body.data).toMatchObject({ status: 'completed', summary: { same: 1, error: 1 } });
  }, 90_000);

  it('runs one check at a time: a run while one is in progress is a 409', async () => {
    site.set('/slow', { html: page('Slow', '<p>Takes a while.</p>'), delayMs: 1500 });
    const id = (await call('POST', '/v1/monitor', { name: 'Slow', url: `${site.origin}/slow` })).body.data.id;
    const running = await until('the first check in progress', async () => (await call('GET', `/v1/monitor/${id}`)).body.data.currentCheckId, WAIT);
    const again = await call('POST', `/v1/monitor/${id}/run`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('monitor_check_running');
    expect(again.body.error.message).toContain(running);
    await until('the first check done', async () => (await checks(id))[0]?.status === 'completed', WAIT);
    expect(await checks(id)).toHaveLength(1);
  }, 60_000);

  it("keeps no page copy of a check's reads: a later scrape with maxAge reads the page fresh, then from its own copy", async () => {
    site.set('/uncached', { html: page('Uncached', '<p>Read by a monitor only.</p>') });
    const url = `${site.origin}/uncached`;
    const id = (await call('POST', '/v1/monitor', { name: 'Uncached', url })).body.data.id;
    await until('the first check', async () => (await checks(id))?.find((c) => c.status === 'completed'), WAIT);
    expect((await call('POST', `/v1/monitor/${id}/run`)).body.data).toMatchObject({ status: 'completed', summary: { same: 1 } });
    expect(site.hits('/uncached')).toBe(2);
    const scraped = await call('POST', '/v1/scrape', { url, maxAge: 3_600_000 });
    expect(scraped.body.data.cost.source).toBe('fresh');
    expect(scraped.body.data.markdown).toContain('Read by a monitor only.');
    // The scrape keeps its copy (storeInCache defaults to true): the next one is served from it.
    expect((await call('POST', '/v1/scrape', { url, maxAge: 3_600_000 })).body.data.cost.source).toBe('cache');
    expect(site.hits('/uncached')).toBe(3);
  }, 60_000);

  it('skips the check of a key that cannot pay, recorded with the reason, and answers the run 402', async () => {
    site.set('/paid', { html: page('Paid', '<p>Costs a credit.</p>') });
    const { key, balance } = await meteredKey(svc.dataDir, 1);
    const id = (await call('POST', '/v1/monitor', { name: 'Metered', urls: [`${site.origin}/paid`] }, key)).body.data.id;
    const first = await until('the first check', async () => (await checks(id, key))?.find((c) => c.status === 'completed'), WAIT);
    expect(first.creditsUsed).toBe(1);
    expect(await balance()).toBe(0);
    const hits = site.hits('/paid');
    const run = await call('POST', `/v1/monitor/${id}/run`, undefined, key);
    expect(run.status).toBe(402);
    expect(run.body.error.code).toBe('insufficient_credits');
    const [skipped] = await checks(id, key);
    expect(skipped).toMatchObject({ status: 'skipped_no_credits', trigger: 'manual', pages: [], creditsUsed: 0 });
    expect(skipped?.reason).toContain('insufficient_credits');
    expect(site.hits('/paid')).toBe(hits);
  }, 60_000);

  it('updates, pauses and resumes a monitor: a paused monitor runs nothing, and the next check reads the new pages', async () => {
    site.set('/first', { html: page('First', '<p>The first page.</p>') });
    site.set('/second', { html: page('Second', '<p>The second page.</p>') });
    const created = (await call('POST', '/v1/monitor', { name: 'Patched', url: `${site.origin}/first`, intervalMinutes: 30 })).body.data;
    const id = created.id as string;
    await until('the first check', async () => (await checks(id))?.find((c) => c.status === 'completed'), WAIT);
    const dueBefore = Date.parse((await call('GET', `/v1/monitor/${id}`)).body.data.nextCheckAt);

    const paused = await call('PATCH', `/v1/monitor/${id}`, { status: 'paused' });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body.data).toMatchObject({ id, status: 'paused', nextCheckAt: null, name: 'Patched', url: `${site.origin}/first`, intervalMinutes: 30 });
    expect(Date.parse(paused.body.data.updatedAt)).toBeGreaterThan(Date.parse(created.createdAt) - 1);
    const hits = site.hits('/first');
    const refused = await call('POST', `/v1/monitor/${id}/run`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('monitor_paused');
    expect(refused.body.error.message).toContain('paused');
    expect(site.hits('/first')).toBe(hits);
    expect((await call('GET', '/v1/monitor')).body.data.monitors.find((m: Body) => m.id === id)).toMatchObject({ status: 'paused', nextCheckAt: null });

    // Changed while paused: the pages, the name, the interval; still paused.
    const changed = await call('PATCH', `/v1/monitor/${id}`, { name: 'Patched again', url: null, urls: [`${site.origin}/second`], intervalMinutes: 60 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toMatchObject({ status: 'paused', name: 'Patched again', url: null, urls: [`${site.origin}/second`], intervalMinutes: 60, nextCheckAt: null });

    // Resumed: on its rhythm (one new interval after its last due time, which has not passed), and runs the new pages.
    const resumed = await call('PATCH', `/v1/monitor/${id}`, { status: 'active' });
    expect(resumed.body.data).toMatchObject({ status: 'active' });
    expect(Date.parse(resumed.body.data.nextCheckAt)).toBe(dueBefore + 30 * 60_000);
    const run = await call('POST', `/v1/monitor/${id}/run`);
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.data).toMatchObject({ status: 'completed', summary: { totalPages: 1, new: 1 } });
    expect(run.body.data.pages.map((p: Body) => p.url)).toEqual([`${site.origin}/second`]);
    expect(site.hits('/first')).toBe(hits);
  }, 60_000);

  it.each([
    ['an empty body', {}],
    ['an unknown field', { cron: '* * * * *' }],
    ['an interval below 5 minutes', { intervalMinutes: 4 }],
    ['a status other than active or paused', { status: 'stopped' }],
    ['no page left', { url: null }],
    ['a name too long', { name: 'x'.repeat(121) }],
    ['a webhook that is not a URL', { webhook: 'not a url' }],
  ])('refuses a PATCH with %s with a 422 and changes nothing', async (_what, body) => {
    site.set('/kept', { html: page('Kept', '<p>Kept.</p>') });
    const id = (await call('POST', '/v1/monitor', { name: 'Kept', url: `${site.origin}/kept` })).body.data.id;
    const res = await call('PATCH', `/v1/monitor/${id}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(Array.isArray(res.body.detail) && res.body.detail.length > 0).toBe(true);
    expect((await call('GET', `/v1/monitor/${id}`)).body.data).toMatchObject({ name: 'Kept', url: `${site.origin}/kept`, status: 'active' });
  });

  it("answers 404 for another key's monitor and for a deleted one", async () => {
    site.set('/mine', { html: page('Mine', '<p>Private.</p>') });
    const { key: other } = await meteredKey(svc.dataDir, 100);
    const id = (await call('POST', '/v1/monitor', { name: 'Mine', url: `${site.origin}/mine` })).body.data.id;
    for (const [method, path] of [['GET', `/v1/monitor/${id}`], ['GET', `/v1/monitor/${id}/checks`], ['POST', `/v1/monitor/${id}/run`], ['PATCH', `/v1/monitor/${id}`], ['DELETE', `/v1/monitor/${id}`]] as const) {
      const res = await call(method, path, method === 'PATCH' ? { status: 'paused' } : undefined, other);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await call('GET', `/v1/monitor/${id}`)).body.data.status).toBe('active');
    expect((await call('GET', '/v1/monitor', undefined, other)).body.data.monitors).toEqual([]);
    expect((await call('GET', '/v1/monitor')).body.data.monitors.map((m: Body) => m.id)).toContain(id);
    expect((await call('DELETE', `/v1/monitor/${id}`)).body.data).toMatchObject({ id, deleted: true });
    expect((await call('GET', `/v1/monitor/${id}`)).status).toBe(404);
    expect((await call('GET', '/v1/monitor')).body.data.monitors.map((m: Body) => m.id)).not.toContain(id);
  }, 60_000);

  it.each([
    ['an interval below 5 minutes', { name: 'x', url: 'https://example.com/', intervalMinutes: 4 }],
    ['an interval above a week', { name: 'x', url: 'https://example.com/', intervalMinutes: 10081 }],
    ['no page', { name: 'x' }],
    ['a page that is not an http(s) URL', { name: 'x', url: 'ftp://example.com/file' }],
    ['more than 50 urls', { name: 'x', urls: Array.from({ length: 51 }, (_, i) => `https://example.com/${i}`) }],
    ['a webhook that is not a URL', { name: 'x', url: 'https://example.com/', webhook: 'not a url' }],
    ['an unknown field', { name: 'x', url: 'https://example.com/', cron: '* * * * *' }],
  ])('refuses %s with a 422', async (_what, body) => {
    const res = await call('POST', '/v1/monitor', body);
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail) && res.body.detail.length > 0).toBe(true);
  });

  it('refuses a checks limit out of range with a 422', async () => {
    expect((await call('GET', '/v1/monitor/mon_x/checks?limit=101')).status).toBe(422);
    expect((await call('GET', '/v1/monitor/mon_x/checks?limit=0')).status).toBe(422);
  });
});

describe('e2e/monitors: FETCH_ALLOW_PRIVATE off', () => {
  let svc: Embedded;
  beforeAll(async () => {
    svc = await startEmbedded({ apiKey: API_KEY });
  }, 60_000);
  afterAll(() => svc?.stop());

  it('refuses a webhook or a page on a private address when the monitor is created', async () => {
    for (const body of [
      { name: 'x', url: 'https://93.184.215.14/', webhook: 'http://127.0.0.1:8080/hook' },
      { name: 'x', url: 'http://10.0.0.8/admin' },
    ]) {
      const res = await fetch(`${svc.base}/v1/monitor`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(403);
      expect(((await res.json()) as Body).error.code).toBe('url_blocked');
    }
    const list = (await (await fetch(`${svc.base}/v1/monitor`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as Body;
    expect(list.data.monitors).toEqual([]);
  });

  it('refuses a webhook or a page on a private address when the monitor is updated, changing nothing', async () => {
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${svc.base}/v1/monitor`, { method: 'POST', headers, body: JSON.stringify({ name: 'x', url: 'https://93.184.215.14/' }) })).json()) as Body;
    const id = created.data.id as string;
    for (const body of [{ webhook: 'http://127.0.0.1:8080/hook' }, { urls: ['http://10.0.0.8/admin'] }]) {
      const res = await fetch(`${svc.base}/v1/monitor/${id}`, { method: 'PATCH', headers, body: JSON.stringify(body) });
      expect(res.status).toBe(403);
      expect(((await res.json()) as Body).error.code).toBe('url_blocked');
    }
    const got = (await (await fetch(`${svc.base}/v1/monitor/${id}`, { headers })).json()) as Body;
    expect(got.data).toMatchObject({ webhook: null, urls: [], url: 'https://93.184.215.14/' });
  });
});
