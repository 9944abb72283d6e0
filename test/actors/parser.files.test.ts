/**
 * actors/parser/document on bodies that are not HTML pages: plain text, markdown, JSON,
 * XML, PDF (hand-written), DOCX (zipped in the test), uploads, unsupported and corrupt files.
 */
import { describe, expect, it } from 'vitest';
import { buildDocument, parseUpload, uploadKind, type DocumentOptions } from '../../actors/parser/document/index.js';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { minimalDocx, minimalPdf, zip } from '../fixtures/documents/generate.js';
import { rejection } from '../helpers/wait.js';

const URL_ = 'https://example.com/files/doc';

function body(bytes: Buffer | string, contentType: string, options: DocumentOptions = {}) {
  const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return buildDocument({ bytes: data, contentType, url: URL_, finalUrl: URL_, statusCode: 200, headers: {} }, options);
}

const failure = (promise: Promise<unknown>) => rejection<Error & { code?: string }>(promise);

const PDF = minimalPdf([['Quarterly report', 'Revenue grew by (12%) this quarter.'], ['Second page text.']], 'Quarterly Report 2026');
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const DOCX = minimalDocx([{ heading: 'Meeting notes' }, { paragraph: 'First point & detail.' }, { paragraph: 'See https://example.org/agenda for more.' }]);

describe('actors/parser/document (files)', () => {
  it('text/plain: the markdown is the text; html wraps it in <pre>', async () => {
    const text = 'Hello <world>\n\nSecond line: see https://example.org/a.';
    const doc = await body(text, 'text/plain; charset=utf-8', { formats: ['markdown', 'html', 'rawHtml', 'links'] });
    expect(doc.markdown).toBe(text);
    expect(doc.html).toBe('<pre>Hello &lt;world&gt;\n\nSecond line: see https://example.org/a.</pre>');
    expect(doc.rawHtml).toBe(text);
    expect(doc.links).toEqual(['https://example.org/a']);
    expect(doc.metadata).toEqual({ statusCode: 200, contentType: 'text/plain; charset=utf-8', sourceURL: URL_, url: URL_ });
  });

  it('text/markdown: kept as is, title from the first heading, links resolved', async () => {
    const md = '# Read me\n\nSee [docs](../docs/) and ![logo](/logo.png).';
    const doc = await body(md, 'text/markdown', { formats: ['markdown', 'links', 'media'] });
    expect(doc.markdown).toBe(md);
    expect(doc.metadata.title).toBe('Read me');
    expect(doc.links).toEqual(['https://example.com/docs/']);
    expect(doc.media).toEqual([{ type: 'image', url: 'https://example.com/logo.png', alt: 'logo' }]);
  });

  it('text bodies are read in one pass whatever they hold', async () => {
    // Each input made a regex of text.ts scan to the end again from every start: quadratic
    // (the title's cubic), over a minute at these sizes. The results are those it gave.
    const newlines = '\n'.repeat(150_000);
    expect((await body(`{"a": 1}${newlines} `, 'application/json')).markdown).toBe(`\`\`\`json\n{"a": 1}${newlines} \n\`\`\``);
    expect((await body(`{"a": 1}${newlines}`, 'application/json')).markdown).toBe('```json\n{"a": 1}\n```');
    const dots = '.'.repeat(150_000);
    expect((await body(`see https://example.org/a${dots}b, or https://example.org/c.`, 'text/plain', { formats: ['links'] })).links).toEqual([`https://example.org/a${dots}b`, 'https://example.org/c']);
    const brackets = `${'['.repeat(150_000)}\n${'[](a'.repeat(60_000)} [docs](../docs/) ![logo](</logo.png> "Logo")`;
    const md = await body(brackets, 'text/markdown', { formats: ['links', 'media'] });
    expect(md.links).toEqual(['https://example.com/docs/']);
    expect(md.media).toEqual([{ type: 'image', url: 'https://example.com/logo.png', alt: 'logo' }]);
    const spaces = ' '.repeat(5_000);
    expect((await body(`# A${spaces}title${spaces}##${spaces}\n\ntext`, 'text/markdown')).metadata.title).toBe(`A${spaces}title`);
  });

  it('JSON and XML become fenced code blocks', async () => {
    const json = '{"a": 1, "code": "```"}';
    expect((await body(json, 'application/json')).markdown).toBe(`\`\`\`\`json\n${json}\n\`\`\`\``);
    const xml = '<?xml version="1.0"?><feed><title>x</title></feed>';
    expect((await body(xml, 'application/atom+xml')).markdown).toBe(`\`\`\`xml\n${xml}\n\`\`\``);
  });

  it('an undeclared type is sniffed from the bytes', async () => {
    const doc = await body(`<!doctype html><title>Sniffed</title><p>${'text '.repeat(60)}</p>`, 'application/octet-stream');
    expect(doc.metadata.title).toBe('Sniffed');
  });

  it('PDF with parsers: ["pdf"]: text per page as markdown paragraphs, numPages and title', async () => {
    const doc = await body(PDF, 'application/pdf', { parsers: ['pdf'], formats: ['markdown', 'html'] });
    expect(doc.markdown).toBe('Quarterly report\nRevenue grew by (12%) this quarter.\n\nSecond page text.');
    expect(doc.html).toContain('<section data-page="2"><p>Second page text.</p></section>');
    expect(doc.metadata).toMatchObject({ title: 'Quarterly Report 2026', numPages: 2, contentType: 'application/pdf', statusCode: 200 });
  });

  it('PDF links: trailing punctuation trimmed in one pass, even after a long inner run of dots', async () => {
    // /[.,;:!?]+$/ scanned the run to its end from every dot (quadratic: over a minute here).
    const dots = '.'.repeat(150_000);
    // At 0.01 pt the whole line lies on the page (pdf.js leaves out text past its edge); same length as `12 Tf`.
    const pdf = Buffer.from(minimalPdf([['See https://example.org/report. And', `https://example.org/a${dots}b here.`]]).toString('latin1').replace('/F1 12 Tf', '/F1 .01Tf'), 'latin1');
    const doc = await body(pdf, 'application/pdf', { parsers: ['pdf'], formats: ['links'] });
    expect(doc.links).toEqual(['https://example.org/report', `https://example.org/a${dots}b`]);
  });

  it('PDF without the pdf parser is unsupported_content', async () => {
    const error = await failure(body(PDF, 'application/pdf'));
    expect(hasCode(error, 'unsupported_content')).toBe(true);
    expect(error.message).toContain('parsers');
  });

  it('a corrupt PDF is unsupported_content with a clear message, not a crash', async () => {
    for (const bytes of [Buffer.from('%PDF-1.4\nthis is not a pdf at all'), PDF.subarray(0, 200)]) {
      const error = await failure(body(bytes, 'application/pdf', { parsers: ['pdf'] }));
      expect(hasCode(error, 'unsupported_content')).toBe(true);
      expect(error.message).toMatch(/^The PDF could not be read/);
    }
  });

  it('DOCX: mammoth HTML → markdown with heading and paragraphs', async () => {
    const doc = await body(DOCX, DOCX_TYPE, { formats: ['markdown', 'links'] });
    expect(doc.markdown).toBe('# Meeting notes\n\nFirst point & detail.\n\nSee https://example.org/agenda for more.');
    expect(doc.metadata.title).toBe('Meeting notes');
    expect(doc.links).toEqual([]);
  });

  it('a broken DOCX is unsupported_content', async () => {
    const error = await failure(body(zip({ 'hello.txt': 'not a document' }), DOCX_TYPE));
    expect(hasCode(error, 'unsupported_content')).toBe(true);
  });

  it('an unsupported type is unsupported_content', async () => {
    for (const [bytes, type] of [
      [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), 'image/png'],
      [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), ''],
      [Buffer.from('GIF89a'), 'application/zip'],
    ] as const) {
      const error = await failure(body(bytes, type));
      expect(hasCode(error, 'unsupported_content')).toBe(true);
    }
  });
});

describe('actors/parser/document parseUpload', () => {
  it('detects the type from mimetype, then extension, then magic bytes', () => {
    const kind = (filename: string, mimetype: string, data: Buffer | string) =>
      uploadKind({ filename, mimetype, data: typeof data === 'string' ? Buffer.from(data) : data });
    expect(kind('x.bin', 'application/pdf', PDF)).toBe('pdf');
    expect(kind('notes.md', 'application/octet-stream', '# hi')).toBe('markdown');
    expect(kind('report.docx', '', DOCX)).toBe('docx');
    expect(kind('upload', 'application/octet-stream', PDF)).toBe('pdf');
    expect(kind('upload', 'application/octet-stream', DOCX)).toBe('docx');
    expect(kind('upload', '', '  <!DOCTYPE html><html></html>')).toBe('html');
    expect(kind('upload', '', 'just words')).toBe('text');
    expect(kind('archive.zip', 'application/zip', zip({ 'a.txt': 'a' }))).toBeNull();
  });

  it('reads a file declared as an image, audio or video as a document only when its bytes begin as one', () => {
    const kind = (filename: string, mimetype: string, data: Buffer | string) =>
      uploadKind({ filename, mimetype, data: typeof data === 'string' ? Buffer.from(data) : data });
    // Tiny media with no NUL byte in its first KB: sniffed alone, it would be text.
    expect(kind('dot.gif', 'image/gif', 'GIF89a\x01\x01')).toBeNull();
    expect(kind('notes.txt', 'image/png', 'looks like words')).toBeNull();
    expect(kind('clip', 'audio/mpeg', 'ID3 tag text')).toBeNull();
    expect(kind('movie.md', 'video/mp4', '# not markdown')).toBeNull();
    expect(kind('scan.png', 'image/png', PDF)).toBe('pdf');
    expect(kind('notes', 'image/jpeg', DOCX)).toBe('docx');
    expect(kind('drawing.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>')).toBe('xml');
  });

  it('parses an uploaded PDF without the parsers option; sourceURL is upload://<filename>', async () => {
    const doc = await parseUpload({ filename: 'report.pdf', mimetype: 'application/octet-stream', data: PDF });
    expect(doc.markdown).toContain('Revenue grew by (12%) this quarter.');
    expect(doc.metadata).toMatchObject({ sourceURL: 'upload://report.pdf', url: 'upload://report.pdf', contentType: 'application/pdf', numPages: 2 });
  });

  it('parses uploaded DOCX, HTML and text', async () => {
    const docx = await parseUpload({ filename: 'notes.docx', mimetype: DOCX_TYPE, data: DOCX });
    expect(docx.markdown).toContain('# Meeting notes');
    const html = await parseUpload({ filename: 'page.html', mimetype: 'text/html', data: Buffer.from('<h1>Up</h1><p><a href="https://example.org/">x</a></p>') }, { formats: ['markdown', 'links'] });
    expect(html.markdown).toBe('# Up\n\n[x](https://example.org/)');
    expect(html.links).toEqual(['https://example.org/']);
    const text = await parseUpload({ filename: 'a.txt', mimetype: 'text/plain', data: Buffer.from('plain words') });
    expect(text).toEqual({ markdown: 'plain words', metadata: { statusCode: 200, contentType: 'text/plain', sourceURL: 'upload://a.txt', url: 'upload://a.txt' } });
  });

  it('refuses an unsupported upload with unsupported_content', async () => {
    const error = await failure(parseUpload({ filename: 'photo.png', mimetype: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]) }));
    expect(hasCode(error, 'unsupported_content')).toBe(true);
    expect(error.message).toContain('photo.png');
  });
});
