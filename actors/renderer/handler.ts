/**
 * The renderer's pure handler: one ScrapeRequested from `renderRequested` in, an Outcome out.
 *
 * - Rendered: `ack`, emitting PageFetched (v3) to `pageFetched` with `rendered: true`, the
 *   rendered DOM as the body (text/html, UTF-8), the main response's status and headers, the
 *   URL the page ended on, `extras` (screenshot, action results, network log, captcha: see
 *   render.ts) and a browser page's credits (pipeline/pages/rendering.ts `renderCredits`), or a
 *   fetched page's for a request the fetcher escalated (`escalated`: it met a challenge on the
 *   plain fetch; the `captchaHandling: auto` click clears it). The parser reads it as
 *   any page and merges `extras` into the document.
 * - Proxies: the scrape option `proxy` picks a configured pool as for the fetcher
 *   (pipeline/runtime/net/proxies.ts; `proxy_unavailable` when the asked pool is not configured); the
 *   render's context then connects through it, behind the same guard (proxy.ts lanes).
 * - Failed: the URL refused by the guard (`url_blocked`, checked before a browser is used),
 *   an action (`action_failed`), the `timeout` (`fetch_timeout`), a browser that crashed twice
 *   (`render_failed`): `fail`, which the pool answers with the code (a job page: reported to
 *   the frontier, the `failed` hook). A retriable failure asks the pool for another attempt
 *   while one fits before the deadline; the last attempt answers.
 * - Past its deadline: dropped by the pool (a job page reported failed: the `dropped` hook).
 *   The pool stopping (signal aborted): `retry`.
 * - A job page whose job has ended (cancelled, or failed; read through `jobs`,
 *   pipeline/jobs/ended.ts): `fail` with `job_ended` before a browser is used, and a render in
 *   flight when the job ends is stopped and fails the same way (not charged).
 *
 * A rendered page is always rendered fresh: `maxAge` is not looked up (a cached DOM holds
 * none of the screenshots or action results the request asks for). The rendered copy is
 * still written to the page cache by the parser, under a key that includes the render
 * (pipeline/pages/cache.ts).
 */
import { pageFetchedFor } from '../../pipeline/pages/fetched.js';
import { decodeScrapeOptions, pageTimeoutMs } from '../../pipeline/pages/options.js';
import { serviceCode } from '../../pipeline/runtime/errors.js';
import { within } from '../../pipeline/runtime/within.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { redactUrl, type NetGuard } from '../../pipeline/runtime/net/guard.js';
import type { ProxyChoice, ProxyRouter } from '../../pipeline/runtime/net/proxies.js';
import type { EventHandling, Outcome } from '../../pipeline/runtime/pool.js';
import { renderCredits } from '../../pipeline/pages/rendering.js';
import { jobPageFailed } from '../../pipeline/jobs/pages.js';
import { jobEndedOutcome, type JobEnds } from '../../pipeline/jobs/ended.js';
import { ERRORS } from '../../schemas/errors.js';
import type { EventValue } from '../../schemas/events/index.js';
import type { BrowserPool } from './browser.js';
import { contextOptions } from './context.js';
import { renderPage, type RenderResult } from './render.js';

export type ScrapeRequested = EventValue<'ScrapeRequested'>;

export interface RendererDeps {
  readonly browsers: BrowserPool;
  readonly guard: NetGuard;
  /** The proxy pools (scrape option `proxy`); without it every render connects directly. */
  readonly proxies?: ProxyRouter;
  readonly log: Logger;
  readonly now?: () => number;
  /** Attempts the pool makes at most; the last one answers. */
  readonly maxAttempts?: number;
  /** Whether a job page's job has ended; without it a job page is rendered whatever its job's state. */
  readonly jobs?: JobEnds;
}

const DIRECT: ProxyChoice = { proxyUrl: null, proxyUsed: 'none', proxyCountry: null };


/** Response headers that describe the bytes the server sent, not the serialized DOM the body is. */
const BODY_HEADERS = ['content-length', 'content-encoding', 'transfer-encoding'];
const RENDERED_TYPE = 'text/html; charset=utf-8';

function pageFetched(event: ScrapeRequested, page: RenderResult): Emission {
  const headers = Object.fromEntries(Object.entries(page.headers).filter(([name]) => !BODY_HEADERS.includes(name)));
  return pageFetchedFor(event, {
    finalUrl: page.finalUrl,
    statusCode: page.statusCode,
    // The body is the DOM serialized as UTF-8 HTML, whatever the server's type and charset were.
    headers: { ...headers, 'content-type': RENDERED_TYPE },
    contentType: RENDERED_TYPE,
    body: Buffer.from(page.html, 'utf8'),
    fetchedAtMs: page.fetchedAtMs,
    rendered: true,
    credits: renderCredits(event),
    source: 'fresh',
    extras: JSON.stringify(page.extras),
  });
}

export async function handleRenderRequested(event: ScrapeRequested, deps: RendererDeps, signal: AbortSignal, attempt = 1): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const { log } = deps;
  const started = now();
  const options = decodeScrapeOptions(event.options);
  if (!options) return { kind: 'fail', code: 'bad_request', message: 'the scrape options are not a JSON object' };
  const timeoutMs = pageTimeoutMs(options, event.deadlineMs, started);
  const jobEnded = event.jobId && deps.jobs ? await deps.jobs.ended(event.jobId) : null;
  if (jobEnded) return jobEndedOutcome(jobEnded, false);
  const watch = event.jobId && deps.jobs ? deps.jobs.watch(event.jobId, signal) : null;
  const working = watch?.signal ?? signal;
  try {
    await deps.guard.check(event.url);
    const route = deps.proxies ? deps.proxies.choose(options.proxy, options.location?.country ?? null) : DIRECT;
    // A browser still launching is waited for only while the page is still wanted.
    const browser = await within(deps.browsers.current(), { signal: working });
    const proxy = await within(deps.browsers.guardedProxy(), { signal: working });
    // A render through a proxy pool gets a lane of the guarded proxy for its context.
    const lane = route.proxyUrl ? await proxy.openLane(route.proxyUrl) : null;
    let page: RenderResult;
    try {
      page = await deps.browsers.withContext(
        { ...contextOptions(options, browser.version()), ...(lane ? { proxy: { server: lane.server } } : {}) },
        (context) => renderPage(context, { url: event.url, options, timeoutMs, startedAtMs: now(), signal: working }, { guard: deps.guard, proxy, now }),
        working,
      );
    } finally {
      await lane?.close();
    }
    log.info(
      { url: redactUrl(event.url), statusCode: page.statusCode, bytes: page.html.length, extras: Object.keys(page.extras), proxyUsed: route.proxyUsed, proxyCountry: route.proxyCountry, ms: now() - started },
      'page rendered',
    );
    return { kind: 'ack', emit: [pageFetched(event, page)] };
  } catch (error) {
    if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the render was interrupted' };
    const ended = watch?.ended();
    if (ended) {
      log.info({ url: redactUrl(event.url), jobId: event.jobId, status: ended, ms: now() - started }, 'job ended: its render in flight stopped');
      return jobEndedOutcome(ended, true);
    }
    const code = serviceCode(error, 'render_failed');
    const message = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
    const another = attempt < (deps.maxAttempts ?? 2) && now() + timeoutMs < event.deadlineMs;
    if (ERRORS[code].retriable && another) {
      log.warn({ url: redactUrl(event.url), code, attempt }, `render failed, asking for a retry: ${message}`);
      return { kind: 'retry', code, message };
    }
    log.warn({ url: redactUrl(event.url), code, attempt }, `render failed: ${message}`);
    return { kind: 'fail', code, message };
  } finally {
    watch?.release();
  }
}

/** ScrapeRequested from renderRequested as the pool runs it (pipeline/runtime/pool.ts), with a job page's hooks. */
export function renderRequestedHandling(deps: Omit<RendererDeps, 'log'>): EventHandling<'ScrapeRequested'> {
  return {
    handle: (event, ctx) => handleRenderRequested(event, { ...deps, log: ctx.log }, ctx.signal, ctx.attempt),
    // Nobody waits for a synchronous scrape any more; a job still counts its page, as failed.
    dropped: (event) => jobPageFailed(event, 'fetch_timeout', 'the page waited past its deadline before it could be rendered'),
    failed: (event, code, message) => jobPageFailed(event, code, message),
  };
}
