/**
 * The dashboard end to end (docs/dashboard.md), in headless Chromium against the embedded
 * service: a key makes scrapes, a failed and an invalid request, a monitor with a change and
 * a webhook, a mention watch over a local feed (a mention's status then changed), and a crawl
 * of a slow local site; the page signed in with that key shows each in its panel (plots and
 * tables), the running crawl's progress bar moves, a batch's failed page is listed under it, the key lives in session storage only, and
 * another key signed in sees none of it. A screenshot of each panel is saved under
 * test/artifacts/dashboard/ (git-ignored; docs/images/ holds copies).
 */
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCaller, type Body } from '../helpers/api.js';
import { apiKeyWebhookSecret, meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { CHROMIUM, engine } from '../helpers/engines.js';
import { page as html, startHookReceiver, startMonitorSite, type HookReceiver, type MonitorSite } from '../helpers/monitor-site.js';
import { until } from '../helpers/wait.js';

const hasChromium = await engine('chromium', () => existsSync(CHROMIUM.path), CHROMIUM.install);

const API_KEY = 'e2e-dashboard-key-0123456789';
const WAIT = { timeoutMs: 45_000, intervalMs: 150 };
const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts', 'dashboard');
const SLOW_PAGES = 12;

/** A one-item RSS feed on 127.0.0.1 naming the watch's keyword. */
async function startFeed(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    const item = `<item><guid>urn:e2e:dash-1</guid><title>Acme Widgets review: fast and sturdy</title><link>https://blog.example/acme-widgets</link><description>We tried Acme Widgets for a month and liked them.</description><pubDate>${new Date(Date.now() - 3_600_000).toUTCString()}</pubDate></item>`;
    res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>https://blog.example/</link>${item}</channel></rss>`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe.skipIf(!hasChromium)('e2e/dashboard (embedded, Chromium)', () => {
  let svc: Embedded;
  let site: MonitorSite;
  let hooks: HookReceiver;
  let feed: Awaited<ReturnType<typeof startFeed>>;
  let browser: Browser;
  let otherKey = '';
  const call = apiCaller(() => svc.base, API_KEY);
  /** What the first key made, to look for in its panels and not in the other key's. */
  const made = { monitorId: '', mentionTitle: 'Acme Widgets review: fast and sturdy', crawlId: '' };

  beforeAll(async () => {
    [site, hooks, feed] = await Promise.all([startMonitorSite(), startHookReceiver(), startFeed()]);
    svc = await startEmbedded({
      apiKey: API_KEY,
      env: { FETCH_ALLOW_PRIVATE: 'true', SEARCH_PROVIDERS: 'local', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_MS: '100', WEBHOOK_ATTEMPTS: '2' },
      before: async (config) => {
        otherKey = (await meteredKey(config.dataDir, 1000)).key;
      },
    });
    hooks.secret = await apiKeyWebhookSecret(svc);
    browser = await chromium.launch({ executablePath: CHROMIUM.path, args: [...CHROMIUM.args] });
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await Promise.all([site?.close(), hooks?.close(), feed?.close()]);
  });

  /** A new page signed in with `key`, on `#tab`. */
  async function signedIn(key: string, tab = 'usage'): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${svc.base}/dashboard#${tab}`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator(`#panel-${tab}[data-loaded]`).waitFor({ timeout: 15_000 });
    expect(problems).toEqual([]);
    return page;
  }

  const openTab = async (page: Page, tab: string) => {
    await page.locator(`nav a[data-tab="${tab}"]`).click();
    await page.locator(`#panel-${tab}[data-loaded]:not([hidden])`).waitFor({ timeout: 15_000 });
  };

  it('answers 401 without a key and serves the page and its files', async () => {
    for (const panel of ['usage', 'jobs', 'monitors', 'mentions']) {
      const res = await fetch(`${svc.base}/dashboard/api/${panel}`);
      expect(res.status, panel).toBe(401);
      expect(((await res.json()) as Body).error.code).toBe('missing_api_key');
    }
    const pageRes = await fetch(`${svc.base}/dashboard`);
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await pageRes.text()).toContain('<label for="api-key">API key</label>');
    expect((await fetch(`${svc.base}/dashboard/static/app.js`)).status).toBe(200);
    expect((await fetch(`${svc.base}/dashboard/static/nothing.js`)).status).toBe(404);
  });

  it('makes data with the first key: scrapes, failures, a monitor with a change, mentions', async () => {
    site.set('/pricing', { html: html('Pricing', '<p>Starter plan: $19 a month.</p>') });
    for (let i = 0; i < 2; i++) expect((await call('POST', '/v1/scrape', { url: `${site.origin}/pricing` })).status).toBe(200);
    expect((await call('POST', '/v1/scrape', { url: 'not a url' })).status).toBe(422);
    expect((await call('POST', '/v1/scrape', { url: 'http://127.0.0.1:9/nothing-listens' })).body.error.code).toBe('connection_refused');

    const monitor = await call('POST', '/v1/monitor', { name: 'Dashboard pricing', url: `${site.origin}/pricing`, intervalMinutes: 60, webhook: `${hooks.origin}/hook` });
    expect(monitor.status, JSON.stringify(monitor.body)).toBe(200);
    made.monitorId = monitor.body.data.id;
    await until('the first check', async () => ((await call('GET', `/v1/monitor/${made.monitorId}/checks`)).body.data.checks as Body[])[0]?.status === 'completed', WAIT);
    site.set('/pricing', { html: html('Pricing', '<p>Starter plan: $24 a month.</p>') });
    const run = await call('POST', `/v1/monitor/${made.monitorId}/run`);
    expect(run.body.data.summary.changed).toBe(1);
    await until('the deliveries', () => hooks.received.filter((h) => h.body.monitor?.id === made.monitorId).length >= 2, WAIT);

    const watch = await call('POST', '/v1/mentions/watches', { name: 'Acme Widgets', keywords: ['Acme Widgets'], platforms: ['feeds'], feeds: [feed.url], intervalMinutes: 60 });
    expect(watch.status, JSON.stringify(watch.body)).toBe(200);
    const mentions = await until('the mention', async () => {
      const list = (await call('GET', `/v1/mentions?watch_id=${watch.body.data.id}`)).body.data.mentions as Body[];
      return list.length ? list : null;
    }, WAIT);
    expect((await call('PATCH', `/v1/mentions/${mentions[0]?.id}`, { status: 'seen' })).status).toBe(200);

    // The other key's own request: it must see it, and only it.
    expect((await call('POST', '/v1/scrape', { url: `${site.origin}/pricing` }, otherKey)).status).toBe(200);
    // Request rows land within a second (a batch): the panel shows them once they have.
    await until('the request rows', async () => {
      const usage = (await call('GET', '/dashboard/api/usage')).body.data;
      return usage.totals.errors >= 2 && usage.byDay.some((r: Body) => r.op === 'scrape' && r.requests >= 4);
    }, WAIT);
  }, 120_000);

  it('shows usage: requests and credits per day by operation, errors by code, as plots', async () => {
    const page = await signedIn(API_KEY);
    const usage = page.locator('#panel-usage');
    expect(Number(await usage.locator('#total-requests').innerText())).toBeGreaterThanOrEqual(4);
    expect(await usage.locator('figure').count()).toBe(3);
    expect(await usage.locator('svg rect[data-series="scrape"]').count()).toBeGreaterThanOrEqual(2);
    expect(await usage.locator('svg rect[data-series="monitor: checks run"]').count()).toBe(1);
    const errorBars = await usage.locator('svg rect[data-label]').evaluateAll((rects) => rects.map((r) => r.getAttribute('data-label')));
    expect(errorBars).toEqual(expect.arrayContaining(['validation_failed (scrape)', 'connection_refused (scrape)']));
    await page.screenshot({ path: join(SHOTS, 'usage.png'), fullPage: true });

    const storage = await page.evaluate(() => ({ local: localStorage.length, cookie: document.cookie, session: Object.keys(sessionStorage) }));
    expect(storage).toEqual({ local: 0, cookie: '', session: ['wds-dashboard-key'] });
    await page.close();
  }, 60_000);

  it('shows monitors: the timeline of checks, the diff of the change, the webhook deliveries', async () => {
    const page = await signedIn(API_KEY, 'monitors');
    const monitor = page.locator(`section.monitor[data-monitor="${made.monitorId}"]`);
    expect(await monitor.locator('h3').innerText()).toContain('Dashboard pricing');
    const marks = monitor.locator('svg rect.mark');
    expect(await marks.count()).toBe(2);
    // Oldest first: all new, then the change.
    expect(await marks.evaluateAll((rects) => rects.map((r) => r.getAttribute('fill')))).toEqual(['#2563eb', '#f59e0b']);
    const diff = await page.locator('#monitor-changes pre.diff').first().innerText();
    expect(diff).toContain('-Starter plan: $19 a month.');
    expect(diff).toContain('+Starter plan: $24 a month.');
    const deliveries = await page.locator('#monitor-deliveries tbody tr').allInnerTexts();
    expect(deliveries).toHaveLength(2);
    for (const row of deliveries) expect(row).toMatch(/monitor\.check\.completed\s+ok 200/);
    await page.screenshot({ path: join(SHOTS, 'monitors.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('shows mentions: counts by category and platform over time, the newest with their status changes', async () => {
    const page = await signedIn(API_KEY, 'mentions');
    const panel = page.locator('#panel-mentions');
    expect(await panel.locator('figcaption').allInnerTexts()).toEqual(['Mentions per day by category', 'Mentions per day by platform']);
    expect(await panel.locator('svg rect[data-series="feeds"]').count()).toBe(1);
    const row = await panel.locator('#mentions-table tbody tr').first().innerText();
    expect(row).toContain(made.mentionTitle);
    expect(row).toMatch(/seen\s+new → seen/);
    await page.screenshot({ path: join(SHOTS, 'mentions.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('shows a running crawl with its id and a progress bar that moves, then its pages', async () => {
    for (let i = 1; i <= SLOW_PAGES; i++) site.set(`/slow/${i}`, { html: html(`Slow ${i}`, `<p>Page ${i}.</p>`), delayMs: 700 });
    site.set('/slow', { html: html('Slow', Array.from({ length: SLOW_PAGES }, (_, i) => `<a href="/slow/${i + 1}">${i + 1}</a>`).join(' ')) });
    const page = await signedIn(API_KEY);
    const crawl = await call('POST', '/v1/crawl', { url: `${site.origin}/slow`, limit: SLOW_PAGES + 1, maxConcurrency: 1 });
    expect(crawl.status, JSON.stringify(crawl.body)).toBe(200);
    made.crawlId = crawl.body.data.id;
    await openTab(page, 'jobs');
    const row = page.locator(`#jobs-table tr[data-job="${made.crawlId}"]`);
    await row.waitFor({ timeout: 15_000 });
    const progress = () => row.locator('.progress-text').innerText();
    const seen = new Set<string>();
    // The page polls; the bar is seen at two different figures while the crawl runs.
    await until('the progress bar moving', async () => {
      seen.add(await progress());
      return seen.size >= 2 && /scraping/.test(await row.innerText());
    }, { timeoutMs: 30_000, intervalMs: 300 });
    await row.locator('button[data-open]').click();
    await page.locator('#job-pages tbody tr').first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(SHOTS, 'jobs.png'), fullPage: true });
    await until('the crawl finished on the page', async () => /completed/.test(await row.innerText()), { timeoutMs: 60_000, intervalMs: 500 });
    expect(await progress()).toBe(`${SLOW_PAGES + 1}/${SLOW_PAGES + 1}`);
    // The open job's pages follow it: every page once the crawl is done.
    await expect.poll(() => page.locator('#job-pages tbody tr').count(), { timeout: 10_000 }).toBe(SLOW_PAGES + 1);

    // A batch with a page that cannot be read: listed beside the crawl, its error under it.
    const batch = await call('POST', '/v1/batch/scrape', { urls: [`${site.origin}/pricing`, 'http://127.0.0.1:9/nothing-listens'] });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    const batchRow = page.locator(`#jobs-table tr[data-job="${batch.body.data.id}"]`);
    await until('the batch finished on the page', async () => (await batchRow.count()) > 0 && /completed/.test(await batchRow.innerText()), { timeoutMs: 30_000, intervalMs: 300 });
    expect(await batchRow.innerText()).toMatch(/batch\s+completed\s+1\/2 \(1 failed\)/);
    await batchRow.locator('button[data-open]').click();
    await expect.poll(() => page.locator('#job-errors tbody tr').allInnerTexts(), { timeout: 10_000 }).toEqual([expect.stringMatching(/127\.0\.0\.1:9\/nothing-listens\s+connection_refused/)]);
    await page.close();
  }, 120_000);

  it('shows another key none of the first key\'s records', async () => {
    const api = async (panel: string) => (await call('GET', `/dashboard/api/${panel}`, undefined, otherKey)).body.data;
    const usage = await api('usage');
    expect(usage.byDay).toEqual([expect.objectContaining({ op: 'scrape', requests: 1 })]);
    expect(usage.errors).toEqual([]);
    expect((await api('jobs')).jobs).toEqual([]);
    expect((await api('monitors')).monitors).toEqual([]);
    expect((await api('mentions')).newest).toEqual([]);
    const other = await call('GET', `/dashboard/api/jobs/${made.crawlId}`, undefined, otherKey);
    expect(other.status).toBe(404);

    const page = await signedIn(otherKey);
    expect(await page.locator('#total-requests').innerText()).toBe('1');
    for (const tab of ['jobs', 'monitors', 'mentions']) {
      await openTab(page, tab);
      const text = await page.locator('main').innerText();
      for (const mine of [made.crawlId, made.monitorId, 'Dashboard pricing', made.mentionTitle]) expect(text, `${tab}: ${mine}`).not.toContain(mine);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.getByLabel('API key').fill('not-a-key-of-this-service');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#sign-in-error').innerText()).toContain('unknown or revoked');
    await page.close();
  }, 60_000);
});
