/**
 * Event builders for the actor tests, and a way to run an actor's handler as the pool does
 * without a bus (pipeline/runtime/pool.ts `handleEvent`: dispatch, the deadline drop, the
 * failure answer). Each builder fills every field of the event's current version with a
 * value a test rarely cares about; `extra` overrides any of them.
 */
import { expect } from 'vitest';
import { scrapeRequestFields } from '../../pipeline/pages/scrape-request.js';
import type { BusMessage } from '../../pipeline/runtime/bus/bus.js';
import { createLogger, type Logger } from '../../pipeline/runtime/log.js';
import type { ParserRuntime } from '../../actors/parser/index.js';
import { loadConfig } from '../../pipeline/service/config.js';
import type { BatchWriter, Store } from '../../pipeline/runtime/store/index.js';
import type { EventCodec } from '../../pipeline/runtime/codec/codec.js';
import { handleEvent, type EventHandler, type EventHandling, type Outcome, type Settled } from '../../pipeline/runtime/pool.js';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import type { EventName, EventValue } from '../../schemas/events/index.js';
import { TOPICS } from '../../schemas/topics.js';

const REPLY = { replyTo: TOPICS.replies.name, correlationId: 'corr-1' } as const;

/** A synchronous scrape of `url` (a reply address, a minute to its deadline); its producer's fields from `options`. */
export function scrapeRequested(url: string, options: object = {}, extra: Partial<EventValue<'ScrapeRequested'>> = {}): EventValue<'ScrapeRequested'> {
  const now = Date.now();
  return {
    requestId: 'req-1',
    tenant: 'tenant-1',
    jobId: null,
    url,
    ...scrapeRequestFields(options as ScrapeOptions),
    ...REPLY,
    deadlineMs: now + 60_000,
    createdAtMs: now,
    ...extra,
  };
}

/** A page fetched for a synchronous scrape: an HTML body, fresh, 1 credit. */
export function pageFetched(extra: Partial<EventValue<'PageFetched'>> = {}, options: object = {}): EventValue<'PageFetched'> {
  const now = Date.now();
  const { cacheKey } = scrapeRequestFields(options as ScrapeOptions);
  return {
    requestId: 'req-1',
    tenant: 'tenant-1',
    jobId: null,
    url: 'https://example.com/',
    finalUrl: 'https://example.com/',
    statusCode: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    contentType: 'text/html; charset=utf-8',
    body: Buffer.from('<html><head><title>Page</title></head><body><p>Hello</p></body></html>'),
    fetchedAtMs: now,
    rendered: false,
    options: JSON.stringify(options),
    ...REPLY,
    deadlineMs: now + 60_000,
    credits: 1,
    source: 'fresh',
    requestedAtMs: now,
    extras: '{}',
    cacheKey,
    bodySha256: '',
    sealedModel: '',
    ...extra,
  };
}

export function fetchRequested(url: string, extra: Partial<EventValue<'FetchRequested'>> = {}): EventValue<'FetchRequested'> {
  const now = Date.now();
  return { requestId: 'req-1', tenant: 'tenant-1', url, proxy: null, country: null, lean: false, ...REPLY, deadlineMs: now + 60_000, createdAtMs: now, ...extra };
}

export function mapRequested(url: string, options: Record<string, unknown> = {}, extra: Partial<EventValue<'MapRequested'>> = {}): EventValue<'MapRequested'> {
  const now = Date.now();
  return { requestId: 'req-1', tenant: 'tenant-1', url, options: JSON.stringify(options), ...REPLY, deadlineMs: now + 30_000, createdAtMs: now, ...extra };
}

export function searchRequested(kind: 'web' | 'serp' | 'places', query: Record<string, unknown>, extra: Partial<EventValue<'SearchRequested'>> = {}): EventValue<'SearchRequested'> {
  const now = Date.now();
  return { requestId: 'req-1', tenant: 'tenant-1', kind, query: JSON.stringify(query), ...REPLY, deadlineMs: now + 30_000, createdAtMs: now, ...extra };
}

export function socialRequested(platform: string, endpoint: string, input: Record<string, unknown>, extra: Partial<EventValue<'SocialRequested'>> = {}): EventValue<'SocialRequested'> {
  const now = Date.now();
  return { requestId: 'req-1', tenant: 'tenant-1', platform, endpoint, input: JSON.stringify(input), ...REPLY, deadlineMs: now + 30_000, createdAtMs: now, ...extra };
}

export function parseRequested(filename: string, contentType: string, body: Buffer | string, extra: Partial<EventValue<'ParseRequested'>> = {}): EventValue<'ParseRequested'> {
  const now = Date.now();
  return { requestId: 'req-1', tenant: 'tenant-1', filename, contentType, body: Buffer.from(body), options: '{}', ...REPLY, deadlineMs: now + 60_000, createdAtMs: now, ...extra };
}

export function jobEvent(tenant: string, jobId: string, type: string, data: object = {}, extra: Partial<EventValue<'JobEvent'>> = {}): EventValue<'JobEvent'> {
  return { tenant, jobId, kind: 'crawl', type, atMs: Date.now(), data: JSON.stringify(data), ...extra };
}

/** The one Reply an ack emits, checked against the Reply schema, and the key it is sent under. */
export async function soleReply(codec: EventCodec, outcome: Outcome): Promise<{ reply: EventValue<'Reply'>; key: string | undefined }> {
  expect(outcome.kind).toBe('ack');
  const emit = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
  expect(emit.map((e) => e.topic)).toEqual(['replies']);
  const reply = emit[0]?.value as EventValue<'Reply'>;
  await codec.encode('Reply', reply);
  return { reply, key: emit[0]?.key };
}

export interface RunOptions {
  readonly signal?: AbortSignal;
  readonly attempt?: number;
  readonly log?: Logger;
  /** The actor's name: the `source` of the failure replies the pool builds. */
  readonly actor?: string;
  readonly nowMs?: number;
}

const silent = createLogger('silent');

/** Runs `handler` on `value` as the pool runs one attempt of an event named `name`. */
export function runHandler<N extends EventName>(name: N, handler: EventHandler<N> | EventHandling<N>, value: EventValue<N>, options: RunOptions = {}): Promise<Settled> {
  const message: BusMessage = { topic: 'test', partition: 0, offset: '0', key: '', value: Buffer.alloc(0), headers: {} };
  const ctx = { log: options.log ?? silent, signal: options.signal ?? new AbortController().signal, attempt: options.attempt ?? 1, message };
  const handlers = { [name]: handler } as { [K in EventName]?: EventHandler<K> | EventHandling<K> };
  return handleEvent({ name: options.actor ?? 'test', handlers }, { event: name, value, writerVersion: 0 }, ctx, options.nowMs ?? Date.now());
}

/**
 * What the parser's handler needs of the runtime, around a recording `writer`: a default
 * config (no model) and a store that no page without extraction formats reads (one that
 * does — `changeTracking` — fails loudly here; its tests use a real store).
 */
export function parserRuntime(writer: BatchWriter): ParserRuntime {
  const store = {
    query: async () => {
      throw new Error('this test gave the parser no store');
    },
  } as unknown as Store;
  return { writer, store, config: loadConfig({}) };
}
