-- 0009_search_shown: what a search result shows, in one narrow column, apart from search_docs
-- (0005). A search reads what ~15 candidate copies show (pipeline/search/index/query.ts
-- COPIES): their visibility, URL, title, description, snippet text and publication time. In
-- search_docs those are six of eleven columns in 16-row granules compressed with ZSTD(3), and
-- each column a read touches costs its own marks and decompression. Here they are one
-- Array(String) per copy, compressed with ZSTD(1) (faster to decompress), in 8-row granules.
-- Measured on 100,000 pages in chdb: the read of 15 copies' shown fields 5.2–5.4 ms against
-- 6.7–8.6 ms from search_docs, a whole search 16.3 against 18.0 ms on average (300 queries,
-- the two reads alternated, identical rankings), for 1.1 KB more on disk a page (LZ4: as
-- fast, 1.5 KB).
--
-- shown: [shareable ('0'/'1'), url, title, description, snippet_text, published_at as epoch
-- milliseconds or '' when the page did not say]. A column of strings, not a JSON object, so
-- its form does not hang on the server's JSON output settings.
--
-- search_docs stays the table the parser writes (and what search_lengths and this table are
-- filled from); the view copies every insert; the INSERT fills it from what search_docs held
-- before the view existed (a row copied twice is one row: same key and version).
CREATE TABLE IF NOT EXISTS search_shown
(
    url_hash   UInt64,
    tenant     String,
    fetched_at DateTime64(3, 'UTC'),
    shown      Array(String) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree(fetched_at)
ORDER BY (url_hash, tenant)
SETTINGS index_granularity = 8, min_compress_block_size = 4096, max_compress_block_size = 16384,
         min_bytes_for_wide_part = 1099511627776, merge_max_block_size_bytes = 1048576;

CREATE MATERIALIZED VIEW IF NOT EXISTS search_docs_shown TO search_shown AS
SELECT url_hash, tenant, fetched_at,
       [toString(shareable), url, title, description, snippet_text, ifNull(toString(toUnixTimestamp64Milli(published_at)), '')] AS shown
FROM search_docs;

INSERT INTO search_shown
SELECT url_hash, tenant, fetched_at,
       [toString(shareable), url, title, description, snippet_text, ifNull(toString(toUnixTimestamp64Milli(published_at)), '')] AS shown
FROM search_docs;
