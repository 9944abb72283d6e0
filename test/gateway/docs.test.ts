import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, engine } from '../helpers/engines.js';
import { testGateway, type TestGateway } from '../helpers/gateway.js';

const hasChromium = await engine('chromium', () => existsSync(CHROMIUM.path), CHROMIUM.install);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe.skipIf(!hasChromium)('gateway/docs', () => {
  let gw: TestGateway;
  let browser: Browser;
  let origin: string;
  let shots: string;
  beforeAll(async () => {
    gw = await testGateway();
    origin = await gw.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM.path, args: [...CHROMIUM.args] });
    shots = mkdtempSync(join(tmpdir(), 'wds-docs-'));
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    if (shots) rmSync(shots, { recursive: true, force: true });
  });

  it('renders every operation of the served document (the spec\'s 46 and PATCH /v1/monitor), with nothing from elsewhere', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageErrors: string[] = [];
    const failed: string[] = [];
    const elsewhere: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
    });
    page.on('requestfailed', (req) => failed.push(`${req.url()}: ${req.failure()?.errorText ?? 'failed'}`));
    page.on('response', (res) => {
      if (res.status() >= 400) failed.push(`${res.url()}: HTTP ${res.status()}`);
    });
    page.on('request', (req) => {
      if (!req.url().startsWith(origin) && !req.url().startsWith('data:')) elsewhere.push(req.url());
    });

    const document = (await (await fetch(`${origin}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).filter((k) => k !== 'parameters').length, 0);
    expect(operations).toBe(47);
    const res = await page.goto(`${origin}/docs`);
    expect(res?.status()).toBe(200);
    await page.locator('.opblock').nth(operations - 1).waitFor({ timeout: 20000 });

    expect(await page.locator('.opblock').count()).toBe(operations);
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    const shown = paths.map((p) => p.replace(/\u200b/g, '').trim());
    for (const path of ['/v1/crawl/{job_id}/pages', '/v1/social/{platform}/{endpoint}', '/v1/source', '/v1/templates']) {
      expect(shown, path).toContain(path);
    }
    expect(await page.locator('.info .title').innerText()).toContain('Web Data Service API');

    const shot = join(shots, 'docs.png');
    await page.screenshot({ path: shot, fullPage: true });
    const png = readFileSync(shot);
    expect(png.length).toBeGreaterThan(PNG_SIGNATURE.length);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);

    expect(pageErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
