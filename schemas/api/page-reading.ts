/** Request schemas of the page-reading family: scrape, crawl, batch, map, extract, fetch. */
import { Type, type Static } from '@sinclair/typebox';
import { Closed, Cursor, HttpUrl, Nullable, Pagination, StringEnum, StringMap, COUNTRY_CODE, withError } from './common.js';
import { ScrapeOptions, scrapeOptionFields } from './scrape-options.js';
import { op, type Operation } from './operation-row.js';

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
        maxItems: WEBHOOK_EVENTS.length,
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

/** The page-reading operations: their rows of the operation table (schemas/api/operations.ts). */
export const PAGE_READING_OPERATIONS = [
  op({ id: 'scrape', method: 'POST', path: '/v1/scrape', tag: 'Page reading', summary: 'Scrape one page', body: ScrapeBody }),
  op({ id: 'crawlStart', method: 'POST', path: '/v1/crawl', tag: 'Page reading', summary: 'Start a crawl job', body: CrawlBody }),
  op({ id: 'crawlStatus', method: 'GET', path: '/v1/crawl/{job_id}', tag: 'Page reading', summary: 'Crawl status', pricing: 'free' }),
  op({ id: 'crawlCancel', method: 'DELETE', path: '/v1/crawl/{job_id}', tag: 'Page reading', summary: 'Cancel a crawl', pricing: 'free' }),
  op({ id: 'crawlPages', method: 'GET', path: '/v1/crawl/{job_id}/pages', tag: 'Page reading', summary: 'Crawled pages, cursor-paged', query: JobPagesQuery, pricing: 'free' }),
  op({ id: 'crawlErrors', method: 'GET', path: '/v1/crawl/{job_id}/errors', tag: 'Page reading', summary: 'Pages the crawl could not read, with the error for each', pricing: 'free' }),
  op({ id: 'batchStart', method: 'POST', path: '/v1/batch/scrape', tag: 'Page reading', summary: 'Start a batch scrape job', body: BatchScrapeBody }),
  op({ id: 'batchStatus', method: 'GET', path: '/v1/batch/{job_id}', tag: 'Page reading', summary: 'Batch status', pricing: 'free' }),
  op({ id: 'batchPages', method: 'GET', path: '/v1/batch/{job_id}/pages', tag: 'Page reading', summary: 'Batch pages, cursor-paged', query: JobPagesQuery, pricing: 'free' }),
  op({
    id: 'map',
    method: 'POST',
    path: '/v1/map',
    tag: 'Page reading',
    summary: 'List URLs of a site without fetching pages',
    body: MapBody,
    description:
      'Lists the URLs of the site at `url` without fetching every page: the `Sitemap:` lines of its robots.txt and /sitemap.xml (sitemap indexes followed, gzipped sitemaps read, RSS and Atom feeds too) unless `ignoreSitemap`, the links of the page at `url`, and a shallow walk of a few more pages (robots.txt `Disallow` rules honoured) within about 10 seconds. ' +
      'The answer is `data.links`, an array of `{url, title?, description?}` objects: `title` comes from the page\'s `<title>` when it was read, else from the text of a link to it or its sitemap entry (`news:title`, feed item title); `description` from a page that was read. ' +
      'The page at `url` comes first, then the URLs in the order they were found. URLs are deduplicated: the fragment, a trailing slash, the default port, the case of the host, `www.` and tracking parameters (`utm_*`, `gclid`, `fbclid`, …) do not make a new URL, and tracking parameters are removed. ' +
      'Only URLs of the same site are listed (the host of `url` after redirects, with or without `www.`); `includeSubdomains` adds its subdomains. `search` keeps only URLs whose address or title contains the text, case-insensitive, those matching in the address first. At most `limit` URLs. ' +
      'A site with no sitemap and no links answers with `url` alone. A `url` the service may not reach is 403 `url_blocked`; one that cannot be fetched answers with its fetch error (`dns_failed`, `connection_refused`, `fetch_timeout`, …). ' +
      'Costs 1 credit per call, whatever it finds; a failed map costs nothing.',
  }),
  op({
    id: 'extract',
    method: 'POST',
    path: '/v1/extract',
    tag: 'Page reading',
    summary: 'Extract JSON from up to 100 pages',
    body: ExtractBody,
    description:
      'Reads each URL through the scrape path (its `scrapeOptions`, cache and rendering rules) and answers `data.results`, one `{url, data, confidence, error}` per URL in input order (`warning` and `sources` when there is something to say). ' +
      "The page's own structured markup (JSON-LD, microdata, RDFa, Open Graph, meta tags) is read first, then page rules (headline, byline, dates, prices with currency, availability, ratings, addresses); a model fills only the fields still empty: the caller's own `model` (used for this request only, never stored, logged or put on a topic in clear), else the operator's (MODEL_*). " +
      "With `template` or `schema` the answer is validated against it before it leaves: a field that cannot be filled is left out and named in `warning`, never invented. With neither, `prompt` drives the model (no model at all: 400 `model_required`); with none of the three, `data` is the page's own structured data, `{items: [...]}`. " +
      '`confidence` (0 to 1) weighs each field by where it came from (markup 1.0, page rule 0.75, model 0.6; required fields count double) over the fields the schema declares. ' +
      'A page that fails, answers an HTTP error status (`upstream_error`) or yields none of the fields (`no_data_found`) gets `error` (`{code, message}`) and `data: null` without failing the request; a caller\'s key the provider rejects fails the request 400 `model_key_rejected`. ' +
      "Each page is charged as the scrape it is (rules 2 and 3). Costs 4 credits more for each page the operator's model answers for; the caller's own `model` costs no credits (rule 9). A URL whose result carries an `error` costs nothing.",
  }),
  op({
    id: 'parse',
    method: 'POST',
    path: '/v1/parse',
    tag: 'Page reading',
    summary: 'Parse an uploaded document',
    multipartFiles: ['file'],
    description:
      'Reads the uploaded `file` into the scrape document shape: `markdown` and `metadata`, as POST /v1/scrape with its default options (main content only). ' +
      'Accepted: PDF, DOCX, HTML or XHTML, markdown, plain text (also .csv, .tsv, .log), JSON and XML, told by the file part\'s Content-Type, else its extension, else its first bytes; ' +
      'any other file is 415 `unsupported_file_type`, and a damaged or encrypted file of an accepted type is 400 `file_unreadable`. ' +
      'Bytes that are a PDF or DOCX are read as one whatever the file was sent as (and a file sent as a PDF or DOCX whose bytes are text as that text), with `warning` saying so. ' +
      "Each file is read in a worker thread within the instance's document limits: a PDF answers at most DOCUMENT_MAX_PAGES pages (default 2000), fewer when three quarters of DOCUMENT_TIMEOUT_MS (default 60000) pass first, with `warning` saying how many of how many were read; " +
      'a file whose parts inflate past DOCUMENT_MAX_INFLATED_BYTES or DOCUMENT_MAX_INFLATE_RATIO (a zip or Flate bomb), or whose reading passes DOCUMENT_MEMORY_MB or DOCUMENT_TIMEOUT_MS, is 422 `file_too_complex`. ' +
      'The file may be at most the instance\'s UPLOAD_LIMIT_BYTES (default 52428800, 50 MiB); a larger one is 413 `payload_too_large`. ' +
      '`metadata.sourceURL` and `metadata.url` are `upload://<file name>`; `metadata.numPages` is set for a PDF. Other form fields are ignored. ' +
      'Costs 1 credit per file; a failed parse costs nothing.',
  }),
  op({
    id: 'fetch',
    method: 'GET',
    path: '/v1/fetch',
    tag: 'Page reading',
    summary: 'Fetch bytes',
    query: FetchQuery,
    rawResponse: true,
    description:
      'Fetches `url` and answers its bytes as they are, with the upstream Content-Type, whatever the type (HTML, images, PDF, …); nothing is parsed. ' +
      'Redirects are followed (at most 10), each hop behind the same guard as POST /v1/scrape: loopback, private, link-local and metadata addresses are 403 `url_blocked`. ' +
      'The body is read up to the instance\'s FETCH_MAX_BYTES (default 15728640, 15 MiB, after decompression); a larger one is 502 `content_too_large`. ' +
      'The upstream status does not change ours: a 404 or 500 page is answered 200 with its bytes and its status in `x-upstream-status`, and is charged like any fetched page. ' +
      '`proxy` picks a configured proxy pool (400 `proxy_unavailable` when the instance has none of that kind); omitted, the service chooses: a pool for `country` when there is one, else the datacenter pool, else a direct connection. ' +
      '`country` also sets Accept-Language. ' +
      'Costs 1 credit; a failed fetch costs nothing. A success has no envelope, so its cost is in the `x-credits-charged` and `x-credits-remaining` headers; failures are the JSON error envelope.',
  }),
] as const satisfies readonly Operation[];
