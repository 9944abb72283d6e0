/**
 * The reads the API's hot paths depend on, written once against the tables of
 * infra/clickhouse (0001_init.sql, 0002_page_cache.sql) and checked by the store contract
 * suite on both drivers. Each is tenant-scoped where the data belongs to a key, and each is a
 * primary-key range read. Times bind as JS Dates (`{name:DateTime64(3)}`, see wire.ts).
 */

/** The columns a cache lookup returns (pipeline/pages/cache.ts `CachedRow`). */
const CACHED_COPY = `tenant, request_id, toUnixTimestamp64Milli(fetched_at) AS fetched_at_ms, status_code,
  content_type, final_url, response_headers, body_base64`;

/**
 * This tenant's newest cached copy of a URL fetched at or after `since` (now − maxAge), for
 * the same cache key (pipeline/pages/cache.ts). Params: url (normalized), tenant, since,
 * cacheKey. `url = …` guards against a cityHash64 collision. Only copies the server answered
 * below 400 are served: an error page is often passing, and a lookup that misses fetches it
 * again. No FINAL: a request's duplicate rows are the same copy, and LIMIT 1 takes one.
 */
export const CACHED_PAGE_FOR_TENANT = `
SELECT ${CACHED_COPY} FROM pages
WHERE url_hash = cityHash64({url:String}) AND url = {url:String}
  AND tenant = {tenant:String} AND fetched_at >= {since:DateTime64(3)}
  AND cache_key = {cacheKey:String} AND status_code < 400
ORDER BY fetched_at DESC
LIMIT 1`;

/**
 * The newest shareable copy from any tenant (the shared index), with the same conditions
 * otherwise. Params: url, since, cacheKey. A copy fetched with caller headers is never
 * shareable, and its cache key differs from every plain request's anyway.
 */
export const CACHED_PAGE_SHARED = `
SELECT ${CACHED_COPY} FROM pages
WHERE url_hash = cityHash64({url:String}) AND url = {url:String}
  AND fetched_at >= {since:DateTime64(3)}
  AND cache_key = {cacheKey:String} AND shareable = 1 AND status_code < 400
ORDER BY fetched_at DESC
LIMIT 1`;

/**
 * One page of a job's pages in seq order, after the cursor `after` (the last seq returned;
 * 0 for the first page). FINAL collapses a page stored twice to its first seq, so the same
 * page never comes back on a later page. Params: tenant, jobId, after, limit.
 */
export const JOB_PAGES_AFTER = `
SELECT seq, url, status_code, content_type, final_url, title, document, content_hash, created_at
FROM job_pages FINAL
WHERE tenant = {tenant:String} AND job_id = {jobId:String} AND seq > {after:UInt64}
ORDER BY seq
LIMIT {limit:UInt32}`;

/** How many pages a job's listing holds in all (a job read from the store). Params: tenant, jobId. */
export const JOB_PAGES_COUNT = `
SELECT count() AS pages FROM job_pages FINAL
WHERE tenant = {tenant:String} AND job_id = {jobId:String}`;

/** The latest version of a job. Params: tenant, id. */
export const JOB_BY_ID = `
SELECT * FROM jobs FINAL
WHERE tenant = {tenant:String} AND id = {id:String}
LIMIT 1`;

/**
 * One page of a job's pages after the cursor `after` and at most `upTo` (the job's settled
 * watermark: every seq at or below it is stored or failed, so a running job's listing never
 * steps over a page still being written). Params: tenant, jobId, after, upTo, limit.
 */
export const JOB_PAGES_SETTLED = `
SELECT seq, url, status_code, content_type, final_url, title, document, content_hash, created_at
FROM job_pages FINAL
WHERE tenant = {tenant:String} AND job_id = {jobId:String} AND seq > {after:UInt64} AND seq <= {upTo:UInt64}
ORDER BY seq
LIMIT {limit:UInt32}`;

/**
 * A job's failed URLs (robots-blocked ones included), oldest first, at most `limit`.
 * Params: tenant, jobId, limit.
 */
export const JOB_ERRORS = `
SELECT id, toUnixTimestamp64Milli(at) AS at_ms, url, code, message, status_code
FROM job_errors FINAL
WHERE tenant = {tenant:String} AND job_id = {jobId:String}
ORDER BY at, id
LIMIT {limit:UInt32}`;

/**
 * A key's jobs whose stored version is not ended, newest first, at most `limit` (Firecrawl's
 * active crawls and queue status, gateway/firecrawl/: each is read again through its live
 * record, which the store's version may trail). Params: tenant, now (a Date: the caller's clock), limit.
 */
export const JOBS_NOT_ENDED = `
SELECT id FROM jobs FINAL
WHERE tenant = {tenant:String} AND status IN ('queued', 'scraping') AND expires_at > {now:DateTime64(3)}
ORDER BY created_at DESC
LIMIT {limit:UInt32}`;
