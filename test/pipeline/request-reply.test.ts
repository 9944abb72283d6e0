/**
 * pipeline/runtime/request-reply.ts over both buses: a Requester (a "gateway") publishes
 * ScrapeRequested events and a test responder (an ActorPool on scrapeRequested) answers each
 * with a Reply carrying the same correlation id. Covers replies reaching only their own
 * requester, timeouts, client aborts, stop(), and failures while the request is published.
 * Waits have generous limits; nothing asserts an upper bound on time.
 */
import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi, type TestContext } from 'vitest';
import { TOPICS } from '../../schemas/topics.js';
import { MemoryBlobs } from '../../pipeline/runtime/blobs.js';
import type { Bus, OutgoingMessage } from '../../pipeline/runtime/bus/bus.js';
import { createCodec, type EventCodec } from '../../pipeline/runtime/codec/index.js';
import { AppError, hasCode } from '../../pipeline/runtime/errors.js';
import { Events, type Emission } from '../../pipeline/runtime/events.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { ActorPool, type Outcome } from '../../pipeline/runtime/pool.js';
import { lazyRequester, Requester } from '../../pipeline/runtime/request-reply.js';
import { onBothBuses } from '../helpers/kafka.js';
import { until } from '../helpers/wait.js';
import { openForBlock } from '../helpers/block.js';

const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

/** URLs under this path get no answer from the responder: "no worker answered". */
const UNANSWERED = 'https://example.test/unanswered/';

interface Rig {
  bus: Bus;
  codec: EventCodec;
  events: Events;
  /** Requests the responder saw, by URL. */
  seen: string[];
  /** Limit for a request that should be answered. */
  replyMs: number;
  close(): Promise<void>;
}

function scrape(url: string): (correlationId: string, replyTo: string) => Emission<'scrapeRequested'> {
  return (correlationId, replyTo) => ({
    topic: 'scrapeRequested',
    key: correlationId,
    value: {
      requestId: `req-${correlationId}`,
      tenant: 'tenant-1',
      jobId: null,
      url,
      options: '{}',
      replyTo,
      correlationId,
      deadlineMs: Date.now() + 60_000,
      createdAtMs: Date.now(),
      escalated: false,
      browser: false,
      cacheKey: '',
      sealedModel: '',
    },
  });
}

async function rig(bus: Bus, replyMs: number, close: () => Promise<void>): Promise<Rig> {
  const codec = await createCodec();
  const events = new Events(bus, codec, new MemoryBlobs(), Number.POSITIVE_INFINITY);
  await events.ensureTopics();
  const seen: string[] = [];
  const responder = new ActorPool(
    {
      name: 'responder',
      group: 'responder',
      topics: ['scrapeRequested'],
      concurrency: 4,
      timeoutMs: 10_000,
      handlers: {
        ScrapeRequested: async (request): Promise<Outcome> => {
          seen.push(request.url);
          if (request.url.startsWith(UNANSWERED) || !request.correlationId || request.replyTo !== TOPICS.replies.name) return { kind: 'ack' };
          return {
            kind: 'ack',
            emit: [
              {
                topic: 'replies',
                key: request.correlationId,
                value: {
                  correlationId: request.correlationId,
                  ok: true,
                  data: JSON.stringify({ url: request.url, requestId: request.requestId }),
                  errorCode: null,
                  errorMessage: null,
                  credits: 1,
                  source: 'responder',
                },
              },
            ],
          };
        },
      },
    },
    events,
    log,
  );
  await responder.start();
  return {
    bus,
    codec,
    events,
    seen,
    replyMs,
    async close() {
      await responder.stop();
      await close();
    },
  };
}

/** A bus whose publish waits for `gate` (then delegates) or fails, to catch the request mid-publish. */
function wrappedBus(inner: Bus, publish: (topic: string, messages: readonly OutgoingMessage[]) => Promise<void>): Bus {
  return {
    kind: inner.kind,
    ensureTopics: (topics) => inner.ensureTopics(topics),
    publish,
    consume: (options) => inner.consume(options),
    lag: () => inner.lag(),
    close: async () => undefined,
  };
}

function requestReplySuite(name: string, setup: () => Promise<Rig>, options: { concurrent?: boolean; testTimeoutMs?: number } = {}): void {
  (options.concurrent ? describe.concurrent : describe)(name, () => {
    const t = { timeout: options.testTimeoutMs ?? 30_000 };
    let r: Rig;
    openForBlock(setup, (opened) => {
      r = opened;
    });

    async function gateway(test: TestContext, events: Events = r.events): Promise<Requester> {
      const requester = new Requester(events, log);
      await requester.start();
      test.onTestFinished(() => requester.stop());
      return requester;
    }

    const url = (what: string) => `https://example.test/${what}/${randomUUID().slice(0, 8)}`;

    it('request → responder → resolves with the reply of the same correlation id', t, async (test) => {
      const requester = await gateway(test);
      const target = url('page');
      let correlationId = '';
      const reply = await requester.request(
        (id, replyTo) => {
          correlationId = id;
          expect(replyTo).toBe(TOPICS.replies.name);
          return scrape(target)(id, replyTo);
        },
        r.replyMs,
      );
      expect(reply).toMatchObject({ correlationId, ok: true, credits: 1, source: 'responder' });
      expect(JSON.parse(reply.data ?? 'null')).toEqual({ url: target, requestId: `req-${correlationId}` });
      expect(requester.inFlight).toBe(0);
    });

    it('two gateways each get only their own replies', t, async (test) => {
      const [a, b] = await Promise.all([gateway(test), gateway(test)]);
      expect(a.instanceId).not.toBe(b.instanceId);
      const urls = { a: [0, 1, 2, 3, 4].map(() => url('a')), b: [0, 1, 2, 3, 4].map(() => url('b')) };
      const [fromA, fromB] = await Promise.all([
        Promise.all(urls.a.map((u) => a.request(scrape(u), r.replyMs))),
        Promise.all(urls.b.map((u) => b.request(scrape(u), r.replyMs))),
      ]);
      expect(fromA.map((x) => JSON.parse(x.data ?? 'null').url)).toEqual(urls.a);
      expect(fromB.map((x) => JSON.parse(x.data ?? 'null').url)).toEqual(urls.b);
      expect([a.inFlight, b.inFlight]).toEqual([0, 0]);
    });

    it('no answer → rejects with upstream_timeout after the timeout, and forgets the request', t, async (test) => {
      const requester = await gateway(test);
      const target = `${UNANSWERED}${randomUUID()}`;
      const error = await requester.request(scrape(target), 400).catch((e: unknown) => e);
      expect(hasCode(error, 'upstream_timeout')).toBe(true);
      expect((error as AppError).status).toBe(504);
      expect((error as AppError).message).toContain('no worker answered within 400 ms'); // its own timeout, not another failure
      expect(requester.inFlight).toBe(0);
      await until('the request published', () => r.seen.includes(target), r.replyMs); // it was published; nobody answered
    });

    it('the client aborting → rejects with service_unavailable, cleans up, and a late reply is ignored', t, async (test) => {
      const requester = await gateway(test);
      const controller = new AbortController();
      const target = url('aborted');
      const pending = requester.request(scrape(target), r.replyMs, controller.signal);
      controller.abort();
      const error = await pending.catch((e: unknown) => e);
      expect(hasCode(error, 'service_unavailable')).toBe(true);
      expect(requester.inFlight).toBe(0);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await until('the request published', () => r.seen.includes(target), r.replyMs);
      await sleep(200); // the reply, when it comes, finds nobody waiting
      expect(requester.inFlight).toBe(0);
    });

    it('an already aborted signal rejects at once and publishes nothing', t, async (test) => {
      const requester = await gateway(test);
      const target = url('pre-aborted');
      const error = await requester.request(scrape(target), r.replyMs, AbortSignal.abort()).catch((e: unknown) => e);
      expect(hasCode(error, 'service_unavailable')).toBe(true);
      expect(requester.inFlight).toBe(0);
      await sleep(300);
      expect(r.seen).not.toContain(target);
    });

    it('a request that is answered leaves no listener on the client signal', t, async (test) => {
      const requester = await gateway(test);
      const controller = new AbortController();
      await requester.request(scrape(url('listener')), r.replyMs, controller.signal);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it('stop() rejects the requests in flight with service_unavailable, and later ones too', t, async () => {
      const requester = new Requester(r.events, log);
      await requester.start();
      const pending = [0, 1, 2].map(() => requester.request(scrape(`${UNANSWERED}${randomUUID()}`), 60_000).catch((e: unknown) => e));
      await until('3 requests in flight', () => requester.inFlight === 3, r.replyMs);
      await requester.stop();
      const errors = await Promise.all(pending);
      expect(errors.every((e) => hasCode(e, 'service_unavailable'))).toBe(true);
      expect(requester.inFlight).toBe(0);
      const later = await requester.request(scrape(url('after-stop')), 1000).catch((e: unknown) => e);
      expect(hasCode(later, 'service_unavailable')).toBe(true);
    });

    it('a timeout or abort while the request is still being published is no unhandled rejection', t, async (test) => {
      let releasePublish: () => void = () => {};
      const held = new Promise<void>((resolve) => (releasePublish = resolve));
      const slow = wrappedBus(r.bus, async (topic, messages) => {
        await held;
        await r.bus.publish(topic, messages);
      });
      const requester = await gateway(test, new Events(slow, r.codec, new MemoryBlobs(), Number.POSITIVE_INFINITY));
      const controller = new AbortController();
      const timedOut = requester.request(scrape(`${UNANSWERED}${randomUUID()}`), 50).catch((e: unknown) => e);
      const aborted = requester.request(scrape(`${UNANSWERED}${randomUUID()}`), 60_000, controller.signal).catch((e: unknown) => e);
      controller.abort();
      await sleep(300); // both are rejected now, while their publish still waits
      expect(requester.inFlight).toBe(0);
      releasePublish();
      expect(hasCode(await timedOut, 'upstream_timeout')).toBe(true);
      expect(hasCode(await aborted, 'service_unavailable')).toBe(true);
    });

    it('a publish that fails rejects with bus_unavailable and forgets the request', t, async (test) => {
      const broken = wrappedBus(r.bus, async () => {
        throw new Error('broker gone');
      });
      const requester = await gateway(test, new Events(broken, r.codec, new MemoryBlobs(), Number.POSITIVE_INFINITY));
      const error = await requester.request(scrape(url('broken')), r.replyMs).catch((e: unknown) => e);
      expect(hasCode(error, 'bus_unavailable')).toBe(true);
      expect((error as Error).message).toContain('broker gone');
      expect(requester.inFlight).toBe(0);
    });
  });
}

await onBothBuses('pipeline/runtime/request-reply', 'request-reply-test', log, requestReplySuite, rig);

describe('pipeline/runtime/request-reply timeout', () => {
  it('waits for a reply for the whole timeout, and rejects with upstream_timeout at its end', async () => {
    // A bus that takes the request and never answers, on fake timers: the timeout is the
    // requester's own timer, so it ends exactly when the clock passes timeoutMs.
    const bus = { consume: async () => ({ stop: async () => undefined }) };
    const published: unknown[] = [];
    const events = { bus, emit: async (emissions: unknown[]) => void published.push(...emissions) } as unknown as Events;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const requester = new Requester(events, log);
      await requester.start();
      let outcome: unknown = 'pending';
      const pending = requester.request(scrape('https://example.test/never'), 400).catch((e: unknown) => e);
      void pending.then((e) => (outcome = e));
      await vi.advanceTimersByTimeAsync(399);
      expect(outcome).toBe('pending');
      expect(requester.inFlight).toBe(1);
      expect(published).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(hasCode(outcome, 'upstream_timeout')).toBe(true);
      expect(requester.inFlight).toBe(0);
      await requester.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('pipeline/runtime/request-reply lazyRequester', () => {
  /** Events whose bus refuses the first `failures` subscriptions, counting them all. */
  function flakyEvents(failures: number): { events: Events; consumed: () => number; stopped: () => number } {
    let consumed = 0;
    let stopped = 0;
    const bus = {
      consume: async () => {
        consumed++;
        if (consumed <= failures) throw new Error('the bus is not there yet');
        return { stop: async () => void stopped++ };
      },
    };
    return { events: { bus } as unknown as Events, consumed: () => consumed, stopped: () => stopped };
  }

  it('starts one Requester on first use and shares it; stop stops it once, and is nothing before a start', async () => {
    const rig = flakyEvents(0);
    const lazy = lazyRequester(rig.events, log);
    await lazy.stop();
    expect(rig.consumed()).toBe(0);
    const [a, b] = await Promise.all([lazy.get(), lazy.get()]);
    expect(a).toBeInstanceOf(Requester);
    expect(b).toBe(a);
    expect(rig.consumed()).toBe(1);
    await lazy.stop();
    expect(rig.stopped()).toBe(1);
  });

  it('tries a failed start again on the next get', async () => {
    const rig = flakyEvents(1);
    const lazy = lazyRequester(rig.events, log);
    await expect(lazy.get()).rejects.toThrow(/not there yet/);
    await lazy.stop();
    const requester = await lazy.get();
    expect(requester).toBeInstanceOf(Requester);
    expect(rig.consumed()).toBe(2);
    expect(await lazy.get()).toBe(requester);
  });
});

