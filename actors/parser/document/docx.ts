/**
 * DOCX → HTML with mammoth (headings, lists, tables, links, images, by Word style), then the
 * same HTML → markdown path as a web page, without main-content extraction (a document has
 * no navigation to drop). `rawHtml` is mammoth's HTML. The title is the first `<h1>` when
 * the document has one (mammoth does not read docProps/core.xml).
 *
 * Images: with `removeBase64Images` (the default) they are not even encoded — each becomes
 * its alt text, like an inline base64 image on a web page; otherwise they are inlined as
 * `data:` URIs, as mammoth does by default. Linked external files are never read.
 *
 * Before mammoth opens the zip, every entry is inflated once and counted (zip.ts): a zip bomb
 * is `file_too_complex` before anything is held in memory.
 *
 * A file mammoth cannot open (not a zip, no word/document.xml) is `unsupported_content`.
 */
import { load } from 'cheerio';
import { AppError } from '../../../pipeline/runtime/errors.js';
import { buildHtmlDocument, type ResponseFacts } from './html.js';
import type { DocumentLimits } from './limits.js';
import type { ResolvedOptions } from './options.js';
import type { ScrapeDocument } from './types.js';
import { checkZipInflation } from './zip.js';

export async function docxToHtml(bytes: Buffer, inlineImages: boolean): Promise<string> {
  const mammoth = (await import('mammoth')).default;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: bytes },
      {
        externalFileAccess: false,
        ...(inlineImages ? {} : { convertImage: mammoth.images.imgElement(async () => ({ src: 'data:,' })) }),
      },
    );
    return result.value;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError('unsupported_content', `The DOCX document could not be read: ${reason}`, { cause: error });
  }
}

export async function buildDocxDocument(bytes: Buffer, facts: ResponseFacts, options: ResolvedOptions, limits: DocumentLimits): Promise<ScrapeDocument> {
  await checkZipInflation(bytes, limits);
  const fragment = await docxToHtml(bytes, !options.removeBase64Images);
  const title = load(fragment)('h1').first().text().replace(/\s+/g, ' ').trim();
  const html = `<!doctype html><html><head>${title ? `<title>${title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</title>` : ''}</head><body>${fragment}</body></html>`;
  return buildHtmlDocument(html, facts, options, { rawHtml: fragment, wholeDocument: true });
}
