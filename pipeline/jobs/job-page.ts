/**
 * A page of a crawl or batch job (a PageFetched or ExtractRequested with a `jobId`): the
 * actor that finishes it (the parser, or the extractor for a page a model answers for) stores its
 * document in `job_pages` under the seq the frontier gave it (carried in the request id,
 * pipeline/jobs/pages.ts), then tells the frontier with a JobEvent `page` carrying the page's
 * credits and its links (for an HTML page: every `<a href>`/`<area href>`, absolute, the
 * whole page's, as the `links` format reads them, taken from the parse the document was built
 * from: buildDocument's `pageLinks` hook), which a crawl follows. The row is written
 * before the event, so a page the frontier counts is always readable; a redelivered event
 * writes the same row again (it collapses on (tenant, job_id, url_hash)) and the frontier
 * settles a page once.
 */
import type { AnyEmission } from '../runtime/events.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import { jobPageSeq, jobPageStored, type JobPageRequest } from './pages.js';

/**
 * A job page's `pages` copy (the page cache's, pipeline/pages/cache.ts) is queued, not waited
 * for: it goes in about one insert a second (JOB_PAGE_COPY_DELAY_MS), and the job page is
 * reported once its `job_pages` row landed (that row keeps the runtime's 20 ms batches: the
 * crawl waits on it, and 50 ms made a 10,000-page crawl ~45% slower, bench/README.md). Until then a cache lookup of the URL misses (the
 * page is fetched again); a copy lost with its process is only a cache miss. The writer waits
 * for it after all when JOB_PAGE_COPY_MAX_QUEUED copies (~20 KB each) are queued.
 */
export const JOB_PAGE_COPY_DELAY_MS = 1_000;
export const JOB_PAGE_COPY_MAX_QUEUED = 500;

/** What the finishing actor knows of a job page's response. */
export interface JobPageResponse extends JobPageRequest {
  readonly finalUrl: string;
  readonly statusCode: number;
  readonly contentType: string;
  readonly credits: number;
}

/** What the parser read of a job page: its title, document (JSON), body hash and links. */
export interface JobPageRead {
  readonly title: string;
  readonly documentJson: string;
  readonly contentHash: string;
  readonly links: readonly string[];
}

/** Stores a job page and returns its `page` event; nothing for a page of no job. */
export async function storeJobPage(page: JobPageResponse, read: JobPageRead, writer: Pick<BatchWriter, 'write'>): Promise<AnyEmission[]> {
  const { title, documentJson, contentHash, links } = read;
  if (!page.jobId) return [];
  const seq = jobPageSeq(page.requestId, page.jobId);
  if (seq === null) return [];
  await writer.write('job_pages', [
    {
      tenant: page.tenant,
      job_id: page.jobId,
      seq,
      url: page.url,
      status_code: page.statusCode,
      content_type: page.contentType,
      final_url: page.finalUrl,
      title,
      document: documentJson,
      content_hash: contentHash,
      created_at: Date.now(),
    },
  ]);
  const redirected = page.finalUrl && page.finalUrl !== page.url ? { finalUrl: page.finalUrl } : {};
  return jobPageStored(page, { statusCode: page.statusCode, credits: page.credits, links, ...redirected });
}
