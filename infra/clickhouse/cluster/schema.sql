-- The store's tables for a sharded, replicated ClickHouse cluster: written by
-- npm run gen:clickhouse-cluster (infra/codegen/gen-clickhouse-cluster.ts) from the single-node
-- migrations infra/clickhouse/NNNN_*.sql; do not edit. Each table is <name>_local (a Replicated*
-- engine on every shard's replicas) behind a Distributed table under the name the service uses;
-- the materialized views read and write the shard's _local tables. {cluster}, {shard} and
-- {replica} are the servers' macros. Applied once by an operator, see docs/scaling.md.

CREATE TABLE IF NOT EXISTS api_keys_local ON CLUSTER '{cluster}'
(
    `id` String,
    `name` String,
    `hash` String,
    `prefix` String,
    `unlimited` UInt8,
    `revoked` UInt8,
    `version` UInt64,
    `created_at` DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/api_keys_local', '{replica}', version)
ORDER BY id
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS api_requests_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `at` DateTime64(3, 'UTC'),
    `op` LowCardinality(String),
    `status` UInt16,
    `code` LowCardinality(String),
    `credits` UInt32,
    `request_id` String
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/api_requests_local', '{replica}')
PARTITION BY toYYYYMM(at)
ORDER BY (tenant, at)
TTL toDateTime(at) + toIntervalDay(400)
SETTINGS ttl_only_drop_parts = 1, index_granularity = 8192;

CREATE TABLE IF NOT EXISTS blobs_local ON CLUSTER '{cluster}'
(
    `id` String,
    `created_at` DateTime64(3, 'UTC'),
    `data` String CODEC(ZSTD(3))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/blobs_local', '{replica}')
ORDER BY id
TTL toDateTime(created_at) + toIntervalDay(1)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS checks_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `monitor_id` String,
    `id` String,
    `checked_at` DateTime64(3, 'UTC'),
    `url` String,
    `status` LowCardinality(String),
    `status_code` UInt16,
    `content_hash` String,
    `previous_hash` String,
    `diff` String CODEC(ZSTD(3)),
    `document` String CODEC(ZSTD(3)),
    `error` String,
    `credits_used` UInt32,
    `request_id` String
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/checks_local', '{replica}')
ORDER BY (tenant, monitor_id, checked_at, id)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS company_answers_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `domain` String,
    `contacts` UInt8,
    `read_at` DateTime64(3, 'UTC'),
    `answer` String CODEC(ZSTD(3))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/company_answers_local', '{replica}', read_at)
ORDER BY (tenant, domain, contacts)
TTL toDateTime(read_at) + toIntervalDay(31)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS credit_ledger_local ON CLUSTER '{cluster}'
(
    `key_id` String,
    `entry_id` String,
    `at` DateTime64(3, 'UTC'),
    `amount` Int64,
    `reason` LowCardinality(String),
    `request_id` String,
    `op` LowCardinality(String)
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/credit_ledger_local', '{replica}')
ORDER BY (key_id, entry_id)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS domain_reports_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `domain` String,
    `id` String,
    `created_at` DateTime64(3, 'UTC'),
    `depth` LowCardinality(String),
    `snapshots` UInt8,
    `included` Array(UInt16),
    `captures` String CODEC(ZSTD(3)),
    `answer` String CODEC(ZSTD(3))
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/domain_reports_local', '{replica}')
PARTITION BY toYYYYMM(created_at)
ORDER BY (tenant, domain, created_at, id)
TTL toDateTime(created_at) + toIntervalDay(90)
SETTINGS ttl_only_drop_parts = 1, index_granularity = 8192;

CREATE TABLE IF NOT EXISTS domain_snapshots_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `domain` String,
    `year` UInt16,
    `timestamp` String,
    `loaded_at` DateTime64(3, 'UTC'),
    `report_id` String,
    `evidence` String CODEC(ZSTD(3))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/domain_snapshots_local', '{replica}', loaded_at)
ORDER BY (tenant, domain, year)
TTL toDateTime(loaded_at) + toIntervalDay(90)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS job_errors_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `job_id` String,
    `id` String,
    `at` DateTime64(3, 'UTC'),
    `url` String,
    `code` LowCardinality(String),
    `message` String,
    `status_code` UInt16
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/job_errors_local', '{replica}')
ORDER BY (tenant, job_id, id)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS job_pages_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `job_id` String,
    `seq` UInt64,
    `url` String,
    `url_hash` UInt64 DEFAULT cityHash64(url),
    `status_code` UInt16,
    `content_type` String,
    `final_url` String,
    `title` String,
    `document` String CODEC(ZSTD(3)),
    `content_hash` String,
    `created_at` DateTime64(3, 'UTC'),
    `seq_rank` UInt64 MATERIALIZED 18446744073709551615 - seq
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/job_pages_local', '{replica}', seq_rank)
ORDER BY (tenant, job_id, url_hash)
SETTINGS index_granularity_bytes = 1048576, index_granularity = 8192, merge_max_block_size_bytes = 1048576, min_bytes_for_wide_part = 134217728, vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1, max_parts_to_merge_at_once = 10;

CREATE TABLE IF NOT EXISTS jobs_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `id` String,
    `kind` LowCardinality(String),
    `status` LowCardinality(String),
    `version` UInt64,
    `created_at` DateTime64(3, 'UTC'),
    `updated_at` DateTime64(3, 'UTC'),
    `total` UInt64,
    `completed` UInt64,
    `failed` UInt64,
    `credits_used` UInt64,
    `params` String,
    `error` String,
    `expires_at` DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/jobs_local', '{replica}', version)
ORDER BY (tenant, id)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS leads_runs_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `id` String,
    `version` UInt64,
    `status` LowCardinality(String),
    `created_at` DateTime64(3, 'UTC'),
    `updated_at` DateTime64(3, 'UTC'),
    `expires_at` DateTime64(3, 'UTC'),
    `params` String CODEC(ZSTD(3)),
    `leads` String CODEC(ZSTD(3)),
    `summary` String CODEC(ZSTD(3)),
    `error` String,
    `warning` String,
    `credits_used` UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/leads_runs_local', '{replica}', version)
ORDER BY (tenant, id)
TTL toDateTime(expires_at)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS link_coverage_local ON CLUSTER '{cluster}'
(
    `source_domains` AggregateFunction(uniqCombined(14), UInt64),
    `pages` AggregateFunction(uniqCombined(14), UInt64),
    `edges` AggregateFunction(uniqCombined(14), UInt64),
    `since` SimpleAggregateFunction(min, DateTime64(3, 'UTC'))
)
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/link_coverage_local', '{replica}')
ORDER BY tuple()
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS link_domains_local ON CLUSTER '{cluster}'
(
    `target_domain` String,
    `source_domain` String,
    `links` AggregateFunction(uniqCombined(14), UInt64),
    `pages` AggregateFunction(uniqCombined(14), UInt64),
    `first_seen` SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    `last_seen` SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/link_domains_local', '{replica}')
ORDER BY (target_domain, source_domain)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS link_page_edges_local ON CLUSTER '{cluster}'
(
    `source_domain` String,
    `source_url` String,
    `seen_at` DateTime64(3, 'UTC'),
    `target_domains` Array(String),
    `target_urls` Array(String)
)
ENGINE = `Null`;

CREATE TABLE IF NOT EXISTS link_samples_local ON CLUSTER '{cluster}'
(
    `target_domain` String,
    `source_domain` String,
    `slot` UInt8,
    `source_url` String,
    `target_url` String,
    `last_seen` DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/link_samples_local', '{replica}', last_seen)
ORDER BY (target_domain, source_domain, slot)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS mention_status_changes_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `mention_id` String,
    `changed_at` DateTime64(3, 'UTC'),
    `from_status` LowCardinality(String),
    `to_status` LowCardinality(String)
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/mention_status_changes_local', '{replica}')
ORDER BY (tenant, mention_id, changed_at)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS mentions_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `id` String,
    `version` UInt64,
    `watch_id` String,
    `url` String,
    `platform` LowCardinality(String),
    `category` LowCardinality(String),
    `status` LowCardinality(String),
    `title` String,
    `snippet` String,
    `author` String,
    `found_at` DateTime64(3, 'UTC'),
    `published_at` Nullable(DateTime64(3, 'UTC')),
    `updated_at` DateTime64(3, 'UTC'),
    `external_id` String,
    `text` String CODEC(ZSTD(3)),
    `lang` LowCardinality(String),
    `collection_id` String,
    `classifier` LowCardinality(String),
    `score` Float32,
    `matched` Array(String)
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/mentions_local', '{replica}', version)
ORDER BY (tenant, id)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS model_usage_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `at` DateTime64(3, 'UTC'),
    `request_id` String,
    `job_id` String,
    `owner` LowCardinality(String),
    `model` LowCardinality(String),
    `input_tokens` UInt32,
    `output_tokens` UInt32
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/model_usage_local', '{replica}')
PARTITION BY toYYYYMM(at)
ORDER BY (tenant, at)
TTL toDateTime(at) + toIntervalDay(400)
SETTINGS ttl_only_drop_parts = 1, index_granularity = 8192;

CREATE TABLE IF NOT EXISTS monitor_check_pages_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `monitor_id` String,
    `check_id` String,
    `url` String,
    `position` UInt16,
    `checked_at` DateTime64(3, 'UTC'),
    `status` LowCardinality(String),
    `status_code` UInt16,
    `error_code` String,
    `error` String,
    `credits` UInt16,
    `diff` String CODEC(ZSTD(3)),
    `added` Array(String) CODEC(ZSTD(3)),
    `removed` Array(String) CODEC(ZSTD(3)),
    `truncated` UInt8
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/monitor_check_pages_local', '{replica}')
ORDER BY (tenant, monitor_id, check_id, url)
TTL toDateTime(checked_at) + toIntervalDay(90)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS monitor_checks_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `monitor_id` String,
    `id` String,
    `version` UInt64,
    `trigger` LowCardinality(String),
    `status` LowCardinality(String),
    `reason` String,
    `scheduled_at` DateTime64(3, 'UTC'),
    `queued_at` DateTime64(3, 'UTC'),
    `started_at` Nullable(DateTime64(3, 'UTC')),
    `finished_at` Nullable(DateTime64(3, 'UTC')),
    `urls` Array(String),
    `count_new` UInt32,
    `count_same` UInt32,
    `count_changed` UInt32,
    `count_removed` UInt32,
    `count_error` UInt32,
    `credits_used` UInt32
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/monitor_checks_local', '{replica}', version)
PARTITION BY toYYYYMMDD(queued_at)
ORDER BY (tenant, monitor_id, id)
TTL toDateTime(queued_at) + toIntervalDay(90)
SETTINGS ttl_only_drop_parts = 1, index_granularity = 8192;

CREATE TABLE IF NOT EXISTS monitors_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `id` String,
    `version` UInt64,
    `name` String,
    `url` Nullable(String),
    `urls` Array(String),
    `interval_minutes` UInt32,
    `goal` Nullable(String),
    `webhook` Nullable(String),
    `status` LowCardinality(String),
    `deleted` UInt8,
    `created_at` DateTime64(3, 'UTC'),
    `updated_at` DateTime64(3, 'UTC'),
    `next_check_at` DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/monitors_local', '{replica}', version)
ORDER BY (tenant, id)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS page_changes_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `url` String,
    `url_hash` UInt64 DEFAULT cityHash64(url),
    `has_tag` UInt8,
    `tag` String,
    `scraped_at` DateTime64(3, 'UTC'),
    `status_code` UInt16,
    `markdown` String CODEC(ZSTD(3)),
    `json` String CODEC(ZSTD(3))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/page_changes_local', '{replica}', scraped_at)
ORDER BY (tenant, url_hash, url, has_tag, tag)
SETTINGS index_granularity_bytes = 1048576, merge_max_block_size_bytes = 1048576, min_bytes_for_wide_part = 134217728, vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1, index_granularity = 8192;

CREATE TABLE IF NOT EXISTS pages_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `url` String,
    `url_hash` UInt64 DEFAULT cityHash64(url),
    `fetched_at` DateTime64(3, 'UTC'),
    `request_id` String,
    `job_id` String,
    `status_code` UInt16,
    `content_type` String,
    `final_url` String,
    `title` String,
    `document` String CODEC(ZSTD(3)),
    `content_hash` String,
    `body_base64` String CODEC(ZSTD(3)),
    `response_headers` String CODEC(ZSTD(3)),
    `cache_key` String,
    `shareable` UInt8
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/pages_local', '{replica}')
ORDER BY (url_hash, tenant, fetched_at, request_id)
SETTINGS index_granularity_bytes = 1048576, index_granularity = 8192, merge_max_block_size_bytes = 1048576, min_bytes_for_wide_part = 134217728, vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1, max_parts_to_merge_at_once = 10;

CREATE TABLE IF NOT EXISTS search_docs_local ON CLUSTER '{cluster}'
(
    `url_hash` UInt64,
    `tenant` String,
    `url` String,
    `shareable` UInt8,
    `fetched_at` DateTime64(3, 'UTC'),
    `title` String,
    `description` String CODEC(ZSTD(3)),
    `snippet_text` String CODEC(ZSTD(3)),
    `lang` LowCardinality(String),
    `published_at` Nullable(DateTime64(3, 'UTC')),
    `doc_len` UInt32
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/search_docs_local', '{replica}', fetched_at)
ORDER BY (url_hash, tenant)
SETTINGS index_granularity = 16, min_compress_block_size = 4096, max_compress_block_size = 16384, min_bytes_for_wide_part = 1099511627776, merge_max_block_size_bytes = 1048576;

CREATE TABLE IF NOT EXISTS search_lengths_local ON CLUSTER '{cluster}'
(
    `url_hash` UInt64,
    `tenant` String,
    `shareable` UInt8,
    `fetched_at` DateTime64(3, 'UTC'),
    `doc_len` UInt32
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/search_lengths_local', '{replica}', fetched_at)
ORDER BY (url_hash, tenant)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS search_page_terms_local ON CLUSTER '{cluster}'
(
    `url_hash` UInt64,
    `tenant` String,
    `shareable` UInt8,
    `fetched_at` DateTime64(3, 'UTC'),
    `doc_len` UInt32,
    `lang` String,
    `dated_at` DateTime('UTC'),
    `terms` Array(String),
    `tfs` Array(UInt16)
)
ENGINE = `Null`;

CREATE TABLE IF NOT EXISTS search_postings_local ON CLUSTER '{cluster}'
(
    `term` String,
    `url_hash` UInt64,
    `tenant` LowCardinality(String),
    `shareable` UInt8,
    `fetched_at` DateTime64(3, 'UTC'),
    `tf` UInt16,
    `doc_len` UInt32,
    `lang` LowCardinality(String),
    `dated_at` DateTime('UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/search_postings_local', '{replica}', fetched_at)
ORDER BY (term, url_hash, tenant)
SETTINGS index_granularity = 8192, min_bytes_for_wide_part = 1099511627776;

CREATE TABLE IF NOT EXISTS search_shown_local ON CLUSTER '{cluster}'
(
    `url_hash` UInt64,
    `tenant` String,
    `fetched_at` DateTime64(3, 'UTC'),
    `shown` Array(String) CODEC(ZSTD(1))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/search_shown_local', '{replica}', fetched_at)
ORDER BY (url_hash, tenant)
SETTINGS index_granularity = 8, min_compress_block_size = 4096, max_compress_block_size = 16384, min_bytes_for_wide_part = 1099511627776, merge_max_block_size_bytes = 1048576;

CREATE TABLE IF NOT EXISTS watch_collections_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `watch_id` String,
    `id` String,
    `version` UInt64,
    `trigger` LowCardinality(String),
    `status` LowCardinality(String),
    `reason` String,
    `scheduled_at` DateTime64(3, 'UTC'),
    `queued_at` DateTime64(3, 'UTC'),
    `started_at` Nullable(DateTime64(3, 'UTC')),
    `finished_at` Nullable(DateTime64(3, 'UTC')),
    `since_at` DateTime64(3, 'UTC'),
    `platforms` String CODEC(ZSTD(3)),
    `found` UInt32,
    `credits_used` UInt32
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/watch_collections_local', '{replica}', version)
PARTITION BY toYYYYMMDD(queued_at)
ORDER BY (tenant, watch_id, id)
TTL toDateTime(queued_at) + toIntervalDay(90)
SETTINGS ttl_only_drop_parts = 1, index_granularity = 8192;

CREATE TABLE IF NOT EXISTS watches_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `id` String,
    `version` UInt64,
    `name` String,
    `params` String,
    `status` LowCardinality(String),
    `deleted` UInt8,
    `created_at` DateTime64(3, 'UTC'),
    `updated_at` DateTime64(3, 'UTC'),
    `last_run_at` DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/watches_local', '{replica}', version)
ORDER BY (tenant, id)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS webhook_deliveries_local ON CLUSTER '{cluster}'
(
    `tenant` String,
    `source_id` String,
    `id` String,
    `attempt` UInt16,
    `at` DateTime64(3, 'UTC'),
    `event` LowCardinality(String),
    `url` String,
    `status_code` UInt16,
    `ok` UInt8,
    `error` String,
    `duration_ms` UInt32
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/webhook_deliveries_local', '{replica}')
ORDER BY (tenant, source_id, id, attempt)
SETTINGS index_granularity = 8192;

CREATE TABLE IF NOT EXISTS api_keys ON CLUSTER '{cluster}' AS api_keys_local
ENGINE = Distributed('{cluster}', currentDatabase(), api_keys_local, cityHash64(id));

CREATE TABLE IF NOT EXISTS api_requests ON CLUSTER '{cluster}' AS api_requests_local
ENGINE = Distributed('{cluster}', currentDatabase(), api_requests_local, cityHash64(tenant, at));

CREATE TABLE IF NOT EXISTS blobs ON CLUSTER '{cluster}' AS blobs_local
ENGINE = Distributed('{cluster}', currentDatabase(), blobs_local, cityHash64(id));

CREATE TABLE IF NOT EXISTS checks ON CLUSTER '{cluster}' AS checks_local
ENGINE = Distributed('{cluster}', currentDatabase(), checks_local, cityHash64(tenant, monitor_id));

CREATE TABLE IF NOT EXISTS company_answers ON CLUSTER '{cluster}' AS company_answers_local
ENGINE = Distributed('{cluster}', currentDatabase(), company_answers_local, cityHash64(tenant, domain));

CREATE TABLE IF NOT EXISTS credit_ledger ON CLUSTER '{cluster}' AS credit_ledger_local
ENGINE = Distributed('{cluster}', currentDatabase(), credit_ledger_local, cityHash64(key_id, entry_id));

CREATE TABLE IF NOT EXISTS domain_reports ON CLUSTER '{cluster}' AS domain_reports_local
ENGINE = Distributed('{cluster}', currentDatabase(), domain_reports_local, cityHash64(tenant, domain));

CREATE TABLE IF NOT EXISTS domain_snapshots ON CLUSTER '{cluster}' AS domain_snapshots_local
ENGINE = Distributed('{cluster}', currentDatabase(), domain_snapshots_local, cityHash64(tenant, domain));

CREATE TABLE IF NOT EXISTS job_errors ON CLUSTER '{cluster}' AS job_errors_local
ENGINE = Distributed('{cluster}', currentDatabase(), job_errors_local, cityHash64(tenant, job_id));

CREATE TABLE IF NOT EXISTS job_pages ON CLUSTER '{cluster}' AS job_pages_local
ENGINE = Distributed('{cluster}', currentDatabase(), job_pages_local, cityHash64(tenant, job_id));

CREATE TABLE IF NOT EXISTS jobs ON CLUSTER '{cluster}' AS jobs_local
ENGINE = Distributed('{cluster}', currentDatabase(), jobs_local, cityHash64(tenant, id));

CREATE TABLE IF NOT EXISTS leads_runs ON CLUSTER '{cluster}' AS leads_runs_local
ENGINE = Distributed('{cluster}', currentDatabase(), leads_runs_local, cityHash64(tenant, id));

CREATE TABLE IF NOT EXISTS link_coverage ON CLUSTER '{cluster}' AS link_coverage_local
ENGINE = Distributed('{cluster}', currentDatabase(), link_coverage_local, rand());

CREATE TABLE IF NOT EXISTS link_domains ON CLUSTER '{cluster}' AS link_domains_local
ENGINE = Distributed('{cluster}', currentDatabase(), link_domains_local, cityHash64(source_domain));

CREATE TABLE IF NOT EXISTS link_page_edges ON CLUSTER '{cluster}' AS link_page_edges_local
ENGINE = Distributed('{cluster}', currentDatabase(), link_page_edges_local, cityHash64(source_domain));

CREATE TABLE IF NOT EXISTS link_samples ON CLUSTER '{cluster}' AS link_samples_local
ENGINE = Distributed('{cluster}', currentDatabase(), link_samples_local, cityHash64(source_domain));

CREATE TABLE IF NOT EXISTS mention_status_changes ON CLUSTER '{cluster}' AS mention_status_changes_local
ENGINE = Distributed('{cluster}', currentDatabase(), mention_status_changes_local, cityHash64(tenant, mention_id));

CREATE TABLE IF NOT EXISTS mentions ON CLUSTER '{cluster}' AS mentions_local
ENGINE = Distributed('{cluster}', currentDatabase(), mentions_local, cityHash64(tenant, id));

CREATE TABLE IF NOT EXISTS model_usage ON CLUSTER '{cluster}' AS model_usage_local
ENGINE = Distributed('{cluster}', currentDatabase(), model_usage_local, cityHash64(tenant, at));

CREATE TABLE IF NOT EXISTS monitor_check_pages ON CLUSTER '{cluster}' AS monitor_check_pages_local
ENGINE = Distributed('{cluster}', currentDatabase(), monitor_check_pages_local, cityHash64(tenant, monitor_id));

CREATE TABLE IF NOT EXISTS monitor_checks ON CLUSTER '{cluster}' AS monitor_checks_local
ENGINE = Distributed('{cluster}', currentDatabase(), monitor_checks_local, cityHash64(tenant, monitor_id));

CREATE TABLE IF NOT EXISTS monitors ON CLUSTER '{cluster}' AS monitors_local
ENGINE = Distributed('{cluster}', currentDatabase(), monitors_local, cityHash64(tenant, id));

CREATE TABLE IF NOT EXISTS page_changes ON CLUSTER '{cluster}' AS page_changes_local
ENGINE = Distributed('{cluster}', currentDatabase(), page_changes_local, cityHash64(tenant, url_hash));

CREATE TABLE IF NOT EXISTS pages ON CLUSTER '{cluster}' AS pages_local
ENGINE = Distributed('{cluster}', currentDatabase(), pages_local, cityHash64(url_hash, tenant));

CREATE TABLE IF NOT EXISTS search_docs ON CLUSTER '{cluster}' AS search_docs_local
ENGINE = Distributed('{cluster}', currentDatabase(), search_docs_local, cityHash64(url_hash, tenant));

CREATE TABLE IF NOT EXISTS search_lengths ON CLUSTER '{cluster}' AS search_lengths_local
ENGINE = Distributed('{cluster}', currentDatabase(), search_lengths_local, cityHash64(url_hash, tenant));

CREATE TABLE IF NOT EXISTS search_page_terms ON CLUSTER '{cluster}' AS search_page_terms_local
ENGINE = Distributed('{cluster}', currentDatabase(), search_page_terms_local, cityHash64(url_hash, tenant));

CREATE TABLE IF NOT EXISTS search_postings ON CLUSTER '{cluster}' AS search_postings_local
ENGINE = Distributed('{cluster}', currentDatabase(), search_postings_local, cityHash64(url_hash, tenant));

CREATE TABLE IF NOT EXISTS search_shown ON CLUSTER '{cluster}' AS search_shown_local
ENGINE = Distributed('{cluster}', currentDatabase(), search_shown_local, cityHash64(url_hash, tenant));

CREATE TABLE IF NOT EXISTS watch_collections ON CLUSTER '{cluster}' AS watch_collections_local
ENGINE = Distributed('{cluster}', currentDatabase(), watch_collections_local, cityHash64(tenant, watch_id));

CREATE TABLE IF NOT EXISTS watches ON CLUSTER '{cluster}' AS watches_local
ENGINE = Distributed('{cluster}', currentDatabase(), watches_local, cityHash64(tenant, id));

CREATE TABLE IF NOT EXISTS webhook_deliveries ON CLUSTER '{cluster}' AS webhook_deliveries_local
ENGINE = Distributed('{cluster}', currentDatabase(), webhook_deliveries_local, cityHash64(tenant, source_id));

CREATE MATERIALIZED VIEW IF NOT EXISTS link_page_edges_coverage ON CLUSTER '{cluster}' TO link_coverage_local
(
    `source_domains` AggregateFunction(uniqCombined(14), UInt64),
    `pages` AggregateFunction(uniqCombined(14), UInt64),
    `edges` AggregateFunction(uniqCombined(14), UInt64),
    `since` DateTime64(3, 'UTC')
)
AS SELECT
    uniqCombinedState(14)(cityHash64(source_domain)) AS source_domains,
    uniqCombinedState(14)(cityHash64(source_url)) AS pages,
    uniqCombinedState(14)(cityHash64(source_url, target_url)) AS edges,
    min(seen_at) AS since
FROM link_page_edges_local
ARRAY JOIN target_urls AS target_url;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_page_edges_domains ON CLUSTER '{cluster}' TO link_domains_local
(
    `target_domain` String,
    `source_domain` String,
    `links` AggregateFunction(uniqCombined(14), UInt64),
    `pages` AggregateFunction(uniqCombined(14), UInt64),
    `first_seen` DateTime64(3, 'UTC'),
    `last_seen` DateTime64(3, 'UTC')
)
AS SELECT
    target_domain,
    source_domain,
    uniqCombinedState(14)(cityHash64(source_url, target_url)) AS links,
    uniqCombinedState(14)(cityHash64(source_url)) AS pages,
    min(seen_at) AS first_seen,
    max(seen_at) AS last_seen
FROM link_page_edges_local
ARRAY JOIN
    target_domains AS target_domain,
    target_urls AS target_url
GROUP BY
    target_domain,
    source_domain;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_page_edges_samples ON CLUSTER '{cluster}' TO link_samples_local
(
    `target_domain` String,
    `source_domain` String,
    `slot` UInt8,
    `source_url` String,
    `target_url` String,
    `last_seen` DateTime64(3, 'UTC')
)
AS SELECT
    target_domain,
    source_domain,
    slot,
    newest.1 AS source_url,
    newest.2 AS target_url,
    last_seen
FROM
(
    SELECT
        target_domain,
        source_domain,
        toUInt8(cityHash64(source_url, target_url) % 4) AS slot,
        argMax((source_url, target_url), seen_at) AS newest,
        max(seen_at) AS last_seen
    FROM link_page_edges_local
    ARRAY JOIN
        target_domains AS target_domain,
        target_urls AS target_url
    GROUP BY
        target_domain,
        source_domain,
        slot
);

CREATE MATERIALIZED VIEW IF NOT EXISTS search_docs_lengths ON CLUSTER '{cluster}' TO search_lengths_local
(
    `url_hash` UInt64,
    `tenant` String,
    `shareable` UInt8,
    `fetched_at` DateTime64(3, 'UTC'),
    `doc_len` UInt32
)
AS SELECT
    url_hash,
    tenant,
    shareable,
    fetched_at,
    doc_len
FROM search_docs_local;

CREATE MATERIALIZED VIEW IF NOT EXISTS search_docs_shown ON CLUSTER '{cluster}' TO search_shown_local
(
    `url_hash` UInt64,
    `tenant` String,
    `fetched_at` DateTime64(3, 'UTC'),
    `shown` Array(String)
)
AS SELECT
    url_hash,
    tenant,
    fetched_at,
    [toString(shareable), url, title, description, snippet_text, ifNull(toString(toUnixTimestamp64Milli(published_at)), '')] AS shown
FROM search_docs_local;

CREATE MATERIALIZED VIEW IF NOT EXISTS search_page_terms_postings ON CLUSTER '{cluster}' TO search_postings_local
(
    `term` String,
    `url_hash` UInt64,
    `tenant` String,
    `shareable` UInt8,
    `fetched_at` DateTime64(3, 'UTC'),
    `tf` UInt16,
    `doc_len` UInt32,
    `lang` String,
    `dated_at` DateTime('UTC')
)
AS SELECT
    term,
    url_hash,
    tenant,
    shareable,
    fetched_at,
    tf,
    doc_len,
    lang,
    dated_at
FROM search_page_terms_local
ARRAY JOIN
    terms AS term,
    tfs AS tf;
