/**
 * Pages read for an operation that reads several (POST /v1/extract, POST /v1/search with
 * `scrapeOptions`): each through the real scrape path (a ScrapeRequested with the request's
 * options, its cache and rendering rules), a bounded number at a time, answered in input
 * order. A page that fails becomes a failed Reply (its code and message), never a thrown
 * error: one page's failure does not fail the request.
 */
import { mapBounded } from '../../pipeline/runtime/bounded.js';
import { failedReply, type ReplyValue, type Requester } from '../../pipeline/runtime/request-reply.js';
import { scrapeTopic, type ScrapeRequestFields } from '../../pipeline/pages/scrape-request.js';
import type { HandlerContext } from '../handler.js';
import { askPipeline } from './ask.js';

/** Reads `urls` with the scrape request `fields`, `parallel` at a time; each page's Reply in input order. */
export function readPages(
  requester: Requester,
  ctx: Pick<HandlerContext, 'requestId' | 'key' | 'signal'>,
  urls: readonly string[],
  fields: ScrapeRequestFields,
  parallel: number,
  timeoutMs: number,
): Promise<ReplyValue[]> {
  // Without a signal every item runs: each result is there.
  return mapBounded(urls, parallel, (url, i) =>
    askPipeline(requester, { ...ctx, requestId: `${ctx.requestId}:${i + 1}` }, scrapeTopic(fields), { jobId: null, url, ...fields }, timeoutMs).catch(failedReply),
  ) as Promise<ReplyValue[]>;
}
