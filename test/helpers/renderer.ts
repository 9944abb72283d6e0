/**
 * What the actors/renderer suites (test/actors/renderer.<module>.test.ts) share: Debian's
 * Chromium (the renderer's default executable: the headless shell when installed, else the
 * full browser) and whether it is here, the ScrapeRequested they send, and `useRenderer()`,
 * which starts the local site (test/helpers/render-site.ts) and two browser pools for the
 * suite it is called in and renders through the handler without a bus: ScrapeRequested in,
 * Outcome out. Emissions are encoded with the real codec, so they match their Avro schemas
 * (PageFetched with `extras`).
 *
 *   describe.skipIf(!hasChromium)('actors/renderer/actions', () => {
 *     const rig = useRenderer();
 *     it('…', async () => { const { html } = await rig.rendered(rig.site.url('/reveal'), { actions }); });
 *   });
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import { BrowserPool, browserPid } from '../../actors/renderer/browser.js';
import { defaultChromiumPath } from '../../actors/renderer/flags.js';
import { renderRequestedHandling, type RendererDeps, type ScrapeRequested } from '../../actors/renderer/handler.js';
import { runHandler, scrapeRequested } from './events.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import type { EventCodec } from '../../pipeline/runtime/codec/codec.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import { createLogger, type Logger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { EventValue } from '../../schemas/events/index.js';
import { TOPICS } from '../../schemas/topics.js';
import { CHROMIUM, engine } from './engines.js';
import { startRenderSite, type RenderSite } from './render-site.js';

export type PageFetched = EventValue<'PageFetched'>;
export type Reply = EventValue<'Reply'>;

/** The executable the renderer launches by default (flags.ts), which the suites render with. */
export const CHROMIUM_PATH = defaultChromiumPath();
export const hasChromium = await engine('chromium', () => existsSync(CHROMIUM_PATH), CHROMIUM.install);

export function request(url: string, options: object = {}): ScrapeRequested {
  return scrapeRequested(url, options, { requestId: 'req-render', correlationId: 'corr-render' });
}

/** The renderer's handler, run as the pool runs it (test/helpers/events.ts runHandler: the deadline drop and failure answers are the pool's). */
export function handleRenderRequested(event: ScrapeRequested, deps: RendererDeps, signal: AbortSignal, attempt = 1): Promise<Outcome> {
  return runHandler('ScrapeRequested', renderRequestedHandling(deps), event, { signal, attempt, log: deps.log, actor: 'renderer' });
}

/** `{width, height}` from a PNG data URL's IHDR chunk. */
export function pngSize(dataUrl: string): { width: number; height: number } {
  expect(dataUrl.startsWith('data:image/png;base64,')).toBe(true);
  const bytes = Buffer.from(dataUrl.slice('data:image/png;base64,'.length), 'base64');
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export interface Rendered {
  page: PageFetched;
  html: string;
  extras: Record<string, any>;
}

export interface RendererRig {
  /** The local site; `site.secret` (127.0.0.2) stands for an internal service. */
  readonly site: RenderSite;
  /** Private addresses allowed; two pages at once. */
  readonly open: BrowserPool;
  /** Private addresses refused except the site itself on 127.0.0.1; one page at once. */
  readonly guarded: BrowserPool;
  readonly openDeps: RendererDeps;
  readonly guardedDeps: RendererDeps;
  readonly log: Logger;
  /** Never aborted. */
  readonly signal: AbortSignal;
  /** The emissions of an `ack` (asserted), each encoded with its topic's schema. */
  emitted(outcome: Outcome): Promise<Emission[]>;
  /** Renders `url` through the handler and expects one PageFetched. */
  rendered(url: string, options?: object, deps?: RendererDeps): Promise<Rendered>;
  /** Renders `url` through the handler and expects a failed Reply. */
  failed(url: string, options?: object, deps?: RendererDeps): Promise<Reply>;
}

/**
 * Starts the site, the codec and the two pools before the calling suite's tests (browsers
 * launch on their first render) and closes them after; the returned rig is ready in the tests.
 */
export function useRenderer(): RendererRig {
  const log = createLogger('silent');
  const signal = new AbortController().signal;
  let site: RenderSite | undefined;
  let codec: EventCodec | undefined;
  let open: BrowserPool | undefined;
  let guarded: BrowserPool | undefined;
  let openDeps: RendererDeps | undefined;
  let guardedDeps: RendererDeps | undefined;
  const ready = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`useRenderer: ${name} is not started (use it inside a test)`);
    return value;
  };

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

  const rig: RendererRig = {
    get site() {
      return ready(site, 'site');
    },
    get open() {
      return ready(open, 'open');
    },
    get guarded() {
      return ready(guarded, 'guarded');
    },
    get openDeps() {
      return ready(openDeps, 'openDeps');
    },
    get guardedDeps() {
      return ready(guardedDeps, 'guardedDeps');
    },
    log,
    signal,
    async emitted(outcome) {
      expect(outcome.kind, JSON.stringify(outcome)).toBe('ack');
      const emit = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
      for (const e of emit) await ready(codec, 'codec').encode(TOPICS[e.topic].event as 'PageFetched' | 'Reply', e.value as never);
      return emit;
    },
    async rendered(url, options = {}, deps = rig.openDeps) {
      const emit = await rig.emitted(await handleRenderRequested(request(url, options), deps, signal));
      expect(emit).toHaveLength(1);
      expect(emit[0]?.topic, JSON.stringify(emit[0]?.value)).toBe('pageFetched');
      const page = emit[0]?.value as unknown as PageFetched;
      return { page, html: Buffer.from(page.body).toString('utf8'), extras: JSON.parse(page.extras) as Record<string, any> };
    },
    async failed(url, options = {}, deps = rig.openDeps) {
      const emit = await rig.emitted(await handleRenderRequested(request(url, options), deps, signal));
      expect(emit[0]?.topic).toBe('replies');
      const reply = emit[0]?.value as unknown as Reply;
      expect(reply.ok).toBe(false);
      return reply;
    },
  };
  return rig;
}

/** The browser's main process id, as Chromium reports it (as the pool records it at launch). */
export async function mainPid(browser: Browser): Promise<number> {
  const pid = await browserPid(browser);
  if (pid === null) throw new Error('no browser process reported');
  return pid;
}
