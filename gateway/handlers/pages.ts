/**
 * Pages read for an operation that reads several (POST /v1/extract, POST /v1/search with
 * `scrapeOptions`): each through the real scrape path (a ScrapeRequested with the request's
 * options, its cache and rendering rules), a bounded number at a time, answered in input
 * order. A page that fails becomes a failed Reply (its code and message), never a thrown
 * error: one page's failure does not fail the request.
 */
import { AppError } from '../../pipeline/runtime/errors.js';
import type { ReplyValue, Requester } from '../../pipeline/runtime/request-reply.js';
import { scrapeTopic, type ScrapeRequestFields } from '../../pipeline/pages/scrape-request.js';
import type { HandlerContext } from '../handler.js';
import { askPipeline } from './ask.js';

/** Runs `work` over `items` at most `limit` at a time; results in input order. */
export async function inOrder<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** The Reply of a page that could not be asked for or answered in time. */
function failedReply(error: unknown): ReplyValue {
  return {
    correlationId: '',
    ok: false,
    data: null,
    errorCode: error instanceof AppError ? error.code : 'internal_error',
    errorMessage: error instanceof Error ? error.message : String(error),
    credits: 0,
    source: null,
  };
}

/** Reads `urls` with the scrape request `fields`, `parallel` at a time; each page's Reply in input order. */
export function readPages(
  requester: Requester,
  ctx: Pick<HandlerContext, 'requestId' | 'key' | 'signal'>,
  urls: readonly string[],
  fields: ScrapeRequestFields,
  parallel: number,
  timeoutMs: number,
): Promise<ReplyValue[]> {
  return inOrder(urls, parallel, (url, i) =>
    askPipeline(requester, { ...ctx, requestId: `${ctx.requestId}:${i + 1}` }, scrapeTopic(fields), { jobId: null, url, ...fields }, timeoutMs).catch(failedReply),
  );
}
