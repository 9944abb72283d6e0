/**
 * The renderer's warm browser: one Chromium per process, launched on the first render and
 * kept until it has served RENDER_RECYCLE_PAGES renders (below); each render gets a fresh browser context (its own cookies, storage, cache, service
 * workers), closed when the render ends, so nothing of one caller reaches the next.
 *
 * - At most `concurrency` renders hold a page at once (RENDER_CONCURRENCY); the others wait
 *   in order, and a waiting render whose signal aborts leaves the queue.
 * - A browser that dies (crash, killed, OOM) is noticed by its `disconnected` event; a render
 *   it took down is retried once on a newly launched browser. A second failure, or a launch
 *   that fails, is `render_failed` (retriable: the pool may try again later).
 * - Recycling (RENDER_RECYCLE_PAGES, `recyclePages`; 0 or unset: never): once `recyclePages`
 *   renders have started on a browser, the next render starts on a newly launched one and the
 *   old one is retired: it takes no new render and closes when its last render in flight has
 *   finished (drains), so recycling fails no render. At most one retired browser is draining:
 *   while it is, the current browser takes renders past the count and is recycled once the old
 *   one has closed, so at most two browsers are ever open. Each recycle is one info line.
 * - A browser that stops answering without dying (hung, stopped) is killed: a fresh context,
 *   and closing one, take a few milliseconds, so one that has not come within
 *   `contextTimeoutMs` (15 s) means the browser no longer answers; its process is killed
 *   (SIGKILL, by the pid it reported at launch), the next render launches a new one, and the
 *   render that found it is retried once as after a crash. A launch is bounded by
 *   `launchTimeoutMs` (30 s), and a render waiting for a launch or a context leaves when its
 *   signal aborts. Without these one stuck browser would hold every render slot for good.
 * - The browser is launched with CHROMIUM_ARGS (flags.ts: the flags a container needs, and
 *   browser UI features switched off that would cost processes on every context's window).
 * - Every connection of the browser goes through the guarded proxy (proxy.ts), started with
 *   the first launch and kept across relaunches; the browser carries the proxy's
 *   `browserFlag`, by which the proxy knows its connections (peer.ts).
 *
 * It drives playwright-core directly rather than through Crawlee's PlaywrightCrawler: the
 * crawler owns its request queue, retries and autoscaling, which here belong to the actor
 * pool (pipeline/runtime/pool.ts) and the frontier; what the renderer needs of it — a warm browser,
 * a context per request, bounded pages, relaunch on crash — is this file.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { AppError } from '../../pipeline/runtime/errors.js';
import { within } from '../../pipeline/runtime/within.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { CHROMIUM_ARGS } from './flags.js';
import { GuardedProxy } from './proxy.js';

export { CHROMIUM_ARGS } from './flags.js';

export interface BrowserPoolOptions {
  readonly executablePath: string;
  readonly concurrency: number;
  readonly guard: NetGuard;
  readonly log: Logger;
  readonly args?: readonly string[];
  /** Renders started on one browser before the next starts on a new one (RENDER_RECYCLE_PAGES); 0 or unset: never. */
  readonly recyclePages?: number;
  /** How long a fresh context (or closing one, or the browser) may take before the browser counts as hung and is killed (default 15 s). */
  readonly contextTimeoutMs?: number;
  /** How long a launch may take (default 30 s). */
  readonly launchTimeoutMs?: number;
}

const CONTEXT_TIMEOUT_MS = 15_000;
const LAUNCH_TIMEOUT_MS = 30_000;

/** The browser did not answer a call that takes milliseconds within `contextTimeoutMs`. */
class BrowserHung extends Error {
  constructor(readonly step: string, readonly ms: number) {
    super(`the browser did not answer ${step} within ${ms} ms`);
  }
}

/**
 * `promise`'s value, unless `ms` passes first (BrowserHung, naming `step`; null: no bound) or
 * `signal` aborts (service_unavailable). A value that comes after either is handed to `late`
 * (a context nobody will use is closed).
 */
function browserWithin<T>(promise: Promise<T>, step: string, ms: number | null, signal: AbortSignal | null, late?: (value: T) => unknown): Promise<T> {
  return within(promise, {
    ms,
    timeout: (after) => new BrowserHung(step, after),
    signal,
    aborted: () => new AppError('service_unavailable', 'the render was cancelled while waiting for the browser'),
    ...(late ? { late } : {}),
  });
}

/** The browser's main process id, as Chromium reports it; null when it does not say. */
export async function browserPid(browser: Browser): Promise<number | null> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    return processInfo.find((p) => p.type === 'browser')?.id ?? null;
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/**
 * True when the render failed because the browser (or the page's renderer process) died,
 * not because of the page: the browser is disconnected, or the error says the target
 * crashed, closed or aborted the navigation, or the browser answered a protocol call with an
 * error, and the browser disconnects within a moment (its `disconnected` event may come after
 * the failed call returns).
 */
export async function wentAway(browser: Browser, error: unknown): Promise<boolean> {
  if (!browser.isConnected()) return true;
  const message = error instanceof Error ? error.message : String(error);
  if (/Target crashed|Page crashed/i.test(message)) return true;
  // A navigation cut off by the browser closing fails as ERR_ABORTED, often before
  // `disconnected`; a context asked for as it closes, as a protocol error ("Failed to find
  // browser context").
  if (!/has been closed|has disconnected|net::ERR_ABORTED|Protocol error|Target closed/i.test(message)) return false;
  await Promise.race([new Promise<void>((resolve) => browser.once('disconnected', () => resolve())), sleep(2000)]);
  return !browser.isConnected();
}

/** One launched (or launching) browser and the renders it has taken. */
interface Generation {
  readonly browser: Promise<Browser>;
  /** Set once launched. */
  live: Browser | null;
  /** Renders started on it (each attempt counts). */
  started: number;
  /** Renders running on it now. */
  inFlight: number;
  /** Recycled: it takes no new render and closes when `inFlight` reaches 0. */
  retired: boolean;
}

export class BrowserPool {
  /** The browser new renders start on. */
  private generation: Generation | null = null;
  /** A recycled browser still finishing its renders (at most one). */
  private draining: Generation | null = null;
  private readonly closing = new Set<Promise<void>>();
  /** Browsers this pool closed itself: their `disconnected` is no crash. */
  private readonly closedHere = new WeakSet<Browser>();
  /** Each launched browser's main process, to kill one that hangs. */
  private readonly pids = new WeakMap<Browser, number>();
  private proxy: Promise<GuardedProxy> | null = null;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;
  /** Browsers launched so far (1 + relaunches + recycles). */
  launches = 0;
  /** Browsers retired after `recyclePages` renders so far. */
  recycles = 0;
  /** Browsers killed because they stopped answering. */
  kills = 0;

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
    return this.currentGeneration().browser;
  }

  private currentGeneration(): Generation {
    if (this.closed) throw new AppError('service_unavailable', 'the renderer is shutting down');
    const generation = this.generation;
    if (generation && !(generation.live && !generation.live.isConnected())) return generation;
    const launching = this.launch();
    const next: Generation = { browser: launching, live: null, started: 0, inFlight: 0, retired: false };
    this.generation = next;
    launching.then(
      (b) => {
        next.live = b;
      },
      () => {
        if (this.generation === next) this.generation = null;
      },
    );
    return next;
  }

  /**
   * The browser a render starts on, counted against it: the current one, unless it has had
   * its `recyclePages` renders and no retired browser is still draining; then it is retired
   * and a new one launched.
   */
  private take(): Generation {
    const limit = this.options.recyclePages ?? 0;
    const current = this.generation;
    // A browser still launching may be retired too; a dead one is replaced below instead.
    if (limit > 0 && current && current.live?.isConnected() !== false && current.started >= limit && !this.draining) this.retire(current);
    const generation = this.currentGeneration();
    generation.started++;
    generation.inFlight++;
    return generation;
  }

  private retire(generation: Generation): void {
    generation.retired = true;
    this.generation = null;
    this.draining = generation;
    this.recycles++;
    // Counts only: the pages' URLs may carry credentials.
    this.options.log.info(
      { pages: generation.started, inFlight: generation.inFlight, recyclePages: this.options.recyclePages, recycles: this.recycles },
      'browser recycled: the next render starts on a new browser; this one closes when its renders have finished',
    );
    if (generation.inFlight === 0) this.closeRetired(generation);
  }

  /** A render on `generation` has ended: a retired browser closes with its last one. */
  private finished(generation: Generation): void {
    generation.inFlight--;
    if (generation.retired && generation.inFlight === 0) this.closeRetired(generation);
  }

  private closeRetired(generation: Generation): void {
    const closing = generation.browser
      .then((b) => this.closeBrowser(b))
      .catch(() => undefined)
      .finally(() => {
        if (this.draining === generation) this.draining = null;
        this.closing.delete(closing);
        this.options.log.debug({ pages: generation.started }, 'recycled browser closed');
      });
    this.closing.add(closing);
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
        timeout: this.options.launchTimeoutMs ?? LAUNCH_TIMEOUT_MS,
      });
    } catch (error) {
      const first = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      throw new AppError('render_failed', `could not start Chromium at ${this.options.executablePath}: ${first}`, { cause: error });
    }
    this.launches++;
    const pid = await browserWithin(browserPid(browser), 'SystemInfo.getProcessInfo', this.contextTimeoutMs, null).catch(() => null);
    if (pid !== null) this.pids.set(browser, pid);
    this.options.log.info({ version: browser.version(), launches: this.launches, pid }, 'browser launched');
    browser.once('disconnected', () => {
      if (!this.closed && !this.closedHere.has(browser)) this.options.log.warn({}, 'browser disconnected; the next render launches a new one');
    });
    return browser;
  }

  private get contextTimeoutMs(): number {
    return this.options.contextTimeoutMs ?? CONTEXT_TIMEOUT_MS;
  }

  /** Closes a browser this pool is done with; one that does not close within the bound is killed. */
  private async closeBrowser(browser: Browser): Promise<void> {
    this.closedHere.add(browser);
    await browserWithin(browser.close(), 'close', this.contextTimeoutMs, null).catch((error: unknown) => this.kill(browser, error instanceof BrowserHung ? error : undefined));
  }

  /**
   * Kills a browser that stopped answering (its main process, SIGKILL; Playwright then sees
   * it disconnect, and the renders still on it fail and are retried as after a crash); the
   * next render launches a new one.
   */
  private kill(browser: Browser, why?: BrowserHung): void {
    if (this.generation?.live === browser) this.generation = null;
    this.closedHere.add(browser);
    const pid = this.pids.get(browser);
    if (why) {
      this.kills++;
      this.options.log.warn({ pid: pid ?? null, step: why.step, ms: why.ms, kills: this.kills }, 'the browser stopped answering; killed');
    }
    // Only while connected: the pid is then still the browser's, not a reused one.
    if (pid !== undefined && browser.isConnected()) {
      try {
        process.kill(pid, 'SIGKILL');
        return;
      } catch {
        // gone already
      }
    }
    void browser.close().catch(() => undefined);
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
        const generation = this.take();
        let browser: Browser | null = null;
        let context: BrowserContext | null = null;
        try {
          // The launch is bounded by its own timeout (launchTimeoutMs); a render may leave it.
          browser = await browserWithin(generation.browser, 'launch', null, signal);
          context = await browserWithin(browser.newContext(contextOptions), 'newContext', this.contextTimeoutMs, signal, (late) => late.close().catch(() => undefined));
          return await work(context, browser);
        } catch (error) {
          if (error instanceof BrowserHung && browser) this.kill(browser, error);
          else if (!browser || signal.aborted || !(await wentAway(browser, error))) throw error;
          if (attempt >= 2) throw new AppError('render_failed', 'the browser crashed twice while rendering the page', { cause: error });
          this.options.log.warn({ attempt }, 'the browser went away during a render; relaunching and retrying once');
        } finally {
          if (context && browser) {
            const used = browser;
            await browserWithin(context.close(), 'context.close', this.contextTimeoutMs, null).catch((error: unknown) => {
              if (error instanceof BrowserHung) this.kill(used, error);
            });
          }
          this.finished(generation);
        }
      }
    } finally {
      this.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = [this.generation, this.draining].filter((g): g is Generation => g !== null);
    this.generation = null;
    this.draining = null;
    await Promise.all([...open.map((g) => g.browser.then((b) => this.closeBrowser(b), () => undefined)), ...this.closing]);
    const proxy = this.proxy;
    this.proxy = null;
    await proxy?.then((p) => p.close(), () => undefined).catch(() => undefined);
  }
}
