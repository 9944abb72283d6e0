-- 0002_page_cache: what `pages` needs to serve a copy again (scrape options maxAge and
-- storeInCache; pipeline/pages/cache.ts). 0001 kept only the built document, which answers
-- only the options it was built with; a cached copy must be read again with the options of
-- the request it serves, so the row now keeps the raw response.
--
-- * body_base64: the response body as base64 (JSONEachRow carries text; raw bytes that are
--   not UTF-8 would not round-trip through both drivers). ZSTD-compressed like documents.
-- * response_headers: the response headers as a JSON object (lower-case names).
-- * cache_key: hash of the options that change the bytes (mobile, location, pdf, caller
--   headers). Rows written before this migration have '' and never match a lookup.
-- * shareable: 1 when the copy may be served to other keys from the shared index; 0 when the
--   request sent its own headers (cookies, authorization).
--
-- The lookups (pipeline/runtime/store/queries.ts CACHED_PAGE_FOR_TENANT, CACHED_PAGE_SHARED) stay
-- range reads of the sort key (url_hash, tenant, fetched_at, request_id); cache_key and
-- shareable are filters on the few rows of one URL.
--
-- `fetched_at` is written as the time the request was made (PageFetched.requestedAtMs), the
-- same for every attempt, so a page fetched again after a crash lands on the same sort key
-- and collapses with the first copy instead of adding a second row for one request.
ALTER TABLE pages ADD COLUMN IF NOT EXISTS body_base64 String CODEC(ZSTD(3));
ALTER TABLE pages ADD COLUMN IF NOT EXISTS response_headers String CODEC(ZSTD(3));
ALTER TABLE pages ADD COLUMN IF NOT EXISTS cache_key String;
ALTER TABLE pages ADD COLUMN IF NOT EXISTS shareable UInt8;
