-- 0007_mentions: what mention watches collect (pipeline/mentions/).
--
-- The watches are 0001's versioned `watches` table: the watch fields in `params` (JSON, the
-- webhook sealed), a new version for every PATCH and one with deleted = 1 for a deletion.
--
-- mentions (0001, versioned, sorted by (tenant, id)) gains what a stored mention carries:
-- the platform's own id of the post (`external_id`; a mention's id is a hash of tenant,
-- watch, platform and external id, so the same post seen twice is one row), its text, the
-- language it was identified in, the collection that found it, its category's classifier
-- and score, and the watch terms it matched. Version 1 is written when the post is found;
-- PATCH /v1/mentions/{id} writes version + 1 with the new status (read with FINAL).
ALTER TABLE mentions ADD COLUMN IF NOT EXISTS external_id String;
ALTER TABLE mentions ADD COLUMN IF NOT EXISTS text String CODEC(ZSTD(3));
ALTER TABLE mentions ADD COLUMN IF NOT EXISTS lang LowCardinality(String);
ALTER TABLE mentions ADD COLUMN IF NOT EXISTS collection_id String;
ALTER TABLE mentions ADD COLUMN IF NOT EXISTS classifier LowCardinality(String);
ALTER TABLE mentions ADD COLUMN IF NOT EXISTS score Float32;
ALTER TABLE mentions ADD COLUMN IF NOT EXISTS matched Array(String);

-- mention_status_changes: the history of a mention's status, one row per PATCH (append-only;
-- the current status is the mention's newest version).
CREATE TABLE IF NOT EXISTS mention_status_changes
(
    tenant      String,
    mention_id  String,
    changed_at  DateTime64(3, 'UTC'),
    from_status LowCardinality(String),
    to_status   LowCardinality(String)
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant, mention_id, changed_at);

-- watch_collections: one row per version of a collection of a watch: `queued` when the
-- frontier starts it, `running` when the collector takes it, then `completed` (at least one
-- platform answered), `failed` (none did: nothing charged), or `skipped_overlap` /
-- `skipped_no_credits` with its reason. ReplacingMergeTree(version), read with FINAL.
-- `since_at` is how far back it asked (the previous collection's start, less a margin);
-- `platforms` is JSON: per platform {status, found, source, warnings, error}. `found` counts
-- the posts that matched the watch and were not stored before; the mentions stored carry the
-- collection's id.
--
-- Retention: 90 days after the collection was queued (TTL).
CREATE TABLE IF NOT EXISTS watch_collections
(
    tenant       String,
    watch_id     String,
    id           String,
    version      UInt64,
    trigger      LowCardinality(String),
    status       LowCardinality(String),
    reason       String,
    scheduled_at DateTime64(3, 'UTC'),
    queued_at    DateTime64(3, 'UTC'),
    started_at   Nullable(DateTime64(3, 'UTC')),
    finished_at  Nullable(DateTime64(3, 'UTC')),
    since_at     DateTime64(3, 'UTC'),
    platforms    String CODEC(ZSTD(3)),
    found        UInt32,
    credits_used UInt32
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMMDD(queued_at)
ORDER BY (tenant, watch_id, id)
TTL toDateTime(queued_at) + INTERVAL 90 DAY
SETTINGS ttl_only_drop_parts = 1;
