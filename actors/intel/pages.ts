/**
 * How the intel pool reads a page: a ScrapeRequested on the scrape path, answered on the
 * replies topic (a Requester of the pool's own, reading the replies in a group of its own,
 * as the classifier reads a monitor's pages), so a report reads exactly what POST /v1/scrape
 * would: the fetcher's SSRF guard, proxies and cache, the parser.
 */
import { reportScrapeOptions, pageOfReply, type ReadPage } from '../../pipeline/intel/pages.js';
import { scrapeRequestFields, scrapeTopic } from '../../pipeline/pages/scrape-request.js';
import { ask, failedReply, PIPELINE_SLACK_MS, type Requester } from '../../pipeline/runtime/request-reply.js';

/** A ReadPage for the request `requestId` of `tenant`: each page its own request id (`<id>:p<n>`). */
export function pageReader(requester: () => Promise<Requester>, requestId: string, tenant: string): ReadPage {
  let n = 0;
  return async (url, options) => {
    const fields = scrapeRequestFields(reportScrapeOptions(options.timeoutMs, options.maxAgeMs, options.store ?? true));
    const ctx = { requestId: `${requestId}:p${++n}`, tenant, ...(options.signal ? { signal: options.signal } : {}) };
    try {
      const reply = await ask(await requester(), ctx, scrapeTopic(fields), { jobId: null, url, ...fields }, options.timeoutMs + PIPELINE_SLACK_MS);
      return pageOfReply(url, reply);
    } catch (error) {
      return pageOfReply(url, failedReply(error));
    }
  };
}
