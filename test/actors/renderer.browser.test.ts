/**
 * actors/renderer/browser: the warm browser — a fresh context per render, at most
 * RENDER_CONCURRENCY pages open, a browser that died relaunched. (Recycling:
 * renderer.recycle.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { wentAway, type BrowserPool } from '../../actors/renderer/browser.js';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/browser', () => {
  const rig = useRenderer();

  it('gives every request a fresh context: a cookie set in one render is absent from the next', async () => {
    const first = await rig.rendered(rig.site.url('/cookie/set'), { actions: [{ type: 'executeJavascript', script: 'return document.cookie' }] });
    expect(first.extras.actions.javascriptReturns[0].value).toBe('session=s3cret');
    const next = await rig.rendered(rig.site.url('/cookie/show'), { waitFor: 1 });
    expect(next.html).toContain('cookie: (none)');
    expect(rig.site.requests.filter((r) => r.path === '/cookie/show').every((r) => r.headers.cookie === undefined)).toBe(true);
  });

  it('keeps at most RENDER_CONCURRENCY pages open at once; a waiting render whose signal aborts leaves the queue', async () => {
    const overlap = async (pool: BrowserPool, n: number) => {
      let active = 0;
      let peak = 0;
      await Promise.all(
        Array.from({ length: n }, () =>
          pool.withContext({}, async (context) => {
            active++;
            peak = Math.max(peak, active);
            const p = await context.newPage();
            await p.waitForTimeout(150);
            active--;
          }, rig.signal),
        ),
      );
      return peak;
    };
    expect(await overlap(rig.guarded, 3)).toBe(1);
    expect(await overlap(rig.open, 5)).toBe(2);
    const cancel = new AbortController();
    const first = rig.guarded.withContext({}, (context) => context.newPage().then((p) => p.waitForTimeout(300)), rig.signal);
    const queued = rig.guarded.withContext({}, async () => 'ran', cancel.signal);
    cancel.abort();
    await expect(queued).rejects.toMatchObject({ code: 'service_unavailable' });
    await first;
  });

  it('takes a protocol error from a browser that then disconnects for the browser gone (the render is retried), and not from one that stays', async () => {
    // What a context asked for just as the browser closes answers (seen under load).
    const error = new Error('browser.newContext: Protocol error (Browser.setDownloadBehavior): Failed to find browser context for id 9F2C');
    const closingBrowser = await rig.open.current();
    const closing = closingBrowser.close();
    expect(await wentAway(closingBrowser, error)).toBe(true);
    await closing;
    const live = await rig.open.current();
    expect(live).not.toBe(closingBrowser);
    expect(await wentAway(live, error)).toBe(false);
    expect(await wentAway(live, new Error('page.goto: net::ERR_NAME_NOT_RESOLVED'))).toBe(false);
  });

  it('relaunches a browser that died during a render and retries it once', async () => {
    const launches = rig.open.launches;
    const browser = await rig.open.current();
    const pending = rig.rendered(rig.site.url('/js'), { waitFor: 1500 });
    setTimeout(() => void browser.close(), 400);
    const { html } = await pending;
    expect(html).toContain('Added by script after load');
    expect(rig.open.launches).toBe(launches + 1);
    expect(browser.isConnected()).toBe(false);
  });
});
