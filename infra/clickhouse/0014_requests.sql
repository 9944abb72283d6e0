-- One row per answered /v1 request made with a valid key: the dashboard's usage panel
-- (requests and credits per day by operation, errors by code; pipeline/dashboard/queries.sql).
-- Written by the gateway through the store's batch writer as each answer is sent
-- (gateway/usage.ts), never waited on. `tenant` is the key's id, never its secret; `code` is
-- the error envelope's code, empty for a success; `credits` what the request was charged
-- (a crawl's pages are charged by the frontier and counted from `jobs`).
CREATE TABLE IF NOT EXISTS api_requests
(
    tenant     String,
    at         DateTime64(3, 'UTC'),
    op         LowCardinality(String),
    status     UInt16,
    code       LowCardinality(String),
    credits    UInt32,
    request_id String
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(at)
ORDER BY (tenant, at)
TTL toDateTime(at) + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;
