/**
 * actors/fetcher/cache.ts and the cache path of actors/fetcher/handler.ts, without a bus or
 * an engine: a scripted store answers the two lookups, a local fixture site counts the
 * fetches. Emissions are encoded with the real codec, so they match their Avro schemas.
 * (The same lookups against both real store drivers: test/pipeline/store.contract.test.ts;
 * through the whole service: test/e2e/scrape-cache.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCachedCopy, lookupCachedCopy, type CacheReader } from '../../actors/fetcher/cache.js';
import { handleScrapeRequested, type FetcherDeps, type ScrapeRequested } from '../../actors/fetcher/handler.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { scrapeRequested } from '../helpers/events.js';
import type { EventCodec } from '../../pipeline/runtime/codec/codec.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { cacheColumns, cachePlan, type CachedRow } from '../../pipeline/pages/cache.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { CACHED_PAGE_FOR_TENANT, CACHED_PAGE_SHARED } from '../../pipeline/runtime/store/queries.js';
import type { Params } from '../../pipeline/runtime/store/store.js';
import { EARLIEST_BOUND_MS } from '../../pipeline/runtime/store/wire.js';
import type { EventValue } from '../../schemas/events/index.js';
import { TOPICS } from '../../schemas/topics.js';
import { PAGE, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';

const NOW = 1_795_000_000_000;

/** A store that answers the own and the shared lookup with the rows given, and records the calls. */
class ScriptedStore implements CacheReader {
  readonly calls: { which: 'own' | 'shared'; params: Params }[] = [];
  constructor(
    private readonly own: CachedRow[] = [],
    private readonly shared: CachedRow[] = [],
    private readonly failure: Error | null = null,
  ) {}
  async query<T>(sql: string, params: Params = {}): Promise<T[]> {
    const which = sql === CACHED_PAGE_FOR_TENANT ? 'own' : sql === CACHED_PAGE_SHARED ? 'shared' : null;
    if (!which) throw new Error(`unexpected query ${sql}`);
    this.calls.push({ which, params });
    if (this.failure) throw this.failure;
    return (which === 'own' ? this.own : this.shared) as T[];
  }
}

function row(tenant: string, body: string, agoMs: number): CachedRow {
  const columns = cacheColumns(cachePlan('https://example.com/', {}), { body: Buffer.from(body), headers: { etag: `"${tenant}"` } });
  return {
    tenant,
    request_id: `req-of-${tenant}`,
    fetched_at_ms: String(NOW - agoMs),
    status_code: 200,
    content_type: 'text/html; charset=utf-8',
    final_url: 'https://example.com/final',
    response_headers: columns.response_headers as string,
    body_base64: columns.body_base64 as string,
  };
}

describe('actors/fetcher/cache', () => {
  it('never looks when maxAge is 0', async () => {
    const store = new ScriptedStore([row('t1', 'mine', 1000)]);
    expect(await findCachedCopy(store, cachePlan('https://example.com/', { maxAge: 0 }), 't1', NOW)).toBeNull();
    expect(store.calls).toEqual([]);
  });

  it('serves the tenant\'s own copy first, free, without asking the index', async () => {
    const store = new ScriptedStore([row('t1', 'mine', 1000)], [row('t2', 'theirs', 10)]);
    const plan = cachePlan('https://Example.com/#x', { maxAge: 60_000 });
    const copy = await findCachedCopy(store, plan, 't1', NOW);
    expect(copy).toMatchObject({ source: 'cache', requestId: 'req-of-t1', fetchedAtMs: NOW - 1000, headers: { etag: '"t1"' } });
    expect(copy?.body.toString()).toBe('mine');
    expect(store.calls).toEqual([
      { which: 'own', params: { url: 'https://example.com/', tenant: 't1', since: new Date(NOW - 60_000), cacheKey: plan.key } },
    ]);
  });

  it('falls back to the shared index, then to nothing', async () => {
    const plan = cachePlan('https://example.com/', { maxAge: 5000 });
    const indexed = new ScriptedStore([], [row('t2', 'theirs', 10)]);
    const copy = await findCachedCopy(indexed, plan, 't1', NOW);
    expect(copy).toMatchObject({ source: 'index', requestId: 'req-of-t2' });
    expect(indexed.calls.map((c) => c.which)).toEqual(['own', 'shared']);
    expect(indexed.calls[1]?.params).toEqual({ url: 'https://example.com/', since: new Date(NOW - 5000), cacheKey: plan.key });
    const empty = new ScriptedStore();
    expect(await findCachedCopy(empty, plan, 't1', NOW)).toBeNull();
    expect(empty.calls.map((c) => c.which)).toEqual(['own', 'shared']);
  });

  it('never asks the shared index for a request with headers of its own', async () => {
    const store = new ScriptedStore([], [row('t2', 'theirs', 10)]);
    const plan = cachePlan('https://example.com/', { maxAge: 5000, headers: { cookie: 'session=1' } });
    expect(await findCachedCopy(store, plan, 't1', NOW)).toBeNull();
    expect(store.calls.map((c) => c.which)).toEqual(['own']);
  });

  it('starts a window reaching back before 1970\'s first hours at the earliest time the store binds', async () => {
    for (const maxAge of [NOW - 1000, NOW, 2e12, Number.MAX_SAFE_INTEGER]) {
      const store = new ScriptedStore([], [row('t2', 'theirs', 10)]);
      expect(await findCachedCopy(store, cachePlan('https://example.com/', { maxAge }), 't1', NOW), String(maxAge)).toMatchObject({ source: 'index' });
      expect(store.calls.map((c) => c.params.since), String(maxAge)).toEqual([new Date(EARLIEST_BOUND_MS), new Date(EARLIEST_BOUND_MS)]);
    }
    const store = new ScriptedStore();
    await findCachedCopy(store, cachePlan('https://example.com/', { maxAge: NOW - EARLIEST_BOUND_MS - 1 }), 't1', NOW);
    expect(store.calls[0]?.params.since).toEqual(new Date(EARLIEST_BOUND_MS + 1));
  });

  it('answers a store failure as a miss and logs it', async () => {
    const lines: Record<string, unknown>[] = [];
    const capture = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const store = new ScriptedStore([], [], new AppError('store_unavailable', 'connection refused'));
    expect(await lookupCachedCopy(store, cachePlan('https://example.com/', { maxAge: 5000 }), 't1', NOW, capture)).toBeNull();
    expect(lines).toEqual([expect.objectContaining({ level: 40, code: 'store_unavailable', msg: 'page cache lookup failed; fetching the page fresh' })]);
  });
});

describe('actors/fetcher/handler with the page cache', () => {
  let site: FixtureSite;
  let http: HttpFetcher;
  let codec: EventCodec;
  const log = createLogger('silent');
  const signal = new AbortController().signal;

  beforeAll(async () => {
    site = await startFixtureSite();
    codec = await createCodec();
    http = new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) });
  });
  afterAll(async () => {
    http.close();
    await site.close();
  });

  function request(url: string, options: object): ScrapeRequested {
    return scrapeRequested(url, options, { requestId: 'req-2', correlationId: 'corr-2', createdAtMs: Date.now() - 5 });
  }

  async function page(outcome: Outcome): Promise<EventValue<'PageFetched'>> {
    expect(outcome.kind).toBe('ack');
    const emit: Emission[] = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
    expect(emit.map((e) => e.topic)).toEqual(['pageFetched']);
    await codec.encode('PageFetched', emit[0]?.value as never);
    return emit[0]?.value as unknown as EventValue<'PageFetched'>;
  }

  const fetches = (path: string) => site.requests.filter((r) => r.path === path).length;

  it('serves a hit from the stored copy, with no request to the site', async () => {
    const url = site.url('/html?hit=1');
    const cached: CachedRow = { ...row('tenant-1', '<title>cached</title>', 1000), final_url: url };
    for (const [store, source, credits] of [
      [new ScriptedStore([cached]), 'cache', 0],
      [new ScriptedStore([], [cached]), 'index', 1],
    ] as const) {
      const deps: FetcherDeps = { http, log, store };
      const event = request(url, { maxAge: 60_000, formats: ['links'] });
      const value = await page(await handleScrapeRequested(event, deps, signal));
      expect(value).toMatchObject({
        requestId: 'req-2',
        url,
        finalUrl: url,
        statusCode: 200,
        contentType: 'text/html; charset=utf-8',
        headers: { etag: '"tenant-1"' },
        fetchedAtMs: NOW - 1000,
        requestedAtMs: event.createdAtMs,
        options: event.options,
        correlationId: 'corr-2',
        credits,
        source,
      });
      expect(value.body.toString()).toBe('<title>cached</title>');
    }
    expect(fetches('/html?hit=1')).toBe(0);
  });

  it('fetches fresh on a miss, with maxAge 0, without a store, and when the store fails', async () => {
    const cases: [string, FetcherDeps, object, number][] = [
      ['/html?miss=1', { http, log, store: new ScriptedStore() }, { maxAge: 60_000 }, 2],
      ['/html?miss=2', { http, log, store: new ScriptedStore([row('tenant-1', 'x', 1)]) }, { maxAge: 0 }, 0],
      ['/html?miss=3', { http, log }, { maxAge: 60_000 }, 0],
      ['/html?miss=4', { http, log, store: new ScriptedStore([], [], new AppError('store_unavailable', 'down')) }, { maxAge: 60_000 }, 1],
    ];
    for (const [path, deps, options, lookups] of cases) {
      const event = request(site.url(path), options);
      const value = await page(await handleScrapeRequested(event, deps, signal));
      expect(value, path).toMatchObject({ source: 'fresh', credits: 1, statusCode: 200, requestedAtMs: event.createdAtMs });
      expect(value.body.toString()).toBe(PAGE);
      expect(fetches(path), path).toBe(1);
      expect(deps.store instanceof ScriptedStore ? deps.store.calls.length : 0, path).toBe(lookups);
    }
  });
});
