-- 0004_page_changes: the snapshots behind the `changeTracking` format (pipeline/pages/changes.ts).
--
-- A scrape with change tracking compares the page with the caller's previous snapshot of the
-- same URL and tag, then writes its own snapshot. One history per (tenant, url, tag): a key
-- never sees another key's snapshots (tenant first in the sort key, and every read says
-- `tenant = {tenant:String}`), and each tag keeps its own history.
--
-- * url: the normalized URL (pipeline/pages/cache.ts normalizeUrl, the page cache's rule);
--   url_hash is computed from it. The lookup reads the range (tenant, url_hash) and checks
--   `url = …` too, so a cityHash64 collision cannot mix two pages.
-- * tag: the caller's tag, '' when it gave none; has_tag tells the two apart, so the history
--   of tag null and the history of tag "" stay separate (a Nullable column would need
--   allow_nullable_key to be in the sort key).
-- * scraped_at: when the snapshot was taken (the answer's `previousScrapeAt` next time).
-- * markdown: the page's markdown as it was answered; json: its `json` format output as JSON
--   text, '' when the scrape had none. Both ZSTD-compressed.
--
-- Only the newest snapshot matters: ReplacingMergeTree(scraped_at) keyed without the time
-- keeps one row per (tenant, url, tag) after merges, the newest, so the table grows with the
-- pages tracked, not with how often they are scraped (a monitor checking a page every few
-- minutes would otherwise add a full markdown each time). Before a merge the older rows are
-- still there; the lookup takes `ORDER BY scraped_at DESC LIMIT 1` of the key's few rows, so
-- it is exact either way, without FINAL. A history of checks, where one is wanted, is the
-- `checks` table's job.
--
-- TTL: none. A TTL would turn a page tracked again after a long pause back into `new`; with
-- one row per tracked page the table stays small enough to keep.
--
-- Settings: rows are as large as `pages` rows (a page's markdown), so the table is created
-- with the merge-memory settings 0003_merge_memory gave `pages` and `job_pages`.
CREATE TABLE IF NOT EXISTS page_changes
(
    tenant      String,
    url         String,
    url_hash    UInt64 DEFAULT cityHash64(url),
    has_tag     UInt8,
    tag         String,
    scraped_at  DateTime64(3, 'UTC'),
    status_code UInt16,
    markdown    String CODEC(ZSTD(3)),
    json        String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(scraped_at)
ORDER BY (tenant, url_hash, url, has_tag, tag)
SETTINGS index_granularity_bytes = 1048576, merge_max_block_size_bytes = 1048576, min_bytes_for_wide_part = 134217728, vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1;
