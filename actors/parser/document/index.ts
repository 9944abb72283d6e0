/**
 * The parser's pure core, public API: bytes in, scrape document out.
 *
 * - `buildDocument(input, options, hooks, reader)` — a fetched page (PageFetched) → document;
 * - `parseUpload(file, options, reader)` — an uploaded file (POST /v1/parse) → document;
 * - `DocumentPool` — the reader of PDF, DOCX and uploads in worker threads, within the
 *   DOCUMENT_* limits (without one, documents are read on the caller's thread);
 * - `buildHtmlDocument(html, facts, resolveOptions(options))` — the synchronous HTML path,
 *   for benchmarks and loops;
 * - `otherFormats(formats)` — requested formats this module does not produce (json,
 *   summary, screenshot, network, changeTracking), for the caller to serve or refuse.
 */
export { buildDocument, OFF_THREAD_PAGE_BYTES, OFF_THREAD_PAGE_TAGS, readsOffThread, judgeUpload, parseUpload, uploadKind, type UploadedFile, type UploadJudgement } from './build.js';
export { buildHtmlDocument, type ResponseFacts } from './html.js';
export { otherFormats, resolveOptions, type ResolvedOptions } from './options.js';
export { type DocumentKind, kindOfMediaType, sniffKind } from './detect.js';
export { DEFAULT_DOCUMENT_LIMITS, documentLimits, type DocumentLimits } from './limits.js';
export { DocumentPool } from './pool.js';
export { inThreadReader, type DocumentJob, type DocumentReader } from './read.js';
export type { DocumentInput, DocumentMetadata, DocumentOptions, MediaItem, ScrapeDocument } from './types.js';
export { PARSER_FORMATS } from './types.js';
