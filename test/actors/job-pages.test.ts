/**
 * Job pages in the fetcher and the parser, without a bus: a job page (a `jobId`, a request id
 * `<jobId>:<seq>`, no reply topic) is stored in `job_pages` under its seq and reported as a
 * JobEvent `page` with its links; a failure is a JobEvent `pageFailed` instead of a Reply.
 * Emissions are encoded with the real codec, so they match their Avro schemas.
 */
import { describe, expect, it } from 'vitest';
import { parserRuntime } from '../helpers/events.js';
import { scrapeRequestedHandling, type FetcherDeps, type ScrapeRequested } from '../../actors/fetcher/handler.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { handlePageFetched } from '../../actors/parser/index.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import { SAMPLE_EVENTS } from '../../infra/codegen/event-samples.js';
import type { AnyEmission } from '../../pipeline/runtime/events.js';
import { jobPageRequestId, newJobId } from '../../pipeline/jobs/pages.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { BatchWriter } from '../../pipeline/runtime/store/index.js';
import type { EventValue } from '../../schemas/events/index.js';
import { TOPICS } from '../../schemas/topics.js';
import { runHandler, scrapeRequested } from '../helpers/events.js';
import { SEARCH_MAX_QUEUED_PAGES, SEARCH_WRITE_DELAY_MS } from '../../pipeline/search/index/index.js';
import { JOB_PAGE_COPY_DELAY_MS } from '../../pipeline/jobs/job-page.js';
import { LINK_WRITE_DELAY_MS, LINK_WRITE_TABLE } from '../../pipeline/intel/links.js';

const HTML = '<!doctype html><title>Job page</title><body><a href="/next">next</a> <a href="https://other.example/x#f">x</a> <a href="mailto:a@b.c">m</a></body>';

/** The fetcher's ScrapeRequested handler, run as the pool runs it (the deadline drop is the pool's). */
function handleScrapeRequested(event: ScrapeRequested, deps: FetcherDeps, signal: AbortSignal) {
  return runHandler('ScrapeRequested', scrapeRequestedHandling(deps), event, { signal, log: deps.log, actor: 'fetcher' });
}

async function emissions(outcome: Outcome): Promise<AnyEmission[]> {
  expect(outcome.kind).toBe('ack');
  const emit = outcome.kind === 'ack' ? [...(outcome.emit ?? [])] : [];
  const codec = await createCodec();
  for (const e of emit) await codec.encode(TOPICS[e.topic].event as 'JobEvent', e.value as never);
  return emit;
}

/** A fetched page of job `jobId` under `seq`, fresh, as the fetcher sends it to the parser. */
function fetchedJobPage(jobId: string, seq: number): EventValue<'PageFetched'> {
  return {
    ...SAMPLE_EVENTS.PageFetched,
    requestId: jobPageRequestId(jobId, seq),
    tenant: 'tenant-1',
    jobId,
    url: 'https://example.com/start',
    finalUrl: 'https://example.com/start',
    body: Buffer.from(HTML),
    contentType: 'text/html',
    headers: { 'content-type': 'text/html' },
    statusCode: 200,
    replyTo: null,
    correlationId: null,
    credits: 1,
    source: 'fresh',
    options: '{}',
    extras: '{}',
    bodySha256: '',
  };
}

describe('job pages in the fetcher and the parser', () => {
  const jobId = newJobId('crawl');

  it('the parser stores a job page under its seq and reports it with its links', async () => {
    const writes: { table: string; rows: Record<string, unknown>[] }[] = [];
    const writer = { write: async (table: string, rows: readonly Record<string, unknown>[]) => void writes.push({ table, rows: [...rows] }), pending: () => 0 } as unknown as BatchWriter;
    const page = fetchedJobPage(jobId, 7);
    const emit = await emissions(await handlePageFetched(page, parserRuntime(writer)));
    const jobRow = writes.find((w) => w.table === 'job_pages')?.rows[0];
    expect(jobRow).toMatchObject({ tenant: 'tenant-1', job_id: jobId, seq: 7, url: 'https://example.com/start', status_code: 200, title: 'Job page' });
    expect(JSON.parse(jobRow?.document as string).markdown).toMatch(/next/);
    expect(emit).toHaveLength(1);
    expect(emit[0]).toMatchObject({ topic: 'jobEvents', key: jobId, value: { jobId, tenant: 'tenant-1', kind: 'crawl', type: 'page' } });
    const data = JSON.parse((emit[0]?.value as EventValue<'JobEvent'>).data);
    expect(data).toEqual({ seq: 7, url: 'https://example.com/start', statusCode: 200, credits: 1, links: ['https://example.com/next', 'https://other.example/x'] });
  });

  it('the parser writes the job_pages row, queues the page copy, the index rows and the link graph edges, and answers when the job_pages row landed', async () => {
    const started: [string, number | undefined][] = [];
    const landed: Record<string, () => void> = {};
    const writer = {
      write: (table: string, _rows: unknown, options?: { maxDelayMs?: number }) => {
        started.push([table, options?.maxDelayMs]);
        return new Promise<void>((resolve) => (landed[table] = resolve));
      },
      pending: () => 0,
    } as unknown as BatchWriter;
    const page = fetchedJobPage(jobId, 8);
    let settled = false;
    const outcome = handlePageFetched(page, parserRuntime(writer)).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The job page, its page copy, its search index rows (a document and its terms) and its
    // cross-domain link (the link graph), at once; all but the job page in lazy batches.
    expect(started.sort()).toEqual([
      ['job_pages', undefined],
      [LINK_WRITE_TABLE, LINK_WRITE_DELAY_MS],
      ['pages', JOB_PAGE_COPY_DELAY_MS],
      ['search_docs', SEARCH_WRITE_DELAY_MS],
      ['search_page_terms', SEARCH_WRITE_DELAY_MS],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    // Neither the copy nor the index rows have landed: the page is answered all the same.
    landed.job_pages?.();
    const emit = await emissions(await outcome);
    expect(emit.map((e) => [e.topic, (e.value as EventValue<'JobEvent'>).type])).toEqual([['jobEvents', 'page']]);
  });

  it('the parser waits for its index rows only when the index is SEARCH_MAX_QUEUED_PAGES pages behind', async () => {
    const landed: Record<string, () => void> = {};
    const writer = {
      write: (table: string) => new Promise<void>((resolve) => (landed[table] = resolve)),
      pending: (table: string) => (table === 'search_page_terms' ? SEARCH_MAX_QUEUED_PAGES : 0),
    } as unknown as BatchWriter;
    let settled = false;
    const outcome = handlePageFetched(fetchedJobPage(jobId, 9), parserRuntime(writer)).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    landed.job_pages?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    landed.search_docs?.();
    landed.search_page_terms?.();
    expect((await outcome).kind).toBe('ack');
  });

  it('the fetcher reports a job page it cannot fetch as pageFailed, not as a Reply', async () => {
    const http = new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) });
    try {
      const now = Date.now();
      const event = scrapeRequested('http://127.0.0.1:1/nothing', { timeout: 2000 }, {
        requestId: jobPageRequestId(jobId, 3),
        jobId,
        replyTo: null,
        correlationId: null,
        deadlineMs: now + 10_000,
        createdAtMs: now,
      });
      const emit = await emissions(await handleScrapeRequested(event, { http, log: createLogger('silent'), maxAttempts: 1 }, new AbortController().signal));
      expect(emit).toHaveLength(1);
      expect(emit[0]).toMatchObject({ topic: 'jobEvents', value: { type: 'pageFailed', jobId } });
      expect(JSON.parse((emit[0]?.value as EventValue<'JobEvent'>).data)).toMatchObject({ seq: 3, url: 'http://127.0.0.1:1/nothing', code: 'connection_refused' });
      const late = await emissions(await handleScrapeRequested({ ...event, deadlineMs: now - 1 }, { http, log: createLogger('silent') }, new AbortController().signal));
      expect(late.map((e) => [e.topic, (e.value as EventValue<'JobEvent'>).type])).toEqual([['jobEvents', 'pageFailed']]);
    } finally {
      http.close();
    }
  });
});
