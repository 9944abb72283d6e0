/**
 * The PageFetched event of a page read for a ScrapeRequested, for the two actors that read
 * pages (the fetcher over HTTP, the renderer in a browser): what the request carries over is
 * copied here once (its cache key among it); the reader supplies what it found. The body's
 * SHA-256 is taken here, once: the parser files the page's copies under it.
 */
import { createHash } from 'node:crypto';
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS } from '../../schemas/topics.js';
import type { Emission } from '../runtime/events.js';

type PageFetched = EventValue<'PageFetched'>;
type ScrapeRequested = EventValue<'ScrapeRequested'>;

/** The PageFetched fields filled in here: taken from the request, or (the body's hash) worked out once. */
export type CarriedFields = 'requestId' | 'tenant' | 'jobId' | 'url' | 'options' | 'replyTo' | 'correlationId' | 'deadlineMs' | 'requestedAtMs' | 'cacheKey' | 'bodySha256' | 'sealedModel';

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
    cacheKey: request.cacheKey,
    sealedModel: request.sealedModel,
    bodySha256: createHash('sha256').update(page.body).digest('hex'),
    ...page,
  };
  const emission: Emission<'pageFetched'> = { topic: 'pageFetched', key: request.requestId, headers: { [HEADERS.requestId]: request.requestId }, value };
  return emission as Emission;
}
