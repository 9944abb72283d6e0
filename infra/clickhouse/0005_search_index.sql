-- 0005_search_index: the local web-search index over the pages this instance has read
-- (pipeline/search/index/: rows.ts writes it, query.ts reads it; issue 16). The parser writes
-- a `search_docs` row and a `search_page_terms` row (its postings) next to every fresh
-- `pages` copy it stores.
--
-- Visibility: a key sees its own copies and every key's `shareable = 1` copies (the shared
-- index, as in 0002_page_cache). Every read says `tenant = {tenant:String} OR shareable = 1`.
-- Both tables are shared things, so their sort keys do not start with the tenant (see 0001):
-- the index is looked up by URL (search_docs) and by term (search_postings) across keys.
--
-- * url_hash: the first 8 bytes of SHA-256 of the normalized URL (pipeline/pages/cache.ts
--   normalizeUrl), computed by the writer so that a document and its postings carry the same
--   value (it is not `pages.url_hash`, which is cityHash64).
-- * fetched_at: the copy's time, as in `pages` (the time the request was made). It is the
--   version of both tables: the newest copy of a URL per key wins.
-- * doc_len / tf: term counts with the title counted 3× and the description 2× (rows.ts);
--   doc_len is the weighted length BM25 normalizes by.
-- * lang: lower case with `-` (`en-us`), '' when the page does not say.

-- One row per URL per key: its newest copy (ReplacingMergeTree(fetched_at)). snippet_text is
-- the start (2,000 characters) of the page's plain text, for snippets. published_at is null
-- when the page does not say when it was published.
-- A search reads the rows of a page of candidate URLs (15 for 10 results), scattered over the
-- table: small granules (16 rows) and small compressed blocks (4–16 KiB) keep that a read of
-- what those rows need. Measured on 100,000 pages: 20 random rows in 7–13 ms (30 in 15–21 ms),
-- against 190–590 ms with the defaults (granules of ~4,500 of these rows, 1 MiB blocks), for
-- ~35% more bytes on disk.
CREATE TABLE IF NOT EXISTS search_docs
(
    url_hash     UInt64,
    tenant       String,
    url          String,
    shareable    UInt8,
    fetched_at   DateTime64(3, 'UTC'),
    title        String,
    description  String CODEC(ZSTD(3)),
    snippet_text String CODEC(ZSTD(3)),
    lang         LowCardinality(String),
    published_at Nullable(DateTime64(3, 'UTC')),
    doc_len      UInt32
)
ENGINE = ReplacingMergeTree(fetched_at)
ORDER BY (url_hash, tenant)
SETTINGS index_granularity = 16, min_compress_block_size = 4096, max_compress_block_size = 16384;

-- The inverted index: one row per term of a copy, sorted by term, so a query reads only its
-- terms' key ranges. Written through search_page_terms below, not directly. Besides the term
-- weight (tf) it repeats what ranking and filtering need of the copy, so a query ranks from
-- this table alone: tenant and shareable (visibility), fetched_at (which copy), doc_len
-- (BM25's length), lang and dated_at (the publication time, else the fetch time, in seconds:
-- the time filter). FINAL keeps the newest posting per (term, url_hash, tenant). A copy
-- replaced by a newer one leaves behind the postings of terms the newer copy lacks; they keep
-- their old fetched_at, and the query drops a candidate whose fetched_at is not that of the
-- URL's row for that key in `search_docs FINAL` (the newest copy), so they never show.
CREATE TABLE IF NOT EXISTS search_postings
(
    term       String,
    url_hash   UInt64,
    tenant     LowCardinality(String),
    shareable  UInt8,
    fetched_at DateTime64(3, 'UTC'),
    tf         UInt16,
    doc_len    UInt32,
    lang       LowCardinality(String),
    dated_at   DateTime('UTC')
)
ENGINE = ReplacingMergeTree(fetched_at)
ORDER BY (term, url_hash, tenant);

-- How postings are written: one row per page copy with its terms and weights as two parallel
-- arrays, into a Null table (stores nothing); the materialized view expands each row into
-- search_postings, one row per term (ARRAY JOIN). A page's few hundred postings thus travel
-- as one JSONEachRow object: measured on 500,000 postings in chdb, 0.6 s as 1,500 array rows
-- against 2.4 s as 500,000 rows (JSON encoding and parsing are most of an insert's cost).
CREATE TABLE IF NOT EXISTS search_page_terms
(
    url_hash   UInt64,
    tenant     String,
    shareable  UInt8,
    fetched_at DateTime64(3, 'UTC'),
    doc_len    UInt32,
    lang       String,
    dated_at   DateTime('UTC'),
    terms      Array(String),
    tfs        Array(UInt16)
)
ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS search_page_terms_postings TO search_postings AS
SELECT term, url_hash, tenant, shareable, fetched_at, tf, doc_len, lang, dated_at
FROM search_page_terms
ARRAY JOIN terms AS term, tfs AS tf;
