/**
 * The command line the renderer's Chromium is launched with (bench/render.ts launches its
 * plain-script baseline with the same flags, so the flags are no difference between the two).
 *
 * Features switched off (`--disable-features`). Chromium keeps only the last
 * `--disable-features` of its command line, and Playwright passes one of its own before the
 * caller's arguments, so this list repeats Playwright's (PLAYWRIGHT_DISABLED_FEATURES, from
 * playwright-core's chromiumSwitches.ts) and adds the renderer's. A test
 * (test/actors/renderer.test.ts) reads the features a launched browser really has off
 * (chrome://version) and fails when Playwright's list has grown.
 *
 * The renderer's own:
 * - `WebUIOmniboxPopup`, `WebUIOmniboxAimPopup`: Debian's Chromium is the full browser in
 *   headless mode, and each new window (Playwright opens one per browser context, so one per
 *   render) loads its address bar's popup as two WebUI pages
 *   (chrome://omnibox-popup.top-chrome/), each in a renderer process of its own. A headless
 *   browser never shows an address bar; off, a render starts two renderer processes fewer
 *   (measured on a simple local page: a third to 40% of its CPU, and their memory).
 */

/** Playwright 1.65's `--disable-features` list (playwright-core/src/server/chromium/chromiumSwitches.ts). */
export const PLAYWRIGHT_DISABLED_FEATURES: readonly string[] = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/** Browser UI a headless renderer never shows, which costs processes on every new window. */
export const RENDERER_DISABLED_FEATURES: readonly string[] = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

/** Flags Debian's Chromium needs in a container (see the design brief), and the features switched off. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...RENDERER_DISABLED_FEATURES].join(',')}`,
];
