/**
 * actors/parser/document/pool.ts: documents read in real worker threads (the worker module
 * loaded from its TypeScript source through tsx, as under `npm run dev`), each within the
 * time and memory limits, against the hostile files of issue 27, made in the test: a PDF of
 * 100,000 pages under one /Pages node, a PDF with a 1 GiB Flate stream, a DOCX zip bomb.
 * While one is read in a worker the test's own thread stays free: it goes on turning its event
 * loop and reads an ordinary file itself before the worker has answered (no time is measured).
 * Each is stopped by the limit meant for it, as its error and the pool's counts of workers lost
 * show; the test's heap comes back near where it started, a worker stopped at a limit is
 * replaced, and the next ordinary file is read.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildDocument, DocumentPool, OFF_THREAD_PAGE_BYTES, OFF_THREAD_PAGE_TAGS, parseUpload, readsOffThread, type UploadedFile } from '../../actors/parser/document/index.js';
import { handleParseRequested } from '../../actors/parser/parse.js';
import type { PageReading } from '../../actors/parser/page-data/index.js';
import type { DocumentsConfig } from '../../pipeline/pages/settings.js';
import { extractionPlan } from '../../pipeline/structured/plan.js';
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

/** Turns of this thread's event loop taken, and a file read on this thread, while the pool works. */
const BESIDE_TURNS = 20;

/**
 * Runs `work` (a document handed to `pool`) and, while it is still running, has this thread do
 * work of its own: BESIDE_TURNS turns of its event loop and an ordinary upload read here. What
 * `work` came to, and, at the moment this thread's own work was done, whether `work` was still
 * running and how many of the pool's workers were busy with it.
 */
async function beside<T>(pool: DocumentPool, work: () => Promise<T>): Promise<{ result: T | Error; whileRunning: { ownWork: string | undefined; stillRunning: boolean; busyWorkers: number } }> {
  let running = true;
  const pending = work()
    .catch((error: Error) => error)
    .finally(() => void (running = false));
  for (let turn = 0; turn < BESIDE_TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
  const own = await parseUpload(upload('own.txt', 'text/plain', Buffer.from('read on this thread')));
  const whileRunning = { ownWork: own.markdown, stillRunning: running, busyWorkers: pool.stats().busy };
  return { result: await pending, whileRunning };
}

/** What `beside` finds when this thread stayed free: its own work done while the document was still being read in one worker. */
const FREE = { ownWork: 'read on this thread', stillRunning: true, busyWorkers: 1 };

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

  it('answers the first pages of a 100,000-page PDF with a warning, stopped by its own read limits before the hard one, while this thread stays free', async () => {
    const pool = documentPool({ documentTimeoutMs: 8000 });
    await parseUpload(upload('warm.pdf', 'application/pdf', minimalPdf([['warm']])), {}, pool); // a worker has started
    const pdf = manyPagePdf(100_000);
    const heapBefore = heapMb();
    const { result, whileRunning } = await beside(pool, () => parseUpload(upload('huge.pdf', 'text/html', pdf), {}, pool));
    if (result instanceof Error) throw result;
    expect(result.metadata.numPages).toBe(100_000);
    // Stopped by the reader's own limits, the read budget (6 s of 8) or the page limit: answered
    // with the pages read, not stopped at the hard time limit (the pool lost no worker to it).
    expect(result.warning).toMatch(
      /^The file was sent as text\/html but its bytes are a PDF: it was read as a PDF\.; Only the first \d+ of the PDF's 100000 pages were read: (reading stopped after 6 s, three quarters of this instance's time limit for a document|this instance reads at most 2000 pages of a document)\.$/,
    );
    const read = Number(/Only the first (\d+)/.exec(result.warning ?? '')?.[1]);
    expect(read).toBeGreaterThanOrEqual(1);
    expect(read).toBeLessThanOrEqual(2000);
    expect(pool.stats().terminated).toEqual({ time: 0, memory: 0, exit: 0 });
    // Read on this thread, pdf.js held it for minutes; in a worker, this thread went on with its own work meanwhile.
    expect(whileRunning).toEqual(FREE);
    expect(heapMb() - heapBefore).toBeLessThan(64);
    console.log(JSON.stringify({ case: '100k-page PDF in a worker', pagesRead: read, stoppedBy: /reading stopped/.test(result.warning ?? '') ? 'time' : 'pages', heapGrowthMb: Math.round(heapMb() - heapBefore) }));
  });

  it('refuses a zip bomb and a Flate bomb file_too_complex before parsing', async () => {
    const pool = documentPool();
    const heapBefore = heapMb();
    const files = [upload('bomb.docx', DOCX_TYPE, docxBomb(1024 * MIB)), upload('bomb.pdf', 'application/pdf', flateBombPdf(1024 * MIB))];
    for (const file of files) {
      const { result, whileRunning } = await beside(pool, () => parseUpload(file, {}, pool));
      expect(result, file.filename).toBeInstanceOf(Error);
      // Refused by the inflation ratio, the limit meant for a bomb.
      expect(result, file.filename).toMatchObject({ code: 'file_too_complex', message: expect.stringMatching(/inflates to more than 200 times its compressed \d+ bytes: a compression bomb is not read\.$/) });
      expect(whileRunning, file.filename).toEqual(FREE);
    }
    expect(heapMb() - heapBefore).toBeLessThan(64);
    expect(pool.stats().terminated).toEqual({ time: 0, memory: 0, exit: 0 }); // refused by the readers, no worker lost
  });

  it('stops a worker whose document passes the memory limit (a Flate bomb let past the inflation limits), and reads the next file in a new one', async () => {
    const pool = documentPool({ documentWorkers: 1, documentMemoryMb: 128, documentMaxInflatedBytes: 64 * 1024 * MIB, documentMaxInflateRatio: 1_000_000 });
    const bomb = upload('bomb.pdf', 'application/pdf', flateBombPdf(1024 * MIB));
    const rssBefore = process.memoryUsage().rss / MIB;
    const { result, whileRunning } = await beside(pool, () => parseUpload(bomb, {}, pool));
    expect(result).toBeInstanceOf(Error);
    expect(result).toMatchObject({ code: 'file_too_complex', message: expect.stringMatching(/more memory than this instance allows one document \(128 MB\)/) });
    expect(whileRunning).toEqual(FREE);
    expect(pool.stats().terminated).toEqual({ time: 0, memory: 1, exit: 0 });
    const next = await parseUpload(upload('a.pdf', 'application/pdf', minimalPdf([['After the bomb']])), {}, pool);
    expect(next.markdown).toBe('After the bomb');
    expect(pool.stats().started).toBe(2);
    console.log(JSON.stringify({ case: 'Flate bomb past the memory limit', rssBeforeMb: Math.round(rssBefore), rssAfterMb: Math.round(process.memoryUsage().rss / MIB) }));
  });

  it(`reads a fetched page over ${OFF_THREAD_PAGE_BYTES / MIB} MiB or ${OFF_THREAD_PAGE_TAGS} tags in a worker, others on this thread`, () => {
    const page = (tags: number, filler = 0) => Buffer.from(`${'<p>x</p>'.repeat(tags / 2)}${' '.repeat(filler)}`);
    expect(readsOffThread(page(2 * OFF_THREAD_PAGE_TAGS))).toBe(true);
    expect(readsOffThread(page(OFF_THREAD_PAGE_TAGS + 2))).toBe(true);
    expect(readsOffThread(page(OFF_THREAD_PAGE_TAGS))).toBe(false);
    expect(readsOffThread(page(1000, OFF_THREAD_PAGE_BYTES))).toBe(true);
    expect(readsOffThread(page(1000, OFF_THREAD_PAGE_BYTES - 8000))).toBe(false);
    expect(readsOffThread(Buffer.from('<'.repeat(1000)))).toBe(false);
  });

  it('reads a fetched HTML page of many tags in a worker, with its links, as this thread would, while this thread stays free', async () => {
    const pool = documentPool();
    await parseUpload(upload('warm.txt', 'text/plain', Buffer.from('warm')), {}, pool); // a worker has started
    const links = Array.from({ length: 12_000 }, (_, i) => `<li><a href="/p/${i}">Page ${i}</a></li>`).join('');
    const html = Buffer.from(`<html><head><title>Many links</title></head><body><h1>Index</h1><ul>${links}</ul></body></html>`);
    expect(html.length).toBeLessThan(OFF_THREAD_PAGE_BYTES);
    expect(readsOffThread(html)).toBe(true);
    const input = { bytes: html, contentType: 'text/html; charset=utf-8', url: 'https://example.com/', finalUrl: 'https://example.com/', statusCode: 200, headers: {} };
    const options = { formats: ['markdown', 'links'] as ('markdown' | 'links')[] };
    let offThread: string[] = [];
    const { result, whileRunning } = await beside(pool, () => buildDocument(input, options, { pageLinks: (found) => (offThread = found) }, pool));
    if (result instanceof Error) throw result;
    expect(whileRunning).toEqual(FREE);
    let here: string[] = [];
    expect(result).toEqual(await buildDocument(input, options, { pageLinks: (found) => (here = found) }));
    expect(offThread).toHaveLength(12_000);
    expect(offThread).toEqual(here);
    // A page under the size is read here.
    const small = { ...input, bytes: Buffer.from('<title>Small</title><p>x</p>') };
    expect((await buildDocument(small, {}, {}, { read: () => Promise.reject(new Error('not for a small page')), readPage: () => Promise.reject(new Error('not for a small page')) })).metadata.title).toBe('Small');
    expect(pool.stats().terminated).toEqual({ time: 0, memory: 0, exit: 0 });
  });

  it('reads the json format\'s markup and page rules of a page of many tags in the worker, as this thread would, while this thread stays free', async () => {
    const pool = documentPool();
    await parseUpload(upload('warm.txt', 'text/plain', Buffer.from('warm')), {}, pool); // a worker has started
    const product = { '@context': 'https://schema.org', '@type': 'Product', name: 'Blue kettle', offers: { '@type': 'Offer', price: '24.50', priceCurrency: 'EUR' } };
    const links = Array.from({ length: 12_000 }, (_, i) => `<li><a href="/p/${i}">Part ${i}</a></li>`).join('');
    const html = Buffer.from(
      `<html><head><title>Blue kettle</title><script type="application/ld+json">${JSON.stringify(product)}</script></head>` +
        `<body><article><h1>Blue kettle</h1><p class="byline">By Ann Lee</p><time datetime="2026-01-02">2 January</time><ul>${links}</ul></article></body></html>`,
    );
    expect(readsOffThread(html)).toBe(true);
    const input = { bytes: html, contentType: 'text/html', url: 'https://shop.example/kettle', finalUrl: 'https://shop.example/kettle', statusCode: 200, headers: {} };
    // `author` is not in the markup: the page rules read the page too.
    const plan = extractionPlan([{ type: 'json', schema: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' }, author: { type: 'string' } } } }]);
    if (!plan) throw new Error('no plan');
    let offThread: PageReading | null = null;
    const { result, whileRunning } = await beside(pool, () => buildDocument(input, { formats: ['markdown'] }, { extraction: { plan, found: (found) => (offThread = found) } }, pool));
    if (result instanceof Error) throw result;
    expect(whileRunning).toEqual(FREE);
    let here: PageReading | null = null;
    expect(result).toEqual(await buildDocument(input, { formats: ['markdown'] }, { extraction: { plan, found: (found) => (here = found) } }));
    expect(here).not.toBeNull();
    expect(here!.things.map((thing) => thing.types)).toContainEqual(['Product']);
    expect(here!.pageThing).not.toBeNull();
    expect(offThread).toEqual(here);
    expect(pool.stats().terminated).toEqual({ time: 0, memory: 0, exit: 0 });
  });

  it('answers a fetched page past the worker\'s time limit file_too_complex, naming it a page', async () => {
    const pool = documentPool({ documentWorkers: 1, documentTimeoutMs: 300 });
    const paragraphs = '<p>a <b>b</b> <i>c</i></p>'.repeat(400_000);
    const input = { bytes: Buffer.from(`<body>${paragraphs}</body>`), contentType: 'text/html', url: 'https://example.com/', finalUrl: 'https://example.com/', statusCode: 200, headers: {} };
    const error = await failure(buildDocument(input, {}, {}, pool));
    expect(error).toMatchObject({ code: 'file_too_complex', message: expect.stringMatching(/^Reading the HTML page took longer than this instance's limit for one document \(300 ms\)/) });
    expect(pool.stats().terminated).toEqual({ time: 1, memory: 0, exit: 0 });
  });

  it('stops a worker past the time limit, and reads the next file in a new one', async () => {
    // 1 s is less than pdf.js takes to open 100,000 pages: the worker is terminated mid-read.
    const pool = documentPool({ documentWorkers: 1, documentTimeoutMs: 1000 });
    const error = await failure(parseUpload(upload('huge.pdf', 'application/pdf', manyPagePdf(100_000)), {}, pool));
    expect(error).toMatchObject({ code: 'file_too_complex', message: expect.stringMatching(/longer than this instance's limit for one document \(1000 ms\)/) });
    expect(pool.stats().terminated).toEqual({ time: 1, memory: 0, exit: 0 });
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
