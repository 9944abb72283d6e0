/**
 * Scrape `actions`, run in order on the rendered page (spec, Actions; field shapes in
 * schemas/api/scrape-options.ts). What they produce is returned under `data.actions`:
 *
 * | action | does | returns |
 * |---|---|---|
 * | click {selector} | clicks the first match (waits for it to be visible and enabled) | |
 * | press {key} | presses a key (Playwright key names: `Enter`, `ArrowDown`, `Control+A`) | |
 * | write {text} | types into the focused element | |
 * | wait {milliseconds} / {selector} | sleeps, or waits until the element is in the DOM | |
 * | scroll {direction, selector?} | scrolls the page (or the element) by one viewport (its height) | |
 * | screenshot {fullPage?, quality?, viewport?} | takes a screenshot (screenshot.ts) | `screenshots[]` |
 * | executeJavascript {script} | runs the script in the page; a script with `return` runs as the body of an async function, any other as a script whose last expression is its value | `javascriptReturns[]`: `{type, value}` |
 * | scrape | reads the HTML at that moment | `scrapes[]`: `{url, html}` |
 * | captchaCheckbox {successSelector, frameSelector?, selector?, timeoutMs?, captureEvidence?} | clicks the checkbox in the challenge frame once, then waits up to `timeoutMs` for `successSelector` | with `captureEvidence`, the screenshots before and after the click in `screenshots[]` |
 *
 * Each action may take what is left of the render's `timeout` less ANSWER_MARGIN_MS (so that
 * an element that never appears fails the action, not the whole render). An action that fails is
 * `action_failed`, naming its index (0-based) and type: `action 2 (click) failed: …`. A
 * failure because the page or browser went away is not the action's: it is passed on as it
 * is, for the render to report (timeout, crash).
 */
import type { Page } from 'playwright-core';
import { AppError } from '../../pipeline/runtime/errors.js';
import { CAPTCHA_CHECKBOX_SELECTOR, CAPTCHA_FRAME_SELECTOR, type ScrapeOptions } from '../../schemas/api/scrape-options.js';
import { depthOver } from '../../pipeline/runtime/json-limits.js';
import { pageHtml } from './dom.js';
import { screenshot } from './screenshot.js';

export type Action = NonNullable<ScrapeOptions['actions']>[number];

export interface JavascriptReturn {
  readonly type: string;
  readonly value: unknown;
}

export interface ActionResults {
  readonly screenshots: string[];
  readonly scrapes: { url: string; html: string }[];
  readonly javascriptReturns: JavascriptReturn[];
}

export const DEFAULT_CAPTCHA_TIMEOUT_MS = 8000;

/** Time kept back from an action's wait to answer its failure before the render's timeout. */
export const ANSWER_MARGIN_MS = 1000;

/**
 * The longest value a script may return, as JSON, in characters, and its deepest nesting: it
 * crosses the browser pipe, then the bus, in the answer. A script returning `"x".repeat(3e8)`
 * held the service's thread 7.5 s and 1.9 GB while it crossed whole.
 */
export const SCRIPT_RETURN_MAX_CHARS = 1024 * 1024;
export const SCRIPT_RETURN_MAX_DEPTH = 64;

/**
 * Runs a caller's script in the page and returns its value: written as JSON in the page, and
 * only brought over when it is within SCRIPT_RETURN_MAX_CHARS (a value JSON cannot write, or a
 * longer or deeper one, fails the action). A value JSON has no form for (a function,
 * `undefined`) is null.
 */
export async function runScript(page: Page, script: string): Promise<JavascriptReturn> {
  const source = /\breturn\b/.test(script) ? `(async () => {\n${script}\n})()` : script;
  const handle = await page.evaluateHandle(source);
  let written: { type: string; json?: string; chars?: number; error?: string };
  try {
    written = await handle.evaluate((value: unknown, max: number) => {
      const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
      let json: string | undefined;
      try {
        json = JSON.stringify(value);
      } catch (error) {
        return { type, error: error instanceof Error ? error.message : String(error) };
      }
      if (json === undefined) return { type, json: 'null' };
      return json.length > max ? { type, chars: json.length } : { type, json };
    }, SCRIPT_RETURN_MAX_CHARS);
  } finally {
    await handle.dispose().catch(() => undefined);
  }
  if (written.error !== undefined) throw new Error(`the script's value cannot be written as JSON (${written.error})`);
  if (written.json === undefined) throw new Error(`the script's value is ${written.chars} characters as JSON, over this service's limit of ${SCRIPT_RETURN_MAX_CHARS}`);
  const value: unknown = JSON.parse(written.json);
  if (depthOver(value, SCRIPT_RETURN_MAX_DEPTH)) throw new Error(`the script's value nests deeper than ${SCRIPT_RETURN_MAX_DEPTH} levels`);
  return { type: written.type, value };
}

async function scroll(page: Page, direction: 'up' | 'down', selector: string | undefined): Promise<void> {
  const sign = direction === 'up' ? -1 : 1;
  if (selector) {
    await page.locator(selector).first().evaluate((el, s) => el.scrollBy(0, s * (el.clientHeight || 400)), sign);
  } else {
    // Runs in the page, where the window is the global object (the service is built without DOM types).
    await page.evaluate((s) => {
      const view = globalThis as unknown as { scrollBy(x: number, y: number): void; innerHeight: number };
      view.scrollBy(0, s * view.innerHeight);
    }, sign);
  }
}

async function captchaCheckbox(page: Page, action: Extract<Action, { type: 'captchaCheckbox' }>, results: ActionResults): Promise<void> {
  const timeout = action.timeoutMs ?? DEFAULT_CAPTCHA_TIMEOUT_MS;
  const frame = page.frameLocator(action.frameSelector ?? CAPTCHA_FRAME_SELECTOR).first();
  if (action.captureEvidence) results.screenshots.push(await screenshot(page, {}));
  await frame.locator(action.selector ?? CAPTCHA_CHECKBOX_SELECTOR).first().click({ timeout });
  await page.locator(action.successSelector).first().waitFor({ state: 'attached', timeout });
  if (action.captureEvidence) results.screenshots.push(await screenshot(page, {}));
}

async function runOne(page: Page, action: Action, results: ActionResults): Promise<void> {
  switch (action.type) {
    case 'click':
      return page.locator(action.selector).first().click();
    case 'press':
      return page.keyboard.press(action.key);
    case 'write':
      return page.keyboard.type(action.text);
    case 'wait':
      if (action.selector) return void (await page.locator(action.selector).first().waitFor({ state: 'attached' }));
      return page.waitForTimeout(action.milliseconds ?? 0);
    case 'scroll':
      return scroll(page, action.direction ?? 'down', action.selector);
    case 'screenshot':
      results.screenshots.push(await screenshot(page, action));
      return;
    case 'executeJavascript':
      results.javascriptReturns.push(await runScript(page, action.script));
      return;
    case 'scrape':
      results.scrapes.push({ url: page.url(), html: await pageHtml(page) });
      return;
    case 'captchaCheckbox':
      return captchaCheckbox(page, action, results);
  }
}

/** True when the page (or its browser) is gone: the failure is the render's, not the action's. */
export function pageGone(page: Page): boolean {
  return page.isClosed() || !page.context().browser()?.isConnected();
}

export async function runActions(page: Page, actions: readonly Action[], deadlineMs: number, now: () => number = Date.now): Promise<ActionResults> {
  const results: ActionResults = { screenshots: [], scrapes: [], javascriptReturns: [] };
  for (const [index, action] of actions.entries()) {
    page.setDefaultTimeout(Math.max(1, deadlineMs - now() - ANSWER_MARGIN_MS));
    try {
      await runOne(page, action, results);
    } catch (error) {
      if (pageGone(page)) throw error;
      const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
      throw new AppError('action_failed', `action ${index} (${action.type}) failed: ${detail}`, { cause: error });
    }
  }
  return results;
}
