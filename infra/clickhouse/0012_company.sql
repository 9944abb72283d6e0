-- 0012_company: company answers kept per key for the cache window (pipeline/intel/site/company-cache.ts).
--
-- company_answers: one row per company a key had read by POST /v1/company, under its
-- registrable domain (`www.example.com/about` and `example.com` are one company), with or
-- without contacts (`contacts` 1 or 0). A later request of the same key for the same company
-- within COMPANY_CACHE_HOURS of `read_at` is answered from `answer` (JSON, the answer as it was
-- given), free; an answer with contacts also serves a request without them. A company read
-- again replaces the row (ReplacingMergeTree on read_at; reads take the newest). Another key's
-- answers are never read (every query names the tenant).
--
-- Retention: 30 days after it was read (TTL), longer than the window's 720-hour maximum.
CREATE TABLE IF NOT EXISTS company_answers
(
    tenant   String,
    domain   String,
    contacts UInt8,
    read_at  DateTime64(3, 'UTC'),
    answer   String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(read_at)
ORDER BY (tenant, domain, contacts)
TTL toDateTime(read_at) + INTERVAL 31 DAY;
