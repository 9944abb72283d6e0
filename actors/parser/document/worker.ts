/**
 * The document worker: the module each worker thread of the parser's document pool runs
 * (pool.ts, on pipeline/runtime/workers.ts). Each task is one document job read with the
 * limits it carries; what it throws crosses back as its code and message. Imported on the
 * main thread only for its own URL (`DOCUMENT_WORKER`): there `serveTasks` does nothing. The
 * URL is this module's own, so it is the `.ts` source under tsx and vitest and the compiled
 * `.js` under `dist/`.
 */
import { serveTasks } from '../../../pipeline/runtime/workers.js';
import type { DocumentLimits } from './limits.js';
import { readJob, readPageJob, type DocumentJob, type OffThreadPage } from './read.js';
import type { ScrapeDocument } from './types.js';

/** The pool's name, which the worker answers to. */
export const DOCUMENT_POOL_NAME = 'documents';

/** This module, the worker threads' entry. */
export const DOCUMENT_WORKER = new URL(import.meta.url);

/** What the pool posts: the job and the limits it is read under; `page`: a fetched page, answered with its links (readPage). */
export interface DocumentTask {
  readonly job: DocumentJob;
  readonly limits: DocumentLimits;
  readonly page?: boolean;
}

serveTasks<DocumentTask, ScrapeDocument | OffThreadPage>(DOCUMENT_POOL_NAME, (task) => (task.page ? readPageJob(task.job, task.limits) : readJob(task.job, task.limits)));
