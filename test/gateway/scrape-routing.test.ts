/**
 * gateway/handlers/scrape.ts: which scrapes go to a browser (`renderRequested`) and which to
 * the fetcher (`scrapeRequested`), what a build without a renderer answers 501 for, and the
 * credits reserved for each. The handler is driven with a recording requester, no bus.
 */
import { describe, expect, it } from 'vitest';
import type { HandlerContext } from '../../gateway/handler.js';
import { scrapeEstimate, scrapeHandler, unservedScrapeOptions } from '../../gateway/handlers/scrape.js';
import { OPERATION_TABLE } from '../../gateway/wiring.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { needsBrowser } from '../../pipeline/pages/rendering.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import { OPERATIONS } from '../../schemas/api/operations.js';
import { loadConfig } from '../../pipeline/service/config.js';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';

const BROWSER_PAGE_CREDITS = PRICES.browserPage.credits;

/** A requester that records the topic of each request and answers an empty document. */
function recorder(): { requester: Requester; topics: string[] } {
  const topics: string[] = [];
  const requester = {
    async request(build: (correlationId: string, replyTo: string) => { topic: string }) {
      topics.push(build('corr', 'wds.replies').topic);
      return { correlationId: 'corr', ok: true, data: '{}', errorCode: null, errorMessage: null, credits: 1, source: 'fresh' };
    },
  } as unknown as Requester;
  return { requester, topics };
}

function context(body: Record<string, unknown>): HandlerContext {
  const op = OPERATIONS.find((o) => o.id === 'scrape');
  if (!op) throw new Error('no scrape operation');
  return { op, body: { url: 'https://example.com/', ...body }, query: {}, params: {}, key: null, requestId: 'req-1', log: createLogger('silent'), signal: new AbortController().signal };
}

describe('gateway/handlers/scrape routing', () => {
  it('needs a browser for waitFor > 0, actions, and the screenshot and network formats only', () => {
    expect(needsBrowser({})).toBe(false);
    expect(needsBrowser({ waitFor: 0, actions: [], formats: ['markdown', 'html', 'links'] })).toBe(false);
    expect(needsBrowser({ waitFor: 1 })).toBe(true);
    expect(needsBrowser({ actions: [{ type: 'scrape' }] })).toBe(true);
    expect(needsBrowser({ formats: ['markdown', 'screenshot'] })).toBe(true);
    expect(needsBrowser({ formats: [{ type: 'screenshot', fullPage: true }] })).toBe(true);
    expect(needsBrowser({ formats: ['network'] })).toBe(true);
  });

  it('sends browser scrapes to renderRequested and the others to scrapeRequested', async () => {
    const { requester, topics } = recorder();
    const handler = scrapeHandler(requester, 60_000, { render: true });
    await handler.handle(context({}));
    await handler.handle(context({ waitFor: 500 }));
    await handler.handle(context({ actions: [{ type: 'click', selector: 'a' }] }));
    await handler.handle(context({ formats: ['screenshot'] }));
    await handler.handle(context({ formats: ['markdown'] }));
    expect(topics).toEqual(['scrapeRequested', 'renderRequested', 'renderRequested', 'renderRequested', 'scrapeRequested']);
  });

  it('answers 501 for browser options when the build has no renderer, before publishing', async () => {
    const { requester, topics } = recorder();
    const handler = scrapeHandler(requester, 60_000, { render: false });
    for (const body of [{ waitFor: 500 }, { actions: [{ type: 'scrape' }] }, { formats: ['network'] }]) {
      await expect(handler.handle(context(body))).rejects.toSatisfy((e: unknown) => e instanceof AppError && e.code === 'not_implemented');
    }
    expect(topics).toEqual([]);
    expect(unservedScrapeOptions({ waitFor: 1, formats: ['screenshot'] })).toEqual(['the "screenshot" format', 'waitFor (rendering in a browser)']);
    expect(unservedScrapeOptions({ waitFor: 1, formats: ['screenshot', 'network'] }, { render: true })).toEqual([]);
    expect(unservedScrapeOptions({ formats: ['summary'] }, { render: true })).toEqual(['the "summary" format']);
    // A build with the extractor serves the extraction formats.
    const extraction: ScrapeOptions = { formats: ['summary', { type: 'json', template: 'article' }, { type: 'changeTracking' }] };
    expect(unservedScrapeOptions(extraction, { render: false })).toEqual(['the "summary" format', 'the "json" format', 'the "changeTracking" format']);
    expect(unservedScrapeOptions(extraction, { render: false, extract: true })).toEqual([]);
  });

  it('reserves a browser page for a rendered scrape and one credit for a fetched one', () => {
    expect(scrapeEstimate({})).toBe(1);
    // The operator's model is reserved only when one is configured and the formats may call it.
    expect(scrapeEstimate({ formats: ['summary'] })).toBe(1);
    expect(scrapeEstimate({ formats: ['summary'] }, true)).toBe(1 + PRICES.operatorModelPage.credits);
    expect(scrapeEstimate({ formats: [{ type: 'changeTracking' }] }, true)).toBe(1);
    expect(scrapeEstimate({ waitFor: 100 })).toBe(BROWSER_PAGE_CREDITS);
    expect(OPERATION_TABLE.scrape.price.estimate(context({ formats: ['network'] }), { config: loadConfig({}), version: 'test' })).toBe(BROWSER_PAGE_CREDITS);
  });
});
