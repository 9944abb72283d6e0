/**
 * actors/parser/document's own limits, read on the test's thread (the worker pool's time and
 * memory limits are test/actors/parser.document-pool.test.ts's): a DOCX zip bomb and a PDF
 * Flate bomb are refused `file_too_complex` while inflating, by ratio or by the document's
 * total, without holding what they inflate to; images are not counted; a damaged zip is
 * `unsupported_content`; a PDF longer than its page limit, or past its read budget, answers
 * its first pages with a `warning`; and an upload is read as what its bytes are.
 *
 * A bomb shows it was stopped at its limit by how much was inflated (test/helpers/inflated.ts),
 * not by how long it took.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DOCUMENT_LIMITS, inThreadReader, judgeUpload, parseUpload, type DocumentLimits } from '../../actors/parser/document/index.js';
import { checkPdfStreams, filtersOf } from '../../actors/parser/document/pdf-streams.js';
import { readPdf } from '../../actors/parser/document/pdf.js';
import { checkZipInflation, zipEntries } from '../../actors/parser/document/zip.js';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { repeatedDeflate } from '../fixtures/documents/deflate.js';
import { docxBomb, flateBombPdf, manyPagePdf, minimalDocx, minimalPdf, zip } from '../fixtures/documents/generate.js';
import { countInflated } from '../helpers/inflated.js';
import { rejection } from '../helpers/wait.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const failure = (promise: Promise<unknown>) => rejection<Error & { code?: string }>(promise);

const limits = (over: Partial<DocumentLimits> = {}): DocumentLimits => ({ ...DEFAULT_DOCUMENT_LIMITS, ...over });

describe('actors/parser/document limits', () => {
  describe('DOCX zip entries (zip.ts)', () => {
    it('reads the central directory as jszip does', () => {
      const entries = zipEntries(minimalDocx([{ paragraph: 'x' }]));
      expect(entries.map((e) => e.name)).toContain('word/document.xml');
      expect(entries.every((e) => e.method === 8)).toBe(true);
    });

    it('refuses a zip bomb (1 GiB in about 1 MB) by its ratio, without holding what it inflates to', async () => {
      const bomb = docxBomb(GIB);
      expect(bomb.length).toBeLessThan(2 * MIB);
      const heap = process.memoryUsage().heapUsed;
      const inflated = countInflated();
      const error = await failure(checkZipInflation(bomb, DEFAULT_DOCUMENT_LIMITS)).finally(() => inflated.stop());
      expect(hasCode(error, 'file_too_complex')).toBe(true);
      expect(error.message).toMatch(/entry "word\/document\.xml" inflates to more than 200 times/);
      // Inflated until 200 times ~1 MB and no further (within one 256 KiB chunk), not the 1 GiB
      // it holds; counted and dropped: no growth kept.
      const entry = zipEntries(bomb).find((e) => e.name === 'word/document.xml');
      expect(inflated.bytes).toBeGreaterThan(200 * (entry?.data.length ?? 0));
      expect(inflated.bytes).toBeLessThanOrEqual(200 * (entry?.data.length ?? 0) + 256 * 1024);
      expect(process.memoryUsage().heapUsed - heap).toBeLessThan(64 * MIB);
    });

    it('refuses entries that pass the document\'s total even when each is within its ratio', async () => {
      const part = () => repeatedDeflate(Buffer.from('<w:p/>'.repeat(1000)), 400, 'raw'); // 2.4 MB each, ~40:1
      const archive = zip({ '[Content_Types].xml': '<Types/>', 'word/document.xml': part(), 'word/a.xml': part(), 'word/b.xml': part() });
      const error = await failure(checkZipInflation(archive, limits({ maxInflatedBytes: 5 * MIB })));
      expect(hasCode(error, 'file_too_complex')).toBe(true);
      expect(error.message).toMatch(/more than 5242880 bytes in all/);
      await expect(checkZipInflation(archive, limits())).resolves.toBeUndefined();
    });

    it('calls a broken archive damaged', async () => {
      const docx = minimalDocx([{ paragraph: 'x' }]);
      for (const broken of [Buffer.from('PK\x03\x04 not really a zip'), docx.subarray(0, docx.length - 30)]) {
        const error = await failure(checkZipInflation(broken, DEFAULT_DOCUMENT_LIMITS));
        expect(hasCode(error, 'unsupported_content'), error.message).toBe(true);
      }
    });

    it('reads an ordinary DOCX as before', async () => {
      const doc = await inThreadReader(DEFAULT_DOCUMENT_LIMITS).read({
        kind: 'docx',
        bytes: minimalDocx([{ heading: 'Notes' }, { paragraph: 'One point.' }]),
        facts: { url: 'upload://n.docx', finalUrl: 'upload://n.docx', statusCode: 200, contentType: DOCX_TYPE, headers: {} },
        options: { formats: new Set(['markdown']), onlyMainContent: true, includeTags: [], excludeTags: [], removeBase64Images: true, pdf: true },
      });
      expect(doc.markdown).toBe('# Notes\n\nOne point.');
    });
  });

  describe('PDF Flate streams (pdf-streams.ts)', () => {
    it('reads the filters a stream dictionary names', () => {
      expect(filtersOf('<< /Length 5 /Filter /FlateDecode >>')).toEqual(['/FlateDecode']);
      expect(filtersOf('<< /Filter [ /FlateDecode /FlateDecode ] /Length 9 >>')).toEqual(['/FlateDecode', '/FlateDecode']);
      expect(filtersOf('<< /Length 5 >>')).toEqual([]);
      expect(filtersOf('/Filter [/A /Filter /B')).toEqual(['/B']);
      expect(filtersOf('/Filter [/A /Filter /B]')).toEqual(['/A', '/Filter', '/B']);
      expect(filtersOf('/Filter [/A /Filter /B] /Filter /C')).toEqual(['/A', '/Filter', '/B']);
      expect(filtersOf('/Filter[ /Filter  /FlateDecode')).toEqual(['/FlateDecode']);
      expect(filtersOf('/Filter ( /Filter\n/Fl')).toEqual(['/Fl']);
    });

    it('reads dictionaries full of `/Filter [` with no `]` in one pass', async () => {
      // /\/Filter\s*(\[[^\]]*\]|…)/ scanned the 16 KiB window to its end from every `/Filter [`: a
      // minute for these thousand streams. None is Flate: nothing is counted.
      const pdf = Buffer.from(`%PDF-1.4\n${`${'/Filter['.repeat(16)}stream\nendstream\n`.repeat(1000)}`, 'latin1');
      await expect(checkPdfStreams(pdf, DEFAULT_DOCUMENT_LIMITS)).resolves.toBeUndefined();
      expect(filtersOf(`${'/Filter['.repeat(2000)}/Filter /FlateDecode`)).toEqual(['/FlateDecode']);
    });

    it('reads each stream\'s dictionary after the stream before it ended: a file of tiny streams is read about once', async () => {
      // Each of these ~95,000 streams had a 16 KiB window of its own, about 1.5 GB of text made
      // from 2 MB; each is still inflated and counted.
      const empty = deflateSync(Buffer.alloc(0));
      const one = Buffer.concat([Buffer.from('<</Filter/FlateDecode>>stream\n', 'latin1'), empty, Buffer.from('\nendstream\n', 'latin1')]);
      const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n', 'latin1'), ...Array.from({ length: Math.floor((2 * MIB) / one.length) }, () => one)]);
      expect(pdf.length).toBeGreaterThan(2 * MIB - one.length);
      await expect(checkPdfStreams(pdf, DEFAULT_DOCUMENT_LIMITS)).resolves.toBeUndefined();
      // The stream before's dictionary is not this one's: a stream with no filter (pdf.js never
      // inflates it) whose bytes happen to be a Flate bomb is not counted, and the PDF not refused.
      const bomb = repeatedDeflate(Buffer.alloc(MIB), 64, 'zlib').raw;
      const unfiltered = Buffer.concat([one, Buffer.from(`<< /Length ${bomb.length} >>stream\n`, 'latin1'), bomb, Buffer.from('\nendstream\n', 'latin1')]);
      await expect(checkPdfStreams(Buffer.concat([Buffer.from('%PDF-1.4\n', 'latin1'), unfiltered]), DEFAULT_DOCUMENT_LIMITS)).resolves.toBeUndefined();
    });

    it('refuses a 1 GiB Flate bomb before pdf.js opens it', async () => {
      const bomb = flateBombPdf(GIB);
      expect(bomb.length).toBeLessThan(2 * MIB);
      const heap = process.memoryUsage().heapUsed;
      const error = await failure(readPdf(bomb, DEFAULT_DOCUMENT_LIMITS));
      expect(hasCode(error, 'file_too_complex')).toBe(true);
      expect(error.message).toMatch(/The PDF's stream inflates to more than 200 times/);
      expect(process.memoryUsage().heapUsed - heap).toBeLessThan(64 * MIB);
    });

    it('inflates chained Flate filters through every layer, and leaves images out', async () => {
      const inner = repeatedDeflate(Buffer.alloc(MIB), 64, 'zlib').raw; // 64 MiB of zeros in ~66 KB
      const outer = repeatedDeflate(inner, 1, 'zlib').raw;
      const stream = (dictionary: string, data: Buffer) =>
        Buffer.concat([Buffer.from(`%PDF-1.4\n5 0 obj\n<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
      const chained = stream('/Filter [/FlateDecode /FlateDecode]', outer);
      expect(hasCode(await failure(checkPdfStreams(chained, limits({ maxInflatedBytes: 32 * MIB }))), 'file_too_complex')).toBe(true);
      const image = stream('/Type /XObject /Subtype /Image /Width 4096 /Height 4096 /Filter /FlateDecode', repeatedDeflate(Buffer.alloc(MIB), 64, 'zlib').raw);
      await expect(checkPdfStreams(image, limits({ maxInflatedBytes: 32 * MIB }))).resolves.toBeUndefined();
    });

    it('goes by a stream\'s /Length when its data happens to hold the word endstream', async () => {
      const bomb = repeatedDeflate(Buffer.alloc(MIB), 64, 'zlib').raw;
      // A stored deflate block holding "endstream", then the bomb's blocks: the data a naive scan would stop at.
      const text = Buffer.from('endstream', 'latin1');
      const stored = Buffer.concat([Buffer.from([0x00, text.length, 0x00, ~text.length & 0xff, 0xff]), text]);
      const data = Buffer.concat([bomb.subarray(0, 2), stored, bomb.subarray(2)]);
      const pdf = Buffer.concat([Buffer.from(`%PDF-1.4\n4 0 obj\n<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
      expect(hasCode(await failure(checkPdfStreams(pdf, limits({ maxInflatedBytes: 32 * MIB }))), 'file_too_complex')).toBe(true);
    });
  });

  describe('PDF pages (pdf.ts)', () => {
    it('reads at most maxPages pages, one at a time, and says how many of how many', async () => {
      const pdf = await readPdf(manyPagePdf(50, 'Same text'), limits({ maxPages: 20 }));
      expect(pdf).toMatchObject({ numPages: 50, stopped: 'pages' });
      expect(pdf.pages).toHaveLength(20);
      const doc = await parseUpload({ filename: 'long.pdf', mimetype: 'application/pdf', data: manyPagePdf(50) }, {}, inThreadReader(limits({ maxPages: 20 })));
      expect(doc.warning).toBe("Only the first 20 of the PDF's 50 pages were read: this instance reads at most 20 pages of a document.");
      expect(doc.metadata.numPages).toBe(50);
      expect(doc.markdown?.split('\n\n')).toHaveLength(20);
    });

    it('reads no further page once its read budget has passed', async () => {
      let clock = 0;
      // Every reading of the clock is 1 s later: the budget of 2.5 s passes while page 3 is read.
      const pdf = await readPdf(manyPagePdf(10), limits({ readBudgetMs: 2500 }), () => (clock += 1000));
      expect(pdf).toMatchObject({ numPages: 10, stopped: 'time' });
      expect(pdf.pages.length).toBeGreaterThanOrEqual(1);
      expect(pdf.pages.length).toBeLessThan(10);
    });

    it('reads a PDF within its limits whole, without a warning', async () => {
      const doc = await parseUpload({ filename: 'a.pdf', mimetype: 'application/pdf', data: minimalPdf([['One'], ['Two']]) });
      expect(doc.warning).toBeUndefined();
      expect(doc.markdown).toBe('One\n\nTwo');
    });
  });

  describe('uploads are read as what their bytes are', () => {
    const PDF = minimalPdf([['Quarterly report']]);
    const DOCX = minimalDocx([{ paragraph: 'Notes' }]);

    it('a PDF or DOCX sent as another type, named as another, or as an image', () => {
      expect(judgeUpload({ filename: 'page.html', mimetype: 'text/html', data: PDF })).toEqual({
        kind: 'pdf',
        warning: 'The file was sent as text/html but its bytes are a PDF: it was read as a PDF.',
      });
      expect(judgeUpload({ filename: 'notes.txt', mimetype: 'application/octet-stream', data: DOCX })).toEqual({
        kind: 'docx',
        warning: 'The file was named "notes.txt" but its bytes are a DOCX document: it was read as a DOCX document.',
      });
      expect(judgeUpload({ filename: 'scan.png', mimetype: 'image/png', data: PDF })).toMatchObject({ kind: 'pdf', warning: expect.stringContaining('sent as image/png') });
      expect(judgeUpload({ filename: 'report.pdf', mimetype: 'application/pdf', data: PDF })).toEqual({ kind: 'pdf' });
      expect(judgeUpload({ filename: 'upload', mimetype: '', data: PDF })).toEqual({ kind: 'pdf' });
    });

    it('a file sent as a PDF whose bytes are HTML is read as HTML; binary that is no PDF stays a PDF (and is found damaged)', () => {
      expect(judgeUpload({ filename: 'x.pdf', mimetype: 'application/pdf', data: Buffer.from('<!doctype html><h1>Error</h1>') })).toEqual({
        kind: 'html',
        warning: 'The file was sent as application/pdf but its bytes are HTML: it was read as HTML.',
      });
      expect(judgeUpload({ filename: 'x.pdf', mimetype: 'application/pdf', data: Buffer.from([0, 1, 2, 3]) })).toEqual({ kind: 'pdf' });
      expect(judgeUpload({ filename: 'x.md', mimetype: 'text/markdown', data: Buffer.from('<div>markup in markdown</div>') })).toEqual({ kind: 'markdown' });
    });

    it('parses a PDF sent as text/html as a PDF, with the warning', async () => {
      const doc = await parseUpload({ filename: 'report.html', mimetype: 'text/html; charset=utf-8', data: PDF });
      expect(doc.markdown).toBe('Quarterly report');
      expect(doc.metadata.contentType).toBe('application/pdf');
      expect(doc.warning).toBe('The file was sent as text/html but its bytes are a PDF: it was read as a PDF.');
      expect(Object.keys(doc).at(-1)).toBe('warning');
    });

    it('reads a fetched page declared text/html whose bytes are a PDF as the PDF (when pdf is allowed)', async () => {
      const { buildDocument } = await import('../../actors/parser/document/index.js');
      const input = { bytes: PDF, contentType: 'text/html', url: 'https://example.com/r', finalUrl: 'https://example.com/r', statusCode: 200, headers: {} };
      const doc = await buildDocument(input, { parsers: ['pdf'] });
      expect(doc.markdown).toBe('Quarterly report');
      expect(doc.warning).toBe('The page was sent as text/html but its bytes are a PDF: it was read as a PDF.');
      expect(hasCode(await failure(buildDocument(input, {})), 'unsupported_content')).toBe(true);
    });
  });
});
