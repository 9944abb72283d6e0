/**
 * The reads the API's hot paths depend on, written once against the tables of
 * infra/clickhouse/0001_init.sql and checked by the store contract suite on both drivers.
 * Each is tenant-scoped where the data belongs to a key, and each is a primary-key range read.
 * Times bind as JS Dates (`{name:DateTime64(3)}`, see wire.ts).
 */

/**
 * This tenant's newest copy of a URL fetched at or after `since` (the request's maxAge).
 * Params: url (normalized), tenant, since. `url = …` guards against a cityHash64 collision.
 */
export const LATEST_PAGE_FOR_TENANT = `
SELECT * FROM pages
WHERE url_hash = cityHash64({url:String}) AND url = {url:String}
  AND tenant = {tenant:String} AND fetched_at >= {since:DateTime64(3)}
ORDER BY fetched_at DESC
LIMIT 1`;

/** The newest copy of a URL from any tenant (the shared index). Params: url, since. */
export const LATEST_PAGE_SHARED = `
SELECT * FROM pages
WHERE url_hash = cityHash64({url:String}) AND url = {url:String}
  AND fetched_at >= {since:DateTime64(3)}
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

/** The latest version of a job. Params: tenant, id. */
export const JOB_BY_ID = `
SELECT * FROM jobs FINAL
WHERE tenant = {tenant:String} AND id = {id:String}
LIMIT 1`;
