/**
 * actors/parser/index.ts `handlePageFetched` and the link graph (pipeline/intel/links.ts):
 * which stored pages give their cross-domain links as a `link_page_edges` row, queued in a
 * lazy batch, and which write nothing there. The batch writer is replaced by one that records
 * the rows and the wait each write asked for.
 */
import { describe, expect, it } from 'vitest';
import { handlePageFetched } from '../../actors/parser/index.js';
import { jobPageRequestId, newJobId } from '../../pipeline/jobs/pages.js';
import { LINK_WRITE_DELAY_MS, LINK_WRITE_TABLE } from '../../pipeline/intel/links.js';
import type { BatchWriter } from '../../pipeline/runtime/store/index.js';
import type { EventValue } from '../../schemas/events/index.js';
import { pageFetched, parserRuntime } from '../helpers/events.js';

type PageFetched = EventValue<'PageFetched'>;

const LINKING = `<!doctype html><title>Linking</title><main><h1>Reading list</h1>
<p>See <a href="https://docs.other.org/guide#intro">the guide</a>, <a href="/about">about us</a>,
<a href="https://blog.example.com/post">our blog</a> and <a href="http://192.0.2.9/x">an address</a>.</p>
<p><a href="https://docs.other.org/guide">the guide again</a> <a href="mailto:a@other.org">mail</a></p></main>`;
const INTERNAL = `<!doctype html><title>Internal</title><main><p><a href="/a">a</a> <a href="https://www.example.com/b">b</a></p></main>`;

function page(html: string, extra: Partial<PageFetched> = {}, options: object = {}): PageFetched {
  return pageFetched({
    url: 'https://example.com/list',
    finalUrl: 'https://www.example.com/list',
    jobId: null,
    body: Buffer.from(html),
    headers: { 'content-type': 'text/html' },
    contentType: 'text/html',
    statusCode: 200,
    fetchedAtMs: 2_000,
    requestedAtMs: 1_000,
    source: 'fresh',
    ...extra,
  }, { formats: ['markdown'], ...options });
}

function recorder() {
  const writes: { table: string; rows: Record<string, unknown>[]; maxDelayMs: number | undefined }[] = [];
  const writer = {
    write: async (table: string, rows: readonly Record<string, unknown>[], options?: { maxDelayMs?: number }) =>
      void writes.push({ table, rows: [...rows], maxDelayMs: options?.maxDelayMs }),
    pending: () => 0,
  } as unknown as BatchWriter;
  const edgeRows = () => writes.filter((w) => w.table === LINK_WRITE_TABLE);
  return { writes, edgeRows, runtime: parserRuntime(writer) };
}

describe('actors/parser and the link graph', () => {
  it('queues a stored page’s cross-domain links as one lazy row: from the page after redirects, at the request time', async () => {
    const { edgeRows, runtime } = recorder();
    expect((await handlePageFetched(page(LINKING), runtime)).kind).toBe('ack');
    expect(edgeRows()).toEqual([
      {
        table: LINK_WRITE_TABLE,
        maxDelayMs: LINK_WRITE_DELAY_MS,
        rows: [
          {
            source_domain: 'example.com',
            source_url: 'https://www.example.com/list',
            seen_at: 1_000,
            target_domains: ['other.org', '192.0.2.9'],
            target_urls: ['https://docs.other.org/guide', 'http://192.0.2.9/x'],
          },
        ],
      },
    ]);
  });

  it('feeds a crawl’s pages too, whatever the formats asked', async () => {
    const { edgeRows, runtime } = recorder();
    const jobId = newJobId('crawl');
    await handlePageFetched(page(LINKING, { jobId, requestId: jobPageRequestId(jobId, 3), replyTo: null, correlationId: null }, { formats: ['html'] }), runtime);
    expect(edgeRows().map((w) => w.rows[0]?.target_domains)).toEqual([['other.org', '192.0.2.9']]);
  });

  it('writes nothing to the graph for a page without cross-domain links', async () => {
    const { writes, edgeRows, runtime } = recorder();
    await handlePageFetched(page(INTERNAL), runtime);
    expect(edgeRows()).toEqual([]);
    expect(writes.map((w) => w.table).sort()).toEqual(['pages', 'search_docs', 'search_page_terms']);
  });

  it('writes nothing to the graph for a page not stored, not shareable, an error page, or a copy from the cache', async () => {
    const cases: [string, PageFetched][] = [
      ['storeInCache: false', page(LINKING, {}, { storeInCache: false })],
      ['the caller’s own headers', page(LINKING, {}, { headers: { cookie: 'session=1' } })],
      ['status 404', page(LINKING, { statusCode: 404 })],
      ['status 500', page(LINKING, { statusCode: 500 })],
      ['from the cache', page(LINKING, { source: 'cache', credits: 0 })],
      ['from the index', page(LINKING, { source: 'index' })],
    ];
    for (const [name, fetched] of cases) {
      const { edgeRows, runtime } = recorder();
      expect((await handlePageFetched(fetched, runtime)).kind, name).toBe('ack');
      expect(edgeRows(), name).toEqual([]);
    }
  });

  it('writes nothing to the graph for a page that is not HTML', async () => {
    const { edgeRows, runtime } = recorder();
    const text = 'Links: https://other.org/a and https://third.org/b';
    await handlePageFetched(page(text, { headers: { 'content-type': 'text/plain' }, contentType: 'text/plain' }, { formats: ['markdown', 'links'] }), runtime);
    expect(edgeRows()).toEqual([]);
  });
});
