/**
 * The pages of a job as they travel: the frontier numbers each page it schedules (`seq`,
 * 1, 2, …) and names its ScrapeRequested `<jobId>:<seq>`, so the fetcher, renderer and parser
 * carry the number to the `job_pages` row without a field of their own, and a redelivered
 * event keeps it. Each page ends in one JobEvent for the frontier:
 *
 * - `page`: stored (`data`: {seq, url, statusCode, credits, links, finalUrl?}); `links` are the
 *   page's links (absolute, http(s)), which a crawl follows; `finalUrl` where its redirects ended;
 * - `pageFailed`: not read (`data`: {seq, url, code, message, statusCode}).
 *
 * Job ids carry their kind (`crawl_…`, `batch_…`), so every JobEvent names it.
 */
import { randomUUID } from 'node:crypto';
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS } from '../../schemas/topics.js';
import type { AnyEmission } from '../runtime/events.js';
import type { JobKind } from './record.js';

export const newJobId = (kind: JobKind) => `${kind}_${randomUUID().replace(/-/g, '')}`;

export function jobKindOf(jobId: string): JobKind | null {
  if (jobId.startsWith('crawl_')) return 'crawl';
  if (jobId.startsWith('batch_')) return 'batch';
  return null;
}

export const jobPageRequestId = (jobId: string, seq: number) => `${jobId}:${seq}`;

/** The seq of a job page's request id; null when the id is not one. */
export function jobPageSeq(requestId: string, jobId: string): number | null {
  if (!requestId.startsWith(`${jobId}:`)) return null;
  const seq = Number(requestId.slice(jobId.length + 1));
  return Number.isSafeInteger(seq) && seq > 0 ? seq : null;
}

export interface PageStored {
  readonly seq: number;
  readonly url: string;
  readonly statusCode: number;
  readonly credits: number;
  readonly links: readonly string[];
  /** Where the page's redirects ended, when that is not `url`: a crawl does not fetch it again. */
  readonly finalUrl?: string;
}

export interface PageFailed {
  readonly seq: number;
  readonly url: string;
  readonly code: string;
  readonly message: string;
  readonly statusCode: number;
}

export type JobEventValue = EventValue<'JobEvent'>;

export function jobEvent(tenant: string, jobId: string, type: string, data: object, atMs = Date.now()): AnyEmission {
  return {
    topic: 'jobEvents',
    key: jobId,
    headers: { [HEADERS.requestId]: jobId },
    value: { tenant, jobId, kind: jobKindOf(jobId) ?? '', type, atMs, data: JSON.stringify(data) },
  };
}

/** What a worker knows of a page request. */
export interface JobPageRequest {
  readonly requestId: string;
  readonly tenant: string;
  readonly jobId: string | null;
  readonly url: string;
}

/** The `pageFailed` event for a job page; none for a request that is not a job page. */
export function jobPageFailed(request: JobPageRequest, code: string, message: string, statusCode = 0): AnyEmission[] {
  if (!request.jobId) return [];
  const seq = jobPageSeq(request.requestId, request.jobId);
  if (seq === null) return [];
  const data: PageFailed = { seq, url: request.url, code, message, statusCode };
  return [jobEvent(request.tenant, request.jobId, 'pageFailed', data)];
}

/** The `page` event for a stored job page; none for a request that is not a job page. */
export function jobPageStored(request: JobPageRequest, page: Omit<PageStored, 'seq' | 'url'>): AnyEmission[] {
  if (!request.jobId) return [];
  const seq = jobPageSeq(request.requestId, request.jobId);
  if (seq === null) return [];
  const data: PageStored = { seq, url: request.url, ...page };
  return [jobEvent(request.tenant, request.jobId, 'page', data)];
}

/** Opaque page cursors: the last seq returned. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

/** The seq after which to read; null when the text is not a cursor this API returned. */
export function decodeCursor(cursor: string | null | undefined): number | null {
  if (cursor === null || cursor === undefined || cursor === '') return 0;
  const text = Buffer.from(cursor, 'base64url').toString();
  const match = /^s(\d{1,15})$/.exec(text);
  return match ? Number(match[1]) : null;
}
