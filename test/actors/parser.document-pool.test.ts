/**
 * actors/parser/document/pool.ts: documents read in real worker threads (the worker module
 * loaded from its TypeScript source through tsx, as under `npm run dev`), each within the
 * time and memory limits, against the hostile files of issue 27, made in the test: a PDF of
 * 100,000 pages under one /Pages node, a PDF with a 1 GiB Flate stream, a DOCX zip bomb.
 * While one is read the test's own thread stays free (the largest lateness of a 10 ms timer is
 * compared with generous bounds, never with an exact time), its heap comes back near where it
 * started, a worker stopped at a limit is replaced, and the next ordinary file is read.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DocumentPool, parseUpload, type UploadedFile } from '../../actors/parser/document/index.js';
import { handleParseRequested } from '../../actors/parser/parse.js';
import type { DocumentsConfig } from '../../pipeline/pages/settings.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { docxBomb, flateBombPdf, manyPagePdf, minimalDocx, minimalPdf } from '../fixtures/documents/generate.js';
import { parseRequested } from '../helpers/events.js';
import { rejection } from '../helpers/wait.js';

const MIB = 1024 * 1024;
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const SETTINGS: DocumentsConfig = {
  documentWorkers: 2,
  documentTimeoutMs: 60_000,
  documentMemoryMb: 512,
  documentMaxPages: 2000,
  documentMaxInflatedBytes: 256 * MIB,
  documentMaxInflateRatio: 200,
};

const pools: DocumentPool[] = [];
function documentPool(over: Partial<DocumentsConfig> = {}): DocumentPool {
  const pool = new DocumentPool({ ...SETTINGS, ...over }, log, { watchIntervalMs: 50 });
  pools.push(pool);
  return pool;
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

const failure = (promise: Promise<unknown>) => rejection<Error & { code?: string }>(promise);

/** Runs `work` while a 10 ms interval measures how late the test's own thread runs it. */
async function watched<T>(work: () => Promise<T>): Promise<{ result: T | Error; lateMs: number; ms: number }> {
  let last = performance.now();
  let lateMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lateMs = Math.max(lateMs, now - last - 10);
    last = now;
  }, 10);
  const started = performance.now();
  try {
    const result = await work().catch((error: Error) => error);
    return { result, lateMs, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

const upload = (filename: string, mimetype: string, data: Buffer): UploadedFile => ({ filename, mimetype, data });
const heapMb = () => process.memoryUsage().heapUsed / MIB;

describe('actors/parser/document/pool', () => {
  it('reads PDF, DOCX, HTML and text uploads in a worker as on this thread', async () => {
    const pool = documentPool();
    const files = [
      upload('a.pdf', 'application/pdf', minimalPdf([['Quarterly report', 'Costs fell.'], ['Page two.']], 'Report')),
      upload('n.docx', DOCX_TYPE, minimalDocx([{ heading: 'Notes' }, { paragraph: 'First point.' }])),
      upload('p.html', 'text/html', Buffer.from('<h1>Up</h1><p><a href="https://example.org/">x</a></p>')),
      upload('t.txt', 'text/plain', Buffer.from('plain words')),
    ];
    for (const file of files) {
      const options = { formats: ['markdown', 'links'] as ('markdown' | 'links')[] };
      expect(await parseUpload(file, options, pool), file.filename).toEqual(await parseUpload(file, options));
    }
    expect(pool.stats().terminated).toEqual({ time: 0, memory: 0, exit: 0 });
  });

  it('answers the first pages of a 100,000-page PDF with a warning, within its time, while this thread stays free', async () => {
    const pool = documentPool({ documentTimeoutMs: 8000 });
    await parseUpload(upload('warm.pdf', 'application/pdf', minimalPdf([['warm']])), {}, pool); // a worker has started
    const pdf = manyPagePdf(100_000);
    const heapBefore = heapMb();
    const { result, lateMs, ms } = await watched(() => parseUpload(upload('huge.pdf', 'text/html', pdf), {}, pool));
    if (result instanceof Error) throw result;
    expect(result.metadata.numPages).toBe(100_000);
    expect(result.warning).toMatch(/^The file was sent as text\/html but its bytes are a PDF: it was read as a PDF\.; Only the first \d+ of the PDF's 100000 pages were read/);
    const read = Number(/Only the first (\d+)/.exec(result.warning ?? '')?.[1]);
    expect(read).toBeGreaterThanOrEqual(1);
    expect(read).toBeLessThanOrEqual(2000);
    // Stopped by its read budget (6 s of 8), answered before the hard limit.
    expect(ms).toBeLessThan(8000 + 2000);
    // Read on this thread, pdf.js held it for minutes; in a worker, timers run on time but for scheduling.
    expect(lateMs).toBeLessThan(1000);
    expect(heapMb() - heapBefore).toBeLessThan(64);
    console.log(JSON.stringify({ case: '100k-page PDF in a worker', ms: Math.round(ms), pagesRead: read, maxTimerLatenessMs: Math.round(lateMs), heapGrowthMb: Math.round(heapMb() - heapBefore) }));
  });

  it('refuses a zip bomb and a Flate bomb file_too_complex before parsing', async () => {
    const pool = documentPool();
    const heapBefore = heapMb();
    const files = [upload('bomb.docx', DOCX_TYPE, docxBomb(1024 * MIB)), upload('bomb.pdf', 'application/pdf', flateBombPdf(1024 * MIB))];
    for (const file of files) {
      const { result, lateMs } = await watched(() => parseUpload(file, {}, pool));
      expect(result, file.filename).toBeInstanceOf(Error);
      expect((result as Error & { code?: string }).code, file.filename).toBe('file_too_complex');
      expect(lateMs, file.filename).toBeLessThan(1000);
    }
    expect(heapMb() - heapBefore).toBeLessThan(64);
    expect(pool.stats().terminated).toEqual({ time: 0, memory: 0, exit: 0 }); // refused by the readers, no worker lost
  });

  it('stops a worker whose document passes the memory limit (a Flate bomb let past the inflation limits), and reads the next file in a new one', async () => {
    const pool = documentPool({ documentWorkers: 1, documentMemoryMb: 128, documentMaxInflatedBytes: 64 * 1024 * MIB, documentMaxInflateRatio: 1_000_000 });
    const bomb = upload('bomb.pdf', 'application/pdf', flateBombPdf(1024 * MIB));
    const rssBefore = process.memoryUsage().rss / MIB;
    const { result, lateMs } = await watched(() => parseUpload(bomb, {}, pool));
    expect(result).toBeInstanceOf(Error);
    expect(result).toMatchObject({ code: 'file_too_complex', message: expect.stringMatching(/more memory than this instance allows one document \(128 MB\)/) });
    expect(lateMs).toBeLessThan(1000);
    expect(pool.stats().terminated.memory).toBe(1);
    const next = await parseUpload(upload('a.pdf', 'application/pdf', minimalPdf([['After the bomb']])), {}, pool);
    expect(next.markdown).toBe('After the bomb');
    expect(pool.stats().started).toBe(2);
    console.log(JSON.stringify({ case: 'Flate bomb past the memory limit', rssBeforeMb: Math.round(rssBefore), rssAfterMb: Math.round(process.memoryUsage().rss / MIB), maxTimerLatenessMs: Math.round(lateMs) }));
  });

  it('stops a worker past the time limit, and reads the next file in a new one', async () => {
    // 1 s is less than pdf.js takes to open 100,000 pages: the worker is terminated mid-read.
    const pool = documentPool({ documentWorkers: 1, documentTimeoutMs: 1000 });
    const error = await failure(parseUpload(upload('huge.pdf', 'application/pdf', manyPagePdf(100_000)), {}, pool));
    expect(error).toMatchObject({ code: 'file_too_complex', message: expect.stringMatching(/longer than this instance's limit for one document \(1000 ms\)/) });
    expect(pool.stats().terminated.time).toBe(1);
    expect((await parseUpload(upload('a.txt', 'text/plain', Buffer.from('still reading')), {}, pool)).markdown).toBe('still reading');
  });

  it('answers POST /v1/parse file_too_complex for a bomb, and file_unreadable for a damaged file, through the handler', async () => {
    const pool = documentPool();
    const docx = await handleParseRequested(parseRequested('bomb.docx', DOCX_TYPE, docxBomb(512 * MIB)), { log, documents: pool });
    expect(docx).toMatchObject({ kind: 'fail', code: 'file_too_complex' });
    const damaged = await handleParseRequested(parseRequested('x.pdf', 'application/pdf', Buffer.from('%PDF-1.4\nnot really')), { log, documents: pool });
    expect(damaged).toMatchObject({ kind: 'fail', code: 'file_unreadable' });
  });
});
