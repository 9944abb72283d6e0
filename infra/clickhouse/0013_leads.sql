-- 0013_leads: Find Leads runs (pipeline/leads/record.ts).
--
-- leads_runs: one row per version of a run (POST /v1/leads), the whole run each time: its
-- status, its request, its leads (JSON list) and its summary (JSON, with the attribution of
-- every source that contributed). The live run is in coordination state; a version is written
-- when it is created, when it starts, when its sources have answered and when it ends, so a
-- run whose state is lost is still answered (and one lost while queued or running is answered
-- `failed` with the reason, never left running). ReplacingMergeTree(version), read with FINAL.
-- Another key's runs are never read (every query names the tenant).
--
-- Retention: until the run's `expires_at` (JOB_RETENTION_HOURS after it was created), as jobs.
CREATE TABLE IF NOT EXISTS leads_runs
(
    tenant       String,
    id           String,
    version      UInt64,
    status       LowCardinality(String),
    created_at   DateTime64(3, 'UTC'),
    updated_at   DateTime64(3, 'UTC'),
    expires_at   DateTime64(3, 'UTC'),
    params       String CODEC(ZSTD(3)),
    leads        String CODEC(ZSTD(3)),
    summary      String CODEC(ZSTD(3)),
    error        String,
    warning      String,
    credits_used UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant, id)
TTL toDateTime(expires_at);
