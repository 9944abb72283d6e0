/**
 * POST /v1/scrape through the pipeline: the gateway publishes a ScrapeRequested event and
 * awaits the Reply of the actor that finishes the page. The reply carries the document, the
 * credits to charge and where the page came from (fresh, cache, index).
 *
 * The gateway picks the path (pipeline/pages/rendering.ts `needsBrowser`): a scrape with
 * `waitFor > 0`, `actions`, or the `screenshot` or `network` format goes to `renderRequested`
 * (the renderer pool, Chromium) and reserves a browser page's credits (`scrapeEstimate`, the
 * operation's price in gateway/wiring.ts); every other scrape goes
 * to `scrapeRequested` (the fetcher, plain HTTP). A build without a renderer answers 501 for
 * the browser options. (A plain scrape whose fetch meets a challenge frame is sent on to the
 * renderer by the fetcher, still charged the fetched page reserved here: `escalated`.)
 */
import type { ScrapeBody } from '../../schemas/api/page-reading.js';
import { PAGE_TIMEOUT_MS } from '../../schemas/api/scrape-options.js';
import { scrapeRequestFields, scrapeTopic } from '../../pipeline/pages/scrape-request.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { BROWSER_FORMATS, needsBrowser } from '../../pipeline/pages/rendering.js';
import { PRICES } from '../../schemas/api/prices.js';
import { PIPELINE_SLACK_MS, type Requester } from '../../pipeline/runtime/request-reply.js';
import type { OperationHandler } from '../handler.js';
import { askPipeline, replyResult } from './ask.js';
import { checkExtractionFormats, EXTRACTION_FORMATS } from './format-checks.js';
import { extractionEstimate } from '../../pipeline/structured/plan.js';


/**
 * Formats the page-reading actors produce today (the parser's PARSER_FORMATS; a test keeps
 * the two lists equal). `screenshot` and `network` come from the renderer (BROWSER_FORMATS)
 * when the build has one; `json`, `summary` and `changeTracking` (EXTRACTION_FORMATS) from the
 * parser's extraction with the extractor pool for model calls, when the build has it.
 */
export const SERVED_FORMATS: readonly string[] = ['markdown', 'html', 'rawHtml', 'links', 'media'];

export interface ScrapeRouting {
  /** The build has a renderer pool: browser scrapes go to `renderRequested`. */
  readonly render: boolean;
  /** The build has an extractor pool: the extraction formats are served. */
  readonly extract?: boolean;
  /** The operator configured a model (MODEL_PROVIDER): a `prompt` alone is served, and priced. */
  readonly operatorModel?: boolean;
}

/** What of a valid scrape this build cannot do yet: 501 before anything is fetched or charged. */
export function unservedScrapeOptions(options: Omit<ScrapeBody, 'url'>, routing: ScrapeRouting = { render: false }): string[] {
  const unserved: string[] = [];
  for (const format of options.formats ?? []) {
    const name = typeof format === 'string' ? format : format.type;
    if (SERVED_FORMATS.includes(name) || (routing.render && BROWSER_FORMATS.includes(name)) || (routing.extract && EXTRACTION_FORMATS.includes(name))) continue;
    unserved.push(`the "${name}" format`);
  }
  if (!routing.render && (options.waitFor ?? 0) > 0) unserved.push('waitFor (rendering in a browser)');
  if (!routing.render && (options.actions ?? []).length > 0) unserved.push('actions (rendering in a browser)');
  return [...new Set(unserved)];
}

/**
 * Most credits a scrape can cost: a browser page when rendered, else a fetched page; plus the
 * operator model's price when one is configured and the formats may call it.
 */
export function scrapeEstimate(options: Omit<ScrapeBody, 'url'>, operatorModel = false): number {
  const page = needsBrowser(options) ? PRICES.browserPage.credits : PRICES.freshPage.credits;
  return page + extractionEstimate(options.formats, operatorModel);
}

export function scrapeHandler(requester: Requester, requestTimeoutMs: number, routing: ScrapeRouting = { render: false }): OperationHandler {
  return {
    async handle(ctx) {
      const { url, ...options } = ctx.body as ScrapeBody;
      const unserved = unservedScrapeOptions(options, routing);
      if (unserved.length) {
        throw new AppError('not_implemented', `this instance does not serve ${unserved.join(', ')} yet`);
      }
      checkExtractionFormats(options.formats, ['body', 'formats'], routing.operatorModel ?? false);
      const pageTimeout = options.timeout ?? PAGE_TIMEOUT_MS.default;
      const timeoutMs = Math.min(requestTimeoutMs, pageTimeout + PIPELINE_SLACK_MS);
      // The browser decision and the cache key are taken here, once, and travel on the event.
      const fields = scrapeRequestFields(options);
      const reply = await askPipeline(requester, ctx, scrapeTopic(fields), { jobId: null, url, ...fields }, timeoutMs);
      return replyResult(reply);
    },
  };
}
