/**
 * actors/fetcher/fetch-handler.ts without a bus: FetchRequested in, Outcome out, against a
 * local fixture site, run as the pool runs it (test/helpers/events.ts runHandler). Replies are
 * encoded with the real codec, so they match their schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleFetchRequested as handleFetch, type FetchHandlerDeps, type FetchRequested } from '../../actors/fetcher/fetch-handler.js';
import { HttpFetcher, type FetchRequest } from '../../pipeline/runtime/net/http.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import type { EventCodec } from '../../pipeline/runtime/codec/codec.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { EventValue } from '../../schemas/events/index.js';
import { readFetchedBytes } from '../../schemas/events/replies.js';
import { TOPICS } from '../../schemas/topics.js';
import { BINARY_IMAGE, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { fetchRequested, runHandler, soleReply } from '../helpers/events.js';

function request(url: string, extra: Partial<FetchRequested> = {}): FetchRequested {
  return fetchRequested(url, { requestId: 'req-f1', correlationId: 'corr-f1', ...extra });
}

/** The fetcher's FetchRequested handler, run as the pool runs it. */
function handleFetchRequested(event: FetchRequested, deps: FetchHandlerDeps, signal: AbortSignal, attempt = 1) {
  return runHandler('FetchRequested', (e, ctx) => handleFetch(e, { ...deps, log: ctx.log }, ctx.signal, ctx.attempt), event, { signal, attempt, log: deps.log, actor: 'fetcher' });
}

describe('actors/fetcher/fetch-handler', () => {
  let site: FixtureSite;
  let deps: FetchHandlerDeps;
  let codec: EventCodec;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    site = await startFixtureSite();
    codec = await createCodec();
    deps = { http: new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }), maxBytes: 200 * 1024 }), log: createLogger('silent'), maxAttempts: 3 };
  });
  afterAll(async () => {
    deps.http.close();
    await site.close();
  });

  /** The one Reply an ack emits, checked against the Reply schema. */
  async function replyOf(outcome: Outcome): Promise<EventValue<'Reply'>> {
    const { reply, key } = await soleReply(codec, outcome);
    expect(key).toBe('corr-f1');
    return reply;
  }

  it('answers the bytes, content type, status and final URL, 1 credit', async () => {
    const reply = await replyOf(await handleFetchRequested(request(site.url('/image.png')), deps, signal));
    expect(reply).toMatchObject({ correlationId: 'corr-f1', ok: true, errorCode: null, credits: 1, source: 'fresh' });
    const fetched = readFetchedBytes(reply.data ?? '');
    expect(fetched).toMatchObject({ statusCode: 200, contentType: 'image/png', finalUrl: site.url('/image.png') });
    expect(Buffer.from(fetched?.bodyBase64 ?? '', 'base64').equals(BINARY_IMAGE)).toBe(true);
  });

  it('fetches an event that says lean on the HTTP stack\'s lean path, any other not', async () => {
    const asked: (boolean | undefined)[] = [];
    const http = deps.http;
    const watched = { fetch: (req: FetchRequest) => (asked.push(req.lean), http.fetch(req)) } as unknown as HttpFetcher;
    for (const lean of [true, false]) {
      const reply = await replyOf(await handleFetchRequested(request(site.url('/echo'), { lean }), { ...deps, http: watched }, signal));
      expect(reply.ok).toBe(true);
    }
    expect(asked.map(Boolean)).toEqual([true, false]);
  });

  it('answers an upstream 500 as fetched bytes, not a failure', async () => {
    const reply = await replyOf(await handleFetchRequested(request(site.url('/status/500')), deps, signal));
    expect(reply.ok).toBe(true);
    expect(readFetchedBytes(reply.data ?? '')?.statusCode).toBe(500);
  });

  it('answers failures with their codes and no credits', async () => {
    const cases: [string, Partial<FetchRequested>, string][] = [
      [site.url('/big?mb=1'), {}, 'content_too_large'],
      [site.url('/html'), { proxy: 'mobile' }, 'proxy_unavailable'],
      [site.url('/html'), { proxy: 'sideways' }, 'bad_request'],
      ['ftp://example.com/file', {}, 'url_blocked'],
    ];
    for (const [url, extra, code] of cases) {
      const reply = await replyOf(await handleFetchRequested(request(url, extra), deps, signal));
      expect(reply, code).toMatchObject({ ok: false, data: null, errorCode: code, credits: 0 });
    }
  });

  it('bounds the fetch by the deadline: fetch_timeout, answered when no other attempt fits', async () => {
    const slow = request(site.url('/slow-headers?ms=5000'), { deadlineMs: Date.now() + 300 });
    // The headers would arrive after 5 s: the code says the 300 ms deadline cut the fetch.
    const reply = await replyOf(await handleFetchRequested(slow, deps, signal, 1));
    expect(reply).toMatchObject({ ok: false, errorCode: 'fetch_timeout', credits: 0 });
  });

  it('asks the pool to retry a retriable failure while attempts remain, and answers on the last', async () => {
    // As the gateway sends it: the 90 s fetch and some slack before the deadline.
    const deadlineMs = Date.now() + 105_000;
    const flaky = (attempt: number) => handleFetchRequested(request(site.url(`/flaky?key=fh-${attempt}&fail=10`), { deadlineMs }), deps, signal, attempt);
    expect(await flaky(1)).toMatchObject({ kind: 'retry', code: 'upstream_error' });
    expect(await replyOf(await flaky(3))).toMatchObject({ ok: false, errorCode: 'upstream_error' });
  });

  it('drops a request past its deadline without answering', async () => {
    const outcome = await handleFetchRequested(request(site.url('/html'), { deadlineMs: Date.now() - 1 }), deps, signal);
    expect(outcome).toEqual({ kind: 'ack' });
  });
});
