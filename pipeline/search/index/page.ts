/**
 * The parser's hook into the local index: a freshly fetched page that the parser stores in
 * `pages` is also written to `search_docs` and `search_page_terms` (its postings, which reach
 * `search_postings` through the 0005 materialized view): one row each, through the batch
 * writer (actors/parser/index.ts handlePageFetched, in parallel with the `pages` write,
 * awaited with it).
 *
 * - Indexed: pages answered with a status below 400 whose media type is HTML (`text/html`,
 *   `application/xhtml+xml`), plain text or markdown. Error pages, PDFs, DOCX, JSON, XML,
 *   feeds and the rest are not. The media type is the one the document reports (the parser's
 *   reading of an undeclared body), else the response's.
 * - The copy is filed as `pages` files it: the normalized URL and shareable flag of the
 *   request's cache plan (pipeline/pages/cache.ts), and the time the request was made
 *   (`requestedAtMs`, else `fetchedAtMs` for events written before it existed), so a page
 *   stored again after a crash lands on the same rows.
 * - What is indexed comes from the built document (rows.ts pageIndexFacts).
 */
import type { ScrapeOptions } from '../../../schemas/api/scrape-options.js';
import { cachePlan } from '../../pages/cache.js';
import type { BatchWriter } from '../../runtime/store/batch-writer.js';
import { indexRows, pageIndexFacts, type IndexRows } from './rows.js';

/** What the hook reads of a PageFetched event. */
export interface FetchedPage {
  readonly tenant: string;
  readonly url: string;
  readonly statusCode: number;
  readonly contentType: string;
  readonly requestedAtMs: number;
  readonly fetchedAtMs: number;
  readonly cacheKey: string;
}

const INDEXED_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'text/x-markdown']);

/** Whether a page with this status and Content-Type goes into the index. */
export function isIndexable(statusCode: number, contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return statusCode < 400 && INDEXED_TYPES.has(type);
}

/** The media type the parser read the page as: the document's (set even when the response declared none), else the response's. */
function contentTypeOf(page: FetchedPage, document: object): string {
  const metadata = (document as { metadata?: unknown }).metadata as Readonly<Record<string, unknown>> | undefined;
  return typeof metadata?.contentType === 'string' && metadata.contentType ? metadata.contentType : page.contentType;
}

/** The index rows of a fetched page and its built document; null when the page is not indexed. */
export function pageSearchRows(page: FetchedPage, document: object, options: ScrapeOptions): IndexRows | null {
  if (!isIndexable(page.statusCode, contentTypeOf(page, document))) return null;
  const plan = cachePlan(page.url, options, page.cacheKey);
  return indexRows({
    tenant: page.tenant,
    url: plan.url,
    shareable: plan.shareable,
    fetchedAtMs: page.requestedAtMs > 0 ? page.requestedAtMs : page.fetchedAtMs,
    ...pageIndexFacts(document),
  });
}

/** Writes a page's index rows (both tables at once); resolves when both landed. */
export async function writeSearchRows(
  writer: Pick<BatchWriter, 'write'>,
  page: FetchedPage,
  document: object,
  options: ScrapeOptions,
): Promise<void> {
  const rows = pageSearchRows(page, document, options);
  if (!rows) return;
  await Promise.all([writer.write('search_docs', [rows.doc]), writer.write('search_page_terms', [rows.terms])]);
}
