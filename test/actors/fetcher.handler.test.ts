/**
 * actors/fetcher/handler.ts without a bus: ScrapeRequested in, Outcome out, against a local
 * fixture site, run as the pool runs it (test/helpers/events.ts runHandler: the deadline drop
 * and the failure answers are the pool's). Emissions are encoded with the real codec, so they
 * match their Avro schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrapeRequestedHandling, type FetcherDeps, type ScrapeRequested } from '../../actors/fetcher/handler.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import type { EventCodec } from '../../pipeline/runtime/codec/codec.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { EventValue } from '../../schemas/events/index.js';
import { TOPICS } from '../../schemas/topics.js';
import { PAGE, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { startRenderSite, type RenderSite } from '../helpers/render-site.js';
import { runHandler, scrapeRequested } from '../helpers/events.js';
import { JobEnds } from '../../pipeline/jobs/ended.js';
import { jobEndKey } from '../../pipeline/jobs/record.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';

const request = scrapeRequested;

/** The fetcher's ScrapeRequested handler, run as the pool runs it. */
function handleScrapeRequested(event: ScrapeRequested, deps: FetcherDeps, signal: AbortSignal, attempt = 1) {
  return runHandler('ScrapeRequested', scrapeRequestedHandling(deps), event, { signal, attempt, log: deps.log, actor: 'fetcher' });
}

const pageOf = (e: Emission | undefined) => e?.value as unknown as EventValue<'PageFetched'>;
const replyOf = (e: Emission | undefined) => e?.value as unknown as EventValue<'Reply'>;

describe('actors/fetcher/handler', () => {
  let site: FixtureSite;
  let deps: FetcherDeps;
  let codec: EventCodec;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    site = await startFixtureSite();
    codec = await createCodec();
    deps = { http: new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) }), log: createLogger('silent'), maxAttempts: 3 };
  });
  afterAll(async () => {
    deps.http.close();
    await site.close();
  });

  async function emitted(outcome: Outcome): Promise<Emission[]> {
    expect(outcome.kind).toBe('ack');
    const emit = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
    for (const e of emit) await codec.encode(TOPICS[e.topic].event as 'PageFetched' | 'Reply', e.value as never);
    return emit;
  }

  it('emits PageFetched for a fetched page', async () => {
    const event = request(site.url('/redirect/chain'), { formats: ['markdown'] });
    const [emission, ...rest] = await emitted(await handleScrapeRequested(event, deps, signal));
    expect(rest).toHaveLength(0);
    expect(emission?.topic).toBe('pageFetched');
    expect(emission?.key).toBe('req-1');
    const page = pageOf(emission);
    expect(page).toMatchObject({
      requestId: 'req-1',
      tenant: 'tenant-1',
      url: site.url('/redirect/chain'),
      finalUrl: site.url('/html'),
      statusCode: 200,
      contentType: 'text/html; charset=utf-8',
      rendered: false,
      credits: 1,
      replyTo: TOPICS.replies.name,
      correlationId: 'corr-1',
      options: event.options,
    });
    expect(page.body.toString()).toBe(PAGE);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('a 404 page is a page, not a failure', async () => {
    const [emission] = await emitted(await handleScrapeRequested(request(site.url('/status/404')), deps, signal));
    expect(emission?.topic).toBe('pageFetched');
    expect(pageOf(emission).statusCode).toBe(404);
  });

  it('answers a permanent failure with a Reply and acks', async () => {
    const outcome = await handleScrapeRequested(request(site.url('/png')), deps, signal);
    const [emission] = await emitted(outcome);
    expect(emission).toMatchObject({
      topic: 'replies',
      key: 'corr-1',
      value: { correlationId: 'corr-1', ok: false, errorCode: 'unsupported_content', credits: 0, source: 'fetcher' },
    });
  });

  it('answers a route with no proxy pool with proxy_unavailable', async () => {
    const [emission] = await emitted(await handleScrapeRequested(request(site.url('/html'), { proxy: 'residential' }), deps, signal));
    expect(replyOf(emission).errorCode).toBe('proxy_unavailable');
  });

  it('asks for a retry of a retriable failure while attempts and time remain, then answers', async () => {
    const event = request(site.url('/slow?ms=5000'), { timeout: 1000 });
    const first = await handleScrapeRequested(event, deps, signal, 1);
    expect(first).toMatchObject({ kind: 'retry', code: 'fetch_timeout' });
    const last = await handleScrapeRequested(event, deps, signal, 3);
    const [emission] = await emitted(last);
    expect(replyOf(emission).errorCode).toBe('fetch_timeout');
  });

  it('acks a failure silently when nobody waits', async () => {
    const outcome = await handleScrapeRequested(request(site.url('/png'), {}, { replyTo: null, correlationId: null }), deps, signal);
    expect(outcome).toEqual({ kind: 'ack', emit: [] });
  });

  it('drops a request past its deadline', async () => {
    const outcome = await handleScrapeRequested(request(site.url('/html'), {}, { deadlineMs: Date.now() - 1 }), deps, signal);
    expect(outcome).toEqual({ kind: 'ack' });
  });

  it('answers bad options JSON with bad_request', async () => {
    const [emission] = await emitted(await handleScrapeRequested({ ...request(site.url('/html')), options: '[1,' }, deps, signal));
    expect(replyOf(emission).errorCode).toBe('bad_request');
  });

  it('hands the message back when the pool stops mid-fetch', async () => {
    const stop = new AbortController();
    const pending = handleScrapeRequested(request(site.url('/slow?ms=5000')), deps, stop.signal);
    setTimeout(() => stop.abort(new Error('pool stopping')), 100);
    expect((await pending).kind).toBe('retry');
  });

  it('refuses blocked URLs with url_blocked when private addresses are not allowed', async () => {
    const strict: FetcherDeps = { ...deps, http: new HttpFetcher({ guard: new NetGuard({ allowPrivate: false }) }) };
    const [emission] = await emitted(await handleScrapeRequested(request(site.url('/html')), strict, signal));
    expect(replyOf(emission).errorCode).toBe('url_blocked');
    strict.http.close();
  });
});

describe('actors/fetcher/handler: a challenge met on a plain fetch', () => {
  let site: RenderSite;
  let http: HttpFetcher;
  let codec: EventCodec;
  const signal = new AbortController().signal;
  const log = createLogger('silent');

  beforeAll(async () => {
    site = await startRenderSite();
    codec = await createCodec();
    http = new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) });
  });
  afterAll(async () => {
    http.close();
    await site.close();
  });

  async function emissionsOf(outcome: Outcome): Promise<Emission[]> {
    expect(outcome.kind).toBe('ack');
    const emit = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
    for (const e of emit) await codec.encode(TOPICS[e.topic].event as 'PageFetched' | 'ScrapeRequested', e.value as never);
    return emit;
  }

  it('sends the request on to the renderer, escalated, when the build has one', async () => {
    const event = request(site.url('/challenge'), { formats: ['markdown'] });
    const emit = await emissionsOf(await handleScrapeRequested(event, { http, log, render: true }, signal));
    expect(emit.map((e) => e.topic)).toEqual(['renderRequested']);
    expect(emit[0]?.key).toBe(event.requestId);
    expect(emit[0]?.value).toEqual({ ...event, escalated: true });
  });

  it('emits the fetched page when the build has no renderer, captchaHandling is off, or the page has no challenge', async () => {
    const noRenderer = await emissionsOf(await handleScrapeRequested(request(site.url('/challenge')), { http, log }, signal));
    expect(noRenderer.map((e) => e.topic)).toEqual(['pageFetched']);
    expect(pageOf(noRenderer[0]).body.toString()).toContain('challenge/frame');
    const off = await emissionsOf(await handleScrapeRequested(request(site.url('/challenge'), { captchaHandling: 'off' }), { http, log, render: true }, signal));
    expect(off.map((e) => e.topic)).toEqual(['pageFetched']);
    const plain = await emissionsOf(await handleScrapeRequested(request(site.url('/reveal')), { http, log, render: true }, signal));
    expect(plain.map((e) => e.topic)).toEqual(['pageFetched']);
  });

  it('reads a job page as fetched: jobs take no browser options yet', async () => {
    const event = request(site.url('/challenge'), {}, { jobId: 'job-1', replyTo: null, correlationId: null });
    const emit = await emissionsOf(await handleScrapeRequested(event, { http, log, render: true }, signal));
    expect(emit.map((e) => e.topic)).toEqual(['pageFetched']);
    expect(pageOf(emit[0])).toMatchObject({ jobId: 'job-1', rendered: false, credits: 1 });
  });
});

describe('actors/fetcher/handler: a job page whose job has ended', () => {
  let site: FixtureSite;
  let state: MemoryState;
  let deps: FetcherDeps;
  const signal = new AbortController().signal;
  const jobPage = (path: string, jobId: string, seq = 7) =>
    request(site.url(path), {}, { jobId, requestId: `${jobId}:${seq}`, replyTo: null, correlationId: null });
  const fetched = (path: string) => site.requests.filter((r) => r.path === path).length;
  const failedEvent = (outcome: Outcome) => {
    expect(outcome.kind).toBe('ack');
    const emit = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
    expect(emit).toHaveLength(1);
    expect(emit[0]?.topic).toBe('jobEvents');
    const value = emit[0]?.value as unknown as EventValue<'JobEvent'>;
    expect(value.type).toBe('pageFailed');
    return JSON.parse(value.data) as { seq: number; code: string; message: string };
  };

  beforeAll(async () => {
    site = await startFixtureSite();
    state = new MemoryState();
    deps = {
      http: new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) }),
      log: createLogger('silent'),
      maxAttempts: 3,
      jobs: new JobEnds(state, { refreshMs: 50 }),
    };
  });
  afterAll(async () => {
    deps.jobs?.close();
    deps.http.close();
    await site.close();
  });

  it('is reported failed with job_ended and never fetched', async () => {
    await state.setIfAbsent(jobEndKey('crawl_ended'), JSON.stringify({ status: 'cancelled', error: '' }));
    const failed = failedEvent(await handleScrapeRequested(jobPage('/html?never', 'crawl_ended'), deps, signal));
    expect(failed).toMatchObject({ seq: 7, code: 'job_ended' });
    expect(failed.message).toMatch(/cancelled/);
    expect(fetched('/html?never')).toBe(0);
  });

  it('stops its fetch in flight when the job ends, long before the page would have come', async () => {
    const pending = handleScrapeRequested(jobPage('/slow?ms=20000', 'crawl_cancelled_midway'), deps, signal);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await state.setIfAbsent(jobEndKey('crawl_cancelled_midway'), JSON.stringify({ status: 'cancelled', error: '' }));
    const failed = failedEvent(await pending);
    expect(failed.code).toBe('job_ended');
    expect(failed.message).toMatch(/stopped/);
    expect(fetched('/slow?ms=20000')).toBe(1);
  });

  it('is fetched while its job runs, and a page of no job is fetched whatever the latches say', async () => {
    const running = await handleScrapeRequested(jobPage('/html?running', 'crawl_running'), deps, signal);
    expect(running.kind === 'ack' && running.emit?.[0]?.topic).toBe('pageFetched');
    const plain = await handleScrapeRequested(request(site.url('/html?plain')), deps, signal);
    expect(plain.kind === 'ack' && plain.emit?.[0]?.topic).toBe('pageFetched');
    expect(fetched('/html?running')).toBe(1);
  });

  it('still hands the message back when the pool stops mid-fetch', async () => {
    const stop = new AbortController();
    const pending = handleScrapeRequested(jobPage('/slow?ms=5000', 'crawl_pool_stops'), deps, stop.signal);
    setTimeout(() => stop.abort(new Error('pool stopping')), 100);
    expect((await pending).kind).toBe('retry');
  });
});
