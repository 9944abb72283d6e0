/**
 * The site readers' limits, each named once (docs/api/intelligence.md lists them). A reader that
 * stops at one says so in its answer's `warning`.
 */

/** Pages one POST /v1/company reads at most: the home page, then about, contact, imprint and legal pages, then sitemaps. */
export const COMPANY_MAX_PAGES = 10;
/** Pages one POST /v1/products or POST /v1/posts reads at most (API pages, feeds, sitemaps and item pages together). */
export const LISTING_MAX_PAGES = 120;
/** Pages a listing may read besides one a product or post asked for (home, robots.txt, sitemaps, API indexes, feeds). */
export const LISTING_BASE_PAGES = 10;

/**
 * The page budget of a listing of `limit` items: LISTING_BASE_PAGES and one page an item (a
 * store without an API is read product page by product page), at most LISTING_MAX_PAGES. An
 * API lists 100 to 250 items a page, so the budget is rarely what stops it.
 */
export function listingPageBudget(limit: number): number {
  return Math.min(LISTING_MAX_PAGES, LISTING_BASE_PAGES + Math.max(1, Math.floor(limit)));
}
/** Item pages (a product's or a post's own page) read for their markup at most, within LISTING_MAX_PAGES. */
export const ITEM_PAGES_MAX = 100;
/** Sitemap files read at most per call (an index and the sitemaps it lists). */
export const SITEMAPS_MAX = 6;
/** Pages read at once by one call. */
export const READ_CONCURRENCY = 4;

/** Largest body parsed, by kind, in characters (the fetch path's own size cap comes first). */
export const MAX_HTML_CHARS = 4 * 1024 * 1024;
/**
 * Most tags (`<`) of an HTML page read: the readers build a page's tree on the service's own
 * thread, 0.17 s for 40,000 tags and 0.4 s for 100,000 (a 4 MiB page of links, ~250,000, took
 * over a second, each of up to LISTING_MAX_PAGES pages of a call). Three times the largest page
 * of the corpus (19,629); a page of more is not read, as one over MAX_HTML_CHARS is not.
 */
export const MAX_HTML_TAGS = 60_000;
export const MAX_JSON_CHARS = 16 * 1024 * 1024;
export const MAX_XML_CHARS = 16 * 1024 * 1024;
/** Deepest nesting of JSON and XML read (containers or elements); deeper is not read. */
export const MAX_JSON_DEPTH = 48;
export const MAX_XML_DEPTH = 48;
/**
 * Deepest element nesting of an HTML page read (void elements and those a parser closes by
 * itself not counted: read.ts `markupDepthOver`). Real pages stay under 100; the tree builder's
 * cost grows with the square of the depth.
 */
export const MAX_HTML_DEPTH = 512;

/** Items read from one source at most: entries of one sitemap, items of one feed. */
export const MAX_SITEMAP_URLS = 50_000;

/** Contact details listed at most per kind (emails, phones, forms, social links). */
export const MAX_CONTACTS = 50;
