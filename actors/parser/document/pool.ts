/**
 * The parser's document reader: every PDF and DOCX (uploaded or fetched) and every upload is
 * read in a pool of worker threads (pipeline/runtime/workers.ts) started from the DOCUMENT_*
 * settings (pipeline/pages/settings.ts): DOCUMENT_WORKERS threads, each document within
 * DOCUMENT_TIMEOUT_MS and DOCUMENT_MEMORY_MB, and inside its worker within the page and
 * inflation limits (limits.ts). A worker stopped at a limit fails its document
 * `file_too_complex` and is replaced; the service's own thread only copies the bytes over and
 * the document back.
 */
import { documentStopped } from '../../../pipeline/pages/document-stop.js';
import { AppError } from '../../../pipeline/runtime/errors.js';
import type { Logger } from '../../../pipeline/runtime/log.js';
import type { DocumentsConfig } from '../../../pipeline/pages/settings.js';
import { WorkerPool, WorkerStoppedError, WorkerTaskError } from '../../../pipeline/runtime/workers.js';
import { isErrorCode } from '../../../schemas/errors.js';
import { documentLimits, type DocumentLimits } from './limits.js';
import type { DocumentJob, DocumentReader, OffThreadPage } from './read.js';
import type { ScrapeDocument } from './types.js';
import { DOCUMENT_WORKER, DOCUMENT_POOL_NAME, type DocumentTask } from './worker.js';

const KIND_NAMES = { pdf: 'PDF', docx: 'DOCX document', html: 'HTML file', markdown: 'markdown file', text: 'text file', json: 'JSON file', xml: 'XML file' } as const;
const PAGE_NAMES = { pdf: 'PDF', docx: 'DOCX', html: 'HTML', markdown: 'markdown', text: 'text', json: 'JSON', xml: 'XML' } as const;

export class DocumentPool implements DocumentReader {
  private readonly workers: WorkerPool<DocumentTask, ScrapeDocument | OffThreadPage>;
  readonly limits: DocumentLimits;

  constructor(
    private readonly config: DocumentsConfig,
    log: Logger,
    options: { readonly watchIntervalMs?: number } = {},
  ) {
    this.limits = documentLimits(config);
    this.workers = new WorkerPool({
      entry: DOCUMENT_WORKER,
      name: DOCUMENT_POOL_NAME,
      size: config.documentWorkers,
      timeoutMs: config.documentTimeoutMs,
      memoryMb: config.documentMemoryMb,
      log,
      ...(options.watchIntervalMs ? { watchIntervalMs: options.watchIntervalMs } : {}),
    });
  }

  read(job: DocumentJob, signal?: AbortSignal): Promise<ScrapeDocument> {
    return this.run(job, false, signal) as Promise<ScrapeDocument>;
  }

  readPage(job: DocumentJob, signal?: AbortSignal): Promise<OffThreadPage> {
    return this.run(job, true, signal) as Promise<OffThreadPage>;
  }

  private async run(job: DocumentJob, page: boolean, signal?: AbortSignal): Promise<ScrapeDocument | OffThreadPage> {
    // A copy of its own, moved to the worker: the caller's bytes may be a view into a larger buffer.
    const bytes = new Uint8Array(job.bytes);
    try {
      return await this.workers.run({ job: { ...job, bytes }, limits: this.limits, ...(page ? { page } : {}) }, { transfer: [bytes.buffer], ...(signal ? { signal } : {}) });
    } catch (error) {
      throw this.failure(job, error, page);
    }
  }

  /** Threads started and stopped so far (pipeline/runtime/workers.ts). */
  stats() {
    return this.workers.stats();
  }

  close(): Promise<void> {
    return this.workers.close();
  }

  private failure(job: DocumentJob, error: unknown, page: boolean): unknown {
    const what = page ? `${PAGE_NAMES[job.kind]} page` : KIND_NAMES[job.kind];
    if (error instanceof WorkerTaskError) {
      return error.code && isErrorCode(error.code) ? new AppError(error.code, error.message) : new AppError('internal_error', `the ${what} could not be read: ${error.message}`);
    }
    if (!(error instanceof WorkerStoppedError)) return error;
    return documentStopped(error, `the ${what}`, this.config, 'the parser');
  }
}
