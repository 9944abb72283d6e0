/**
 * The parser's hook into the local index: a freshly fetched page that the parser stores in
 * `pages` is also written to `search_docs` and `search_page_terms` (its postings, which reach
 * `search_postings` through the 0005 materialized view): one row each, through the batch
 * writer's lazy batches (writeSearchRows: about one insert a second per table, which the
 * page's reply does not wait for; actors/parser/index.ts handlePageFetched). A search in the
 * same process writes what is queued first (flushSearchRows); another process sees a page
 * within SEARCH_WRITE_DELAY_MS of its `pages` copy.
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
import { queueWrite, type BatchWriter } from '../../runtime/store/batch-writer.js';
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

/** The tables the hook writes (search_postings, search_lengths and search_shown follow by views). */
export const SEARCH_WRITE_TABLES: readonly string[] = ['search_docs', 'search_page_terms'];
/**
 * How long a page's index rows wait for their batch: the index is written in about one insert
 * per table a second, not one per stored-page batch (each insert costs the engine parts to
 * write and merge whatever its size: bench/crawl.ts).
 */
export const SEARCH_WRITE_DELAY_MS = 1_000;
/** Pages' index rows queued and not yet landed past which the hook waits for its own. */
export const SEARCH_MAX_QUEUED_PAGES = 5_000;

/**
 * Queues a page's index rows (both tables) in the writer's lazy batches
 * (SEARCH_WRITE_DELAY_MS) and resolves without waiting for them to land: a page's reply and
 * its crawl never wait on the index. Only when SEARCH_MAX_QUEUED_PAGES pages' rows are already
 * queued does it wait until its own landed (the store is behind: the callers slow down instead
 * of the queue growing). A failed insert is given to `failed`; the page stays out of the index
 * until it is stored again (the `pages` copy does not depend on it).
 */
export async function writeSearchRows(
  writer: Pick<BatchWriter, 'write' | 'pending'>,
  page: FetchedPage,
  document: object,
  options: ScrapeOptions,
  failed: (error: unknown) => void = () => undefined,
): Promise<void> {
  const rows = pageSearchRows(page, document, options);
  if (!rows) return;
  const lazy = { maxDelayMs: SEARCH_WRITE_DELAY_MS, maxPendingRows: SEARCH_MAX_QUEUED_PAGES };
  await Promise.all([queueWrite(writer, 'search_docs', [rows.doc], lazy, failed), queueWrite(writer, 'search_page_terms', [rows.terms], lazy, failed)]);
}

/**
 * Writes what this process has queued for the index now, and resolves when it landed: a search
 * answered in the process that stored the page (embedded mode) sees it. Free when nothing waits.
 */
export async function flushSearchRows(writer: Pick<BatchWriter, 'flush' | 'pending'>): Promise<void> {
  if (SEARCH_WRITE_TABLES.some((table) => writer.pending(table) > 0)) await writer.flush(SEARCH_WRITE_TABLES);
}
