/**
 * What the producer of a ScrapeRequested (the gateway for a scrape, the frontier for a job's
 * page) works out once from the scrape options, for every reader downstream to read instead of
 * deciding again: the options as JSON, whether a browser reads the page (`browser`: the topic
 * it goes to, renderRequested or scrapeRequested), and the page cache key (`cacheKey`), which
 * includes the render when it does.
 */
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import type { EventValue } from '../../schemas/events/index.js';
import { cacheKeyOf } from './cache.js';
import { needsBrowser } from './rendering.js';

export type ScrapeRequestFields = Pick<EventValue<'ScrapeRequested'>, 'options' | 'browser' | 'cacheKey' | 'escalated' | 'sealedModel'>;

/** `sealedModel`: the caller's own model, sealed (POST /v1/extract); '' for the operator's, if any. */
export function scrapeRequestFields(options: ScrapeOptions, sealedModel = ''): ScrapeRequestFields {
  const browser = needsBrowser(options);
  return { options: JSON.stringify(options), browser, cacheKey: cacheKeyOf(options, browser), escalated: false, sealedModel };
}

/** The topic a ScrapeRequested goes to, by its producer's browser decision. */
export function scrapeTopic(fields: Pick<ScrapeRequestFields, 'browser'>): 'renderRequested' | 'scrapeRequested' {
  return fields.browser ? 'renderRequested' : 'scrapeRequested';
}

/** What a page the service reads for itself chooses; the rest is a plain read, written once below. */
export type OwnReadChoice = Pick<ScrapeOptions, 'formats' | 'onlyMainContent' | 'maxAge' | 'storeInCache' | 'timeout'>;

/**
 * The scrape options of a page the service reads for itself (a monitor's check, a domain
 * report's page): no wait, no mobile view, no captcha evidence, assets blocked, base64 images
 * removed, the proxy chosen as for any page; written in full, as the gateway's validation
 * would fill a caller's in (schemas/api/scrape-options.ts).
 */
export function ownReadOptions(choice: OwnReadChoice): ScrapeOptions {
  return { ...choice, waitFor: 0, captchaHandling: 'auto', captchaEvidence: false, mobile: false, proxy: 'auto', blockAssets: true, removeBase64Images: true };
}
