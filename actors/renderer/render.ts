/**
 * One render, in a fresh context of the warm browser (browser.ts):
 *
 * 1. the context gets the caller's identity settings (context.ts) and request policy
 *    (policy.ts: SSRF guard, blockAssets); the network log starts when `network` was asked;
 * 2. the page is opened and loaded (`load` event); a main document the guard refuses is
 *    `url_blocked`, as is a redirect the proxy refused (proxy.ts);
 * 3. `waitFor` ms pass;
 * 4. with `captchaHandling: auto` (the default) and no `captchaCheckbox` action, a challenge
 *    checkbox frame on the page is clicked once and its success waited for (captcha.ts);
 * 5. the `actions` run in order (actions.ts);
 * 6. the `screenshot` format is taken; the DOM is read (dom.ts: as `page.content()` reads it,
 *    without loading Playwright's injected script into the page).
 *
 * `timeoutMs` bounds all of it: when it passes the context is closed, whatever step was
 * running stops, and the render is `fetch_timeout`. The signal (the pool stopping) closes it
 * the same way.
 */
import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { acceptLanguage as acceptLanguageOf, languagesFor } from '../../pipeline/runtime/net/locale.js';
import { redactUrl } from '../../pipeline/runtime/net/guard.js';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import { runActions, type ActionResults } from './actions.js';
import { autoCaptcha, type CaptchaResult } from './captcha.js';
import { readDom } from './dom.js';
import { recordNetwork, type NetworkEntry } from './network.js';
import { applyPolicy } from './policy.js';
import { PROXY_ERROR_HEADER, type GuardedProxy } from './proxy.js';
import { screenshot, screenshotFormat } from './screenshot.js';

export interface RenderRequest {
  readonly url: string;
  readonly options: ScrapeOptions;
  readonly timeoutMs: number;
  /** When the render's `timeoutMs` started (epoch ms). */
  readonly startedAtMs: number;
  readonly signal: AbortSignal;
}

/** What the render produced besides the DOM: PageFetched v3 `extras`, merged into the document. */
export interface RenderExtras {
  screenshot?: string;
  actions?: ActionResults;
  network?: NetworkEntry[];
  captcha?: CaptchaResult;
}

export interface RenderResult {
  readonly finalUrl: string;
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly html: string;
  readonly fetchedAtMs: number;
  readonly extras: RenderExtras;
}

export interface RenderDeps {
  readonly guard: NetGuard;
  readonly proxy: GuardedProxy;
  readonly now?: () => number;
}

function acceptLanguageFor(location: NonNullable<ScrapeOptions['location']>): string {
  return acceptLanguageOf(languagesFor(location));
}

function wantsNetwork(options: ScrapeOptions): boolean {
  return (options.formats ?? []).some((f) => f === 'network');
}

/** The error of a connection the guarded proxy could not open, by its code. */
function proxyFailure(code: string, url: string, cause: unknown): AppError {
  const shown = redactUrl(url);
  const options = cause ? { cause } : {};
  if (code === 'url_blocked') return new AppError('url_blocked', `refused to render ${shown}: it or a redirect went to an address the SSRF guard refuses`, options);
  if (code === 'dns_failed') return new AppError('dns_failed', `could not resolve a host while rendering ${shown}`, options);
  if (code === 'connection_refused') return new AppError('connection_refused', `${shown}: connection refused`, options);
  if (code === 'proxy_failed') return new AppError('proxy_failed', `the proxy failed while rendering ${shown}`, options);
  return new AppError('upstream_error', `${shown}: the page's server could not be reached`, options);
}

async function open(page: Page, url: string, deps: Pick<RenderDeps, 'proxy'>, mainRefusal: () => Error | null): Promise<Response> {
  let response: Response | null;
  // The hop of the main document that failed (a redirect target is not in goto's error).
  let failedHop: string | null = null;
  const onFailed = (request: Request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) failedHop = request.url();
  };
  page.on('requestfailed', onFailed);
  try {
    response = await page.goto(url, { waitUntil: 'load' });
  } catch (error) {
    const refused = mainRefusal();
    if (refused) throw refused;
    const message = error instanceof Error ? error.message : String(error);
    // A hop the proxy could not open (an HTTPS redirect to a refused host) fails the tunnel.
    if (/ERR_TUNNEL_CONNECTION_FAILED|ERR_BLOCKED_BY_CLIENT/.test(message)) {
      let host = '';
      try {
        host = new URL(failedHop ?? url).hostname;
      } catch {
        host = '';
      }
      const why = /ERR_BLOCKED_BY_CLIENT/.test(message) ? 'url_blocked' : (host && deps.proxy.failureFor(host)) || 'upstream_error';
      throw proxyFailure(why, url, error);
    }
    if (/ERR_NAME_NOT_RESOLVED/.test(message)) throw new AppError('dns_failed', `could not resolve the host of ${redactUrl(url)}`, { cause: error });
    if (/ERR_CONNECTION_REFUSED/.test(message)) throw new AppError('connection_refused', `${redactUrl(url)}: connection refused`, { cause: error });
    if (/ERR_CERT_|ERR_SSL_/.test(message)) throw new AppError('tls_failed', `${redactUrl(url)}: TLS failed`, { cause: error });
    if (/ERR_TOO_MANY_REDIRECTS/.test(message)) throw new AppError('too_many_redirects', `${redactUrl(url)} redirected too often`, { cause: error });
    throw error;
  } finally {
    page.off('requestfailed', onFailed);
  }
  if (!response) throw new AppError('upstream_error', `${redactUrl(url)}: the browser got no response`);
  const proxyError = response.headers()[PROXY_ERROR_HEADER];
  if (proxyError) throw proxyFailure(proxyError, url, null);
  return response;
}

async function steps(context: BrowserContext, request: RenderRequest, deps: RenderDeps): Promise<RenderResult> {
  const { options } = request;
  let page: Page | null = null;
  const acceptLanguage = options.location ? acceptLanguageFor(options.location) : null;
  const policy = await applyPolicy(context, { guard: deps.guard, blockAssets: options.blockAssets ?? true, acceptLanguage }, () => page);
  const main = await context.newPage();
  page = main;
  const session = await policy.attach(page);
  page.setDefaultTimeout(request.timeoutMs);
  page.setDefaultNavigationTimeout(request.timeoutMs);
  const network = wantsNetwork(options) ? recordNetwork(page) : null;
  const response = await open(page, request.url, deps, () => policy.mainRefusal);
  const fetchedAtMs = (deps.now ?? Date.now)();
  if ((options.waitFor ?? 0) > 0) await page.waitForTimeout(options.waitFor ?? 0);
  const extras: RenderExtras = {};
  const actions = options.actions ?? [];
  if ((options.captchaHandling ?? 'auto') === 'auto' && !actions.some((a) => a.type === 'captchaCheckbox')) {
    const captcha = await autoCaptcha(page, { evidence: options.captchaEvidence ?? false });
    if (captcha) extras.captcha = captcha;
  }
  if (actions.length > 0) extras.actions = await runActions(page, actions, request.startedAtMs + request.timeoutMs, deps.now);
  const shot = screenshotFormat(options);
  if (shot) extras.screenshot = await screenshot(page, shot);
  const html = await readDom(page, async () => session ?? context.newCDPSession(main));
  if (network) extras.network = await network.entries();
  const headers: Record<string, string> = {};
  for (const { name, value } of await response.headersArray()) {
    const lower = name.toLowerCase();
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  return { finalUrl: page.url(), statusCode: response.status(), headers, html, fetchedAtMs, extras };
}

/** Renders within `timeoutMs`; the context is the caller's (browser.ts closes it). */
export async function renderPage(context: BrowserContext, request: RenderRequest, deps: RenderDeps): Promise<RenderResult> {
  let timedOut = false;
  let stopped = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void context.close().catch(() => undefined);
  }, request.timeoutMs);
  const onAbort = () => {
    stopped = true;
    void context.close().catch(() => undefined);
  };
  request.signal.addEventListener('abort', onAbort, { once: true });
  // Aborted before it started (its listener would never hear it): nothing is loaded.
  if (request.signal.aborted) onAbort();
  try {
    if (stopped) throw new AppError('service_unavailable', 'the render was interrupted');
    return await steps(context, request, deps);
  } catch (error) {
    if (timedOut || (error instanceof Error && error.name === 'TimeoutError' && !(error instanceof AppError))) {
      throw new AppError('fetch_timeout', `${redactUrl(request.url)} was not rendered within ${request.timeoutMs} ms`, { cause: error });
    }
    if (stopped) throw new AppError('service_unavailable', 'the render was interrupted', { cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', onAbort);
  }
}
