-- 0011_domains: what domain reports keep, per key (pipeline/intel/records.ts).
--
-- domain_reports: one row per POST /v1/domain/report. `captures` is the Wayback Machine's
-- yearly captures of the domain's home page the report found (JSON: [{year, timestamp,
-- original}], oldest first), from which a later POST /v1/domain/history/snapshots plans the
-- years to load again without asking the archive; `included` lists the years whose snapshots
-- the report's flat price included (free to load for 7 days after `created_at`); `answer` is
-- the report as it was answered (JSON). Append-only: a domain's newest report is the one a
-- snapshot load reads. Another key's reports are never read (every query names the tenant).
--
-- Retention: 90 days after the report (TTL).
CREATE TABLE IF NOT EXISTS domain_reports
(
    tenant     String,
    domain     String,
    id         String,
    created_at DateTime64(3, 'UTC'),
    depth      LowCardinality(String),
    snapshots  UInt8,
    included   Array(UInt16),
    captures   String CODEC(ZSTD(3)),
    answer     String CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(created_at)
ORDER BY (tenant, domain, created_at, id)
TTL toDateTime(created_at) + INTERVAL 90 DAY
SETTINGS ttl_only_drop_parts = 1;

-- domain_snapshots: one archived home-page snapshot a key has loaded (by a report or a
-- snapshot load), per year: what was read from the archived page (`evidence`, JSON: the
-- archive and original URLs, status, title, an excerpt, the signals the report's rules read)
-- and when. A year loaded again replaces the row (ReplacingMergeTree on loaded_at, read with
-- FINAL); a year already loaded is answered from here, free (charging rule 8).
--
-- Retention: 90 days after it was loaded (TTL).
CREATE TABLE IF NOT EXISTS domain_snapshots
(
    tenant    String,
    domain    String,
    year      UInt16,
    timestamp String,
    loaded_at DateTime64(3, 'UTC'),
    report_id String,
    evidence  String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(loaded_at)
ORDER BY (tenant, domain, year)
TTL toDateTime(loaded_at) + INTERVAL 90 DAY;
