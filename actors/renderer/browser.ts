/**
 * The renderer's warm browser: one Chromium per process, launched on the first render and
 * kept; each render gets a fresh browser context (its own cookies, storage, cache, service
 * workers), closed when the render ends, so nothing of one caller reaches the next.
 *
 * - At most `concurrency` renders hold a page at once (RENDER_CONCURRENCY); the others wait
 *   in order, and a waiting render whose signal aborts leaves the queue.
 * - A browser that dies (crash, killed, OOM) is noticed by its `disconnected` event; a render
 *   it took down is retried once on a newly launched browser. A second failure, or a launch
 *   that fails, is `render_failed` (retriable: the pool may try again later).
 * - The browser is launched with CHROMIUM_ARGS (flags.ts: the flags a container needs, and
 *   browser UI features switched off that would cost processes on every context's window).
 * - Every connection of the browser goes through the guarded proxy (proxy.ts), started with
 *   the first launch and kept across relaunches; the browser carries the proxy's
 *   `browserFlag`, by which the proxy knows its connections (peer.ts).
 *
 * It drives playwright-core directly rather than through Crawlee's PlaywrightCrawler: the
 * crawler owns its request queue, retries and autoscaling, which here belong to the actor
 * pool (pipeline/pool.ts) and the frontier; what the renderer needs of it — a warm browser,
 * a context per request, bounded pages, relaunch on crash — is this file.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { AppError } from '../../pipeline/errors.js';
import type { Logger } from '../../pipeline/log.js';
import type { NetGuard } from '../../pipeline/net/guard.js';
import { CHROMIUM_ARGS } from './flags.js';
import { GuardedProxy } from './proxy.js';

export { CHROMIUM_ARGS } from './flags.js';

export interface BrowserPoolOptions {
  readonly executablePath: string;
  readonly concurrency: number;
  readonly guard: NetGuard;
  readonly log: Logger;
  readonly args?: readonly string[];
}

/**
 * True when the render failed because the browser (or the page's renderer process) died,
 * not because of the page: the browser is disconnected, or the error says the target
 * crashed, closed or aborted the navigation and the browser disconnects within a moment (its
 * `disconnected` event may come after the failed call returns).
 */
async function wentAway(browser: Browser, error: unknown): Promise<boolean> {
  if (!browser.isConnected()) return true;
  const message = error instanceof Error ? error.message : String(error);
  if (/Target crashed|Page crashed/i.test(message)) return true;
  // A navigation cut off by the browser closing fails as ERR_ABORTED, often before `disconnected`.
  if (!/has been closed|has disconnected|net::ERR_ABORTED/i.test(message)) return false;
  await Promise.race([new Promise<void>((resolve) => browser.once('disconnected', () => resolve())), sleep(2000)]);
  return !browser.isConnected();
}

export class BrowserPool {
  private browser: Promise<Browser> | null = null;
  private live: Browser | null = null;
  private proxy: Promise<GuardedProxy> | null = null;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;
  /** Browsers launched so far (1 + relaunches). */
  launches = 0;

  constructor(private readonly options: BrowserPoolOptions) {}

  get concurrency(): number {
    return this.options.concurrency;
  }

  /** The guarded proxy the browser connects through (started with the first launch). */
  async guardedProxy(): Promise<GuardedProxy> {
    this.proxy ??= GuardedProxy.start(this.options.guard, this.options.log);
    return this.proxy;
  }

  /** The running browser, launching one when there is none (or the last one died). */
  async current(): Promise<Browser> {
    if (this.closed) throw new AppError('service_unavailable', 'the renderer is shutting down');
    if (this.live && !this.live.isConnected()) {
      this.live = null;
      this.browser = null;
    }
    if (!this.browser) {
      const launching = this.launch();
      this.browser = launching;
      launching.then(
        (b) => {
          if (this.browser === launching) this.live = b;
        },
        () => {
          if (this.browser === launching) this.browser = null;
        },
      );
    }
    return this.browser;
  }

  private async launch(): Promise<Browser> {
    const proxy = await this.guardedProxy();
    let browser: Browser;
    try {
      // Loaded on the first launch: every role's process imports this module, and
      // playwright-core alone takes about a second to load.
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: this.options.executablePath,
        args: [...(this.options.args ?? CHROMIUM_ARGS), proxy.browserFlag],
        proxy: { server: proxy.settings.server },
        headless: true,
      });
    } catch (error) {
      const first = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      throw new AppError('render_failed', `could not start Chromium at ${this.options.executablePath}: ${first}`, { cause: error });
    }
    this.launches++;
    this.options.log.info({ version: browser.version(), launches: this.launches }, 'browser launched');
    browser.once('disconnected', () => {
      if (!this.closed) this.options.log.warn({}, 'browser disconnected; the next render launches a new one');
    });
    return browser;
  }

  private async acquire(signal: AbortSignal): Promise<void> {
    if (this.active < this.options.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new AppError('service_unavailable', 'the render was cancelled while waiting for a page'));
      };
      const go = () => {
        signal.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(go);
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }

  /**
   * Runs `work` in a fresh context of the warm browser, within the concurrency bound; the
   * context is closed afterwards whatever happens. A browser (or page) that dies during the
   * work is replaced and the work run once more.
   */
  async withContext<T>(contextOptions: BrowserContextOptions, work: (context: BrowserContext, browser: Browser) => Promise<T>, signal: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      for (let attempt = 1; ; attempt++) {
        const browser = await this.current();
        let context: BrowserContext | null = null;
        try {
          context = await browser.newContext(contextOptions);
          return await work(context, browser);
        } catch (error) {
          if (signal.aborted || !(await wentAway(browser, error))) throw error;
          if (attempt >= 2) throw new AppError('render_failed', 'the browser crashed twice while rendering the page', { cause: error });
          this.options.log.warn({ attempt }, 'the browser went away during a render; relaunching and retrying once');
        } finally {
          await context?.close().catch(() => undefined);
        }
      }
    } finally {
      this.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser;
    this.browser = null;
    this.live = null;
    await browser?.then((b) => b.close(), () => undefined).catch(() => undefined);
    const proxy = this.proxy;
    this.proxy = null;
    await proxy?.then((p) => p.close(), () => undefined).catch(() => undefined);
  }
}
