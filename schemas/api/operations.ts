/**
 * The 46 operations of the API, defined once. The gateway registers a route per row,
 * validates with its schemas, and generates the OpenAPI document from the same rows.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Id } from './common.js';
import { BatchScrapeBody, CrawlBody, ExtractBody, FetchQuery, JobPagesQuery, MapBody, ScrapeBody } from './page-reading.js';
import { CompanyBody, DomainBody, DomainReportBody, DomainScreenBody, ListingBody, SnapshotsBody } from './intel.js';
import { ChecksQuery, MentionStatusBody, MentionsQuery, MonitorBody, WatchBody, WatchUpdateBody } from './monitoring.js';
import { PlacesSearchBody, SearchBody, SerpBody } from './search.js';
import { LeadsBody, LeadsSourcesQuery, SocialBody } from './leads-social.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Operation {
  /** operationId in the OpenAPI document; the gateway's handler key. */
  readonly id: string;
  readonly method: HttpMethod;
  /** OpenAPI-style path, `{name}` for parameters. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** JSON body schema. */
  readonly body?: TSchema;
  /** A multipart/form-data body with these binary file fields, all required. */
  readonly multipartFiles?: readonly string[];
  readonly query?: TSchema;
  /** false only for GET /v1/source. */
  readonly auth: boolean;
  /** `free` operations never charge; `metered` ones charge per the spec's rules. */
  readonly pricing: 'free' | 'metered';
  /** The 200 body is the fetched content itself, not the envelope. */
  readonly rawResponse?: boolean;
}

/**
 * Headers of a `rawResponse` operation's 200 answer: its cost, which has no envelope to go
 * in, and facts about the upstream response. The gateway sets them; the OpenAPI document
 * declares them.
 */
export const RAW_RESPONSE_HEADERS = {
  creditsCharged: { name: 'x-credits-charged', schema: { type: 'integer' }, description: 'Credits this request was charged.' },
  creditsRemaining: {
    name: 'x-credits-remaining',
    schema: { type: 'string' },
    description: "The key's balance after the charge: a whole number, or `unlimited`.",
  },
  upstreamStatus: {
    name: 'x-upstream-status',
    schema: { type: 'integer' },
    description: 'The HTTP status the URL answered with (after redirects); its bytes are returned whatever it is.',
  },
  finalUrl: { name: 'x-final-url', schema: { type: 'string' }, description: 'The URL after redirects.' },
} as const;

const jobId = Id('Job id returned when the job was started.');

/** An operation row whose id and pricing keep their literal types (OperationId, FreeOperationId). */
type Row<Id extends string, Pricing extends Operation['pricing']> = Operation & { readonly id: Id; readonly pricing: Pricing };

function op<const Id extends string, const Pricing extends Operation['pricing'] = 'metered'>(
  o: Omit<Operation, 'id' | 'auth' | 'pricing'> & { readonly id: Id; readonly auth?: boolean; readonly pricing?: Pricing },
): Row<Id, Pricing> {
  return { auth: true, pricing: 'metered', ...o } as Row<Id, Pricing>;
}

export const OPERATIONS = [
  // Page reading
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
  // Search
  op({
    id: 'search',
    method: 'POST',
    path: '/v1/search',
    tag: 'Search',
    summary: 'Web search',
    body: SearchBody,
    description:
      'Searches the web through the providers this instance is configured with, asked in order (SEARCH_PROVIDERS; by default SearXNG, Brave, a SERP API, then the local index of every page this instance has read): when one fails (timeout, 429, 5xx, an answer it cannot read) the next is asked. ' +
      'The answer is `data.results`, up to `limit` `{url, title, description, position, source}` objects, and `data.provider`, the provider that answered (`searxng`, `brave`, `serpapi`, `local`; also each result\'s `source`); `data.warning` names providers that failed first and filters the answering provider could not apply. ' +
      'The local index searches the pages stored by this key and the shared index (title, description and main text, BM25-ranked with a title boost); `lang` and `tbs` (`qdr:h|d|w|m|y`) apply to it. ' +
      'With `scrapeOptions` (at least one format) each result is read through the scrape path and carries its page (`markdown`, `metadata`, `json`, …) beside its own fields; a page that fails gets `error` (`{code, message}`) without failing the request. ' +
      'No provider able to answer: 429 `provider_rate_limited` (with `Retry-After`) when all were rate limited, else 502 `provider_failed`. ' +
      'Costs 1 credit per search, plus each page read for `scrapeOptions` as the scrape it is (rules 2 and 3); a failed search or page costs nothing.',
  }),
  op({
    id: 'serp',
    method: 'POST',
    path: '/v1/serp',
    tag: 'Search',
    summary: 'SERP search',
    body: SerpBody,
    description:
      'One search engine results page, as the provider reports it, in SerpApi\'s fields (camel case): `organicResults` (`{position, title, link, displayedLink, snippet, date}`), `relatedQuestions`, `relatedSearches`, `answerBox` and `knowledgeGraph` (null when the provider gives none), `searchInformation.totalResults`, `searchParameters`, and `pagination` (`{current, next}`; `next` is null on the last page). ' +
      'Pages are 1 to 10 of `num` results. The providers and their fallback are those of POST /v1/search; `provider` names the one that answered. ' +
      'Costs 1 credit per results page; a failed call costs nothing.',
  }),
  op({
    id: 'placesSearch',
    method: 'POST',
    path: '/v1/places/search',
    tag: 'Search',
    summary: 'Places search',
    body: PlacesSearchBody,
    description:
      'Lists places of a kind in an area from OpenStreetMap: the area (`location`, or "… in X" / "… near X" in `query`) is resolved with Nominatim (NOMINATIM_URL), then Overpass (OVERPASS_URL) lists every place matching `query` in it (a category such as `cafes` or `dentists` by its OpenStreetMap tags, else by name). ' +
      'Each place has `name`, `category`, `address`, `coordinates`, `phone`, `website`, `openingHours`, `osm` (`{type, id}`) and `osmUrl`; `data.attribution` carries the ODbL notice (© OpenStreetMap contributors) in every answer and must be shown with the data. ' +
      'Nominatim is asked at most once a second across the whole instance, with a real User-Agent, and answers are cached. A question that names no place is 422. ' +
      'Costs 1 credit per call, whatever it finds; a failed call costs nothing.',
  }),
  // Site and company intelligence
  op({
    id: 'domain',
    method: 'POST',
    path: '/v1/domain',
    tag: 'Site and company intelligence',
    summary: 'Domain registration, DNS, backlinks',
    body: DomainBody,
    description:
      'Looks a domain up: a domain or any URL on it, read as its registrable domain (`www.example.co.uk/shop` is `example.co.uk`; an internationalised name is asked for in punycode and answered in both forms). ' +
      '`registration` (from the registry over RDAP): `found`, `created`, `expires`, `updated`, `transferred`, `ageDays`, `expiresInDays`, `registrar`, `status`, `nameservers`, `dnssec`, `registry` and the RDAP records read (`sources`). ' +
      '`dns`: `exists` and the A, AAAA, MX, NS and TXT records. `backlinks`: the domains this instance\'s link graph saw linking here, busiest first, up to `backlinkLimit`, with `totalReferringDomains` and `coverage` (how many pages and domains the graph holds: it knows only the pages this instance has read). ' +
      'Each section is switched off by its flag. A section whose source fails is `null` and `errors` says why (`registry_unavailable`, `registry_rate_limited` with `retryAfter` seconds, `registry_timeout`, `registry_unsupported`, `dns_timeout`, `dns_unavailable`, `link_graph_unavailable`, …); the lookup still answers 200. ' +
      'An IP address, a single label, `localhost`, a label over 63 characters, a URL with a user or password, or a special-use or unknown top-level domain is 422; such names are never sent to a registry. ' +
      'Costs 1 credit when at least one section asked for answered; nothing when every one failed.',
  }),
  op({
    id: 'company',
    method: 'POST',
    path: '/v1/company',
    tag: 'Site and company intelligence',
    summary: 'Enrich one company from its website',
    body: CompanyBody,
    description:
      'Reads a company from its own site: the home page, then the about, contact and imprint pages its links (or its sitemap) name, in several languages (`about`, `über-uns`, `a-propos`, `chi-siamo`, `sobre`; `kontakt`, `contacto`; `impressum`, `mentions-legales`, `aviso-legal`, …), at most 10 pages. ' +
      'Answers `name`, `description`, `logo`, `phone`, `address` (`street`, `postalCode`, `locality`, `region`, `country`, `text`), `foundingYear`, `headcount` (`min`, `max`, `text`), `industry`, `linkedin` and `socialProfiles`, each from the Organization or LocalBusiness markup of a page read, else the page\'s meta tags, else what its text states (`sources` names the page of each); with `contacts` (default) also `contacts`: `emails` (including addresses pages hide: `[at]`/`[dot]`, entities, Cloudflare\'s `data-cfemail`, reversed text, data attributes), `phones`, `contactForms` and `socialLinks`, each with the `page` it was found on. ' +
      'A URL on the site and its bare domain are the same company: asked again by the same key within COMPANY_CACHE_HOURS (24 by default) it is answered from the stored answer, `cached: true`, free. `pages` lists the pages read; `warning` names pages that could not be read. ' +
      'A site that does not answer is 502 `site_unreachable`; one that refuses to be read (401, 403, 429, a bot challenge), 502 `site_blocked`. ' +
      'Costs 1 credit per page the site answered (at most 10); a failed call costs nothing.',
  }),
  op({
    id: 'products',
    method: 'POST',
    path: '/v1/products',
    tag: 'Site and company intelligence',
    summary: "List a store's products",
    body: ListingBody,
    description:
      "Lists a store's products, up to `limit`, from the store's own API when it runs one the service reads: Shopify (told by its home page, or by a `/products.json` that answers; paged 250 at a time) or WooCommerce (its Store API, told by the `wc/store` namespace of its REST API; 100 a page, prices given in minor units made numbers). Otherwise the product pages its sitemaps and home page name, read for their Product markup (at most 100 pages). " +
      'Each product: `title`, `link`, `image`, `sku`, `price` and `compareAtPrice` (numbers in the major unit, never strings or minor units), `currency` (ISO 4217), `available`, `stock` (units, when the store says), `vendor` and `variants` (each with `title`, `sku`, `price`, `compareAtPrice`, `available`, `stock`, `options`). `platform` says where they came from; `truncated` that the store may have more. ' +
      'A closed store (its password page) is 403 `site_password_protected`; a site that sells nothing the service can read, 404 `no_products_found`. ' +
      'Costs 1 credit per page the site answered (an API page of up to 250 products is one), at most 10 plus one per product asked for and never more than 120; a failed call costs nothing.',
  }),
  op({
    id: 'posts',
    method: 'POST',
    path: '/v1/posts',
    tag: 'Site and company intelligence',
    summary: "List a blog or forum's posts, newest first",
    body: ListingBody,
    description:
      "Lists a blog's or forum's posts, newest first, up to `limit`: WordPress's posts API when the site runs WordPress (100 a page), its feeds (RSS, Atom, JSON Feed named by `<link rel=alternate>`, else found at the usual places) and its forum software's (Discourse, phpBB, XenForo, vBulletin, MyBB); only when none of these gives a post, the post pages its sitemaps name, read for their Article markup (at most 100 pages). Posts are merged across sources by canonical URL. " +
      'Each post: `title`, `link`, `author`, `published` and `updated` (ISO 8601), `summary` (plain text, at most 500 characters) and `source`. `platform` names the software when known, `sources` what was read. ' +
      'A site with none of these is 404 `no_posts_found`. ' +
      'Costs 1 credit per page the site answered (an API page of up to 100 posts, a feed), at most 10 plus one per post asked for and never more than 120; a failed call costs nothing.',
  }),
  op({
    id: 'domainReport',
    method: 'POST',
    path: '/v1/domain/report',
    tag: 'Site and company intelligence',
    summary: "Buyer's report on a domain",
    body: DomainReportBody,
    description:
      'A buyer\'s report: `findings`, `concerns` (each with its `rule` and `severity`) and `questions` for the seller, each pointing at its `evidence` (a registry record, a DNS record, today\'s home page, an archived snapshot, a linking page). ' +
      'Depths are cumulative: `quick` reads registration, DNS, mail records (MX, SPF, DMARC) and today\'s home page; `buyer` adds the archive history (one snapshot a year from the Wayback Machine, `snapshots` of them, 6 by default), the known backlinks and a check that `verifyLinks` linking pages (20 by default) still link; `deep` reads 12 snapshots and 50 linking pages. ' +
      'Snapshots and linking pages are read within the report\'s time budget (DOMAIN_REPORT_BUDGET_MS); years not loaded by then are listed in `evidence.history.pending`, to load with POST /v1/domain/history/snapshots. A source that fails leaves its evidence `null` with an entry in `errors`; the report still answers. ' +
      'Concern rules: `recent_transfer` (transferred within 90 days), `expiring_soon` (within 60 days, or expired), `pending_deletion`, `registry_hold`, `parked_or_for_sale`, `spam_history`, `mail_records_missing`, `owner_changed`, `registration_after_history`, `links_gone` (docs/api/intelligence.md). ' +
      'Charged one flat price per depth (quick 2, buyer 25, deep 60 credits) including 0, 6 or 12 snapshots; each snapshot read beyond those is 1 credit more, charged when it is read; a snapshot this key loaded before is free. A failed report, or one none of whose sources answered, is not charged.',
  }),
  op({
    id: 'domainSnapshots',
    method: 'POST',
    path: '/v1/domain/history/snapshots',
    tag: 'Site and company intelligence',
    summary: 'Load pending archived snapshots',
    body: SnapshotsBody,
    description:
      'Loads the archived snapshots a report left pending: the years the key\'s newest report on the domain planned for `snapshots` (the figure the report used), or only `years`. Years still not loaded when the call returns stay in `pending`; call again. ' +
      'The answer lists each snapshot with its `charge` (`stored`: loaded before, free; `included`: in the report\'s price, free for 7 days after it; `loaded`: 1 credit), the years with no archived capture (`unavailable`), those the archive could not serve (`failed`), and the history `concerns` over every snapshot the key now holds. ' +
      'A domain this key has no report on is 404 `not_found`. A failed call is not charged.',
  }),
  op({
    id: 'domainScreen',
    method: 'POST',
    path: '/v1/domain/screen',
    tag: 'Site and company intelligence',
    summary: 'Screen up to 500 domain names for availability',
    body: DomainScreenBody,
    description:
      'Screens up to 500 names (domains or URLs on them) in parallel, each registry asked within its own limit. Each result has the `input`, the `domain` checked and its `status`: `registered` (the registry holds a record; with `expires`), `likely_available` (no registry record and no delegation or address in DNS), `no_registry_record` (no record, and DNS not asked with `dns: false`, or still answering: `dns: "resolves"`), `unknown` (the registry did not answer: `error` says why) or `invalid` (not a domain name: `reason`). ' +
      'A name given twice is checked once; its later copies carry `duplicate: true`. `counts` totals each status. ' +
      'Charged 1 credit per distinct name the registry answered for; invalid names, duplicates and names the registry did not answer for are free.',
  }),
  // Monitoring
  op({ id: 'monitorCreate', method: 'POST', path: '/v1/monitor', tag: 'Monitoring', summary: 'Create a monitor', body: MonitorBody, pricing: 'free' }),
  op({ id: 'monitorList', method: 'GET', path: '/v1/monitor', tag: 'Monitoring', summary: 'List monitors', pricing: 'free' }),
  op({ id: 'monitorGet', method: 'GET', path: '/v1/monitor/{monitor_id}', tag: 'Monitoring', summary: 'Get a monitor', pricing: 'free' }),
  op({ id: 'monitorDelete', method: 'DELETE', path: '/v1/monitor/{monitor_id}', tag: 'Monitoring', summary: 'Delete a monitor', pricing: 'free' }),
  op({ id: 'monitorRun', method: 'POST', path: '/v1/monitor/{monitor_id}/run', tag: 'Monitoring', summary: "Run a monitor's check now" }),
  op({ id: 'monitorChecks', method: 'GET', path: '/v1/monitor/{monitor_id}/checks', tag: 'Monitoring', summary: "List a monitor's checks", query: ChecksQuery, pricing: 'free' }),
  op({
    id: 'watchCreate',
    method: 'POST',
    path: '/v1/mentions/watches',
    tag: 'Monitoring',
    summary: 'Create a watch',
    body: WatchBody,
    pricing: 'free',
    description:
      'Saves a mention watch and collects at once (reaching back 7 days), then every `intervalMinutes`: each platform of `platforms` (default all eight) is asked for posts containing a keyword, newer than the last collection; posts with an excluded keyword, in another language than `languages`, or off the `context` are dropped; each kept post is sorted into a category and stored once as a mention (GET /v1/mentions), and `webhook` receives each batch of new mentions (`mentions.found`, signed and retried). ' +
      'The answer is the watch: its fields, `platformStatus` (per platform, whether it is configured, and the credentials it lacks), `nextCollectionAt`, `lastCollectionAt` and `lastCollection` (status, per-platform outcome and errors, mentions found, credits). Creating is free; each collection in which a platform answered costs 1 credit (see POST /v1/mentions/test).',
  }),
  op({ id: 'watchList', method: 'GET', path: '/v1/mentions/watches', tag: 'Monitoring', summary: 'List watches', pricing: 'free' }),
  op({ id: 'watchGet', method: 'GET', path: '/v1/mentions/watches/{watch_id}', tag: 'Monitoring', summary: 'Get a watch', pricing: 'free' }),
  op({
    id: 'watchUpdate',
    method: 'PATCH',
    path: '/v1/mentions/watches/{watch_id}',
    tag: 'Monitoring',
    summary: 'Update a watch',
    body: WatchUpdateBody,
    pricing: 'free',
    description: 'Changes only the fields the body names. A change to `keywords`, `platforms`, `feeds` or `sites` collects at once; a new `intervalMinutes` moves the next collection to one new interval after the last was due. Stored mentions are kept.',
  }),
  op({ id: 'watchDelete', method: 'DELETE', path: '/v1/mentions/watches/{watch_id}', tag: 'Monitoring', summary: 'Delete a watch', pricing: 'free' }),
  op({
    id: 'watchTest',
    method: 'POST',
    path: '/v1/mentions/watches/{watch_id}/test',
    tag: 'Monitoring',
    summary: 'Test a saved watch',
    description: 'Runs the saved watch now, as POST /v1/mentions/test runs watch fields: nothing is stored, charged twice or sent.',
  }),
  op({
    id: 'watchTestUnsaved',
    method: 'POST',
    path: '/v1/mentions/test',
    tag: 'Monitoring',
    summary: 'Test watch fields before saving',
    body: WatchBody,
    description:
      'Runs a collection of these watch fields now, reaching back 7 days where a platform allows (X recent search: 7 days; the others: by date filter), and answers per platform: `status` (`ok`, `error`, `not_configured`), `source` (the service that answered: a fallback names itself), `warnings`, `error` (`code`, `message`, `retryAfterMs` for a rate limit), and `mentions` found, each with its `category`, `score` and `classifier`. Nothing is stored or sent; posts already stored for a saved watch are listed too. ' +
      'Costs 1 credit when at least one platform answered; nothing when none did.',
  }),
  op({
    id: 'mentionList',
    method: 'GET',
    path: '/v1/mentions',
    tag: 'Monitoring',
    summary: 'List mentions',
    query: MentionsQuery,
    pricing: 'free',
    description:
      "This key's mentions, newest found first: `{mentions, next}`; pass `next` as `cursor` for the following page (null on the last). A mention: `id`, `watchId`, `platform`, `externalId` (the platform's id of the post), `url`, `author`, `title`, `text`, `lang`, `matchedKeywords`, `category`, `score` (0–1) and `classifier` (`linear-…` offline, `model:<provider>/<name>` with the operator's model), `status`, `publishedAt`, `foundAt`, `updatedAt`, `collectionId`.",
  }),
  op({
    id: 'mentionUpdate',
    method: 'PATCH',
    path: '/v1/mentions/{mention_id}',
    tag: 'Monitoring',
    summary: "Set a mention's status",
    body: MentionStatusBody,
    pricing: 'free',
    description: 'Any status may move to any other; every change is kept and the answer is the mention with its `statusHistory` (`{from, to, at}`, oldest first).',
  }),
  // Leads
  op({
    id: 'leadsStart',
    method: 'POST',
    path: '/v1/leads',
    tag: 'Leads',
    summary: 'Start a Find Leads run',
    body: LeadsBody,
    description:
      'Starts a run that finds businesses of the kind `query` names in `where` (or `country`): OpenStreetMap everywhere and each open business register this instance is configured with for the country (GET /v1/leads/sources), asked at once; a business several sources found is one lead, its `name`, `address`, `phone` and `website` each from the source named in `fieldSources`; with `contacts` each lead\'s website is read for e-mails, phones, contact forms and social links. ' +
      'The answer is `{id, url, status: "queued"}` at once; poll GET /v1/leads/{job_id}. Fields the body does not document are accepted and named in `warning`. `where` or `country` is required; a `sources` key this instance does not offer is a 422. ' +
      'Costs 1 credit per lead delivered (rule 10), contacts included: `limit` leads are reserved, so a key that cannot cover them is refused 402 before the run exists; a cancelled run pays for the leads it had.',
  }),
  op({
    id: 'leadsSources',
    method: 'GET',
    path: '/v1/leads/sources',
    tag: 'Leads',
    summary: 'Sources a leads search covers for a country (free)',
    query: LeadsSourcesQuery,
    pricing: 'free',
    description:
      'The sources a run covers for `country`, or for the country of the place `where` names (resolved with Nominatim): `{country, sources: [{key, label, countries}]}`, `countries` being two-letter codes or `*` for everywhere. `country` is null when the place is unknown; every source is then listed. A register this instance is not configured with is not listed. Free.',
  }),
  op({
    id: 'leadsStatus',
    method: 'GET',
    path: '/v1/leads/{job_id}',
    tag: 'Leads',
    summary: 'Find Leads run status and leads',
    pricing: 'free',
    description:
      'The run: `status` (`queued`, `running`, `completed`, `cancelled`, `failed`), `stage`, `partial` (true while it runs: `leads` then holds the leads found so far, without contacts), `leads`, `summary` (each source\'s outcome, and `attribution`: the licence notice of every source whose data is in the leads, to show with them), `creditsUsed`, `error` and `warning` when there is something to say. Another key\'s run is 404. Free.',
  }),
  op({
    id: 'leadsCancel',
    method: 'DELETE',
    path: '/v1/leads/{job_id}',
    tag: 'Leads',
    summary: 'Stop a Find Leads run',
    pricing: 'free',
    description:
      'A running run stops within a few seconds and keeps, and pays for, the leads it had; a queued run never starts and costs nothing; a finished run is unchanged. Answers the run as GET does. Free.',
  }),
  // Social
  op({
    id: 'socialCatalog',
    method: 'GET',
    path: '/v1/social',
    tag: 'Social',
    summary: 'List social endpoints (free)',
    pricing: 'free',
    description: "Every platform's endpoints: each one's path, what it answers, its inputs as JSON Schema and its price key; and per platform whether this instance has the credentials it needs (`configured`, `missing`).",
  }),
  op({
    id: 'socialRun',
    method: 'POST',
    path: '/v1/social/{platform}/{endpoint}',
    tag: 'Social',
    summary: 'Run one social endpoint',
    body: SocialBody,
    description:
      'Runs one endpoint of the catalog (GET /v1/social); the body is validated against that endpoint\'s inputs (`x-social-endpoints` lists them, each input a component of this document). Costs 1 credit when data comes back (a post or comment, a profile, a repository); an empty answer, and a failure, cost nothing.',
  }),
  // Reference
  op({ id: 'templates', method: 'GET', path: '/v1/templates', tag: 'Reference', summary: 'List extraction templates (free)', pricing: 'free' }),
  op({ id: 'source', method: 'GET', path: '/v1/source', tag: 'Reference', summary: 'Source-code offer', auth: false, pricing: 'free' }),
] as const satisfies readonly Operation[];

/** The id of an operation of the contract: what the gateway's operation table (gateway/wiring.ts) is keyed by. */
export type OperationId = (typeof OPERATIONS)[number]['id'];

/** The operations the contract prices `free`: they never charge. */
export type FreeOperationId = Extract<(typeof OPERATIONS)[number], { readonly pricing: 'free' }>['id'];

/** Path parameter schemas, by name; every path parameter is a string. */
export const PATH_PARAMS: Readonly<Record<string, TSchema>> = {
  job_id: jobId,
  monitor_id: Id('Monitor id.'),
  watch_id: Id('Watch id.'),
  mention_id: Id('Mention id.'),
  platform: Type.String({ minLength: 1, maxLength: 64, description: 'Platform key from GET /v1/social.' }),
  endpoint: Type.String({ minLength: 1, maxLength: 64, description: 'Endpoint key from GET /v1/social.' }),
};

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/** The path in the router's syntax: `/v1/crawl/:job_id`. */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
