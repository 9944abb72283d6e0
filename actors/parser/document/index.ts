/**
 * The parser's pure core, public API: bytes in, scrape document out.
 *
 * - `buildDocument(input, options)` — a fetched page (PageFetched) → document;
 * - `parseUpload(file, options)` — an uploaded file (POST /v1/parse) → document;
 * - `buildHtmlDocument(html, facts, resolveOptions(options))` — the synchronous HTML path,
 *   for benchmarks and loops;
 * - `otherFormats(formats)` — requested formats this module does not produce (json,
 *   summary, screenshot, network, changeTracking), for the caller to serve or refuse.
 */
export { buildDocument, parseUpload, uploadKind, type UploadedFile } from './build.js';
export { buildHtmlDocument, type ResponseFacts } from './html.js';
export { otherFormats, resolveOptions, type ResolvedOptions } from './options.js';
export { type DocumentKind, kindOfMediaType, sniffKind } from './detect.js';
export type { DocumentInput, DocumentMetadata, DocumentOptions, MediaItem, ScrapeDocument } from './types.js';
export { PARSER_FORMATS } from './types.js';
