/**
 * The executable and the command line the renderer's Chromium is launched with.
 *
 * Executable (RENDER_CHROMIUM_PATH; unset: `defaultChromiumPath`): Debian's headless shell
 * (`chromium-headless-shell`, the same Chromium source without the browser UI: what
 * Playwright itself launches for headless) when it is installed, else Debian's full browser
 * (`chromium`) in headless mode. The headless shell opens no browser window for a context,
 * so a render costs about half the CPU and three quarters of the memory (bench/render.ts,
 * the pool: ~180 against ~370 ms CPU and ~28 against ~39 MB per open page).
 *
 * Features switched off (`--disable-features`). Chromium keeps only the last
 * `--disable-features` of its command line, and Playwright passes one of its own before the
 * caller's arguments, so this list repeats Playwright's (PLAYWRIGHT_DISABLED_FEATURES, from
 * playwright-core's chromiumSwitches.ts) and adds the renderer's. A test
 * (test/actors/renderer.test.ts) reads the command line a launched browser really has, and
 * with the full browser the features it really has off (chrome://version), and fails when
 * Playwright's list has grown.
 *
 * The renderer's own (for the full browser; the headless shell has no such feature and
 * ignores the names):
 * - `WebUIOmniboxPopup`, `WebUIOmniboxAimPopup`: Debian's Chromium is the full browser in
 *   headless mode, and each new window (Playwright opens one per browser context, so one per
 *   render) loads its address bar's popup as two WebUI pages
 *   (chrome://omnibox-popup.top-chrome/), each in a renderer process of its own. A headless
 *   browser never shows an address bar; off, a render starts two renderer processes fewer
 *   (measured on a simple local page: a third to 40% of its CPU, and their memory).
 *
 * bench/render.ts launches its tuned script baseline with these flags and its plain one with
 * none, on the same executable.
 */
import { existsSync } from 'node:fs';

/** Where Debian installs Chromium, the cheaper build first: `chromium-headless-shell`, then `chromium`. */
export const CHROMIUM_EXECUTABLES: readonly string[] = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];

/** The first of CHROMIUM_EXECUTABLES that exists (the full browser's path when none does, for the error). */
export function defaultChromiumPath(exists: (path: string) => boolean = existsSync): string {
  return CHROMIUM_EXECUTABLES.find((path) => exists(path)) ?? '/usr/bin/chromium';
}

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
