/**
 * The parser's pure core: a fetched response (bytes in) → a scrape document (formats and
 * metadata out). No network, bus or store.
 *
 * `buildDocument` is async because PDF and DOCX readers are; HTML and text pages are built
 * synchronously inside it on the caller's thread (call `buildHtmlDocument` directly for a
 * synchronous loop), while PDF and DOCX, and HTML and text pages too large or with too many
 * tags (`readsOffThread`), go to the `DocumentReader` (read.ts: the parser's worker pool). The kind comes from the Content-Type; an undeclared one (none, octet-stream)
 * is sniffed from the bytes, and so is a body whose bytes are a PDF or DOCX whatever it was
 * declared as (a PDF sent as text/html is not parsed as HTML). PDF is read only when
 * `parsers` includes `pdf` (the upload endpoint always allows it). Anything else is
 * `unsupported_content`.
 */
import type { CheerioAPI } from 'cheerio';
import { AppError } from '../../../pipeline/runtime/errors.js';
import { readsOffThread } from '../../../pipeline/runtime/markup-limits.js';
import type { ExtractionPlan } from '../../../pipeline/structured/plan.js';
import { readPage, type PageReading } from '../page-data/index.js';
import { type DocumentKind, MEDIA_TYPE_OF, isUndeclared, kindOfFilename, kindOfMediaType, magicKind, mediaTypeOf, sniffKind } from './detect.js';
import { withWarning, type HtmlMode, type ResponseFacts } from './html.js';
import { DEFAULT_DOCUMENT_LIMITS } from './limits.js';
import { resolveOptions } from './options.js';
import { inThreadReader, readOfKind, type DocumentReader } from './read.js';
import type { DocumentInput, DocumentOptions, ScrapeDocument } from './types.js';

/**
 * A fetched HTML or text page is read by the reader's `readPage` (the parser's document
 * workers, within their time and memory limits) rather than on the caller's thread when it is
 * heavy markup (pipeline/runtime/markup-limits.ts `readsOffThread`: over 2 MiB or 40,000 `<`),
 * with the links and the `json` format's reading of the page (`hooks.extraction`) read there
 * too. A worker reads a page slower than the warm thread (its code is cold), and starting one
 * costs more than an ordinary page, so ordinary pages stay here.
 */
export { OFF_THREAD_PAGE_BYTES, OFF_THREAD_PAGE_TAGS, readsOffThread } from '../../../pipeline/runtime/markup-limits.js';

/** Documents read without a reader of the caller's: on its thread, under the default limits. */
const IN_THREAD = inThreadReader(DEFAULT_DOCUMENT_LIMITS);

const NAMES: Readonly<Record<DocumentKind, string>> = {
  html: 'HTML',
  markdown: 'markdown',
  text: 'plain text',
  json: 'JSON',
  xml: 'XML',
  pdf: 'a PDF',
  docx: 'a DOCX document',
};


function unsupported(what: string): AppError {
  return new AppError(
    'unsupported_content',
    `The content type ${what} is not one the service reads (HTML, XHTML, XML, text, markdown, JSON, DOCX, or PDF when parsers includes "pdf").`,
  );
}

/** What a caller learns of a page while its document is built. */
export interface DocumentHooks {
  /** An HTML page's links, whatever the formats (HtmlMode.pageLinks); not called for other kinds. */
  readonly pageLinks?: (links: string[]) => void;
  /**
   * The `json` format's reading of an HTML page as loaded, untouched (page-data `readPage`,
   * through HtmlMode.read), handed to `found` from whichever thread read the page; not called
   * for other kinds.
   */
  readonly extraction?: { readonly plan: ExtractionPlan; readonly found: (reading: PageReading) => void };
}

function htmlHooks(hooks: DocumentHooks): HtmlMode {
  const { pageLinks, extraction } = hooks;
  return {
    ...(pageLinks ? { pageLinks } : {}),
    ...(extraction ? { read: ($: CheerioAPI, base: string) => extraction.found(readPage($, base, extraction.plan)) } : {}),
  };
}

/**
 * A fetched page → its scrape document. Throws AppError `unsupported_content` (and, from the
 * reader, `file_too_complex`). PDF and DOCX are read by `reader` (default: on this thread);
 * a page declared as another type whose bytes are a PDF or DOCX is read as one, with a
 * `warning`.
 */
export async function buildDocument(
  input: DocumentInput,
  options: DocumentOptions = {},
  hooks: DocumentHooks = {},
  reader: DocumentReader = IN_THREAD,
  signal?: AbortSignal,
): Promise<ScrapeDocument> {
  const resolved = resolveOptions(options);
  const declared = mediaTypeOf(input.contentType);
  const named = isUndeclared(input.contentType) ? null : kindOfMediaType(input.contentType);
  const binary = magicKind(input.bytes);
  const kind = binary ?? named ?? (isUndeclared(input.contentType) ? sniffKind(input.bytes) : null);
  if (!kind) throw unsupported(declared ? `"${declared}"` : '(none, and the body is binary)');
  if (kind === 'pdf' && !resolved.pdf) {
    throw new AppError('unsupported_content', 'The page is a PDF; add "pdf" to `parsers` to read it.');
  }
  const mislabelled = binary !== null && named !== null && binary !== named;
  const facts: ResponseFacts = {
    url: input.url,
    finalUrl: input.finalUrl,
    statusCode: input.statusCode,
    contentType: mislabelled || !input.contentType ? MEDIA_TYPE_OF[kind] : input.contentType,
    headers: input.headers,
  };
  if (kind !== 'pdf' && kind !== 'docx') {
    if (reader.readPage && readsOffThread(input.bytes)) {
      const { pageLinks, extraction } = hooks;
      const job = { kind, bytes: input.bytes, facts, options: resolved, ...(pageLinks ? { links: true } : {}), ...(extraction ? { extraction: extraction.plan } : {}) };
      const { document, links, reading } = await reader.readPage(job, signal);
      if (links && pageLinks) pageLinks(links);
      if (reading && extraction) extraction.found(reading);
      return document;
    }
    return readOfKind(kind, input.bytes, facts, resolved, DEFAULT_DOCUMENT_LIMITS, htmlHooks(hooks));
  }
  const doc = await reader.read({ kind, bytes: input.bytes, facts, options: resolved }, signal);
  return withWarning(doc, mislabelled ? `The page was sent as ${declared} but its bytes are ${NAMES[kind]}: it was read as ${NAMES[kind]}.` : undefined);
}

/** An uploaded file, as the multipart handler gives it. */
export interface UploadedFile {
  readonly filename: string;
  readonly mimetype: string;
  readonly data: Buffer;
}

/** Declared types of media that are not documents; `image/svg+xml` is read as XML before this applies. */
const MEDIA_NOT_DOCUMENTS = /^(?:image|audio|video|font|model)\//;

/** How an upload is to be read: its kind (null: none the parser reads), and a warning when its declaration said otherwise. */
export interface UploadJudgement {
  readonly kind: DocumentKind | null;
  readonly warning?: string;
}

/**
 * The kind of an upload. Bytes that are a PDF or a DOCX (their magic numbers) are read as
 * such whatever the upload was declared as, with a warning when its type or extension said
 * otherwise. Otherwise: its declared type, else its extension, else its first bytes. A file
 * declared as an image, audio, video, font or 3-D model is a document only if its bytes are
 * one (a small image without a NUL byte in its first KB would otherwise be read as text); one
 * declared as a PDF or DOCX whose bytes are text is read as the text it is, with a warning.
 */
export function judgeUpload(file: UploadedFile): UploadJudgement {
  const type = mediaTypeOf(file.mimetype);
  const byType = isUndeclared(file.mimetype) ? null : kindOfMediaType(file.mimetype);
  const byName = kindOfFilename(file.filename);
  const binary = magicKind(file.data);
  const sentAs = byType || MEDIA_NOT_DOCUMENTS.test(type) ? `sent as ${type}` : `named "${file.filename}"`;
  const said = (kind: DocumentKind) => `The file was ${sentAs} but its bytes are ${NAMES[kind]}: it was read as ${NAMES[kind]}.`;
  if (binary) {
    const disagrees = byType ? byType !== binary : MEDIA_NOT_DOCUMENTS.test(type) || (byName !== null && byName !== binary);
    return disagrees ? { kind: binary, warning: said(binary) } : { kind: binary };
  }
  if (!byType && MEDIA_NOT_DOCUMENTS.test(type)) return { kind: null };
  const claimed = byType ?? byName;
  if (claimed === 'pdf' || claimed === 'docx') {
    const sniffed = sniffKind(file.data);
    return sniffed ? { kind: sniffed, warning: said(sniffed) } : { kind: claimed };
  }
  return { kind: claimed ?? sniffKind(file.data) };
}

/** The kind an upload is read as (judgeUpload's). */
export function uploadKind(file: UploadedFile): DocumentKind | null {
  return judgeUpload(file).kind;
}

/**
 * POST /v1/parse: an uploaded PDF, DOCX, HTML, markdown or text file (JSON and XML too) →
 * the same document shape. `sourceURL` and `url` are `upload://<filename>`; `statusCode`
 * is 200; `contentType` is the kind's media type (with the upload's charset parameter when it
 * gave one and was read as what it declared). PDF needs no `parsers` option here. Every
 * upload, whatever its kind, is read by `reader` (the parser's worker pool; default: on this
 * thread); a warning of `judgeUpload` is added to the document's.
 */
export async function parseUpload(file: UploadedFile, options: DocumentOptions = {}, reader: DocumentReader = IN_THREAD, signal?: AbortSignal): Promise<ScrapeDocument> {
  const { kind, warning } = judgeUpload(file);
  if (!kind) {
    throw new AppError(
      'unsupported_content',
      `The file "${file.filename}" (${file.mimetype || 'no type'}) is not a supported document: PDF, DOCX, HTML, markdown or plain text.`,
    );
  }
  const resolved = { ...resolveOptions(options), pdf: true };
  const charset = warning ? '' : (/;\s*charset\s*=.*/i.exec(file.mimetype)?.[0] ?? '');
  const url = `upload://${encodeURIComponent(file.filename || 'document')}`;
  const facts: ResponseFacts = { url, finalUrl: url, statusCode: 200, contentType: MEDIA_TYPE_OF[kind] + charset, headers: {} };
  return withWarning(await reader.read({ kind, bytes: file.data, facts, options: resolved }, signal), warning);
}
