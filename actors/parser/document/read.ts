/**
 * Reading one body of a known kind into its document, and who does it. `readOfKind` is the
 * reading itself (the caller has judged the kind and whether PDF is allowed); a
 * `DocumentReader` runs it for PDF, DOCX and uploads: the parser's is the worker pool
 * (pool.ts), where each document runs in a worker thread under the time and memory limits;
 * `inThreadReader` runs it on the caller's thread under the other limits only, for tests and
 * benchmarks that call the document core directly.
 */
import type { CheerioAPI } from 'cheerio';
import { decodeBody } from '../../../pipeline/runtime/net/charset.js';
import type { ExtractionPlan } from '../../../pipeline/structured/plan.js';
import type { PageReading } from '../page-data/index.js';
import type { DocumentKind } from './detect.js';
import { buildDocxDocument } from './docx.js';
import { buildHtmlDocument, type HtmlMode, type ResponseFacts } from './html.js';
import type { DocumentLimits } from './limits.js';
import type { ResolvedOptions } from './options.js';
import { buildPdfDocument } from './pdf.js';
import { buildTextDocument } from './text.js';
import type { ScrapeDocument } from './types.js';

/** Builds a document of a known kind. `mode` is HTML's (hooks), unused by the other kinds. */
export async function readOfKind(
  kind: DocumentKind,
  bytes: Buffer,
  facts: ResponseFacts,
  options: ResolvedOptions,
  limits: DocumentLimits,
  mode: HtmlMode = {},
): Promise<ScrapeDocument> {
  switch (kind) {
    case 'pdf':
      return buildPdfDocument(bytes, facts, options, limits);
    case 'docx':
      return buildDocxDocument(bytes, facts, options, limits);
    case 'html':
      return buildHtmlDocument(decodeBody(bytes, facts.contentType).text, facts, options, mode);
    default:
      return buildTextDocument(decodeBody(bytes, facts.contentType).text, kind, facts, options);
  }
}

/** One document to read: what crosses to a worker (structured-cloned; `bytes` is transferred). */
export interface DocumentJob {
  readonly kind: DocumentKind;
  readonly bytes: Uint8Array;
  readonly facts: ResponseFacts;
  readonly options: ResolvedOptions;
  /** An HTML page's links are wanted too (HtmlMode.pageLinks): `readPage` answers them. */
  readonly links?: boolean;
  /** The `json` format reads the HTML page as loaded (page-data `readPage`): `readPage` answers its reading. */
  readonly extraction?: ExtractionPlan;
}

/** A page read away from the caller's thread: its document, and its links and extraction's reading when the job asked. */
export interface OffThreadPage {
  readonly document: ScrapeDocument;
  readonly links: string[] | null;
  readonly reading: PageReading | null;
}

/** Who reads PDF, DOCX and uploaded documents. Rejects with an AppError (`unsupported_content`, `file_too_complex`, …). */
export interface DocumentReader {
  read(job: DocumentJob, signal?: AbortSignal): Promise<ScrapeDocument>;
  /**
   * A large fetched HTML or text page (build.ts OFF_THREAD_PAGE_BYTES), read as `read` reads a
   * document: off the caller's thread, within the same limits. Absent: the caller reads it.
   */
  readPage?(job: DocumentJob, signal?: AbortSignal): Promise<OffThreadPage>;
}

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** Reads a job under `limits`: what a worker runs. */
export function readJob(job: DocumentJob, limits: DocumentLimits): Promise<ScrapeDocument> {
  return readOfKind(job.kind, asBuffer(job.bytes), job.facts, job.options, limits);
}

/** Reads a job under `limits`, with the page's links and extraction's reading when it asks for them (a page read in a worker). */
export async function readPageJob(job: DocumentJob, limits: DocumentLimits): Promise<OffThreadPage> {
  let links: string[] | null = null;
  let reading: PageReading | null = null;
  const { extraction } = job;
  // The markup and page-rule readers are loaded by the first page that asks, not by every worker (PDFs, uploads).
  const readPage = extraction ? (await import('../page-data/index.js')).readPage : null;
  const mode: HtmlMode = {
    ...(job.links ? { pageLinks: (found: string[]) => (links = found) } : {}),
    ...(extraction && readPage ? { read: ($: CheerioAPI, base: string) => (reading = readPage($, base, extraction)) } : {}),
  };
  const document = await readOfKind(job.kind, asBuffer(job.bytes), job.facts, job.options, limits, mode);
  return { document, links, reading };
}

/** Reads on the caller's thread: the page, inflation and read-time limits apply, not the worker's memory and hard time limits. */
export function inThreadReader(limits: DocumentLimits): DocumentReader {
  return { read: (job) => readJob(job, limits) };
}
