/**
 * How the map reads the pages it walks (page-links.ts `readPage`): an ordinary page on this
 * thread, heavy markup (pipeline/runtime/markup-limits.ts `readsOffThread`: over 2 MiB or
 * 40,000 tags) in a worker thread of its own, within the parser's DOCUMENT_TIMEOUT_MS and
 * DOCUMENT_MEMORY_MB (pipeline/pages/settings.ts), so that one site's pages of links never hold
 * the service's thread: a map's seed page may be as large as FETCH_MAX_BYTES (15 MiB) and each
 * walked page 2 MiB, and a 2 MiB page of 88,000 links took this thread 1.2 s. A page stopped at
 * a limit is `file_too_complex` (the walk skips it; the seed page is read as having no links).
 */
import { documentStopped } from '../../pipeline/pages/document-stop.js';
import type { DocumentsConfig } from '../../pipeline/pages/settings.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { readsOffThread } from '../../pipeline/runtime/markup-limits.js';
import { WorkerPool, WorkerStoppedError } from '../../pipeline/runtime/workers.js';
import { readPage, type PageFacts } from './page-links.js';
import { PAGE_LINKS_POOL_NAME, PAGE_LINKS_WORKER, type PageLinksTask } from './page-links-worker.js';

/** Reads a fetched page's title, description and links; rejects `file_too_complex` past a limit. */
export type PageLinksReader = (html: string, finalUrl: string, signal?: AbortSignal) => Promise<PageFacts>;

/** Every page on this thread: tests and callers with no pool. */
export const inThreadPageLinks: PageLinksReader = (html, finalUrl) => Promise.resolve(readPage(html, finalUrl));

export type PageLinksLimits = Pick<DocumentsConfig, 'documentTimeoutMs' | 'documentMemoryMb'>;

export class PageLinksPool {
  private readonly workers: WorkerPool<PageLinksTask, PageFacts>;

  constructor(
    private readonly limits: PageLinksLimits,
    log: Logger,
  ) {
    this.workers = new WorkerPool({ entry: PAGE_LINKS_WORKER, name: PAGE_LINKS_POOL_NAME, size: 1, timeoutMs: limits.documentTimeoutMs, memoryMb: limits.documentMemoryMb, log });
  }

  readonly read: PageLinksReader = async (html, finalUrl, signal) => {
    if (!readsOffThread(html)) return readPage(html, finalUrl);
    try {
      return await this.workers.run({ html, finalUrl }, signal ? { signal } : {});
    } catch (error) {
      throw this.failure(error);
    }
  };

  /** Threads started and stopped so far (pipeline/runtime/workers.ts). */
  stats() {
    return this.workers.stats();
  }

  close(): Promise<void> {
    return this.workers.close();
  }

  private failure(error: unknown): unknown {
    return error instanceof WorkerStoppedError ? documentStopped(error, "the page's links", this.limits, 'the frontier') : error;
  }
}
