/**
 * A document worker stopped by its pool (pipeline/runtime/workers.ts), as the error its caller
 * answers: past a DOCUMENT_* limit (settings.ts), `file_too_complex` naming what was read; the
 * pool closing, `service_unavailable`. The parser's document pool and the frontier's map-page
 * pool read under the same limits and say so in the same words.
 */
import { AppError } from '../runtime/errors.js';
import type { WorkerStoppedError } from '../runtime/workers.js';
import type { DocumentsConfig } from './settings.js';

/** `error` as its caller's answer; `what` names what was read (`the HTML page`), `stopping` who is closing. */
export function documentStopped(error: WorkerStoppedError, what: string, limits: Pick<DocumentsConfig, 'documentTimeoutMs' | 'documentMemoryMb'>, stopping: string): AppError {
  switch (error.reason) {
    case 'time':
      return new AppError('file_too_complex', `Reading ${what} took longer than this instance's limit for one document (${limits.documentTimeoutMs} ms); it was stopped.`);
    case 'memory':
      return new AppError('file_too_complex', `Reading ${what} needed more memory than this instance allows one document (${limits.documentMemoryMb} MB); it was stopped.`);
    case 'exit':
      return new AppError('file_too_complex', `The worker reading ${what} stopped before it finished (${error.message}).`);
    case 'closed':
      return new AppError('service_unavailable', `${stopping} is stopping`);
  }
}
