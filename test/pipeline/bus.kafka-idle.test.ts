/**
 * pipeline/runtime/bus/kafka-idle.ts: kafkajs's request queue, fixed, no longer re-arms a
 * 1 ms timer when nothing is pending, and still checks what is pending: at once when it can
 * send, after a throttle when throttled, and on every answered request. Counted on kafkajs's
 * own RequestQueue with fake timers; no broker.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { kafkaIdlePatch } from '../../pipeline/runtime/bus/kafka-idle.js';

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  push(request: { entry: { correlationId: number; apiKey: number; apiName: string; apiVersion: number }; expectResponse: boolean; sendRequest: () => void }): void;
  maybeThrottle(ms: number): void;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  destroy(): void;
}

const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as new (options: object) => Queue;
const quiet = { debug() {}, info() {}, warn() {}, error() {}, namespace() { return quiet; } };

function queue(maxInFlightRequests: number): Queue {
  return new RequestQueue({
    maxInFlightRequests,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'broker:9092',
    logger: quiet,
    isConnected: () => true,
  });
}

function request(correlationId: number, sent: number[]) {
  return { entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11 }, expectResponse: true, sendRequest: () => void sent.push(correlationId) };
}

/** Counts the queue's checks from now on. */
function countChecks(q: Queue): () => number {
  let n = 0;
  const check = q.checkPendingRequests.bind(q);
  q.checkPendingRequests = () => {
    n++;
    check();
  };
  return () => n;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('pipeline/runtime/bus/kafka-idle', () => {
  it('is applied to the installed kafkajs (2.2.4 has the loop), once', () => {
    expect(kafkaIdlePatch()).toBe('applied');
    expect(kafkaIdlePatch()).toBe('applied');
  });

  it('arms no timer when nothing is pending and nothing is throttled', () => {
    kafkaIdlePatch();
    vi.useFakeTimers();
    const q = queue(1);
    const checks = countChecks(q);
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    vi.advanceTimersByTime(1000);
    expect(checks()).toBe(0);
    q.destroy();
  });

  /** A queue of one in flight holding request 1, with request 2 waiting behind it. */
  function oneWaiting() {
    kafkaIdlePatch();
    vi.useFakeTimers();
    const q = queue(1);
    const sent: number[] = [];
    q.push(request(1, sent));
    q.push(request(2, sent));
    return { q, sent };
  }

  it('sends a request queued behind the in-flight limit when the one before is answered', () => {
    const { q, sent } = oneWaiting();
    expect(sent).toEqual([1]);
    expect(q.pending).toHaveLength(1);
    // Answered: kafkajs's fulfillRequest deletes it from inflight and checks the queue.
    q.inflight.delete(1);
    q.checkPendingRequests();
    expect(sent).toEqual([1, 2]);
    // Nothing left pending: no timer keeps running.
    vi.advanceTimersByTime(1000);
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('checks pending requests every 10 ms while they cannot go, and after a throttle ends', () => {
    const { q, sent } = oneWaiting();
    const checks = countChecks(q);
    vi.advanceTimersByTime(35);
    expect(checks()).toBe(3);
    q.inflight.delete(1);
    vi.advanceTimersByTime(10);
    expect(sent).toEqual([1, 2]);

    const throttled = queue(5);
    const throttledChecks = countChecks(throttled);
    throttled.maybeThrottle(200);
    const later: number[] = [];
    throttled.push(request(3, later));
    expect(later).toEqual([]);
    vi.advanceTimersByTime(150);
    expect(later).toEqual([]);
    vi.advanceTimersByTime(60);
    expect(later).toEqual([3]);
    expect(throttledChecks()).toBeLessThanOrEqual(2);
    q.destroy();
    throttled.destroy();
  });

  it('waits out a throttle with nothing pending, then stops', () => {
    kafkaIdlePatch();
    vi.useFakeTimers();
    const q = queue(1);
    const checks = countChecks(q);
    q.maybeThrottle(100);
    q.scheduleCheckPendingRequests();
    vi.advanceTimersByTime(1000);
    expect(checks()).toBe(1);
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });
});
