/** actors/renderer/actions: the scrape `actions`, run in order on the rendered page. */
import { describe, expect, it } from 'vitest';
import { SCRIPT_RETURN_MAX_CHARS, SCRIPT_RETURN_MAX_DEPTH } from '../../actors/renderer/actions.js';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/actions', () => {
  const rig = useRenderer();

  it('clicks to reveal content and returns the HTML of a scrape action', async () => {
    const { html, extras } = await rig.rendered(rig.site.url('/reveal'), { actions: [{ type: 'scrape' }, { type: 'click', selector: '#show' }, { type: 'scrape' }] });
    expect(extras.actions.scrapes).toHaveLength(2);
    expect(extras.actions.scrapes[0].html).toMatch(/<p id="secret" hidden="">/);
    expect(extras.actions.scrapes[1].html).toMatch(/<p id="secret">The revealed paragraph/);
    expect(extras.actions.scrapes[1].url).toBe(rig.site.url('/reveal'));
    expect(html).toMatch(/<p id="secret">The revealed paragraph/);
  });

  it('writes into a form and presses Enter', async () => {
    const { html } = await rig.rendered(rig.site.url('/form'), {
      actions: [{ type: 'click', selector: '#q' }, { type: 'write', text: 'rendered pages' }, { type: 'press', key: 'Enter' }, { type: 'wait', selector: '#result:not(:empty)' }],
    });
    expect(html).toContain('You searched: rendered pages');
  });

  it('returns executeJavascript values with their types', async () => {
    const { extras } = await rig.rendered(rig.site.url('/form'), {
      actions: [
        { type: 'executeJavascript', script: 'return document.title' },
        { type: 'executeJavascript', script: '1 + 2' },
        { type: 'executeJavascript', script: 'return [...document.querySelectorAll("h1")].map((h) => h.textContent)' },
      ],
    });
    expect(extras.actions.javascriptReturns).toEqual([
      { type: 'string', value: 'Form' },
      { type: 'number', value: 3 },
      { type: 'array', value: ['Search'] },
    ]);
  });

  it('scrolls an infinite feed until more items load', async () => {
    const count = { type: 'executeJavascript', script: 'return document.querySelectorAll("#feed li").length' };
    const { extras } = await rig.rendered(rig.site.url('/scroll'), {
      actions: [count, { type: 'scroll', direction: 'down' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'wait', milliseconds: 200 }, count],
    });
    const [before, after] = extras.actions.javascriptReturns.map((r: { value: number }) => r.value);
    expect(before).toBe(10);
    expect(after).toBeGreaterThan(10);
  });

  it('runs the captchaCheckbox action: one click, waits for its success selector, evidence screenshots', async () => {
    const { html, extras } = await rig.rendered(rig.site.url('/challenge'), {
      captchaHandling: 'off',
      actions: [{ type: 'captchaCheckbox', successSelector: '#passed', captureEvidence: true, timeoutMs: 5000 }],
    });
    expect(html).toContain('Challenge passed');
    expect(extras.actions.screenshots).toHaveLength(2);
    expect(extras.captcha).toBeUndefined();
  });

  it('answers a failing action with action_failed naming its index and type', async () => {
    const reply = await rig.failed(rig.site.url('/reveal'), { timeout: 4000, actions: [{ type: 'click', selector: '#show' }, { type: 'click', selector: '#missing' }] });
    expect(reply.errorCode).toBe('action_failed');
    expect(reply.errorMessage).toMatch(/^action 1 \(click\) failed/);
    const script = await rig.failed(rig.site.url('/reveal'), { actions: [{ type: 'executeJavascript', script: 'throw new Error("boom")' }] });
    expect(script.errorCode).toBe('action_failed');
    expect(script.errorMessage).toMatch(/^action 0 \(executeJavascript\) failed: .*boom/);
  });

  it(`brings a script's value over as JSON within ${SCRIPT_RETURN_MAX_CHARS} characters and ${SCRIPT_RETURN_MAX_DEPTH} levels; a longer, deeper or circular one fails the action`, async () => {
    const { extras } = await rig.rendered(rig.site.url('/form'), {
      actions: [
        { type: 'executeJavascript', script: 'return undefined' },
        { type: 'executeJavascript', script: 'return { at: new Date(0), n: NaN, f: () => 1 }' },
      ],
    });
    expect(extras.actions.javascriptReturns).toEqual([
      { type: 'undefined', value: null },
      { type: 'object', value: { at: '1970-01-01T00:00:00.000Z', n: null } },
    ]);
    for (const [script, message] of [
      [`return "x".repeat(${SCRIPT_RETURN_MAX_CHARS})`, /is \d+ characters as JSON, over this service's limit of 1048576$/],
      ['const o = {}; o.self = o; return o', /cannot be written as JSON/],
      [`let o = []; for (let i = 0; i < ${SCRIPT_RETURN_MAX_DEPTH + 1}; i++) o = [o]; return o`, /nests deeper than 64 levels$/],
    ] as const) {
      const reply = await rig.failed(rig.site.url('/form'), { actions: [{ type: 'executeJavascript', script }] });
      expect(reply.errorCode, script).toBe('action_failed');
      expect(reply.errorMessage, script).toMatch(message);
    }
  });
});
