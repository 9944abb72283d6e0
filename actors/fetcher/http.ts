/**
 * The fetcher's HTTP stack is the service's shared one (pipeline/runtime/net/http.ts: got-scraping
 * behind the SSRF guard, redirects, size cap, charset decoding); re-exported here for the
 * fetcher's modules and tests.
 */
export { browserHeaders, DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, HttpFetcher, type FetchRequest, type FetchResult, type HttpFetcherOptions } from '../../pipeline/runtime/net/http.js';
