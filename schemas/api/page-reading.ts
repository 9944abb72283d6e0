/** Request schemas of the page-reading family: scrape, crawl, batch, map, extract, fetch. */
import { Type, type Static } from '@sinclair/typebox';
import { Closed, Cursor, HttpUrl, Nullable, Pagination, StringEnum, StringMap, COUNTRY_CODE, withError } from './common.js';
import { ScrapeOptions, scrapeOptionFields } from './scrape-options.js';

export const ScrapeBody = Closed(
  { url: HttpUrl('The page to scrape: an absolute http or https URL, up to 2048 characters.'), ...scrapeOptionFields },
  { description: 'Scrape one page: `url` plus every scrape option.' },
);
export type ScrapeBody = Static<typeof ScrapeBody>;

export const WEBHOOK_EVENTS = ['started', 'page', 'completed', 'failed', 'cancelled'] as const;

/**
 * What a webhook's `headers` may hold (docs/webhooks.md): each name an HTTP token, each value
 * tabs, spaces and visible characters up to U+00FF (no CR, LF, NUL or other control
 * characters: a header that cannot be sent would fail every delivery), none of the names the
 * HTTP stack owns (hop-by-hop headers, `Host`, `Content-Length`), at most `maxCount` headers,
 * each value at most `maxValueChars`, and `maxBytes` of names and values together. The gateway checks them (the schema's
 * `x-webhook-headers` keyword, gateway/validation.ts, with pipeline/webhooks/headers.ts); the
 * notifier drops any such header still found on a delivery.
 */
export const WEBHOOK_HEADER_RULES = {
  maxCount: 20,
  maxValueChars: 4096,
  maxBytes: 8192,
  forbidden: ['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'trailer'],
  forbiddenPrefixes: ['proxy-'],
} as const;

/** Largest webhook `metadata`, as JSON (it travels in every delivery body). */
export const WEBHOOK_METADATA_MAX_BYTES = 16 * 1024;

const WebhookObject = Closed(
  {
    url: HttpUrl('Where deliveries are POSTed.'),
    headers: Type.Optional(
      StringMap({
        maxProperties: WEBHOOK_HEADER_RULES.maxCount,
        additionalProperties: { type: 'string', maxLength: WEBHOOK_HEADER_RULES.maxValueChars },
        'x-webhook-headers': true,
        description: `Extra headers sent with every delivery: at most ${WEBHOOK_HEADER_RULES.maxCount}, each value up to ${WEBHOOK_HEADER_RULES.maxValueChars} characters, ${WEBHOOK_HEADER_RULES.maxBytes} bytes of names and values in all; names are HTTP tokens, values hold no CR, LF, NUL or other control character; hop-by-hop headers (Connection, Keep-Alive, Transfer-Encoding, TE, Upgrade, Trailer, Proxy-*), Host and Content-Length are refused.`,
      }),
    ),
    metadata: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          maxProperties: 50,
          'x-max-json-bytes': WEBHOOK_METADATA_MAX_BYTES,
          description: `Echoed back in every delivery body as \`metadata\`: at most 50 fields and ${WEBHOOK_METADATA_MAX_BYTES} bytes as JSON.`,
        },
      ),
    ),
    events: Type.Optional(
      Type.Array(StringEnum(WEBHOOK_EVENTS), {
        uniqueItems: true,
        minItems: 1,
        description: 'Events to send (default: all). Delivered as `crawl.<event>` or `batch_scrape.<event>`.',
      }),
    ),
  },
  { description: 'Webhook object (Firecrawl v1 shape). Deliveries are signed with HMAC-SHA256; see the docs.' },
);

export const Webhook = Nullable(
  Type.Union([HttpUrl('Bare webhook URL: the same as `{url}` with every event.'), WebhookObject]),
  { description: 'Where job events are sent: a URL string or a webhook object.' },
);

/** Path and query regexes, run in RE2 (linear time): one RE2 cannot run is a 422 `regex_invalid`. */
const PathPatterns = (description: string) =>
  Type.Array(withError(Type.String({ minLength: 1, maxLength: 1000, format: 'regex' }), { type: 'regex_invalid', msg: 'is not a regular expression RE2 can run (no lookaround or backreferences)' }), {
    maxItems: 100,
    default: [],
    description,
  });

export const CrawlBody = Closed({
  url: HttpUrl('Absolute http or https URL to start from.'),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 100, description: 'Most pages crawled.' })),
  maxDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, default: 3, description: 'Link depth from the start page; 0 is the start page alone.' })),
  maxConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5, description: 'Pages fetched at once.' })),
  includePaths: Type.Optional(PathPatterns('Only URLs whose path and query match one of these regexes (RE2 syntax, run in linear time: no lookaround or backreferences); empty means every path.')),
  excludePaths: Type.Optional(PathPatterns('Skip URLs whose path and query match any of these regexes (RE2 syntax); wins over includePaths.')),
  allowExternalLinks: Type.Optional(Type.Boolean({ default: false })),
  allowBackwardLinks: Type.Optional(Type.Boolean({ default: false })),
  ignoreSitemap: Type.Optional(Type.Boolean({ default: false })),
  ignoreQueryParameters: Type.Optional(Type.Boolean({ default: false })),
  deduplicateSimilarURLs: Type.Optional(Type.Boolean({ default: true })),
  delay: Type.Optional(Type.Integer({ minimum: 0, maximum: 60000, default: 0, description: 'Minimum ms between requests to the same host.' })),
  respectRobots: Type.Optional(Type.Boolean({ default: false })),
  scrapeOptions: Type.Optional(ScrapeOptions),
  webhook: Type.Optional(Webhook),
});
export type CrawlBody = Static<typeof CrawlBody>;

export const BatchScrapeBody = Closed({
  urls: Type.Array(HttpUrl('A page to scrape.'), { minItems: 1, maxItems: 10000 }),
  maxConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  scrapeOptions: Type.Optional(ScrapeOptions),
  webhook: Type.Optional(Webhook),
});

export const MapBody = Closed(
  {
    url: HttpUrl('Absolute http or https URL of the site.'),
    search: Type.Optional(Nullable(Type.String({ maxLength: 500 }), { description: 'Only URLs whose address or page title contains this text, case-insensitive.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 30000, default: 5000, description: 'Most URLs listed.' })),
    includeSubdomains: Type.Optional(Type.Boolean({ default: false, description: 'Also list URLs of subdomains of the site (`www.` is always the same site).' })),
    ignoreSitemap: Type.Optional(Type.Boolean({ default: false, description: 'Follow links only, without reading robots.txt `Sitemap:` lines or the sitemaps.' })),
  },
  { description: 'Map a site: list its URLs without fetching every page.' },
);
export type MapBody = Static<typeof MapBody>;

/**
 * How long a map looks for URLs (it takes no `timeout`): robots.txt, the sitemaps and the
 * link walk stop when it runs out, and the URLs found so far are the answer.
 */
export const MAP_TIME_BUDGET_MS = 10_000;

export const MODEL_PROVIDERS = ['openai', 'anthropic'] as const;

export const ExtractBody = withError(
  Closed(
    {
      urls: Type.Array(HttpUrl('A page to extract from.'), { minItems: 1, maxItems: 100 }),
      schema: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }), { description: "The caller's JSON Schema." })),
      template: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }), { description: 'A named template (GET /v1/templates).' })),
      prompt: Type.Optional(Nullable(Type.String({ maxLength: 10000 }), { description: 'Plain-language guidance on what to pick out.' })),
      scrapeOptions: Type.Optional(ScrapeOptions),
      model: Type.Optional(
        Nullable(
          Closed({
            provider: StringEnum(MODEL_PROVIDERS),
            apiKey: Type.String({ minLength: 8, maxLength: 300, description: 'Used for this request only; never stored or logged.' }),
            name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
          }),
          { description: "The caller's own model provider and key; model calls are billed to that key." },
        ),
      ),
    },
    {
      description:
        "Give `schema` or `template`, not both. With neither, `prompt` drives a model (the caller's `model`, else the operator's; none: 400 `model_required`); with none of the three each result's `data` is the page's own structured data (JSON-LD, microdata, RDFa, Open Graph, as schema.org objects: `{items: [...]}`).",
      not: { required: ['schema', 'template'], properties: { schema: { type: 'object' }, template: { type: 'string' } } },
    },
  ),
  { type: 'mutually_exclusive', msg: 'give schema or template, not both' },
);

export type ExtractBody = Static<typeof ExtractBody>;

/** How long GET /v1/fetch waits for the URL (it takes no `timeout`): the scrape default. */
export const FETCH_TIMEOUT_MS = 90_000;

export const FetchQuery = Type.Object({
  url: Type.String({ minLength: 8, maxLength: 2048, description: 'The URL whose bytes to fetch.' }),
  proxy: Type.Optional(StringEnum(['datacenter', 'residential', 'mobile'])),
  country: Type.Optional(COUNTRY_CODE),
});

export const JobPagesQuery = Type.Object({
  cursor: Type.Optional(Cursor),
  limit: Type.Optional(Pagination(200, 50)),
});
