/**
 * actors/renderer/policy: the request policy of a render's context — blockAssets, the SSRF
 * guard on the main URL, headers rewritten (cookies kept), no local files.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, hasChromium, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/policy', () => {
  const rig = useRenderer();

  it('blocks images and fonts by default, proven by the site request log', async () => {
    const before = rig.site.paths().length;
    await rig.rendered(rig.site.url('/images'));
    const asked = rig.site.paths().slice(before);
    expect(asked).toContain('/images');
    expect(asked).not.toContain('/pixel.png');
    expect(asked).not.toContain('/font.woff2');
    // The browser's own request for the page's icon is an image too.
    expect(asked).not.toContain('/favicon.ico');
    const withAssets = rig.site.paths().length;
    await rig.rendered(rig.site.url('/images'), { blockAssets: false, waitFor: 300 });
    expect(rig.site.paths().slice(withAssets)).toContain('/pixel.png');
    // Only the full browser asks for the icon (for its tab); the headless shell never does.
    if (CHROMIUM_PATH === '/usr/bin/chromium') expect(rig.site.paths().slice(withAssets)).toContain('/favicon.ico');
  });

  it('keeps cookies within one render (headers rewritten for location included)', async () => {
    const { extras } = await rig.rendered(rig.site.url('/cookie/set'), {
      location: { country: 'FR' },
      actions: [{ type: 'executeJavascript', script: 'return fetch("/cookie/show").then((r) => r.text()).then((t) => /cookie: ([^<]*)/.exec(t)[1])' }],
    });
    expect(extras.actions.javascriptReturns[0].value).toBe('session=s3cret');
    const seen = rig.site.requests.filter((r) => r.path === '/cookie/show').at(-1);
    expect(seen?.headers['accept-language']).toMatch(/^fr-FR,fr;q=0\.9/);
  });

  it('refuses a blocked main URL with url_blocked before using the browser', async () => {
    const reply = await rig.failed(`${rig.site.secret}/page`, {}, rig.guardedDeps);
    expect(reply.errorCode).toBe('url_blocked');
    expect(rig.site.requests.filter((r) => r.host === 'secret')).toHaveLength(0);
  });

  it.each([
    ['with the request route (blockAssets)', {}],
    ['without one (blockAssets off: only the guarded proxy)', { blockAssets: false }],
  ])('never lets a page or a caller script read local files, %s', async (_name, settings) => {
    const { extras } = await rig.rendered(rig.site.url('/form'), {
      ...settings,
      actions: [
        { type: 'executeJavascript', script: 'return fetch("file:///etc/passwd").then((r) => r.text(), (e) => "refused: " + e.message)' },
        { type: 'executeJavascript', script: 'location.href = "file:///etc/passwd"; 1' },
        { type: 'wait', milliseconds: 500 },
        { type: 'scrape' },
      ],
    });
    expect(extras.actions.javascriptReturns[0].value).toMatch(/^refused/);
    expect(extras.actions.scrapes[0].html).not.toContain('root:');
    expect(extras.actions.scrapes[0].url).not.toMatch(/^file:/);
  });
});
