/**
 * actors/renderer: a browser that stops answering without dying. Chromium's main process is
 * stopped (SIGSTOP): it keeps its pipe open, so Playwright never sees it disconnect, and a
 * fresh context never comes. The pool must notice (`contextTimeoutMs`), kill the process and
 * render on a new browser, and a render whose signal aborts while it waits must leave.
 */
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../actors/renderer/browser.js';
import { defaultChromiumPath } from '../../actors/renderer/flags.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { createLogger, type Logger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { CHROMIUM, engine } from '../helpers/engines.js';
import { processAlive } from '../helpers/process.js';
import { mainPid } from '../helpers/renderer.js';
import { until } from '../helpers/wait.js';

const CHROMIUM_PATH = defaultChromiumPath();
const hasChromium = await engine('chromium', () => existsSync(CHROMIUM_PATH), CHROMIUM.install);

/** A logger at info whose lines are kept. */
function capturingLog(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const log = createLogger('info', { write: (line: string) => void lines.push(line) });
  return { log, lines: () => lines.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe.skipIf(!hasChromium)('actors/renderer/browser: a browser that stops answering', () => {
  let origin = '';
  let server: http.Server;
  const guard = new NetGuard({ allowPrivate: true });
  const pools: BrowserPool[] = [];
  /** Processes a test stopped: killed afterwards whatever happened. */
  const stopped: number[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><body><h1>at ${req.url ?? ''}</h1></body></html>`);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    for (const pid of stopped.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // killed by the pool, as it should be
      }
    }
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function pool(log: Logger, contextTimeoutMs: number, concurrency = 1): BrowserPool {
    const p = new BrowserPool({ executablePath: CHROMIUM_PATH, concurrency, guard, log, contextTimeoutMs });
    pools.push(p);
    return p;
  }

  /** One render: the page's heading, the browser and its main process. */
  function render(browsers: BrowserPool, path: string, signal = new AbortController().signal, after?: (pid: number) => void) {
    return browsers.withContext(
      {},
      async (context, browser) => {
        const pid = await mainPid(browser);
        const page = await context.newPage();
        await page.goto(`${origin}${path}`);
        const heading = await page.locator('h1').innerText();
        after?.(pid);
        return { heading, browser, pid };
      },
      signal,
    );
  }

  function stop(pid: number): void {
    stopped.push(pid);
    process.kill(pid, 'SIGSTOP');
  }

  it('kills a browser that gives no context within the bound, and renders on a new one', { timeout: 60_000 }, async () => {
    const { log, lines } = capturingLog();
    const browsers = pool(log, 1500);
    const first = await render(browsers, '/one');
    expect(first.heading).toBe('at /one');
    stop(first.pid);
    const second = await render(browsers, '/two');
    expect(second.heading).toBe('at /two');
    expect(second.browser).not.toBe(first.browser);
    expect(second.pid).not.toBe(first.pid);
    expect(browsers.launches).toBe(2);
    expect(browsers.kills).toBe(1);
    await until('the stopped browser to be killed', () => !processAlive(first.pid), { timeoutMs: 20_000 });
    const killed = lines().filter((l) => l.msg === 'the browser stopped answering; killed');
    expect(killed).toEqual([expect.objectContaining({ level: 40, pid: first.pid, step: 'newContext', ms: 1500 })]);
    // The launch line names the process it kills by.
    expect(lines().filter((l) => l.msg === 'browser launched').map((l) => l.pid)).toEqual([first.pid, second.pid]);
    // And the new browser goes on serving.
    expect((await render(browsers, '/three')).browser).toBe(second.browser);
  });

  it('kills a browser that stops while a render is in it (closing the context hangs); the render is answered and the next one gets a new browser', { timeout: 60_000 }, async () => {
    const browsers = pool(createLogger('silent'), 1500);
    const first = await render(browsers, '/one', undefined, stop);
    expect(first.heading).toBe('at /one');
    expect(browsers.kills).toBe(1);
    await until('the stopped browser to be killed', () => !processAlive(first.pid), { timeoutMs: 20_000 });
    const next = await render(browsers, '/two');
    expect(next.heading).toBe('at /two');
    expect(next.pid).not.toBe(first.pid);
    expect(browsers.launches).toBe(2);
  });

  it('lets a render whose signal aborts leave while the browser hangs, without holding the slot', { timeout: 60_000 }, async () => {
    const browsers = pool(createLogger('silent'), 4000);
    const first = await render(browsers, '/one');
    stop(first.pid);
    const controller = new AbortController();
    const waiting = render(browsers, '/two', controller.signal);
    setTimeout(() => controller.abort(), 200);
    const error = await waiting.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('service_unavailable');
    // It left before the bound: the browser was not yet taken for hung.
    expect(browsers.kills).toBe(0);
    expect(processAlive(first.pid)).toBe(true);
    // The slot is free (concurrency 1): the next render finds the browser hung, kills it and renders.
    const next = await render(browsers, '/three');
    expect(next.heading).toBe('at /three');
    expect(browsers.kills).toBe(1);
    expect(browsers.launches).toBe(2);
  });

  it('closes a pool whose browser hangs: the browser is killed, the close does not wait for it', { timeout: 60_000 }, async () => {
    const browsers = pool(createLogger('silent'), 1500);
    const first = await render(browsers, '/one');
    stop(first.pid);
    await browsers.close();
    expect(browsers.kills).toBe(1);
    await until('the stopped browser to be killed', () => !processAlive(first.pid), { timeoutMs: 20_000 });
  });
});
