/**
 * The parser's pure core: a fetched response (bytes in) → a scrape document (formats and
 * metadata out). No network, bus or store.
 *
 * `buildDocument` is async because PDF and DOCX readers are; HTML and text are built
 * synchronously inside it (call `buildHtmlDocument` directly for a synchronous loop).
 * The kind comes from the Content-Type; an undeclared one (none, octet-stream) is sniffed
 * from the bytes. PDF is read only when `parsers` includes `pdf` (the upload endpoint
 * always allows it). Anything else is `unsupported_content`.
 */
import { decodeBody } from '../../../pipeline/runtime/net/charset.js';
import { AppError } from '../../../pipeline/runtime/errors.js';
import { type DocumentKind, MEDIA_TYPE_OF, isUndeclared, kindOfFilename, kindOfMediaType, mediaTypeOf, sniffKind } from './detect.js';
import { buildDocxDocument } from './docx.js';
import { buildHtmlDocument, type HtmlMode, type ResponseFacts } from './html.js';
import { type ResolvedOptions, resolveOptions } from './options.js';
import { buildPdfDocument } from './pdf.js';
import { buildTextDocument } from './text.js';
import type { DocumentInput, DocumentOptions, ScrapeDocument } from './types.js';

/** Builds a document of a known kind (the caller has decided PDF is allowed). */
export async function buildOfKind(
  kind: DocumentKind,
  bytes: Buffer,
  facts: ResponseFacts,
  options: ResolvedOptions,
  hooks: DocumentHooks = {},
): Promise<ScrapeDocument> {
  switch (kind) {
    case 'pdf':
      return buildPdfDocument(bytes, facts, options);
    case 'docx':
      return buildDocxDocument(bytes, facts, options);
    case 'html':
      return buildHtmlDocument(decodeBody(bytes, facts.contentType).text, facts, options, htmlHooks(hooks));
    default:
      return buildTextDocument(decodeBody(bytes, facts.contentType).text, kind, facts, options);
  }
}

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
  /** An HTML page as loaded, untouched (HtmlMode.read); not called for other kinds. */
  readonly read?: HtmlMode['read'];
}

function htmlHooks(hooks: DocumentHooks): HtmlMode {
  return { ...(hooks.pageLinks ? { pageLinks: hooks.pageLinks } : {}), ...(hooks.read ? { read: hooks.read } : {}) };
}

/** A fetched page → its scrape document. Throws AppError `unsupported_content`. */
export async function buildDocument(input: DocumentInput, options: DocumentOptions = {}, hooks: DocumentHooks = {}): Promise<ScrapeDocument> {
  const resolved = resolveOptions(options);
  const declared = mediaTypeOf(input.contentType);
  const kind = isUndeclared(input.contentType) ? sniffKind(input.bytes) : kindOfMediaType(input.contentType);
  if (!kind) throw unsupported(declared ? `"${declared}"` : '(none, and the body is binary)');
  if (kind === 'pdf' && !resolved.pdf) {
    throw new AppError('unsupported_content', 'The page is a PDF; add "pdf" to `parsers` to read it.');
  }
  const facts: ResponseFacts = {
    url: input.url,
    finalUrl: input.finalUrl,
    statusCode: input.statusCode,
    contentType: input.contentType || MEDIA_TYPE_OF[kind],
    headers: input.headers,
  };
  return buildOfKind(kind, input.bytes, facts, resolved, hooks);
}

/** An uploaded file, as the multipart handler gives it. */
export interface UploadedFile {
  readonly filename: string;
  readonly mimetype: string;
  readonly data: Buffer;
}

/** Declared types of media that are not documents; `image/svg+xml` is read as XML before this applies. */
const MEDIA_NOT_DOCUMENTS = /^(?:image|audio|video|font|model)\//;

/**
 * The kind of an upload: its declared type, else its extension, else its first bytes. A file
 * declared as an image, audio, video, font or 3-D model is a document only if its bytes
 * begin as one (PDF, DOCX): a small image without a NUL byte in its first KB would otherwise
 * be read as text.
 */
export function uploadKind(file: UploadedFile): DocumentKind | null {
  const declared = isUndeclared(file.mimetype) ? null : kindOfMediaType(file.mimetype);
  if (declared) return declared;
  if (MEDIA_NOT_DOCUMENTS.test(mediaTypeOf(file.mimetype))) {
    const sniffed = sniffKind(file.data);
    return sniffed === 'pdf' || sniffed === 'docx' ? sniffed : null;
  }
  return kindOfFilename(file.filename) ?? sniffKind(file.data);
}

/**
 * POST /v1/parse: an uploaded PDF, DOCX, HTML, markdown or text file (JSON and XML too) →
 * the same document shape. `sourceURL` and `url` are `upload://<filename>`; `statusCode`
 * is 200; `contentType` is the detected kind's media type (with the upload's charset
 * parameter when it gave one). PDF needs no `parsers` option here.
 */
export async function parseUpload(file: UploadedFile, options: DocumentOptions = {}): Promise<ScrapeDocument> {
  const kind = uploadKind(file);
  if (!kind) {
    throw new AppError(
      'unsupported_content',
      `The file "${file.filename}" (${file.mimetype || 'no type'}) is not a supported document: PDF, DOCX, HTML, markdown or plain text.`,
    );
  }
  const resolved = { ...resolveOptions(options), pdf: true };
  const charset = /;\s*charset\s*=.*/i.exec(file.mimetype)?.[0] ?? '';
  const url = `upload://${encodeURIComponent(file.filename || 'document')}`;
  const facts: ResponseFacts = { url, finalUrl: url, statusCode: 200, contentType: MEDIA_TYPE_OF[kind] + charset, headers: {} };
  return buildOfKind(kind, file.data, facts, resolved);
}
