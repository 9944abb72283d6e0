/**
 * The fetcher's pure handler: one ScrapeRequested in, an Outcome out.
 *
 * - Served from the page cache (`maxAge` > 0 and a copy within it; actors/fetcher/cache.ts):
 *   `ack`, emitting PageFetched built from the stored copy (its bytes, content type,
 *   headers, status and final URL) with `source` cache (0 credits) or index (1 credit); no
 *   HTTP request is made. A failing cache lookup is logged and the page is fetched fresh.
 * - Fetched (any HTTP status, 404 and 500 included): `ack`, emitting PageFetched to
 *   `pageFetched` (raw bytes, content type, headers, status, final URL, 1 credit, `source`
 *   fresh). Every PageFetched carries `requestedAtMs` (the request's createdAtMs), the same
 *   on every attempt, which the parser files the page copy under.
 * - Failed (url_blocked, dns_failed, content_too_large, …): answered, not retried forever.
 *   A retriable failure (per schemas/errors.ts: fetch_timeout, proxy_failed, upstream_error)
 *   returns `retry` while `attempt < maxAttempts` and a whole new attempt still fits before
 *   the request's deadline; otherwise the handler returns `fail`, which the pool answers
 *   with a Reply {ok:false, errorCode, errorMessage} to the request's `replyTo` (when there
 *   is one; pipeline/runtime/pool.ts). Network hiccups were
 *   already retried inside the fetch (pipeline/runtime/net/http.ts).
 * - Fetched, and the HTML holds a challenge frame (pipeline/pages/rendering.ts `needsChallengeRender`:
 *   `captchaHandling` auto, not a job page) while the build has a renderer (`render`): `ack`,
 *   emitting the same request to `renderRequested` with `escalated: true` instead of
 *   PageFetched; the renderer clicks the challenge and answers, at a fetched page's price.
 *   Without a renderer the page goes on as fetched. A copy served from the cache is never
 *   escalated.
 * - Past its deadline: dropped by the pool (`ack`, nothing emitted): nobody waits for it any
 *   more; a job page is reported failed (`fetch_timeout`) to the frontier instead (the
 *   `dropped` hook of `scrapeRequestedHandling`).
 * - A job page (`jobId` set, no `replyTo`): every failure above is a JobEvent `pageFailed`
 *   (pipeline/jobs/pages.ts) instead of a Reply (the `failed` hook).
 * - A job page whose job has ended (cancelled, or failed: its end latch, read through `jobs`,
 *   pipeline/jobs/ended.ts): `fail` with `job_ended` before anything is looked up or fetched,
 *   and a fetch in flight when the job ends is stopped and fails the same way: the site is
 *   not asked for it, its handler slot is free at once, and the frontier counts it failed
 *   (not charged; its credit hold released).
 * - The options come decoded with their defaults (pipeline/pages/options.ts); the cache key
 *   is the one the request carries (its producer worked it out: pipeline/pages/scrape-request.ts).
 * - The pool stopping (signal aborted): `retry`, so the pool hands the message back.
 */
import type { Emission } from '../../pipeline/runtime/events.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { EventHandling, Outcome } from '../../pipeline/runtime/pool.js';
import { jobPageFailed } from '../../pipeline/jobs/pages.js';
import { decodeScrapeOptions, pageTimeoutMs } from '../../pipeline/pages/options.js';
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS } from '../../schemas/topics.js';
import { redactUrl } from '../../pipeline/runtime/net/guard.js';
import { cachePlan, type CachedCopy } from '../../pipeline/pages/cache.js';
import { SOURCE_CREDITS } from '../../schemas/api/prices.js';
import { needsChallengeRender } from '../../pipeline/pages/rendering.js';
import { lookupCachedCopy, type CacheReader } from './cache.js';
import { pageFetchedFor } from '../../pipeline/pages/fetched.js';
import { failedAttempt } from './errors.js';
import { jobEndedOutcome, type JobEnds } from '../../pipeline/jobs/ended.js';
import type { FetchResult, HttpFetcher } from '../../pipeline/runtime/net/http.js';

export type ScrapeRequested = EventValue<'ScrapeRequested'>;

export interface FetcherDeps {
  readonly http: HttpFetcher;
  readonly log: Logger;
  readonly now?: () => number;
  /** Attempts the pool makes at most (its retry policy's `attempts`); the last one answers. */
  readonly maxAttempts?: number;
  /** Where cached copies are looked up (`maxAge`); without it every page is fetched fresh. */
  readonly store?: CacheReader;
  /** The build has a renderer: a page holding a challenge is sent to it (`renderRequested`). */
  readonly render?: boolean;
  /** Whether a job page's job has ended; without it a job page is fetched whatever its job's state. */
  readonly jobs?: JobEnds;
}

type Page = Pick<FetchResult, 'finalUrl' | 'statusCode' | 'headers' | 'contentType' | 'body' | 'fetchedAtMs'>;

/** The PageFetched emission for a page fetched now or taken from the cache. */
function pageFetched(event: ScrapeRequested, page: Page, source: 'fresh' | CachedCopy['source']): Emission {
  return pageFetchedFor(event, {
    finalUrl: page.finalUrl,
    statusCode: page.statusCode,
    headers: { ...page.headers },
    contentType: page.contentType,
    body: page.body,
    fetchedAtMs: page.fetchedAtMs,
    rendered: false,
    credits: SOURCE_CREDITS[source],
    source,
    extras: '{}',
  });
}

/** The request sent on to the renderer, marked escalated (charged as a fetched page). */
function escalation(event: ScrapeRequested): Emission {
  const value: ScrapeRequested = { ...event, escalated: true };
  const render: Emission<'renderRequested'> = { topic: 'renderRequested', key: event.requestId, headers: { [HEADERS.requestId]: event.requestId }, value };
  return render as Emission;
}

export async function handleScrapeRequested(event: ScrapeRequested, deps: FetcherDeps, signal: AbortSignal, attempt = 1): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const log = deps.log;
  const started = now();
  const options = decodeScrapeOptions(event.options);
  if (!options) return { kind: 'fail', code: 'bad_request', message: 'the scrape options are not a JSON object' };
  const jobEnded = event.jobId && deps.jobs ? await deps.jobs.ended(event.jobId) : null;
  if (jobEnded) return jobEndedOutcome(jobEnded, false);
  const plan = cachePlan(event.url, options, event.cacheKey);
  if (plan.maxAgeMs > 0 && deps.store) {
    const copy = await lookupCachedCopy(deps.store, plan, event.tenant, started, log);
    if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the cache lookup was interrupted' };
    if (copy) {
      log.info(
        { url: redactUrl(event.url), source: copy.source, ageMs: started - copy.fetchedAtMs, copyOf: copy.requestId, statusCode: copy.statusCode, bytes: copy.body.length },
        'page served from the cache',
      );
      return { kind: 'ack', emit: [pageFetched(event, copy, copy.source)] };
    }
  }
  const timeoutMs = pageTimeoutMs(options, event.deadlineMs, now());
  const watch = event.jobId && deps.jobs ? deps.jobs.watch(event.jobId, signal) : null;
  try {
    const page = await deps.http.fetch({
      url: event.url,
      timeoutMs,
      headers: options.headers,
      mobile: options.mobile,
      location: options.location ?? null,
      proxy: options.proxy,
      content: { pdf: (options.parsers ?? []).includes('pdf') },
      signal: watch?.signal ?? signal,
    });
    log.info(
      { url: redactUrl(event.url), statusCode: page.statusCode, bytes: page.body.length, redirects: page.redirects.length, proxyUsed: page.proxyUsed, ms: now() - started },
      'page fetched',
    );
    if (deps.render && needsChallengeRender(event, options, page)) {
      log.info({ url: redactUrl(event.url), statusCode: page.statusCode }, 'challenge frame on the fetched page; sent to the renderer');
      return { kind: 'ack', emit: [escalation(event)] };
    }
    return { kind: 'ack', emit: [pageFetched(event, page, 'fresh')] };
  } catch (error) {
    const ended = watch?.ended();
    if (ended && !signal.aborted) {
      log.info({ url: redactUrl(event.url), jobId: event.jobId, status: ended, ms: now() - started }, 'job ended: its page in flight stopped');
      return jobEndedOutcome(ended, true);
    }
    const context = { url: event.url, attempt, maxAttempts: deps.maxAttempts ?? 2, timeoutMs, deadlineMs: event.deadlineMs, nowMs: now(), signal, log };
    return failedAttempt(error, context, (code, message) => ({ kind: 'fail', code, message }));
  } finally {
    watch?.release();
  }
}

/**
 * ScrapeRequested as the pool runs it (pipeline/runtime/pool.ts): a failure is answered to the
 * waiting caller or, for a job page, reported to the frontier; a request dropped past its
 * deadline is reported for a job page (nobody waits for a synchronous scrape any more).
 */
export function scrapeRequestedHandling(deps: Omit<FetcherDeps, 'log'>): EventHandling<'ScrapeRequested'> {
  return {
    handle: (event, ctx) => handleScrapeRequested(event, { ...deps, log: ctx.log }, ctx.signal, ctx.attempt),
    dropped: (event) => jobPageFailed(event, 'fetch_timeout', 'the page waited past its deadline before it could be fetched'),
    failed: (event, code, message) => jobPageFailed(event, code, message),
  };
}
