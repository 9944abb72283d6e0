/**
 * The limits documents are read under: PDF and DOCX (uploaded to POST /v1/parse or fetched as a
 * page) and every uploaded file are parsed by the parser in a pool of worker threads
 * (actors/parser/document/pool.ts on pipeline/runtime/workers.ts), never on the service's own
 * thread, each within these bounds. HTML and text pages fetched by a scrape or crawl are parsed
 * on the parser's thread as before (they are bounded by FETCH_MAX_BYTES).
 * This family's part of the one settings table: pipeline/service/settings.ts assembles the
 * parts, pipeline/runtime/config.ts parses them; docs/configuration.md lists them and
 * docs/api/page-reading.md says what a caller meets at each limit.
 */
import type { ConfigOf, SettingsTable } from '../runtime/config.js';

export const DOCUMENT_SETTINGS = {
  documentWorkers: {
    env: 'DOCUMENT_WORKERS',
    type: 'integer',
    default: 2,
    min: 1,
    max: 64,
    description:
      'Worker threads each parser process reads documents in (PDF, DOCX, every upload), one document each at a time; further documents wait. A worker killed at a limit is replaced.',
  },
  documentTimeoutMs: {
    env: 'DOCUMENT_TIMEOUT_MS',
    type: 'integer',
    default: 60000,
    min: 1000,
    // The parser's attempt is 120 s and the gateway waits 135 s for a parse: a document stopped here is still answered.
    max: 110000,
    description:
      'Wall-clock time one document may take in its worker. A PDF stops reading further pages at three quarters of it and answers the pages read so far with a `warning`; a document still running at the limit has its worker terminated and fails `file_too_complex`. At most 110000.',
  },
  documentMemoryMb: {
    env: 'DOCUMENT_MEMORY_MB',
    type: 'integer',
    default: 512,
    min: 64,
    max: 16384,
    description:
      "Memory one document worker may use, in MiB: its JavaScript heap is capped at this size, and its heap and buffers together are checked every 100 ms. A document past it has its worker terminated and fails `file_too_complex`.",
  },
  documentMaxPages: {
    env: 'DOCUMENT_MAX_PAGES',
    type: 'integer',
    default: 2000,
    min: 1,
    description:
      "Pages of a PDF read at most. A longer PDF answers its first pages with a `warning` saying how many of how many were read; `metadata.numPages` is the PDF's own count.",
  },
  documentMaxInflatedBytes: {
    env: 'DOCUMENT_MAX_INFLATED_BYTES',
    type: 'integer',
    default: 268435456,
    min: 1048576,
    description:
      "Bytes a document's compressed parts may inflate to in all (a DOCX's zip entries; a PDF's Flate streams other than images), counted while inflating and before the document is parsed. Past it: `file_too_complex`.",
  },
  documentMaxInflateRatio: {
    env: 'DOCUMENT_MAX_INFLATE_RATIO',
    type: 'integer',
    default: 200,
    min: 10,
    description:
      "How many times its compressed size one part of a document (a DOCX zip entry, a PDF Flate stream other than an image) may inflate to, once it passes 1 MiB: a zip or Flate bomb. Past it: `file_too_complex`.",
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type DocumentsConfig = ConfigOf<typeof DOCUMENT_SETTINGS>;
