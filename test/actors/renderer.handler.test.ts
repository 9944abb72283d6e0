/**
 * actors/renderer/handler: ScrapeRequested in, Outcome out — a rendered page emitted as
 * PageFetched at its price, a browser that cannot start retried then answered render_failed.
 */
import { describe, expect, it } from 'vitest';
import { BrowserPool } from '../../actors/renderer/browser.js';
import type { RendererDeps } from '../../actors/renderer/handler.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { JobEnds } from '../../pipeline/jobs/ended.js';
import { jobEndKey } from '../../pipeline/jobs/record.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';
import { CHROMIUM_PATH, handleRenderRequested, hasChromium, request, useRenderer, type PageFetched, type Reply } from '../helpers/renderer.js';
import { until } from '../helpers/wait.js';

const BROWSER_PAGE_CREDITS = PRICES.browserPage.credits;

/** A crawl's page of job `jobId` (seq 7), rendered with `options`. */
const jobPage = (url: string, jobId: string, options: object = {}) => ({ ...request(url, options), jobId, requestId: `${jobId}:7`, replyTo: null, correlationId: null });
const cancel = (state: MemoryState, jobId: string) => state.setIfAbsent(jobEndKey(jobId), JSON.stringify({ status: 'cancelled', error: '' }));

/** The one JobEvent `pageFailed` a failed job page is answered with, its data parsed. */
function pageFailed(outcome: Outcome): { seq: number; code: string; message: string } {
  expect(outcome.kind).toBe('ack');
  const emit = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
  expect(emit.map((e) => e.topic)).toEqual(['jobEvents']);
  const value = emit[0]?.value as unknown as EventValue<'JobEvent'>;
  expect(value.type).toBe('pageFailed');
  return JSON.parse(value.data) as { seq: number; code: string; message: string };
}

describe('actors/renderer/handler', () => {
  describe('a browser that cannot start', () => {
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

  describe('a job page whose job has ended', () => {
    it('is answered job_ended without a browser', async () => {
      const log = createLogger('silent');
      const guard = new NetGuard({ allowPrivate: true });
      // A browser that cannot start: using it would answer render_failed.
      const browsers = new BrowserPool({ executablePath: '/nonexistent/chromium', concurrency: 1, guard, log });
      const state = new MemoryState();
      await cancel(state, 'crawl_ended');
      const deps: RendererDeps = { browsers, guard, log, maxAttempts: 2, jobs: new JobEnds(state) };
      try {
        const failed = pageFailed(await handleRenderRequested(jobPage('http://127.0.0.1:9/', 'crawl_ended', { waitFor: 1 }), deps, new AbortController().signal));
        expect(failed).toMatchObject({ seq: 7, code: 'job_ended' });
        expect(failed.message).toMatch(/cancelled.*not fetched/);
      } finally {
        await browsers.close();
      }
    });
  });

  describe.skipIf(!hasChromium)('rendering with Chromium', () => {
    const rig = useRenderer();

    it('stops a render in flight when its job ends, and answers job_ended', async () => {
      const state = new MemoryState();
      const jobs = new JobEnds(state, { refreshMs: 50 });
      try {
        const hung = () => rig.site.requests.some((r) => r.path === '/hang?cancelled');
        const pending = handleRenderRequested(jobPage(rig.site.url('/hang?cancelled'), 'crawl_render_cancelled', { waitFor: 1, timeout: 90_000 }), { ...rig.openDeps, jobs }, rig.signal);
        // The browser is loading the page (a busy machine may take seconds to launch it).
        await until('the page requested by the browser', hung, { timeoutMs: 60_000, intervalMs: 20 });
        await cancel(state, 'crawl_render_cancelled');
        const failed = pageFailed(await pending);
        expect(failed.code).toBe('job_ended');
        expect(failed.message).toMatch(/stopped/);
      } finally {
        jobs.close();
      }
    }, 120_000);

    it('answers job_ended when its job ends while the browser is still starting', async () => {
      const log = createLogger('silent');
      const guard = new NetGuard({ allowPrivate: true });
      // A pool of its own: its browser launches inside this render (hundreds of ms at least).
      const browsers = new BrowserPool({ executablePath: CHROMIUM_PATH, concurrency: 1, guard, log });
      // The job reads as running when the render starts, and as cancelled from the next read on.
      let reads = 0;
      const latch = JSON.stringify({ status: 'cancelled', error: '' });
      const jobs = new JobEnds({ get: async () => (reads++ === 0 ? null : latch) }, { refreshMs: 20 });
      try {
        const event = jobPage(rig.site.url('/hang?at-launch'), 'crawl_cancelled_at_launch', { waitFor: 1, timeout: 90_000 });
        const failed = pageFailed(await handleRenderRequested(event, { browsers, guard, log, maxAttempts: 1, jobs }, rig.signal));
        expect(failed.code).toBe('job_ended');
        expect(failed.message).toMatch(/stopped/);
        expect(rig.site.requests.some((r) => r.path === '/hang?at-launch')).toBe(false);
      } finally {
        jobs.close();
        await browsers.close();
      }
    }, 120_000);

    it('waits for content a script adds after load (waitFor) and emits it as a rendered page', async () => {
      const { page, html } = await rig.rendered(rig.site.url('/js'), { waitFor: 1000 });
      expect(html).toContain('Added by script after load');
      expect(page).toMatchObject({ rendered: true, statusCode: 200, contentType: 'text/html; charset=utf-8', credits: BROWSER_PAGE_CREDITS, source: 'fresh', finalUrl: rig.site.url('/js') });
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    });

    it('clears a challenge the fetcher escalated, with no browser options, at a fetched page\'s price', async () => {
      const emit = await rig.emitted(await handleRenderRequested({ ...request(rig.site.url('/challenge')), escalated: true }, rig.openDeps, rig.signal));
      const page = emit[0]?.value as unknown as PageFetched;
      expect(page).toMatchObject({ rendered: true, credits: 1, source: 'fresh' });
      expect(Buffer.from(page.body).toString('utf8')).toContain('Challenge passed');
      expect(JSON.parse(page.extras).captcha).toEqual({ clicked: true, solved: true });
    });
  });
});
