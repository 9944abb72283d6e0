/**
 * Firecrawl's request and answer shapes onto ours and back: pure functions, no I/O. Only field
 * names, defaults and enums are translated here; every rule (validation, limits, prices, SSRF)
 * stays with the /v1 operation the edge calls (gateway/firecrawl/routes.ts).
 *
 * A Firecrawl field we cannot honour is refused with a FirecrawlRefusal (400, Firecrawl's error
 * shape, naming the field); a field that only tunes Firecrawl's cloud (`origin`, `integration`,
 * `blockAds`, `fastMode`, …) is dropped.
 */

export type Json = Record<string, unknown>;
export type Version = 'v1' | 'v2';

/** A Firecrawl request we refuse: answered `{success: false, error, code}` with `status`. */
export class FirecrawlRefusal extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly code = 'BAD_REQUEST',
  ) {
    super(message);
  }
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields the SDKs and Firecrawl's cloud add that mean nothing here: dropped wherever they appear. */
const DROPPED = new Set([
  'origin',
  'integration',
  'blockAds',
  'fastMode',
  'useMock',
  'minAge',
  'skipTlsVerification',
  'lockdown',
  'threatProtection',
  'toolDetail',
  'domainTools',
  'auditMetadata',
  '__experimental_cache',
  'zeroDataRetention',
]);

/** Formats Firecrawl's cloud serves from services this instance does not have. */
const CLOUD_FORMATS = new Set(['branding', 'product', 'menu', 'audio', 'video', 'question', 'highlights', 'attributes', 'query']);

/** Firecrawl v2's `maxAge` default: two days. v1's is 0 (always fresh), as ours. */
export const V2_MAX_AGE_DEFAULT_MS = 2 * 24 * 3_600_000;

/** What a Firecrawl scrape asked that changes how its answer is shaped back. */
export interface AnswerShape {
  /** v1's legacy `extract` format: the structured answer goes in `extract`, not `json`. */
  readonly legacyExtract: boolean;
  /** `images` was asked (ours is `media`, narrowed to images on the way back). */
  readonly images: boolean;
  /** `json` was asked beside the legacy `extract`: the answer is in both. */
  readonly json?: boolean;
}

const PROXIES: Record<string, string> = { basic: 'auto', auto: 'auto', enhanced: 'residential', stealth: 'residential' };

function dropZeroDataRetention(options: Json): void {
  if (options.zeroDataRetention === true) {
    throw new FirecrawlRefusal('zeroDataRetention is not offered by this service: pages are kept in its store and cache (set storeInCache: false and maxAge: 0 to avoid the cache)');
  }
}

/** One Firecrawl format (string or object, v1 or v2) as ours; `null` when it is folded elsewhere. */
function formatOf(format: unknown, options: Json, version: Version, shape: { legacyExtract: boolean; images: boolean; json: boolean }): unknown[] {
  const type = typeof format === 'string' ? format : isObject(format) ? format.type : undefined;
  if (typeof type !== 'string') throw new FirecrawlRefusal('each format must be a format name or an object with `type`');
  const fields: Json = isObject(format) ? format : {};
  switch (type) {
    case 'markdown':
    case 'html':
    case 'rawHtml':
    case 'links':
    case 'summary':
      return [type];
    case 'images':
      shape.images = true;
      return ['media'];
    case 'screenshot':
    case 'screenshot@fullPage': {
      const out: Json = { type: 'screenshot' };
      if (type === 'screenshot@fullPage' || fields.fullPage === true) out.fullPage = true;
      if (typeof fields.quality === 'number') out.quality = fields.quality;
      if (isObject(fields.viewport)) out.viewport = fields.viewport;
      return [Object.keys(out).length === 1 ? 'screenshot' : out];
    }
    case 'json':
    case 'extract': {
      if (type === 'extract') shape.legacyExtract = true;
      else shape.json = true;
      // v1 keeps the json options beside the formats (`jsonOptions`, legacy `extract`); v2 inside the format.
      const given = version === 'v1' ? ((type === 'extract' ? options.extract : options.jsonOptions) as Json | undefined) ?? {} : fields;
      const out: Json = { type: 'json' };
      if (isObject(given.schema)) out.schema = given.schema;
      const prompt = [given.systemPrompt, given.prompt].filter((p) => typeof p === 'string' && p.trim() !== '').join('\n\n');
      if (prompt) out.prompt = prompt;
      return [out];
    }
    case 'changeTracking': {
      const given = (version === 'v1' ? (options.changeTrackingOptions as Json | undefined) : fields) ?? {};
      const out: Json = { type: 'changeTracking' };
      if (Array.isArray(given.modes)) out.modes = given.modes;
      if (typeof given.tag === 'string' || given.tag === null) out.tag = given.tag;
      const extra: unknown[] = [out];
      // Firecrawl's json mode extracts both pages with the tracking's own schema; ours compares the json format: ask it.
      if (Array.isArray(given.modes) && given.modes.includes('json') && (isObject(given.schema) || typeof given.prompt === 'string')) {
        extra.push({ type: 'json', ...(isObject(given.schema) ? { schema: given.schema } : {}), ...(typeof given.prompt === 'string' ? { prompt: given.prompt } : {}) });
      }
      return extra;
    }
    default:
      if (CLOUD_FORMATS.has(type)) throw new FirecrawlRefusal(`the \`${type}\` format is a Firecrawl cloud feature this self-hosted service does not offer`);
      throw new FirecrawlRefusal(`unknown format \`${type}\``);
  }
}

/** The `parsers` option: Firecrawl's `["pdf"]` or `[{type: "pdf", …}]`; ours takes `["pdf"]`. */
function parsersOf(parsers: unknown): unknown {
  if (!Array.isArray(parsers)) return parsers;
  return [...new Set(parsers.map((p) => (isObject(p) ? p.type : p)))];
}

/** Firecrawl's actions onto ours: `click.all: false` and `wait` as Firecrawl writes it are ours already. */
function actionsOf(actions: unknown): unknown {
  if (!Array.isArray(actions)) return actions;
  return actions.map((a) => {
    if (!isObject(a)) return a;
    const { all, ...rest } = a;
    if (all === true) throw new FirecrawlRefusal('click actions with `all: true` are not offered: click one selector at a time');
    return rest;
  });
}

/**
 * Firecrawl scrape options (a scrape body, a batch body's flat options, or `scrapeOptions`)
 * as ours, and how the answer must be shaped back.
 */
export function scrapeOptionsOf(given: Json, version: Version, defaults: { formats: unknown[] | null; maxAge: boolean }): { options: Json; shape: AnswerShape } {
  dropZeroDataRetention(given);
  const shape = { legacyExtract: false, images: false, json: false };
  const options: Json = {};
  for (const [key, value] of Object.entries(given)) {
    if (DROPPED.has(key) || key === 'jsonOptions' || key === 'changeTrackingOptions' || key === 'extract') continue;
    if (value === undefined) continue;
    options[key] = value;
  }
  const formats = Array.isArray(given.formats) ? given.formats : defaults.formats;
  if (formats) {
    const out: unknown[] = [];
    for (const f of formats) for (const ours of formatOf(f, given, version, shape)) if (!out.some((o) => JSON.stringify(o) === JSON.stringify(ours))) out.push(ours);
    options.formats = out;
  } else {
    delete options.formats;
  }
  if (typeof given.proxy === 'string') {
    const proxy = PROXIES[given.proxy];
    if (!proxy) throw new FirecrawlRefusal(`unknown proxy \`${given.proxy}\` (basic, enhanced, auto, stealth)`);
    options.proxy = proxy;
  }
  if (given.parsers !== undefined) options.parsers = parsersOf(given.parsers);
  if (given.actions !== undefined) options.actions = actionsOf(given.actions);
  if (isObject(given.location)) {
    const { country, languages } = given.location;
    options.location = { country: typeof country === 'string' ? country.toUpperCase() : country, ...(languages !== undefined ? { languages } : {}) };
  }
  if (defaults.maxAge && given.maxAge === undefined) options.maxAge = V2_MAX_AGE_DEFAULT_MS;
  if (given.storeInCache === undefined) delete options.storeInCache;
  return { options, shape };
}

/** Our page document as Firecrawl's: `cost` folded into `metadata.creditsUsed` and `cacheState`, `media` narrowed to `images`. */
export function documentOf(doc: Json, shape: AnswerShape | null, cost?: Json): Json {
  const { cost: ownCost, media, ...rest } = doc;
  const out: Json = { ...rest };
  const charged = (cost ?? (isObject(ownCost) ? ownCost : undefined)) as Json | undefined;
  const metadata: Json = isObject(rest.metadata) ? { ...rest.metadata } : {};
  if (charged) {
    if (typeof charged.credits === 'number') metadata.creditsUsed = charged.credits;
    if (typeof charged.source === 'string') metadata.cacheState = charged.source === 'fresh' ? 'miss' : 'hit';
  }
  if (Object.keys(metadata).length) out.metadata = metadata;
  if (Array.isArray(media) && (shape?.images ?? true)) {
    out.images = media.filter((m) => isObject(m) && m.type === 'image').map((m) => (m as Json).url);
  }
  if (shape?.legacyExtract && out.json !== undefined) {
    out.extract = out.json;
    if (!shape.json) delete out.json;
  }
  return out;
}

/** Job statuses: ours has `queued` before the frontier takes a job; Firecrawl calls it `scraping`. */
export function jobStatusOf(status: unknown): string {
  return status === 'queued' ? 'scraping' : String(status);
}

/** A Firecrawl crawl body (v1 or v2) as ours. */
export function crawlBodyOf(given: Json, version: Version): { body: Json; shape: AnswerShape } {
  dropZeroDataRetention(given);
  const body: Json = { url: given.url };
  const copy = ['limit', 'includePaths', 'excludePaths', 'allowExternalLinks', 'ignoreQueryParameters', 'deduplicateSimilarURLs', 'delay', 'maxConcurrency', 'ignoreSitemap'];
  for (const key of copy) if (given[key] !== undefined && given[key] !== null) body[key] = given[key];
  if (given.prompt !== undefined) throw new FirecrawlRefusal('crawl `prompt` (crawl options written by a model) is not offered: give includePaths, excludePaths and limit instead');
  if (given.allowSubdomains === true) throw new FirecrawlRefusal('`allowSubdomains` is not offered: a crawl stays on its site (`allowExternalLinks` follows links anywhere)');
  const depth = version === 'v2' ? given.maxDiscoveryDepth : (given.maxDiscoveryDepth ?? given.maxDepth);
  if (typeof depth === 'number') body.maxDepth = depth;
  // v2 `crawlEntireDomain` and v1 `allowBackwardLinks` / `crawlEntireDomain`: ours is allowBackwardLinks.
  if (given.crawlEntireDomain !== undefined) body.allowBackwardLinks = given.crawlEntireDomain;
  else if (given.allowBackwardLinks !== undefined) body.allowBackwardLinks = given.allowBackwardLinks;
  if (given.sitemap !== undefined) {
    if (given.sitemap === 'only') throw new FirecrawlRefusal('`sitemap: "only"` is not offered: a crawl reads the sitemap and follows links (`include`) or follows links only (`skip`)');
    if (given.sitemap !== 'include' && given.sitemap !== 'skip') throw new FirecrawlRefusal('`sitemap` must be `include`, `skip` or `only`');
    body.ignoreSitemap = given.sitemap === 'skip';
  }
  // Firecrawl honours robots.txt on every crawl.
  body.respectRobots = true;
  if (given.webhook !== undefined) body.webhook = webhookOf(given.webhook);
  const { options, shape } = scrapeOptionsOf(isObject(given.scrapeOptions) ? given.scrapeOptions : {}, version, { formats: null, maxAge: version === 'v2' });
  if (Object.keys(options).length) body.scrapeOptions = options;
  const known = new Set([...copy, 'url', 'prompt', 'allowSubdomains', 'maxDiscoveryDepth', 'maxDepth', 'crawlEntireDomain', 'allowBackwardLinks', 'sitemap', 'webhook', 'scrapeOptions', 'regexOnFullURL', 'robotsUserAgent', 'ignoreRobotsTxt']);
  for (const key of Object.keys(given)) if (!known.has(key) && !DROPPED.has(key)) throw new FirecrawlRefusal(`Unrecognized key in body: ${key}`);
  if (given.ignoreRobotsTxt === true) body.respectRobots = false;
  return { body, shape };
}

/** Firecrawl's webhook events (`page`, `completed`, …) are ours; a string is a bare URL. */
function webhookOf(webhook: unknown): unknown {
  if (!isObject(webhook)) return webhook;
  const { url, headers, metadata, events } = webhook;
  return { url, ...(headers !== undefined ? { headers } : {}), ...(metadata !== undefined ? { metadata } : {}), ...(events !== undefined ? { events } : {}) };
}

const BATCH_FIELDS = new Set(['urls', 'webhook', 'maxConcurrency', 'ignoreInvalidURLs', 'appendToId', 'idempotencyKey']);

/** A Firecrawl batch body (urls and the scrape options flat beside them) as ours. */
export function batchBodyOf(given: Json, version: Version): { body: Json; shape: AnswerShape } {
  if (given.appendToId !== undefined && given.appendToId !== null) throw new FirecrawlRefusal('`appendToId` is not offered: start another batch');
  const flat: Json = {};
  for (const [key, value] of Object.entries(given)) if (!BATCH_FIELDS.has(key)) flat[key] = value;
  const { options, shape } = scrapeOptionsOf(flat, version, { formats: null, maxAge: version === 'v2' });
  const body: Json = { urls: given.urls };
  if (given.maxConcurrency !== undefined && given.maxConcurrency !== null) body.maxConcurrency = given.maxConcurrency;
  if (given.webhook !== undefined && given.webhook !== null) body.webhook = webhookOf(given.webhook);
  if (Object.keys(options).length) body.scrapeOptions = options;
  return { body, shape };
}

/** A Firecrawl map body as ours. */
export function mapBodyOf(given: Json): Json {
  const body: Json = { url: given.url };
  if (typeof given.search === 'string' && given.search !== '') body.search = given.search;
  if (given.limit !== undefined) body.limit = given.limit;
  if (given.includeSubdomains !== undefined) body.includeSubdomains = given.includeSubdomains;
  if (given.sitemap !== undefined) {
    if (given.sitemap === 'only') throw new FirecrawlRefusal('`sitemap: "only"` is not offered: a map reads the sitemap and the site\'s links (`include`) or the links only (`skip`)');
    body.ignoreSitemap = given.sitemap === 'skip';
  } else if (given.ignoreSitemap !== undefined) body.ignoreSitemap = given.ignoreSitemap;
  return body;
}

/** A Firecrawl search body as ours. */
export function searchBodyOf(given: Json, version: Version): { body: Json; shape: AnswerShape } {
  const body: Json = { query: given.query };
  for (const key of ['limit', 'tbs', 'filter', 'lang', 'location', 'timeout']) if (given[key] !== undefined && given[key] !== null) body[key] = given[key];
  if (typeof given.country === 'string') body.country = given.country.slice(0, 2).toUpperCase();
  if (Array.isArray(given.sources)) {
    const kinds = given.sources.map((s) => (isObject(s) ? s.type : s));
    // Firecrawl's own answer to a team without its tool exchange (Alexandria): the MCP server
    // asks for it by default and, on exactly this answer, asks again for the web alone.
    if (kinds.includes('alexandria') || kinds.includes('exchange') || given.domainTools === true) throw new FirecrawlRefusal('Exchange is not enabled for this team.', 403, 'FORBIDDEN');
    const other = kinds.filter((k) => k !== 'web');
    if (other.length) throw new FirecrawlRefusal(`search sources ${other.join(', ')} are not offered: this service searches the web (\`sources: ["web"]\`)`);
  }
  if (Array.isArray(given.categories) && given.categories.length) throw new FirecrawlRefusal('search `categories` (github, research, pdf) are not offered');
  if (Array.isArray(given.includeDomains) || Array.isArray(given.excludeDomains)) throw new FirecrawlRefusal('search includeDomains / excludeDomains are not offered: write `site:` into the query');
  let shape: AnswerShape = { legacyExtract: false, images: false };
  if (isObject(given.scrapeOptions)) {
    // Firecrawl reads no page unless formats are asked.
    const made = scrapeOptionsOf(given.scrapeOptions, version, { formats: [], maxAge: version === 'v2' });
    body.scrapeOptions = made.options;
    shape = made.shape;
  }
  return { body, shape };
}

/** One of our search results as Firecrawl's web result (with the page's document fields when read). */
export function searchResultOf(result: Json, shape: AnswerShape): Json {
  const { url, title, description, position, snippet, error, ...page } = result;
  const out: Json = { url, title, description: description ?? snippet ?? '' };
  if (typeof position === 'number') out.position = position;
  const doc = documentOf(page, shape);
  for (const key of ['markdown', 'html', 'rawHtml', 'links', 'images', 'screenshot', 'json', 'extract', 'summary', 'changeTracking', 'metadata', 'warning']) {
    if (doc[key] !== undefined) out[key] = doc[key];
  }
  if (isObject(error)) out.metadata = { ...(isObject(out.metadata) ? out.metadata : {}), error: error.message, statusCode: 0 };
  return out;
}

/** Firecrawl's error codes for ours where it has one. */
const CODES: Record<string, string> = {
  timeout: 'SCRAPE_TIMEOUT',
  page_timeout: 'SCRAPE_TIMEOUT',
  dns_failed: 'SCRAPE_DNS_RESOLUTION_ERROR',
  tls_failed: 'SCRAPE_SSL_ERROR',
  unsupported_content: 'SCRAPE_UNSUPPORTED_FILE_ERROR',
  action_failed: 'SCRAPE_ACTION_ERROR',
  invalid_json: 'BAD_REQUEST_INVALID_JSON',
  bad_request: 'BAD_REQUEST',
};

/** Our failure answer (an error envelope, or a 422 `detail`) as Firecrawl's `{success: false, error, code, details?}`. */
export function errorOf(status: number, body: unknown): { status: number; body: Json } {
  if (isObject(body) && Array.isArray(body.detail)) {
    const items = body.detail as Json[];
    const text = items
      .slice(0, 5)
      .map((d) => `${Array.isArray(d.loc) ? d.loc.filter((p) => p !== 'body').join('.') : ''}: ${String(d.msg)}`)
      .join('; ');
    return { status: 400, body: { success: false, code: 'BAD_REQUEST', error: `Bad Request: ${text}`, details: items } };
  }
  const error = isObject(body) && isObject(body.error) ? body.error : {};
  const code = typeof error.code === 'string' ? error.code : 'internal_error';
  const message = typeof error.message === 'string' ? error.message : `the request failed (${status})`;
  return { status, body: { success: false, error: message, code: CODES[code] ?? code.toUpperCase() } };
}
