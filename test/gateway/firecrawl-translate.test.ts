/**
 * The Firecrawl edge's translation rules (gateway/firecrawl/translate*.ts), one by one: formats
 * and options of v2 and v1 onto ours, crawl, map, search and extract bodies, monitor schedules
 * both ways, documents and errors back. The SDKs drive them end to end in
 * test/e2e/firecrawl-*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { crawlBodyOf, documentOf, errorOf, FirecrawlRefusal, mapBodyOf, scrapeOptionsOf, searchBodyOf, V2_MAX_AGE_DEFAULT_MS } from '../../gateway/firecrawl/translate.js';
import { extractAnswerOf, extractBodyOf, paramsPreviewOf } from '../../gateway/firecrawl/translate-extract.js';
import { cronOfInterval, intervalOfCron, monitorBodyOf, monitorUpdateOf } from '../../gateway/firecrawl/translate-monitors.js';
import { isLinearRegex } from '../../pipeline/runtime/linear-regex.js';

const refusal = (fn: () => unknown): FirecrawlRefusal => {
  try {
    fn();
  } catch (error) {
    if (error instanceof FirecrawlRefusal) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('gateway/firecrawl translate', () => {
  it('maps v2 format objects and options onto ours, with v2\'s maxAge default', () => {
    const { options, shape } = scrapeOptionsOf(
      {
        formats: [{ type: 'markdown' }, 'images', { type: 'screenshot', fullPage: true, quality: 80 }, { type: 'json', schema: { type: 'object' }, prompt: 'the name' }, { type: 'changeTracking', modes: ['json'], tag: 't', schema: { type: 'object' } }],
        origin: 'js-sdk@4',
        integration: 'x',
        blockAds: true,
        proxy: 'stealth',
        parsers: [{ type: 'pdf', maxPages: 3 }],
        location: { country: 'de' },
        actions: [{ type: 'click', selector: 'a', all: false }],
      },
      'v2',
      { formats: null, maxAge: true },
    );
    expect(options).toEqual({
      formats: ['markdown', 'media', { type: 'screenshot', fullPage: true, quality: 80 }, { type: 'json', schema: { type: 'object' }, prompt: 'the name' }, { type: 'changeTracking', modes: ['json'], tag: 't' }, { type: 'json', schema: { type: 'object' } }],
      proxy: 'residential',
      parsers: ['pdf'],
      location: { country: 'DE' },
      actions: [{ type: 'click', selector: 'a' }],
      maxAge: V2_MAX_AGE_DEFAULT_MS,
    });
    expect(shape).toMatchObject({ images: true, legacyExtract: false });
  });

  it('maps v1 strings: screenshot@fullPage, json with jsonOptions, the legacy extract, changeTrackingOptions', () => {
    const { options, shape } = scrapeOptionsOf(
      { formats: ['screenshot@fullPage', 'extract', 'changeTracking'], extract: { schema: { type: 'object' }, systemPrompt: 'be brief', prompt: 'name' }, changeTrackingOptions: { modes: ['git-diff'], tag: null } },
      'v1',
      { formats: null, maxAge: false },
    );
    expect(options.formats).toEqual([{ type: 'screenshot', fullPage: true }, { type: 'json', schema: { type: 'object' }, prompt: 'be brief\n\nname' }, { type: 'changeTracking', modes: ['git-diff'], tag: null }]);
    expect(options.maxAge).toBeUndefined();
    expect(shape.legacyExtract).toBe(true);
    expect(documentOf({ json: { a: 1 } }, shape)).toEqual({ extract: { a: 1 } });
  });

  it('refuses cloud formats, zero data retention, click-all', () => {
    expect(refusal(() => scrapeOptionsOf({ formats: ['branding'] }, 'v2', { formats: null, maxAge: true })).message).toMatch(/branding.*cloud/);
    expect(refusal(() => scrapeOptionsOf({ zeroDataRetention: true }, 'v2', { formats: null, maxAge: true })).message).toMatch(/zeroDataRetention/);
    expect(refusal(() => scrapeOptionsOf({ actions: [{ type: 'click', selector: 'a', all: true }] }, 'v2', { formats: null, maxAge: true })).message).toMatch(/all: true/);
  });

  it('maps crawl fields of v2 and v1, honours robots.txt, and refuses what has no equivalent', () => {
    expect(crawlBodyOf({ url: 'https://a.example/', maxDiscoveryDepth: 2, crawlEntireDomain: true, sitemap: 'skip', limit: 5, origin: 'x' }, 'v2').body).toEqual({ url: 'https://a.example/', limit: 5, maxDepth: 2, allowBackwardLinks: true, ignoreSitemap: true, respectRobots: true, scrapeOptions: { maxAge: V2_MAX_AGE_DEFAULT_MS } });
    expect(crawlBodyOf({ url: 'https://a.example/', maxDepth: 1, allowBackwardLinks: true, ignoreSitemap: true }, 'v1').body).toEqual({ url: 'https://a.example/', maxDepth: 1, allowBackwardLinks: true, ignoreSitemap: true, respectRobots: true });
    expect(refusal(() => crawlBodyOf({ url: 'https://a.example/', sitemap: 'only' }, 'v2')).message).toMatch(/only/);
    expect(refusal(() => crawlBodyOf({ url: 'https://a.example/', prompt: 'docs' }, 'v2')).message).toMatch(/prompt/);
    expect(refusal(() => crawlBodyOf({ url: 'https://a.example/', bogus: 1 }, 'v2')).message).toBe('Unrecognized key in body: bogus');
  });

  it('maps map and search bodies; the tool exchange gets Firecrawl\'s own 403', () => {
    expect(mapBodyOf({ url: 'https://a.example/', search: 'blog', sitemap: 'include', limit: 3, timeout: 1000 })).toEqual({ url: 'https://a.example/', search: 'blog', limit: 3, ignoreSitemap: false });
    expect(searchBodyOf({ query: 'q', country: 'us', scrapeOptions: {} }, 'v2').body).toEqual({ query: 'q', country: 'US', scrapeOptions: { formats: [], maxAge: V2_MAX_AGE_DEFAULT_MS } });
    const exchange = refusal(() => searchBodyOf({ query: 'q', sources: ['web', 'alexandria'] }, 'v2'));
    expect([exchange.status, exchange.message]).toEqual([403, 'Exchange is not enabled for this team.']);
    expect(refusal(() => searchBodyOf({ query: 'q', sources: ['news'] }, 'v2')).message).toMatch(/news/);
  });

  it('maps extract bodies and merges per-URL results into one answer', () => {
    expect(extractBodyOf({ urls: ['https://a.example/'], prompt: 'p', systemPrompt: 's', schema: { type: 'object' }, showSources: true }, 'v2')).toEqual({ urls: ['https://a.example/'], schema: { type: 'object' }, prompt: 's\n\np' });
    expect(refusal(() => extractBodyOf({ prompt: 'find' }, 'v2')).message).toMatch(/urls/);
    expect(refusal(() => extractBodyOf({ urls: ['https://a.example/*'] }, 'v2')).message).toMatch(/wildcard/);
    const merged = extractAnswerOf(
      [
        { url: 'https://a.example/1', data: { name: 'A', tags: ['x'] }, error: null },
        { url: 'https://a.example/2', data: { name: 'B', tags: ['y'], price: 3 }, error: null },
        { url: 'https://a.example/3', data: null, error: { code: 'fetch_failed', message: 'refused' } },
      ],
      true,
    );
    expect(merged.data).toEqual({ name: 'A', tags: ['x', 'y'], price: 3 });
    expect(merged.sources).toEqual({ name: ['https://a.example/1'], tags: ['https://a.example/1', 'https://a.example/2'], price: ['https://a.example/2'] });
    expect(merged.warning).toMatch(/1 of 3 pages could not be read/);
    expect(extractAnswerOf([{ url: 'u', data: null, error: { message: 'gone' } }], false)).toEqual({ data: null, error: 'gone' });
  });

  it('reads fixed-interval cron schedules both ways and refuses the rest', () => {
    expect(['*/5 * * * *', '7 * * * *', '0 */6 * * *', '30 9 * * *', '0 9 * * 1', '@hourly', '@daily', '@weekly'].map(intervalOfCron)).toEqual([5, 60, 360, 1440, 10080, 60, 1440, 10080]);
    for (const minutes of [5, 45, 60, 360, 1440, 10080]) expect(intervalOfCron(cronOfInterval(minutes))).toBe(minutes);
    for (const cron of ['*/2 * * * *', '0 9 1 * *', '0 9 * * 1-5', 'every day', '* * * * * *']) expect(() => intervalOfCron(cron)).toThrow(FirecrawlRefusal);
    expect(monitorBodyOf({ name: 'm', schedule: { cron: '@daily' }, targets: [{ type: 'scrape', urls: ['https://a.example/'] }], webhook: { url: 'https://h.example/' }, goal: 'g' })).toEqual({ name: 'm', urls: ['https://a.example/'], intervalMinutes: 1440, goal: 'g', webhook: 'https://h.example/' });
    expect(refusal(() => monitorBodyOf({ name: 'm', schedule: { cron: '@daily', timezone: 'Europe/Berlin' }, targets: [] })).message).toMatch(/UTC/);
  });

  it('translates a monitor update into the fields it names, and refuses what cannot be honoured', () => {
    expect(monitorUpdateOf({ status: 'paused', origin: 'js-sdk@4.0.0' })).toEqual({ status: 'paused' });
    expect(monitorUpdateOf({ name: 'n', schedule: { cron: '0 */6 * * *', timezone: 'UTC' }, targets: [{ type: 'scrape', urls: ['https://a.example/'] }], webhook: null, goal: null, notification: null, judgeEnabled: false, retentionDays: 90 })).toEqual({
      name: 'n',
      intervalMinutes: 360,
      url: null,
      urls: ['https://a.example/'],
      webhook: null,
      goal: null,
    });
    expect(monitorUpdateOf({ webhook: { url: 'https://h.example/' } })).toEqual({ webhook: 'https://h.example/' });
    expect(refusal(() => monitorUpdateOf({ webhook: { url: 'https://h.example/', headers: { a: 'b' } } })).message).toMatch(/headers/);
    expect(refusal(() => monitorUpdateOf({ targets: [{ type: 'search', queries: ['q'] }] })).message).toMatch(/search/);
    expect(refusal(() => monitorUpdateOf({ schedule: { cron: '0 9 * * 1-5' } })).message).toMatch(/interval/);
    expect(refusal(() => monitorUpdateOf({ judgeEnabled: true })).message).toMatch(/judge/);
    expect(refusal(() => monitorUpdateOf({ retentionDays: 365 })).message).toMatch(/90 days/);
    expect(refusal(() => monitorUpdateOf({ notification: { slack: { enabled: true } } })).message).toMatch(/notifications/);
    expect(refusal(() => monitorUpdateOf({ paused: true })).message).toMatch(/unknown monitor field `paused`/);
  });

  it('answers our failures in Firecrawl\'s error shape', () => {
    expect(errorOf(422, { detail: [{ loc: ['body', 'timeout'], msg: 'must be >= 1000', type: 'greater_than_equal' }] })).toEqual({
      status: 400,
      body: { success: false, code: 'BAD_REQUEST', error: 'Bad Request: timeout: must be >= 1000', details: [{ loc: ['body', 'timeout'], msg: 'must be >= 1000', type: 'greater_than_equal' }] },
    });
    expect(errorOf(504, { success: false, error: { code: 'timeout', message: 'too slow' } })).toEqual({ status: 504, body: { success: false, error: 'too slow', code: 'SCRAPE_TIMEOUT' } });
    expect(errorOf(402, { success: false, error: { code: 'insufficient_credits', message: 'no credits' } }).body).toEqual({ success: false, error: 'no credits', code: 'INSUFFICIENT_CREDITS' });
  });

  it('folds our cost into the document\'s metadata', () => {
    expect(documentOf({ markdown: 'm', metadata: { title: 't' }, cost: { credits: 0, remaining: null, source: 'cache' } }, null)).toEqual({ markdown: 'm', metadata: { title: 't', creditsUsed: 0, cacheState: 'hit' } });
    expect(documentOf({ media: [{ type: 'image', url: 'i' }, { type: 'video', url: 'v' }] }, { legacyExtract: false, images: true })).toEqual({ images: ['i'] });
  });

  it('keeps a model\'s crawl options only where POST /v1/crawl takes them', () => {
    expect(
      paramsPreviewOf(
        { includePaths: ['^/docs/', '(?<=a)b', 7, ''], excludePaths: [], limit: 0, maxDiscoveryDepth: 3, crawlEntireDomain: 'yes', allowExternalLinks: true, sitemap: 'only' },
        isLinearRegex,
      ),
    ).toEqual({ includePaths: ['^/docs/'], maxDiscoveryDepth: 3, allowExternalLinks: true });
    expect(paramsPreviewOf({ limit: 100_001, maxDiscoveryDepth: 21, includePaths: 'x' }, isLinearRegex)).toEqual({});
  });
});
