/**
 * actors/renderer without a bus: ScrapeRequested in, Outcome out, rendered by Debian's
 * Chromium (the renderer's default executable: the headless shell when installed, else the
 * full browser) against a local site (test/helpers/render-site.ts). Emissions are encoded with the
 * real codec, so they match their Avro schemas (PageFetched v3 with `extras`).
 */
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool, CHROMIUM_ARGS } from '../../actors/renderer/browser.js';
import { readDom } from '../../actors/renderer/dom.js';
import { CHROMIUM_EXECUTABLES, defaultChromiumPath, RENDERER_DISABLED_FEATURES } from '../../actors/renderer/flags.js';
import { handleRenderRequested, type RendererDeps, type ScrapeRequested } from '../../actors/renderer/handler.js';
import { findSocket, procAddress } from '../../actors/renderer/peer.js';
import { splitAuthority } from '../../actors/renderer/proxy.js';
import { tunnelThrough } from '../../actors/renderer/upstream.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import type { EventCodec } from '../../pipeline/runtime/codec/codec.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { ProxyRouter } from '../../pipeline/runtime/net/proxies.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';
import { TOPICS } from '../../schemas/topics.js';
import { CHROMIUM, engine } from '../helpers/engines.js';
import { startRenderSite, type RenderSite } from '../helpers/render-site.js';
import { startForwardProxy } from '../helpers/fixture-site.js';

const BROWSER_PAGE_CREDITS = PRICES.browserPage.credits;

/** The executable the renderer launches by default (flags.ts), which the suite renders with. */
const CHROMIUM_PATH = defaultChromiumPath();
const hasChromium = await engine('chromium', () => existsSync(CHROMIUM_PATH), CHROMIUM.install);

type PageFetched = EventValue<'PageFetched'>;
type Reply = EventValue<'Reply'>;

function request(url: string, options: object = {}): ScrapeRequested {
  const now = Date.now();
  return {
    requestId: 'req-render',
    tenant: 'tenant-1',
    jobId: null,
    url,
    options: JSON.stringify(options),
    replyTo: TOPICS.replies.name,
    correlationId: 'corr-render',
    deadlineMs: now + 60_000,
    createdAtMs: now,
    escalated: false,
  };
}

/** `{width, height}` from a PNG data URL's IHDR chunk. */
function pngSize(dataUrl: string): { width: number; height: number } {
  expect(dataUrl.startsWith('data:image/png;base64,')).toBe(true);
  const bytes = Buffer.from(dataUrl.slice('data:image/png;base64,'.length), 'base64');
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('actors/renderer: splitAuthority', () => {
  it('reads host and port of a CONNECT target, IPv6 included, and refuses bad ones', () => {
    expect(splitAuthority('example.com:443')).toEqual({ host: 'example.com', port: 443 });
    expect(splitAuthority('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(splitAuthority('example.com')).toBeNull();
    expect(splitAuthority('example.com:0')).toBeNull();
    expect(splitAuthority('example.com:70000')).toBeNull();
  });
});

describe('actors/renderer: peer (who holds a loopback connection)', () => {
  it('finds the open socket of a 4-tuple in /proc/net/tcp, not a TIME_WAIT one of the same ports', () => {
    expect(procAddress('127.0.0.1')).toBe('0100007F');
    expect(procAddress('::ffff:10.1.2.3')).toBe('0302010A');
    expect(procAddress('::1')).toBeNull();
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:A411 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0000000000000000 100 0 0 10 0',
      '   1: 0100007F:C350 0100007F:A411 06 00000000:00000000 03:00000F2E 00000000     0        0 0 3 0000000000000000',
      '   2: 0100007F:C350 0100007F:A411 01 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 20 4 30 10 -1',
      '   3: 0100007F:A411 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 20 4 30 10 -1',
    ].join('\n');
    const client = { address: '127.0.0.1', port: 0xc350 };
    const server = { address: '127.0.0.1', port: 0xa411 };
    expect(findSocket(table, client, server)).toEqual({ uid: 1000, inode: 4242 });
    expect(findSocket(table, { ...client, port: 0xc351 }, server)).toBeNull();
  });
});

describe('actors/renderer: a browser that cannot start', () => {
  it('asks for one more attempt, then answers render_failed naming the executable', async () => {
    const log = createLogger('silent');
    const guard = new NetGuard({ allowPrivate: true });
    const browsers = new BrowserPool({ executablePath: '/nonexistent/chromium', concurrency: 1, guard, log });
    const deps: RendererDeps = { browsers, guard, log, maxAttempts: 2 };
    const signal = new AbortController().signal;
    try {
      const first = await handleRenderRequested(request('http://127.0.0.1:9/', { waitFor: 1, timeout: 5000 }), deps, signal, 1);
      expect(first).toMatchObject({ kind: 'retry', code: 'render_failed' });
      const last = await handleRenderRequested(request('http://127.0.0.1:9/', { waitFor: 1, timeout: 5000 }), deps, signal, 2);
      expect(last.kind).toBe('ack');
      const reply = (last.kind === 'ack' ? last.emit?.[0]?.value : null) as unknown as Reply;
      expect(reply).toMatchObject({ ok: false, errorCode: 'render_failed' });
      expect(reply.errorMessage).toContain('/nonexistent/chromium');
    } finally {
      await browsers.close();
    }
  });
});

describe('actors/renderer: tunnels through an upstream proxy', () => {
  it('opens CONNECT with the proxy credentials and hands back the tunnel; a refusal is proxy_failed', async () => {
    const site = await startRenderSite();
    const auths: (string | undefined)[] = [];
    const upstream = http.createServer();
    upstream.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
      auths.push(req.headers['proxy-authorization']);
      if (req.headers['proxy-authorization'] !== `Basic ${Buffer.from('user:p@ss').toString('base64')}`) {
        socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
        return;
      }
      const [host, port] = (req.url ?? '').split(':');
      const target = net.connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        target.pipe(socket);
        socket.pipe(target);
      });
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const port = (upstream.address() as net.AddressInfo).port;
    try {
      const sitePort = Number(new URL(site.origin).port);
      const tunnel = await tunnelThrough(`http://user:p%40ss@127.0.0.1:${port}`, '127.0.0.1', sitePort);
      tunnel.write('GET /reveal HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      const chunks: Buffer[] = [];
      for await (const chunk of tunnel) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString('utf8')).toMatch(/^HTTP\/1\.1 200[\s\S]*The revealed paragraph/);
      await expect(tunnelThrough(`http://user:wrong@127.0.0.1:${port}`, '127.0.0.1', sitePort)).rejects.toMatchObject({ code: 'proxy_failed', message: expect.not.stringContaining('wrong') });
      expect(auths).toHaveLength(2);
    } finally {
      upstream.close();
      await site.close();
    }
  });
});

describe.skipIf(!hasChromium)('actors/renderer', () => {
  let site: RenderSite;
  let codec: EventCodec;
  let open: BrowserPool;
  let guarded: BrowserPool;
  let openDeps: RendererDeps;
  let guardedDeps: RendererDeps;
  const log = createLogger('silent');
  const signal = new AbortController().signal;

  beforeAll(async () => {
    site = await startRenderSite();
    codec = await createCodec();
    const openGuard = new NetGuard({ allowPrivate: true });
    // Private addresses refused, except the site itself on 127.0.0.1: 127.0.0.2 stands for an internal service.
    const strictGuard = new NetGuard({ allowPrivate: false, allowCidrs: ['127.0.0.1/32'] });
    open = new BrowserPool({ executablePath: CHROMIUM_PATH, concurrency: 2, guard: openGuard, log });
    guarded = new BrowserPool({ executablePath: CHROMIUM_PATH, concurrency: 1, guard: strictGuard, log });
    openDeps = { browsers: open, guard: openGuard, log, maxAttempts: 1 };
    guardedDeps = { browsers: guarded, guard: strictGuard, log, maxAttempts: 1 };
  });
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
    await site?.close();
  });

  async function emitted(outcome: Outcome): Promise<Emission[]> {
    expect(outcome.kind, JSON.stringify(outcome)).toBe('ack');
    const emit = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
    for (const e of emit) await codec.encode(TOPICS[e.topic].event as 'PageFetched' | 'Reply', e.value as never);
    return emit;
  }

  async function rendered(url: string, options: object = {}, deps = openDeps): Promise<{ page: PageFetched; html: string; extras: Record<string, any> }> {
    const emit = await emitted(await handleRenderRequested(request(url, options), deps, signal));
    expect(emit).toHaveLength(1);
    expect(emit[0]?.topic, JSON.stringify(emit[0]?.value)).toBe('pageFetched');
    const page = emit[0]?.value as unknown as PageFetched;
    return { page, html: Buffer.from(page.body).toString('utf8'), extras: JSON.parse(page.extras) as Record<string, any> };
  }

  async function failed(url: string, options: object = {}, deps = openDeps): Promise<Reply> {
    const emit = await emitted(await handleRenderRequested(request(url, options), deps, signal));
    expect(emit[0]?.topic).toBe('replies');
    const reply = emit[0]?.value as unknown as Reply;
    expect(reply.ok).toBe(false);
    return reply;
  }

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
    const [playwrights, ours, ...more] = await disableFeatures(await open.current());
    expect(more).toEqual([]);
    expect(playwrights).toContain('HttpsUpgrades');
    expect(ours).toEqual(expect.arrayContaining([...(playwrights ?? []), ...RENDERER_DISABLED_FEATURES]));
    expect(await browserUiPages(await open.current())).toEqual([]);
    // Each installed build: with Playwright's own flags only (the same container flags without
    // the renderer's --disable-features), the full browser loads the popups and the headless
    // shell none; with ours, neither.
    const pool = (executablePath: string, args: readonly string[]) => new BrowserPool({ executablePath, concurrency: 1, guard: new NetGuard({ allowPrivate: true }), log, args });
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

  it("reads the DOM as page.content() does, in a world of its own the page's scripts cannot change, and falls back to page.content()", async () => {
    const plain = '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><p id="a">one &amp; two</p><script>document.body.append("added")</script></body></html>';
    const tampering = '<!doctype html><html><body><p>real</p><script>Object.defineProperty(Element.prototype, "outerHTML", { get: () => "fake" }); XMLSerializer.prototype.serializeToString = () => "fake";</script></body></html>';
    await open.withContext({}, async (context) => {
      const page = await context.newPage();
      await page.goto(`data:text/html,${encodeURIComponent(plain)}`);
      const html = await readDom(page, () => context.newCDPSession(page));
      expect(html).toContain('<!DOCTYPE html><html lang="en">');
      expect(html).toContain('</p><script>document.body.append("added")</script>added</body>');
      expect(html).toBe(await page.content());
      await page.goto(`data:text/html,${encodeURIComponent(tampering)}`);
      expect(await page.evaluate(() => document.documentElement.outerHTML)).toBe('fake');
      expect(await readDom(page, () => context.newCDPSession(page))).toMatch(/^<!DOCTYPE html><html><head><\/head><body><p>real<\/p>/);
      // No session: read by page.content().
      await page.goto(`data:text/html,${encodeURIComponent(plain)}`);
      expect(await readDom(page, () => Promise.reject(new Error('no session')))).toBe(await page.content());
    }, signal);
  });

  it('waits for content a script adds after load (waitFor) and emits it as a rendered page', async () => {
    const { page, html } = await rendered(site.url('/js'), { waitFor: 1000 });
    expect(html).toContain('Added by script after load');
    expect(page).toMatchObject({ rendered: true, statusCode: 200, contentType: 'text/html; charset=utf-8', credits: BROWSER_PAGE_CREDITS, source: 'fresh', finalUrl: site.url('/js') });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('clicks to reveal content and returns the HTML of a scrape action', async () => {
    const { html, extras } = await rendered(site.url('/reveal'), { actions: [{ type: 'scrape' }, { type: 'click', selector: '#show' }, { type: 'scrape' }] });
    expect(extras.actions.scrapes).toHaveLength(2);
    expect(extras.actions.scrapes[0].html).toMatch(/<p id="secret" hidden="">/);
    expect(extras.actions.scrapes[1].html).toMatch(/<p id="secret">The revealed paragraph/);
    expect(extras.actions.scrapes[1].url).toBe(site.url('/reveal'));
    expect(html).toMatch(/<p id="secret">The revealed paragraph/);
  });

  it('writes into a form and presses Enter', async () => {
    const { html } = await rendered(site.url('/form'), {
      actions: [{ type: 'click', selector: '#q' }, { type: 'write', text: 'rendered pages' }, { type: 'press', key: 'Enter' }, { type: 'wait', selector: '#result:not(:empty)' }],
    });
    expect(html).toContain('You searched: rendered pages');
  });

  it('returns executeJavascript values with their types', async () => {
    const { extras } = await rendered(site.url('/form'), {
      actions: [
        { type: 'executeJavascript', script: 'return document.title' },
        { type: 'executeJavascript', script: '1 + 2' },
        { type: 'executeJavascript', script: 'return [...document.querySelectorAll("h1")].map((h) => h.textContent)' },
      ],
    });
    expect(extras.actions.javascriptReturns).toEqual([
      { type: 'string', value: 'Form' },
      { type: 'number', value: 3 },
      { type: 'array', value: ['Search'] },
    ]);
  });

  it('scrolls an infinite feed until more items load', async () => {
    const count = { type: 'executeJavascript', script: 'return document.querySelectorAll("#feed li").length' };
    const { extras } = await rendered(site.url('/scroll'), {
      actions: [count, { type: 'scroll', direction: 'down' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'scroll' }, { type: 'wait', milliseconds: 200 }, count],
    });
    const [before, after] = extras.actions.javascriptReturns.map((r: { value: number }) => r.value);
    expect(before).toBe(10);
    expect(after).toBeGreaterThan(10);
  });

  it('returns the screenshot format as a PNG data URL of the requested viewport, JPEG with quality, full page when asked', async () => {
    const viewport = await rendered(site.url('/js'), { formats: ['markdown', { type: 'screenshot', viewport: { width: 640, height: 480 } }] });
    expect(pngSize(viewport.extras.screenshot)).toEqual({ width: 640, height: 480 });
    const plain = await rendered(site.url('/js'), { formats: ['screenshot'] });
    expect(pngSize(plain.extras.screenshot)).toEqual({ width: 1280, height: 800 });
    const jpeg = await rendered(site.url('/js'), { formats: [{ type: 'screenshot', quality: 60 }] });
    expect(jpeg.extras.screenshot).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    const full = await rendered(site.url('/scroll'), { formats: [{ type: 'screenshot', fullPage: true }] });
    const size = pngSize(full.extras.screenshot);
    expect(size.width).toBe(1280);
    expect(size.height).toBeGreaterThan(1900);
  });

  it('reads the page as a phone with mobile: viewport width, user agent, touch', async () => {
    const { extras } = await rendered(site.url('/form'), {
      mobile: true,
      actions: [{ type: 'executeJavascript', script: 'return [window.innerWidth, navigator.userAgent, navigator.maxTouchPoints > 0]' }],
    });
    const [width, ua, touch] = extras.actions.javascriptReturns[0].value;
    expect(width).toBe(390);
    expect(ua).toMatch(/Android.*Mobile Safari/);
    expect(touch).toBe(true);
    const desktop = await rendered(site.url('/form'), { actions: [{ type: 'executeJavascript', script: 'return window.innerWidth' }] });
    expect(desktop.extras.actions.javascriptReturns[0].value).toBe(1280);
  });

  it('sends the caller headers but not its browser identity, and follows location', async () => {
    const { html, extras } = await rendered(site.url('/headers'), {
      headers: { 'X-Test': 'yes', 'User-Agent': 'caller-agent', 'Accept-Language': 'fr' },
      location: { country: 'DE' },
      actions: [{ type: 'executeJavascript', script: 'return [navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone]' }],
    });
    const sent = JSON.parse(/<pre id="h">(.*)<\/pre>/.exec(html)?.[1]?.replace(/&quot;/g, '"').replace(/&amp;/g, '&') ?? '{}') as Record<string, string>;
    expect(sent['x-test']).toBe('yes');
    expect(sent['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\/\d+\.0\.0\.0 Safari/);
    expect(sent['user-agent']).not.toMatch(/Headless|caller-agent/);
    expect(sent['accept-language']).toMatch(/^de-DE,de;q=0\.9/);
    expect(extras.actions.javascriptReturns[0].value).toEqual(['de-DE', 'Europe/Berlin']);
  });

  it('blocks images and fonts by default, proven by the site request log', async () => {
    const before = site.paths().length;
    await rendered(site.url('/images'));
    const asked = site.paths().slice(before);
    expect(asked).toContain('/images');
    expect(asked).not.toContain('/pixel.png');
    expect(asked).not.toContain('/font.woff2');
    // The browser's own request for the page's icon is an image too.
    expect(asked).not.toContain('/favicon.ico');
    const withAssets = site.paths().length;
    await rendered(site.url('/images'), { blockAssets: false, waitFor: 300 });
    expect(site.paths().slice(withAssets)).toContain('/pixel.png');
    // Only the full browser asks for the icon (for its tab); the headless shell never does.
    if (CHROMIUM_PATH === '/usr/bin/chromium') expect(site.paths().slice(withAssets)).toContain('/favicon.ico');
  });

  it('returns the network format: each request with method, type, status, size and timing', async () => {
    const { extras } = await rendered(site.url('/images'), { blockAssets: false, formats: ['network'] });
    const entries = extras.network as Record<string, any>[];
    const doc = entries.find((e) => e.url === site.url('/images'));
    const img = entries.find((e) => e.url === site.url('/pixel.png'));
    expect(doc).toMatchObject({ method: 'GET', resourceType: 'document', status: 200 });
    expect(doc?.size.body).toBeGreaterThan(100);
    expect(img).toMatchObject({ method: 'GET', resourceType: 'image', status: 200 });
    expect(img?.timing.startMs).toBeGreaterThanOrEqual(0);
    expect(img?.timing.durationMs).toBeGreaterThanOrEqual(0);
    const blocked = await rendered(site.url('/images'), { formats: ['network'] });
    expect((blocked.extras.network as Record<string, any>[]).find((e) => e.url === site.url('/pixel.png'))).toMatchObject({ status: null, error: expect.any(String) });
  });

  it('gives every request a fresh context: a cookie set in one render is absent from the next', async () => {
    const first = await rendered(site.url('/cookie/set'), { actions: [{ type: 'executeJavascript', script: 'return document.cookie' }] });
    expect(first.extras.actions.javascriptReturns[0].value).toBe('session=s3cret');
    const next = await rendered(site.url('/cookie/show'), { waitFor: 1 });
    expect(next.html).toContain('cookie: (none)');
    expect(site.requests.filter((r) => r.path === '/cookie/show').every((r) => r.headers.cookie === undefined)).toBe(true);
  });

  it('keeps cookies within one render (headers rewritten for location included)', async () => {
    const { extras } = await rendered(site.url('/cookie/set'), {
      location: { country: 'FR' },
      actions: [{ type: 'executeJavascript', script: 'return fetch("/cookie/show").then((r) => r.text()).then((t) => /cookie: ([^<]*)/.exec(t)[1])' }],
    });
    expect(extras.actions.javascriptReturns[0].value).toBe('session=s3cret');
    const seen = site.requests.filter((r) => r.path === '/cookie/show').at(-1);
    expect(seen?.headers['accept-language']).toMatch(/^fr-FR,fr;q=0\.9/);
  });

  it('clicks a challenge checkbox once by itself and returns before/after evidence', async () => {
    const { html, extras } = await rendered(site.url('/challenge'), { waitFor: 1, captchaEvidence: true });
    expect(html).toContain('Challenge passed');
    expect(extras.captcha).toMatchObject({ clicked: true, solved: true });
    expect(pngSize(extras.captcha.evidence.before)).toEqual({ width: 1280, height: 800 });
    expect(extras.captcha.evidence.after).not.toBe(extras.captcha.evidence.before);
    const off = await rendered(site.url('/challenge'), { waitFor: 1, captchaHandling: 'off' });
    expect(off.html).not.toContain('Challenge passed');
    expect(off.extras.captcha).toBeUndefined();
  });

  it('clears a challenge the fetcher escalated, with no browser options, at a fetched page\'s price', async () => {
    const emit = await emitted(await handleRenderRequested({ ...request(site.url('/challenge')), escalated: true }, openDeps, signal));
    const page = emit[0]?.value as unknown as PageFetched;
    expect(page).toMatchObject({ rendered: true, credits: 1, source: 'fresh' });
    expect(Buffer.from(page.body).toString('utf8')).toContain('Challenge passed');
    expect(JSON.parse(page.extras).captcha).toEqual({ clicked: true, solved: true });
  });

  it('runs the captchaCheckbox action: one click, waits for its success selector, evidence screenshots', async () => {
    const { html, extras } = await rendered(site.url('/challenge'), {
      captchaHandling: 'off',
      actions: [{ type: 'captchaCheckbox', successSelector: '#passed', captureEvidence: true, timeoutMs: 5000 }],
    });
    expect(html).toContain('Challenge passed');
    expect(extras.actions.screenshots).toHaveLength(2);
    expect(extras.captcha).toBeUndefined();
  });

  it('answers a failing action with action_failed naming its index and type', async () => {
    const reply = await failed(site.url('/reveal'), { timeout: 4000, actions: [{ type: 'click', selector: '#show' }, { type: 'click', selector: '#missing' }] });
    expect(reply.errorCode).toBe('action_failed');
    expect(reply.errorMessage).toMatch(/^action 1 \(click\) failed/);
    const script = await failed(site.url('/reveal'), { actions: [{ type: 'executeJavascript', script: 'throw new Error("boom")' }] });
    expect(script.errorCode).toBe('action_failed');
    expect(script.errorMessage).toMatch(/^action 0 \(executeJavascript\) failed: .*boom/);
  });

  it('bounds the whole render by timeout (fetch_timeout)', async () => {
    // /hang never answers: without the bound the render would outlive the test.
    const reply = await failed(site.url('/hang'), { timeout: 1500 });
    expect(reply.errorCode).toBe('fetch_timeout');
  });

  it('answers a server that refuses the connection with connection_refused, over HTTP and HTTPS', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    expect((await failed(`http://127.0.0.1:${closed}/`)).errorCode).toBe('connection_refused');
    expect((await failed(`https://127.0.0.1:${closed}/`)).errorCode).toBe('connection_refused');
  });

  it('refuses a blocked main URL with url_blocked before using the browser', async () => {
    const reply = await failed(`${site.secret}/page`, {}, guardedDeps);
    expect(reply.errorCode).toBe('url_blocked');
    expect(site.requests.filter((r) => r.host === 'secret')).toHaveLength(0);
  });

  it('blocks subrequests and redirects to a private address (FETCH_ALLOW_PRIVATE off)', async () => {
    const { html, extras } = await rendered(site.url(`/subrequest?to=${encodeURIComponent(`${site.secret}/internal`)}`), { waitFor: 500, formats: ['network'] }, guardedDeps);
    expect(html).toContain('<p id="status">failed</p>');
    const tried = (extras.network as Record<string, any>[]).filter((e) => e.url.startsWith(site.secret));
    expect(tried.length).toBeGreaterThan(0);
    for (const entry of tried) expect(entry).toMatchObject({ status: null, error: expect.any(String) });
    const redirect = await failed(site.url(`/redirect?to=${encodeURIComponent(`${site.secret}/internal`)}`), {}, guardedDeps);
    expect(redirect.errorCode).toBe('url_blocked');
    // An HTTPS hop is a CONNECT tunnel the proxy refuses before any TLS.
    const secure = await failed(site.url(`/redirect?to=${encodeURIComponent(`${site.secret.replace('http:', 'https:')}/internal`)}`), {}, guardedDeps);
    expect(secure.errorCode).toBe('url_blocked');
    expect(site.requests.filter((r) => r.host === 'secret')).toHaveLength(0);
  });

  it.each([
    ['with the request route (blockAssets)', {}],
    ['without one (blockAssets off: only the guarded proxy)', { blockAssets: false }],
  ])('never lets a page or a caller script read local files, %s', async (_name, settings) => {
    const { extras } = await rendered(site.url('/form'), {
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

  it('keeps WebSockets to a private address out too (and the site sees them when private addresses are allowed)', async () => {
    const ws = `/websocket?to=${encodeURIComponent(`${site.secret.replace('http:', 'ws:')}/socket`)}`;
    const blocked = await rendered(site.url(ws), { waitFor: 700 }, guardedDeps);
    expect(blocked.html).toMatch(/<p id="ws">error closed<\/p>/);
    expect(site.requests.filter((r) => r.host === 'secret')).toHaveLength(0);
    await rendered(site.url(ws), { waitFor: 700 });
    expect(site.paths()).toContain('upgrade /socket');
  });

  it('renders through a configured proxy pool (scrape option proxy), still behind the guard', async () => {
    const upstream = await startForwardProxy();
    try {
      const proxies = new ProxyRouter({ datacenter: [upstream.url] });
      const { html } = await rendered(site.url('/js'), { waitFor: 500, proxy: 'datacenter' }, { ...openDeps, proxies });
      expect(html).toContain('Added by script after load');
      expect(upstream.seen).toContain(site.url('/js'));
      const seen = upstream.seen.length;
      // Another render without the option connects directly: lanes belong to one context.
      await rendered(site.url('/js'), { waitFor: 1, proxy: 'none' }, { ...openDeps, proxies });
      expect(upstream.seen.length).toBe(seen);
      const missing = await failed(site.url('/js'), { waitFor: 1, proxy: 'residential' }, { ...openDeps, proxies });
      expect(missing.errorCode).toBe('proxy_unavailable');
      // Through the proxy, a subrequest to a private address is still refused here, before the proxy sees it.
      const strict = await rendered(site.url(`/subrequest?to=${encodeURIComponent(`${site.secret}/via-proxy`)}`), { waitFor: 500, proxy: 'datacenter' }, { ...guardedDeps, proxies });
      expect(strict.html).toContain('<p id="status">failed</p>');
      expect(upstream.seen.some((u) => u.startsWith(site.secret))).toBe(false);
      expect(site.requests.filter((r) => r.host === 'secret' && r.path.includes('via-proxy'))).toHaveLength(0);
    } finally {
      await upstream.close();
    }
  });

  it('sends a request once more when the site closed the kept-alive connection it reused (not upstream_error)', async () => {
    // Each connection serves one request; a second one on it is cut off, as a site whose
    // keep-alive timeout passed just as the proxy reused the connection (heavy load).
    let resets = 0;
    // Three images, so that the proxy may keep several connections to the site.
    const body = '<!doctype html><title>t</title><p id="kept">kept alive</p><img src="/a.png"><img src="/b.png"><img src="/c.png">';
    const server = net.createServer((socket) => {
      let requests = 0;
      let head = '';
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        while (head.includes('\r\n\r\n')) {
          head = head.slice(head.indexOf('\r\n\r\n') + 4);
          if (++requests > 1) {
            resets++;
            return void socket.destroy();
          }
          socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nKeep-Alive: timeout=60\r\n\r\n${body}`);
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    try {
      for (const path of ['/one', '/two', '/three']) expect((await rendered(`${origin}${path}`, { waitFor: 1, blockAssets: false })).html).toContain('kept alive');
      expect(resets).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });

  it('serves only its own browser: another local program gets no answer from the guarded proxy or a lane', async () => {
    await rendered(site.url('/js'), { waitFor: 1 });
    const proxy = await open.guardedProxy();
    const lane = await proxy.openLane('http://127.0.0.1:9');
    /** What a connection from this process (not the browser) gets back for `request`. */
    const answer = async (server: string, request: string) => {
      const socket = net.connect(Number(new URL(server).port), '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      socket.write(request);
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      await once(socket, 'close');
      return Buffer.concat(chunks).toString('latin1');
    };
    const seen = site.requests.length;
    try {
      for (const server of [proxy.settings.server, lane.server]) {
        expect(await answer(server, `GET ${site.url('/js')} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)).toBe('');
        expect(await answer(server, `CONNECT ${new URL(site.origin).host} HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe('');
      }
      expect(site.requests.length).toBe(seen);
      // The browser itself still renders through it.
      await rendered(site.url('/js'), { waitFor: 1 });
    } finally {
      await lane.close();
    }
  });

  it('keeps at most RENDER_CONCURRENCY pages open at once; a waiting render whose signal aborts leaves the queue', async () => {
    const overlap = async (pool: BrowserPool, n: number) => {
      let active = 0;
      let peak = 0;
      await Promise.all(
        Array.from({ length: n }, () =>
          pool.withContext({}, async (context) => {
            active++;
            peak = Math.max(peak, active);
            const p = await context.newPage();
            await p.waitForTimeout(150);
            active--;
          }, signal),
        ),
      );
      return peak;
    };
    expect(await overlap(guarded, 3)).toBe(1);
    expect(await overlap(open, 5)).toBe(2);
    const cancel = new AbortController();
    const first = guarded.withContext({}, (context) => context.newPage().then((p) => p.waitForTimeout(300)), signal);
    const queued = guarded.withContext({}, async () => 'ran', cancel.signal);
    cancel.abort();
    await expect(queued).rejects.toMatchObject({ code: 'service_unavailable' });
    await first;
  });

  it('relaunches a browser that died during a render and retries it once', async () => {
    const launches = open.launches;
    const browser = await open.current();
    const pending = rendered(site.url('/js'), { waitFor: 1500 });
    setTimeout(() => void browser.close(), 400);
    const { html } = await pending;
    expect(html).toContain('Added by script after load');
    expect(open.launches).toBe(launches + 1);
    expect(browser.isConnected()).toBe(false);
  });
});
