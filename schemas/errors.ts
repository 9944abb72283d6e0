/**
 * The one table of error codes. Every `error.code` the API answers, and every code an
 * event carries across a process boundary, comes from here. Codes are stable: a code is
 * never renamed or reused for another meaning; a new case gets a new code.
 *
 * `status` is the HTTP status the gateway answers with; `retriable` tells a client (and
 * the actor pool) whether the same request may succeed later unchanged.
 *
 * docs/errors.md lists these codes under "Error codes"; test/docs/reference-tables.test.ts
 * fails when the list and this table disagree.
 */
export interface ErrorSpec {
  readonly status: number;
  readonly retriable: boolean;
  readonly description: string;
}

export const ERRORS = {
  bad_request: {
    status: 400,
    retriable: false,
    description: 'The request is malformed at the HTTP level (bad Content-Length, broken multipart, …).',
  },
  invalid_json: {
    status: 400,
    retriable: false,
    description: 'The request body is not valid JSON.',
  },
  missing_api_key: {
    status: 401,
    retriable: false,
    description: 'No `Authorization: Bearer <key>` header was sent.',
  },
  invalid_api_key: {
    status: 401,
    retriable: false,
    description: 'The key is unknown or has been revoked.',
  },
  insufficient_credits: {
    status: 402,
    retriable: false,
    description: "The key's balance does not cover the request; nothing was charged.",
  },
  not_found: {
    status: 404,
    retriable: false,
    description: 'No such route, or no such id for this key (another key\'s ids are unknown too).',
  },
  request_timeout: {
    status: 408,
    retriable: true,
    description: 'The request (its headers, or the whole of it) did not arrive within the HTTP server\'s time limit; the connection is closed.',
  },
  payload_too_large: {
    status: 413,
    retriable: false,
    description: 'The request body is larger than the configured limit (BODY_LIMIT_BYTES for JSON; UPLOAD_LIMIT_BYTES for the file sent to POST /v1/parse).',
  },
  unsupported_media_type: {
    status: 415,
    retriable: false,
    description: 'The Content-Type is not one this operation accepts.',
  },
  headers_too_large: {
    status: 431,
    retriable: false,
    description: "The request line and headers together are larger than the HTTP server accepts (Node's 16 KB); the connection is closed.",
  },
  unsupported_file_type: {
    status: 415,
    retriable: false,
    description:
      'The file sent to POST /v1/parse is not a type it reads: PDF, DOCX, HTML, markdown, plain text, JSON or XML (told by its declared type, else its extension, else its first bytes).',
  },
  file_unreadable: {
    status: 400,
    retriable: false,
    description: 'The file sent to POST /v1/parse is of a type it reads but could not be read (a damaged or encrypted PDF or DOCX).',
  },
  file_too_complex: {
    status: 422,
    retriable: false,
    description:
      "The document (a file sent to POST /v1/parse, a PDF or DOCX page, or an HTML or text page over 4 MiB or 40,000 tags, which is read the same way) passed one of this instance's limits for reading one document before anything useful was read: its parts inflate past DOCUMENT_MAX_INFLATED_BYTES or DOCUMENT_MAX_INFLATE_RATIO (a zip or Flate bomb), or reading it passed DOCUMENT_MEMORY_MB or DOCUMENT_TIMEOUT_MS. A PDF longer than DOCUMENT_MAX_PAGES, or one stopped by time after some pages, is answered with those pages and a `warning` instead.",
  },
  validation_failed: {
    status: 422,
    retriable: false,
    description:
      'The request does not match the operation\'s schema. The body is `{detail: [{loc, msg, type}]}` rather than the error envelope.',
  },
  rate_limited: {
    status: 429,
    retriable: true,
    description: 'Too many requests for this key (RATE_LIMIT_PER_MINUTE), or too many unknown or revoked keys from this client address (INVALID_KEYS_PER_MINUTE); retry after the `Retry-After` header\'s seconds.',
  },
  internal_error: {
    status: 500,
    retriable: true,
    description: 'An unexpected failure inside the service; it is logged with the request id.',
  },
  not_implemented: {
    status: 501,
    retriable: false,
    description: 'The request is valid but this instance does not serve the operation yet.',
  },
  upstream_error: {
    status: 502,
    retriable: true,
    description: 'A service this request depends on failed.',
  },
  service_unavailable: {
    status: 503,
    retriable: true,
    description: 'The service is starting or shutting down.',
  },
  store_unavailable: {
    status: 503,
    retriable: true,
    description: 'The store (chdb or the ClickHouse server) did not accept the read or write.',
  },
  store_rejected: {
    status: 500,
    retriable: false,
    description: 'The store refused the statement itself (bad SQL, unknown table, bad parameter, wrong credentials); retrying will not help.',
  },
  state_unavailable: {
    status: 503,
    retriable: true,
    description: 'Coordination state (memory or Redis) did not answer.',
  },
  bus_unavailable: {
    status: 503,
    retriable: true,
    description: 'The event bus (memory or Kafka) did not accept the event.',
  },
  event_undecodable: {
    status: 500,
    retriable: false,
    description: 'An event could not be decoded: unknown schema fingerprint or id, or corrupt bytes. It goes to the dead-letter topic.',
  },
  upstream_timeout: {
    status: 504,
    retriable: true,
    description: 'A service this request depends on did not answer in time.',
  },
  url_blocked: {
    status: 403,
    retriable: false,
    description: 'The URL may not be fetched: its scheme is not http or https, or its host is, or resolves to, a loopback, private, link-local, metadata or otherwise non-public address (redirects included).',
  },
  proxy_unavailable: {
    status: 400,
    retriable: false,
    description: 'The requested proxy route (`datacenter`, `residential` or `mobile`) has no proxy pool configured on this instance; choose another route, `auto` or `none`.',
  },
  dns_failed: {
    status: 502,
    retriable: false,
    description: 'The page\'s host name did not resolve.',
  },
  connection_refused: {
    status: 502,
    retriable: false,
    description: 'The page\'s server refused the connection.',
  },
  tls_failed: {
    status: 502,
    retriable: false,
    description: 'The TLS handshake with the page\'s server failed.',
  },
  too_many_redirects: {
    status: 502,
    retriable: false,
    description: 'The page redirected more than 10 times, or in a loop.',
  },
  content_too_large: {
    status: 502,
    retriable: false,
    description: 'The page is larger than this instance\'s size limit for one fetch; it was not read to the end.',
  },
  page_too_complex: {
    status: 502,
    retriable: false,
    description:
      'The page nests its elements deeper than 1,024 levels (real pages stay under 100), so it was not read: a tree that deep is a hostile or broken page, and reading it would cost minutes. Not charged.',
  },
  unsupported_content: {
    status: 502,
    retriable: false,
    description: 'The page\'s content type is not one the service reads (HTML, XHTML, XML, text, JSON, or PDF when `parsers` includes `pdf`).',
  },
  proxy_failed: {
    status: 502,
    retriable: true,
    description: 'The proxy the fetch was routed through failed or refused the request.',
  },
  fetch_timeout: {
    status: 504,
    retriable: true,
    description: 'The page was not fetched within the request\'s `timeout`.',
  },
  action_failed: {
    status: 400,
    retriable: false,
    description:
      'An action of the scrape\'s `actions` could not run on the page (its element never appeared, its script threw, its key is unknown); the message names the action\'s index and type, e.g. `action 2 (click)`.',
  },
  render_failed: {
    status: 502,
    retriable: true,
    description: 'The browser could not render the page: it crashed (the render is retried once on a fresh browser) or could not be started.',
  },
  robots_disallowed: {
    status: 403,
    retriable: false,
    description: "The site's robots.txt disallows the URL and the crawl was asked to honour it (`respectRobots`); listed by GET /v1/crawl/{job_id}/errors, never fetched.",
  },
  job_ended: {
    status: 409,
    retriable: false,
    description: "The page's crawl or batch job ended (cancelled, or failed) before the page was read: it was not fetched, or its fetch was stopped, and it is not charged; listed by GET /v1/crawl/{job_id}/errors.",
  },
  no_data_found: {
    status: 404,
    retriable: false,
    description: "POST /v1/extract, per URL: the page was read, but none of the asked fields (nor, with no schema or template, any structured data) were found on it. Only ever a result's `error`: the request itself succeeds.",
  },
  model_required: {
    status: 400,
    retriable: false,
    description: "The request needs a model (a `prompt` with neither `schema` nor `template`) and none is available: the operator configured none (MODEL_PROVIDER) and the request brought none (`model` on POST /v1/extract).",
  },
  model_key_rejected: {
    status: 400,
    retriable: false,
    description: "The model provider rejected the caller's own key (`model.apiKey`: unknown, revoked, without access to the model, or out of quota). Nothing was charged.",
  },
  model_rate_limited: {
    status: 429,
    retriable: true,
    description: 'The model provider still answered 429 (rate limited) after the retries MODEL_MAX_RETRIES allows, honouring its `retry-after`.',
  },
  model_failed: {
    status: 502,
    retriable: true,
    description: "The model provider failed (5xx, Anthropic's 529 overloaded, a refused connection, or the operator's key rejected) after the retries MODEL_MAX_RETRIES allows.",
  },
  model_timeout: {
    status: 504,
    retriable: true,
    description: 'The model did not answer within MODEL_TIMEOUT_MS.',
  },
  model_output_invalid: {
    status: 502,
    retriable: true,
    description: 'The model answered something that is not JSON, or JSON that breaks the schema, again after one repair attempt; nothing it said is returned.',
  },
  monitor_check_running: {
    status: 409,
    retriable: true,
    description:
      "POST /v1/monitor/{id}/run: a check of this monitor is already queued or running (its id is in the message); a monitor runs one check at a time. Read it with GET /v1/monitor/{id}/checks, or run again once it is done.",
  },
  monitor_paused: {
    status: 409,
    retriable: false,
    description:
      'POST /v1/monitor/{id}/run: the monitor is paused, so it runs no check, scheduled or manual. Resume it with PATCH /v1/monitor/{id} `{"status": "active"}`, then run it.',
  },
  provider_rate_limited: {
    status: 429,
    retriable: true,
    description:
      'Search, SERP and places: every provider that could answer was rate limited (429), and no fallback answered; retry after the `Retry-After` header\'s seconds (the shortest wait a provider asked for).',
  },
  provider_failed: {
    status: 502,
    retriable: true,
    description:
      'Search, SERP and places: no configured provider could answer (each timed out, failed, refused our credentials or answered something unreadable); the message names each provider tried and why it failed. Never an empty success that hides the failure.',
  },
  social_platform_unknown: {
    status: 404,
    retriable: false,
    description: 'POST /v1/social/{platform}/{endpoint}: no such platform in the social catalog; GET /v1/social lists them (`web`, `feeds`, `reddit`, `hackernews`, `x`, `bluesky`, `youtube`, `github`).',
  },
  social_endpoint_unknown: {
    status: 404,
    retriable: false,
    description: "POST /v1/social/{platform}/{endpoint}: the platform has no such endpoint; the message names the platform's endpoints, and GET /v1/social lists them with their inputs.",
  },
  platform_not_configured: {
    status: 503,
    retriable: false,
    description: "A social endpoint's platform lacks the credentials it needs on this instance; the message names the missing settings (X_BEARER_TOKEN, YOUTUBE_API_KEY, GITHUB_TOKEN, BLUESKY_IDENTIFIER and BLUESKY_APP_PASSWORD). Nothing was asked or charged.",
  },
  platform_not_found: {
    status: 404,
    retriable: false,
    description: 'A social endpoint: the platform says what was asked for does not exist or is not public (a user, a post, a channel, a subreddit, a repository).',
  },
  platform_rate_limited: {
    status: 429,
    retriable: true,
    description: "A social endpoint: the platform refused the call for its rate limit or quota (Reddit's, X's and Bluesky's 429, GitHub's and YouTube's spent quota); retry after the `Retry-After` header's seconds, the platform's own wait when it said one.",
  },
  platform_failed: {
    status: 502,
    retriable: true,
    description: "A social endpoint: the platform failed (5xx, a refused connection), refused this instance's credentials, or answered something that could not be read; the message says which. Never an empty success that hides the failure.",
  },
  platform_timeout: {
    status: 504,
    retriable: true,
    description: 'A social endpoint: the platform did not answer within MENTION_PLATFORM_TIMEOUT_MS (or the request\'s time ran out).',
  },
  site_unreachable: {
    status: 502,
    retriable: true,
    description:
      'POST /v1/company, /v1/products and /v1/posts: the site\'s home page could not be read: the fetch failed (no such host, refused, timed out), or the site answered an error status (404, 500, …) or something other than an HTML page; the message says which. Nothing was charged.',
  },
  site_blocked: {
    status: 502,
    retriable: true,
    description:
      'POST /v1/company, /v1/products and /v1/posts: the site refuses to be read: its home page answered 401, 403, 407 or 429, or a bot challenge (Cloudflare, PerimeterX, DataDome, Imperva) instead of the site. A later request may get through. Nothing was charged.',
  },
  site_password_protected: {
    status: 403,
    retriable: false,
    description:
      'POST /v1/products: the store is closed behind a password page (a Shopify store before its launch, or locked by its owner): neither its products nor its product API can be read. Nothing was charged.',
  },
  no_products_found: {
    status: 404,
    retriable: false,
    description:
      'POST /v1/products: the site was read, but it runs no store API the service reads (Shopify\'s `/products.json`, WooCommerce\'s Store API), and neither its sitemaps nor the Product markup of its pages name a product. Nothing was charged.',
  },
  no_posts_found: {
    status: 404,
    retriable: false,
    description:
      'POST /v1/posts: the site was read, but it offers no feed (RSS, Atom, JSON Feed), no WordPress posts API, and neither its sitemaps nor the Article markup of its pages name a post. Nothing was charged.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERRORS, value);
}
