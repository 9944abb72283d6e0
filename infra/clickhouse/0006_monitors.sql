-- 0006_monitors: monitor checks and each page's result (pipeline/monitors/).
--
-- The monitors themselves are the versioned `monitors` table of 0001_init (read with FINAL;
-- a deletion is a new version with deleted = 1). 0001's `checks` table (one row per URL
-- checked, keyed by time) is not used: a check here is a record with a status of its own, and
-- its pages are judged rows below it.
--
-- monitor_checks: one row per version of a check: `queued` when the frontier (or a manual
-- run) starts it, `running` when the classifier takes it, then `completed`, or a `skipped_*`
-- status with its reason. ReplacingMergeTree(version), read with FINAL. `trigger` is
-- `scheduled` or `manual`; scheduled_at is when the schedule wanted it (lateness = started_at
-- - scheduled_at); urls are the pages the check reads, fixed when it is queued. The counts
-- are the check's summary once it completed.
--
-- Partitioned by the day it was queued, so the frontier's periodic reads of recent checks
-- (unfinished ones to resume, the newest scheduled one per monitor) read a few days' parts,
-- and the TTL drops whole days.
--
-- Retention: 90 days after the check was queued (TTL), with its pages below.
CREATE TABLE IF NOT EXISTS monitor_checks
(
    tenant        String,
    monitor_id    String,
    id            String,
    version       UInt64,
    trigger       LowCardinality(String),
    status        LowCardinality(String),
    reason        String,
    scheduled_at  DateTime64(3, 'UTC'),
    queued_at     DateTime64(3, 'UTC'),
    started_at    Nullable(DateTime64(3, 'UTC')),
    finished_at   Nullable(DateTime64(3, 'UTC')),
    urls          Array(String),
    count_new     UInt32,
    count_same    UInt32,
    count_changed UInt32,
    count_removed UInt32,
    count_error   UInt32,
    credits_used  UInt32
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMMDD(queued_at)
ORDER BY (tenant, monitor_id, id)
TTL toDateTime(queued_at) + INTERVAL 90 DAY
SETTINGS ttl_only_drop_parts = 1;

-- monitor_check_pages: one row per page per check, written once when the page is judged (a
-- row written twice, by a check resumed after a crash, has the same sort key and collapses).
-- status: new, same, changed, removed or error (pipeline/monitors/judge.ts). The snapshot
-- itself is kept by reference: the page's newest text is the `page_changes` row of
-- (tenant, url, has_tag = 2, tag = monitor id) (0004), one row per page however often it is
-- checked; here only what the check found: the unified diff (capped) and the lines added and
-- removed (capped), ZSTD-compressed.
--
-- Retention: 90 days (TTL), as the checks.
CREATE TABLE IF NOT EXISTS monitor_check_pages
(
    tenant       String,
    monitor_id   String,
    check_id     String,
    url          String,
    position     UInt16,
    checked_at   DateTime64(3, 'UTC'),
    status       LowCardinality(String),
    status_code  UInt16,
    error_code   String,
    error        String,
    credits      UInt16,
    diff         String CODEC(ZSTD(3)),
    added        Array(String) CODEC(ZSTD(3)),
    removed      Array(String) CODEC(ZSTD(3)),
    truncated    UInt8
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant, monitor_id, check_id, url)
TTL toDateTime(checked_at) + INTERVAL 90 DAY;
