/**
 * `captchaHandling: auto` (the default): after the page loaded, when a challenge frame
 * (CAPTCHA_FRAME_SELECTOR) holds a checkbox (CAPTCHA_CHECKBOX_SELECTOR), the checkbox is
 * clicked once — never more — and the render waits up to 8 s for the challenge to pass: the
 * checkbox reports itself checked, or the frame goes away (the page moved on). With
 * `captchaEvidence`, screenshots from before and after the click are returned.
 *
 * The result is returned as `data.captcha`: `{clicked, solved, evidence?: {before, after}}`;
 * a page without a challenge frame returns nothing. An unsolved challenge is not an error:
 * the page is read as it is. (The `captchaCheckbox` action is the explicit form, with the
 * caller's own selectors and success condition: actions.ts.)
 */
import type { Page } from 'playwright-core';
import { CAPTCHA_CHECKBOX_SELECTOR, CAPTCHA_FRAME_SELECTOR } from '../../schemas/api/scrape-options.js';
import { DEFAULT_CAPTCHA_TIMEOUT_MS } from './actions.js';
import { screenshot } from './screenshot.js';

export interface CaptchaResult {
  readonly clicked: boolean;
  readonly solved: boolean;
  readonly evidence?: { readonly before: string; readonly after: string };
}

const POLL_MS = 200;

export async function autoCaptcha(page: Page, settings: { readonly evidence: boolean; readonly timeoutMs?: number }): Promise<CaptchaResult | null> {
  // A page without child frames has no challenge frame: known without asking the page (the
  // locator below would load Playwright's selector engine into every page that has none).
  if (page.frames().length <= 1) return null;
  const frameElement = page.locator(CAPTCHA_FRAME_SELECTOR).first();
  if ((await frameElement.count()) === 0) return null;
  const checkbox = page.frameLocator(CAPTCHA_FRAME_SELECTOR).first().locator(CAPTCHA_CHECKBOX_SELECTOR).first();
  const timeout = settings.timeoutMs ?? DEFAULT_CAPTCHA_TIMEOUT_MS;
  try {
    await checkbox.waitFor({ state: 'visible', timeout: Math.min(timeout, 3000) });
  } catch {
    return null;
  }
  const before = settings.evidence ? await screenshot(page, {}) : null;
  try {
    await checkbox.click({ timeout });
  } catch {
    return { clicked: false, solved: false, ...(before ? { evidence: { before, after: await screenshot(page, {}) } } : {}) };
  }
  const deadline = Date.now() + timeout;
  let solved = false;
  while (Date.now() < deadline) {
    if ((await frameElement.count()) === 0) {
      solved = true;
      break;
    }
    const checked = await checkbox
      .evaluate((el) => el.getAttribute('aria-checked') === 'true' || (el as unknown as { checked?: unknown }).checked === true, undefined, { timeout: POLL_MS })
      .catch(() => false);
    if (checked) {
      solved = true;
      break;
    }
    await page.waitForTimeout(POLL_MS);
  }
  const after = settings.evidence ? await screenshot(page, {}) : null;
  return { clicked: true, solved, ...(before && after ? { evidence: { before, after } } : {}) };
}
