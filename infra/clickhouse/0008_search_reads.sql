-- 0008_search_reads: what a search reads of the local index (0005) costs less.
--
-- 1. Compact parts. A search reads a few columns of a few granules: the postings of its terms
--    (seven columns of a key range of search_postings) and the shown columns of ~15 scattered
--    search_docs rows (nine columns). In wide parts (a file per column, what the engine makes of
--    a part over 10 MiB) every column read is its own file, marks and buffer: measured on
--    100,000 pages in chdb, reading 15 search_docs rows cost 1.7 ms for one column and 4.8 ms
--    for nine. With every part compact (all columns in one file) at any size, the same reads
--    took 4.5 ms instead of 5.4 ms (search_docs) and 7.4 ms instead of 8.3 ms (the candidates
--    statement on search_postings), for 0.7% more bytes on disk. Merges of compact parts are
--    horizontal; search_docs rows are large (~3 KB), so its merges build 1 MiB blocks (as 0003
--    does for `pages`); postings rows are ~30 bytes. The setting decides the type of the parts
--    written from now on: a store created earlier keeps its wide parts until they are merged.
--
-- 2. `search_lengths`: what BM25's statistics need of every copy (N and avgdl per key,
--    pipeline/search/index/query.ts INDEX_STATS) — its key, visibility, version and weighted
--    length — apart from the large search_docs rows. In a compact search_docs part, reading
--    five small columns of every row decompresses the snippets beside them (60 ms on 100,000
--    pages, against 11 ms in wide parts); here the same read is narrow whatever the part type.
--    The view copies every search_docs insert; the INSERT fills it from what search_docs held
--    before the view existed (a row copied twice is one row: same key and version).
ALTER TABLE search_docs MODIFY SETTING min_bytes_for_wide_part = 1099511627776, merge_max_block_size_bytes = 1048576;
ALTER TABLE search_postings MODIFY SETTING min_bytes_for_wide_part = 1099511627776;

CREATE TABLE IF NOT EXISTS search_lengths
(
    url_hash   UInt64,
    tenant     String,
    shareable  UInt8,
    fetched_at DateTime64(3, 'UTC'),
    doc_len    UInt32
)
ENGINE = ReplacingMergeTree(fetched_at)
ORDER BY (url_hash, tenant);

CREATE MATERIALIZED VIEW IF NOT EXISTS search_docs_lengths TO search_lengths AS
SELECT url_hash, tenant, shareable, fetched_at, doc_len
FROM search_docs;

INSERT INTO search_lengths
SELECT url_hash, tenant, shareable, fetched_at, doc_len
FROM search_docs;
