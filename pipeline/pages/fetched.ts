/**
 * The PageFetched event of a page read for a ScrapeRequested, for the two actors that read
 * pages (the fetcher over HTTP, the renderer in a browser): what the request carries over is
 * copied here once; the reader supplies what it found.
 */
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS } from '../../schemas/topics.js';
import type { Emission } from '../runtime/events.js';

type PageFetched = EventValue<'PageFetched'>;
type ScrapeRequested = EventValue<'ScrapeRequested'>;

/** The PageFetched fields taken from the request. */
export type CarriedFields = 'requestId' | 'tenant' | 'jobId' | 'url' | 'options' | 'replyTo' | 'correlationId' | 'deadlineMs' | 'requestedAtMs';

/** The `pageFetched` emission for `request`, keyed and tagged by its request id. */
export function pageFetchedFor(request: ScrapeRequested, page: Omit<PageFetched, CarriedFields>): Emission {
  const value: PageFetched = {
    requestId: request.requestId,
    tenant: request.tenant,
    jobId: request.jobId,
    url: request.url,
    options: request.options,
    replyTo: request.replyTo,
    correlationId: request.correlationId,
    deadlineMs: request.deadlineMs,
    requestedAtMs: request.createdAtMs,
    ...page,
  };
  const emission: Emission<'pageFetched'> = { topic: 'pageFetched', key: request.requestId, headers: { [HEADERS.requestId]: request.requestId }, value };
  return emission as Emission;
}
