/**
 * actors/parser/index.ts `handlePageFetched` and `pagesRow` and the page cache: what is
 * written to `pages` (and when nothing is), and the Reply's source and credits. The batch
 * writer is replaced by one that records the rows.
 */
import { describe, expect, it } from 'vitest';
import { handlePageFetched, pagesRow } from '../../actors/parser/index.js';
import { cachePlan } from '../../pipeline/pages/cache.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { pageFetched, parserRuntime } from '../helpers/events.js';
import type { BatchWriter } from '../../pipeline/runtime/store/index.js';
import type { EventValue } from '../../schemas/events/index.js';

type PageFetched = EventValue<'PageFetched'>;

const BODY = Buffer.concat([Buffer.from('<!doctype html><title>Cached</title><h1>Hi</h1>'), Buffer.from([0xff])]);

function page(extra: Partial<PageFetched> = {}, options: object = {}): PageFetched {
  return pageFetched({
    url: 'https://Example.com/doc#part',
    jobId: null,
    body: BODY,
    headers: { 'content-type': 'text/html' },
    contentType: 'text/html',
    fetchedAtMs: 2_000,
    requestedAtMs: 1_000,
    credits: 1,
    source: 'fresh',
    ...extra,
  }, { formats: ['markdown'], ...options });
}

function recorder() {
  const writes: { table: string; rows: Record<string, unknown>[] }[] = [];
  const writer = {
    write: async (table: string, rows: readonly Record<string, unknown>[]) => void writes.push({ table, rows: [...rows] }),
    pending: () => 0,
  } as unknown as BatchWriter;
  return { writes, runtime: parserRuntime(writer) };
}

function reply(outcome: Outcome): EventValue<'Reply'> {
  expect(outcome.kind).toBe('ack');
  const emit = outcome.kind === 'ack' ? (outcome.emit ?? []) : [];
  expect(emit).toHaveLength(1);
  return emit[0]?.value as unknown as EventValue<'Reply'>;
}

describe('actors/parser and the page cache', () => {
  it('files a fresh page under its normalized URL, cache key and request time, with its raw body', () => {
    const fresh = page({}, { mobile: true });
    const row = pagesRow(fresh, { title: 'Cached', document: '{}', contentHash: 'h' });
    const plan = cachePlan(fresh.url, { mobile: true });
    expect(row).toMatchObject({
      tenant: fresh.tenant,
      url: 'https://example.com/doc',
      fetched_at: 1_000,
      request_id: fresh.requestId,
      cache_key: plan.key,
      shareable: 1,
      response_headers: '{"content-type":"text/html"}',
    });
    expect(Buffer.from(row.body_base64 as string, 'base64').equals(BODY)).toBe(true);
    // Written as v1 (no request time): the fetch time.
    expect(pagesRow(page({ requestedAtMs: 0 }), { title: '', document: '{}', contentHash: 'h' }).fetched_at).toBe(2_000);
    expect(pagesRow(page({}, { headers: { cookie: 'a' } }), { title: '', document: '{}', contentHash: 'h' }).shareable).toBe(0);
  });

  it('writes a fresh page once and answers with source fresh', async () => {
    const { writes, runtime } = recorder();
    const answer = reply(await handlePageFetched(page(), runtime));
    expect(answer).toMatchObject({ ok: true, credits: 1, source: 'fresh' });
    expect(JSON.parse(answer.data ?? '{}').markdown).toContain('Hi');
    // The copy, and its search index rows: the document and its terms (pipeline/search/index).
    expect(writes.map((w) => [w.table, w.rows.length]).sort()).toEqual([['pages', 1], ['search_docs', 1], ['search_page_terms', 1]]);
  });

  it('writes nothing for storeInCache: false, and answers the same', async () => {
    const { writes, runtime } = recorder();
    const answer = reply(await handlePageFetched(page({}, { storeInCache: false }), runtime));
    expect(answer).toMatchObject({ ok: true, credits: 1, source: 'fresh' });
    expect(writes).toEqual([]);
  });

  it('does not write a page served from the cache or the index again; the reply carries its source and credits', async () => {
    for (const [source, credits] of [['cache', 0], ['index', 1]] as const) {
      const { writes, runtime } = recorder();
      const answer = reply(await handlePageFetched(page({ source, credits }, { formats: ['links'] }), runtime));
      expect(answer).toMatchObject({ ok: true, credits, source });
      expect(JSON.parse(answer.data ?? '{}')).toHaveProperty('links');
      expect(writes).toEqual([]);
    }
  });
});
