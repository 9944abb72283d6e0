/** actors/renderer/context: how a render's browser context looks to the page (identity, `mobile`, `location`, `headers`). */
import { describe, expect, it } from 'vitest';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/context', () => {
  const rig = useRenderer();

  it('reads the page as a phone with mobile: viewport width, user agent, touch', async () => {
    const { extras } = await rig.rendered(rig.site.url('/form'), {
      mobile: true,
      actions: [{ type: 'executeJavascript', script: 'return [window.innerWidth, navigator.userAgent, navigator.maxTouchPoints > 0]' }],
    });
    const [width, ua, touch] = extras.actions.javascriptReturns[0].value;
    expect(width).toBe(390);
    expect(ua).toMatch(/Android.*Mobile Safari/);
    expect(touch).toBe(true);
    const desktop = await rig.rendered(rig.site.url('/form'), { actions: [{ type: 'executeJavascript', script: 'return window.innerWidth' }] });
    expect(desktop.extras.actions.javascriptReturns[0].value).toBe(1280);
  });

  it('sends the caller headers but not its browser identity, and follows location', async () => {
    const { html, extras } = await rig.rendered(rig.site.url('/headers'), {
      headers: { 'X-Test': 'yes', 'User-Agent': 'caller-agent', 'Accept-Language': 'fr' },
      location: { country: 'DE' },
      actions: [{ type: 'executeJavascript', script: 'return [navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone]' }],
    });
    const sent = JSON.parse(/<pre id="h">(.*)<\/pre>/.exec(html)?.[1]?.replace(/&quot;/g, '"').replace(/&amp;/g, '&') ?? '{}') as Record<string, string>;
    expect(sent['x-test']).toBe('yes');
    expect(sent['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\/\d+\.0\.0\.0 Safari/);
    expect(sent['user-agent']).not.toMatch(/Headless|caller-agent/);
    expect(sent['accept-language']).toMatch(/^de-DE,de;q=0\.9/);
    expect(extras.actions.javascriptReturns[0].value).toEqual(['de-DE', 'Europe/Berlin']);
  });
});
