/**
 * actors/renderer/flags: the executable the renderer launches by default, and the command
 * line it launches Chromium with (disabled features), checked on the browser itself.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BrowserPool, CHROMIUM_ARGS } from '../../actors/renderer/browser.js';
import { CHROMIUM_EXECUTABLES, defaultChromiumPath, RENDERER_DISABLED_FEATURES } from '../../actors/renderer/flags.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/flags', () => {
  const rig = useRenderer();

  it('launches the headless shell by default when it is installed, else the full browser', () => {
    expect(CHROMIUM_EXECUTABLES).toEqual(['/usr/bin/chromium-headless-shell', '/usr/bin/chromium']);
    expect(defaultChromiumPath((path) => path === '/usr/bin/chromium' || path === '/usr/bin/chromium-headless-shell')).toBe('/usr/bin/chromium-headless-shell');
    expect(defaultChromiumPath((path) => path === '/usr/bin/chromium')).toBe('/usr/bin/chromium');
    expect(defaultChromiumPath(() => false)).toBe('/usr/bin/chromium');
  });

  it("launches Chromium with Playwright's disabled features kept and the address bar's WebUI popups off: a new context's window loads no browser UI page", async () => {
    type Browser = Awaited<ReturnType<BrowserPool['current']>>;
    // The `--disable-features` lists of the command line the browser really has: Playwright's, then ours.
    const disableFeatures = async (browser: Browser): Promise<string[][]> => {
      const cdp = await browser.newBrowserCDPSession();
      try {
        const { commandLine } = await cdp.send('SystemInfo.getInfo');
        return [...commandLine.matchAll(/--disable-features=(\S+)/g)].map((m) => (m[1] ?? '').split(','));
      } finally {
        await cdp.detach();
      }
    };
    // What the full browser really has off, as Chromium reports it (the last --disable-features wins).
    // The headless shell has no chrome:// pages.
    const disabledIn = async (browser: Browser): Promise<string[]> => {
      const page = await browser.newPage();
      try {
        await page.goto('chrome://version/?show-variations-cmd');
        const text = await page.evaluate(() => document.body.innerText);
        return /--disable-features="([^"]*)"/.exec(text)?.[1]?.split(',') ?? [];
      } finally {
        await page.close();
      }
    };
    const browserUiPages = async (browser: Browser): Promise<string[]> => {
      const cdp = await browser.newBrowserCDPSession();
      const context = await browser.newContext();
      try {
        await context.newPage();
        const { targetInfos } = await cdp.send('Target.getTargets');
        return targetInfos.filter((t) => t.type === 'browser_ui').map((t) => t.url);
      } finally {
        await context.close();
        await cdp.detach();
      }
    };
    const [playwrights, ours, ...more] = await disableFeatures(await rig.open.current());
    expect(more).toEqual([]);
    expect(playwrights).toContain('HttpsUpgrades');
    expect(ours).toEqual(expect.arrayContaining([...(playwrights ?? []), ...RENDERER_DISABLED_FEATURES]));
    expect(await browserUiPages(await rig.open.current())).toEqual([]);
    // Each installed build: with Playwright's own flags only (the same container flags without
    // the renderer's --disable-features), the full browser loads the popups and the headless
    // shell none; with ours, neither.
    const pool = (executablePath: string, args: readonly string[]) => new BrowserPool({ executablePath, concurrency: 1, guard: new NetGuard({ allowPrivate: true }), log: rig.log, args });
    for (const executable of CHROMIUM_EXECUTABLES.filter((path) => existsSync(path))) {
      const plain = pool(executable, CHROMIUM_ARGS.filter((a) => !a.startsWith('--disable-features=')));
      const tuned = pool(executable, CHROMIUM_ARGS);
      try {
        const full = executable === '/usr/bin/chromium';
        expect(await browserUiPages(await plain.current()), executable).toEqual(full ? expect.arrayContaining(['chrome://omnibox-popup.top-chrome/']) : []);
        expect(await browserUiPages(await tuned.current()), executable).toEqual([]);
        if (full) expect(await disabledIn(await tuned.current())).toEqual(expect.arrayContaining([...(await disabledIn(await plain.current())), ...RENDERER_DISABLED_FEATURES]));
      } finally {
        await plain.close();
        await tuned.close();
      }
    }
  });
});
