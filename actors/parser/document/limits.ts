/**
 * The limits one document is read under (the DOCUMENT_* settings, pipeline/pages/settings.ts),
 * as the readers take them. The worker pool (pool.ts) applies the time and memory limits from
 * outside; the readers apply the rest themselves: pages of a PDF, inflated bytes and ratios of
 * compressed parts, and the time after which a PDF answers the pages it has read.
 */
import { DOCUMENT_SETTINGS, type DocumentsConfig } from '../../../pipeline/pages/settings.js';
import { AppError } from '../../../pipeline/runtime/errors.js';

export interface DocumentLimits {
  /** Pages of a PDF read at most (DOCUMENT_MAX_PAGES). */
  readonly maxPages: number;
  /** Bytes all compressed parts may inflate to (DOCUMENT_MAX_INFLATED_BYTES). */
  readonly maxInflatedBytes: number;
  /** Times its compressed size one part may inflate to past RATIO_FLOOR_BYTES (DOCUMENT_MAX_INFLATE_RATIO). */
  readonly maxInflateRatio: number;
  /** Time after which a PDF reads no further page and answers those read (0: no such time). */
  readonly readBudgetMs: number;
}

/** Below this size a part may inflate at any ratio: small parts (styles, blank pages) compress very well. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

/** The share of DOCUMENT_TIMEOUT_MS after which a PDF answers the pages it has read. */
export const PARTIAL_READ_SHARE = 0.75;

export type DocumentLimitSettings = Pick<DocumentsConfig, 'documentMaxPages' | 'documentMaxInflatedBytes' | 'documentMaxInflateRatio' | 'documentTimeoutMs'>;

export function documentLimits(config: DocumentLimitSettings): DocumentLimits {
  return {
    maxPages: config.documentMaxPages,
    maxInflatedBytes: config.documentMaxInflatedBytes,
    maxInflateRatio: config.documentMaxInflateRatio,
    readBudgetMs: Math.floor(config.documentTimeoutMs * PARTIAL_READ_SHARE),
  };
}

/** The limits of the settings' defaults, for documents read without a configured pool (tests, benchmarks). */
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = documentLimits({
  documentMaxPages: DOCUMENT_SETTINGS.documentMaxPages.default,
  documentMaxInflatedBytes: DOCUMENT_SETTINGS.documentMaxInflatedBytes.default,
  documentMaxInflateRatio: DOCUMENT_SETTINGS.documentMaxInflateRatio.default,
  documentTimeoutMs: DOCUMENT_SETTINGS.documentTimeoutMs.default,
});

export function tooComplex(message: string): AppError {
  return new AppError('file_too_complex', message);
}
