-- One row per page a model answered for a key: the tokens the extractor's model calls used
-- (the `json` and `summary` formats of a scrape, a crawl's or batch's page, an extract's URL,
-- the crawl params preview). Written by the extractor through the store's batch writer as it
-- settles the page (actors/extractor/handler.ts, pipeline/structured/model-usage.ts), read
-- per calendar month by Firecrawl's token-usage reads (gateway/firecrawl/team.ts). `tenant`
-- is the key's id, never its secret; `at` the request's time (the gateway's clock); `owner`
-- `operator` (MODEL_*) or `caller` (the caller's own model key); `model` `provider:name`.
CREATE TABLE IF NOT EXISTS model_usage
(
    tenant        String,
    at            DateTime64(3, 'UTC'),
    request_id    String,
    job_id        String,
    owner         LowCardinality(String),
    model         LowCardinality(String),
    input_tokens  UInt32,
    output_tokens UInt32
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(at)
ORDER BY (tenant, at)
TTL toDateTime(at) + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;
