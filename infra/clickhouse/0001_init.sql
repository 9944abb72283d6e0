-- 0001_init: the tables behind the API. Applied by pipeline/runtime/store/migrate.ts, once, in
-- file order; statements end with `;` at the end of a line and are all idempotent.
--
-- Conventions
--
-- * Tenant first. Every table whose rows belong to an API key has `tenant String` (the key
--   id) as the first column of its sort key, so every read is `WHERE tenant = {tenant:String}
--   AND …`: a primary-key range read that cannot reach another key's rows. `pages` is the one
--   exception (url_hash first), because the shared cache must find a URL across tenants.
-- * Times are DateTime64(3, 'UTC'): milliseconds, and the same text whatever the server's
--   time zone. A JSONEachRow insert takes epoch milliseconds (Date.now()), a JS Date (ISO
--   text with Z) or 'YYYY-MM-DD hh:mm:ss.sss' (UTC).
-- * Mutable records (jobs, monitors, watches, mentions, api_keys) are versioned rows in
--   ReplacingMergeTree(version): an update inserts the whole record again with version + 1,
--   and the sort key (tenant, id) never changes between versions. Reads use FINAL, not
--   argMax: FINAL returns the newest whole row, every column as written, with `SELECT *`
--   and plain WHERE clauses, and it only merges the primary-key ranges the WHERE selects
--   (one tenant, one id), so a point read stays cheap. argMax(col, version) would have to
--   be spelled for every column with a GROUP BY, and a filter on a mutable column (status)
--   would have to go into HAVING to avoid matching an old version. Background merges drop
--   the old versions on disk eventually; FINAL makes the answer exact before they do.
-- * Append-only facts (pages, job_pages, checks, job_errors, credit_ledger,
--   webhook_deliveries, blobs) are ReplacingMergeTree without a version: a row written twice
--   (an event redelivered after a crash) has the same sort key and collapses into one.
--   Reads that must not count the duplicate before a merge use FINAL.
-- * Large text (documents, diffs, blobs) is ZSTD-compressed.

-- One row per fetched copy of a page. `url` is the normalized URL (the cache key); url_hash
-- is computed from it unless the writer supplies it. Sorted by (url_hash, tenant, fetched_at)
-- so both cache reads are range reads:
--   this tenant's latest copy:   WHERE url_hash = cityHash64({url}) AND url = {url}
--                                  AND tenant = {tenant} AND fetched_at >= {since}
--                                ORDER BY fetched_at DESC LIMIT 1
--   any tenant's latest (shared index): the same without the tenant condition.
-- TTL: none yet; a retention setting will add `ALTER TABLE pages MODIFY TTL …` later.
CREATE TABLE IF NOT EXISTS pages
(
    tenant       String,
    url          String,
    url_hash     UInt64 DEFAULT cityHash64(url),
    fetched_at   DateTime64(3, 'UTC'),
    request_id   String,
    job_id       String,
    status_code  UInt16,
    content_type String,
    final_url    String,
    title        String,
    document     String CODEC(ZSTD(3)),
    content_hash String
)
ENGINE = ReplacingMergeTree
ORDER BY (url_hash, tenant, fetched_at, request_id)
-- 1 MiB granules: what a merge reads of each part at a time (see 0003_merge_memory).
SETTINGS index_granularity_bytes = 1048576;

-- The pages of a crawl or batch job. `seq` is the page's number in its job, assigned by the
-- producer before the write (a redelivered event carries the same seq). A page stored twice
-- collapses on (tenant, job_id, url_hash); the version column `seq_rank` keeps the copy with
-- the SMALLEST seq, so a page a reader has already paged past can never reappear later
-- under a new seq. The cursor is the last seq returned (see pipeline/runtime/store/queries.ts):
--   SELECT … FROM job_pages FINAL WHERE tenant = {tenant} AND job_id = {job}
--     AND seq > {after:UInt64} AND seq <= {upTo:UInt64} ORDER BY seq LIMIT {limit}
-- Paging never duplicates, and never skips: rows land out of seq order (several parser
-- processes write one job's pages), so a running job is read only up to its watermark
-- `upTo`, the seq at or below which every page is stored or failed (the frontier keeps it).
CREATE TABLE IF NOT EXISTS job_pages
(
    tenant       String,
    job_id       String,
    seq          UInt64,
    url          String,
    url_hash     UInt64 DEFAULT cityHash64(url),
    status_code  UInt16,
    content_type String,
    final_url    String,
    title        String,
    document     String CODEC(ZSTD(3)),
    content_hash String,
    created_at   DateTime64(3, 'UTC'),
    seq_rank     UInt64 MATERIALIZED 18446744073709551615 - seq
)
ENGINE = ReplacingMergeTree(seq_rank)
ORDER BY (tenant, job_id, url_hash)
-- 1 MiB granules (see 0003_merge_memory).
SETTINGS index_granularity_bytes = 1048576;

-- Crawl, batch, extract and leads jobs (versioned; read with FINAL).
CREATE TABLE IF NOT EXISTS jobs
(
    tenant       String,
    id           String,
    kind         LowCardinality(String),
    status       LowCardinality(String),
    version      UInt64,
    created_at   DateTime64(3, 'UTC'),
    updated_at   DateTime64(3, 'UTC'),
    total        UInt64,
    completed    UInt64,
    failed       UInt64,
    credits_used UInt64,
    params       String,
    error        String,
    expires_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant, id);

-- Pages a job could not read. `id` is derived from the failing event, so a redelivery
-- collapses.
CREATE TABLE IF NOT EXISTS job_errors
(
    tenant      String,
    job_id      String,
    id          String,
    at          DateTime64(3, 'UTC'),
    url         String,
    code        LowCardinality(String),
    message     String,
    status_code UInt16
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant, job_id, id);

-- Monitors (versioned; read with FINAL). A delete is a new version with deleted = 1.
CREATE TABLE IF NOT EXISTS monitors
(
    tenant           String,
    id               String,
    version          UInt64,
    name             String,
    url              Nullable(String),
    urls             Array(String),
    interval_minutes UInt32,
    goal             Nullable(String),
    webhook          Nullable(String),
    status           LowCardinality(String),
    deleted          UInt8,
    created_at       DateTime64(3, 'UTC'),
    updated_at       DateTime64(3, 'UTC'),
    next_check_at    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant, id);

-- One row per check of a monitor's URL. "Newest checks first" is a reverse range read of
-- (tenant, monitor_id).
CREATE TABLE IF NOT EXISTS checks
(
    tenant        String,
    monitor_id    String,
    id            String,
    checked_at    DateTime64(3, 'UTC'),
    url           String,
    status        LowCardinality(String),
    status_code   UInt16,
    content_hash  String,
    previous_hash String,
    diff          String CODEC(ZSTD(3)),
    document      String CODEC(ZSTD(3)),
    error         String,
    credits_used  UInt32,
    request_id    String
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant, monitor_id, checked_at, id);

-- Mention watches (versioned; read with FINAL). The watch fields live in `params` (JSON).
CREATE TABLE IF NOT EXISTS watches
(
    tenant      String,
    id          String,
    version     UInt64,
    name        String,
    params      String,
    status      LowCardinality(String),
    deleted     UInt8,
    created_at  DateTime64(3, 'UTC'),
    updated_at  DateTime64(3, 'UTC'),
    last_run_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant, id);

-- Mentions found by watches (versioned: PATCH /v1/mentions/{id} writes a new version with
-- the new status). Sorted by (tenant, id) so that update is a point read; lists filter the
-- tenant's range and sort by found_at.
CREATE TABLE IF NOT EXISTS mentions
(
    tenant       String,
    id           String,
    version      UInt64,
    watch_id     String,
    url          String,
    platform     LowCardinality(String),
    category     LowCardinality(String),
    status       LowCardinality(String),
    title        String,
    snippet      String,
    author       String,
    found_at     DateTime64(3, 'UTC'),
    published_at Nullable(DateTime64(3, 'UTC')),
    updated_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant, id);

-- API keys (versioned; read with FINAL). Never the secret: `hash` is its hash, `prefix`
-- its first characters.
CREATE TABLE IF NOT EXISTS api_keys
(
    id         String,
    name       String,
    hash       String,
    prefix     String,
    unlimited  UInt8,
    revoked    UInt8,
    version    UInt64,
    created_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY id;

-- Credit charges and top-ups. A retried charge reuses its entry_id and collapses, so the
-- balance `SELECT sum(amount) FROM credit_ledger FINAL WHERE key_id = {key}` counts it once.
CREATE TABLE IF NOT EXISTS credit_ledger
(
    key_id     String,
    entry_id   String,
    at         DateTime64(3, 'UTC'),
    amount     Int64,
    reason     LowCardinality(String),
    request_id String,
    op         LowCardinality(String)
)
ENGINE = ReplacingMergeTree
ORDER BY (key_id, entry_id);

-- Every webhook delivery attempt, for jobs and monitors.
CREATE TABLE IF NOT EXISTS webhook_deliveries
(
    tenant      String,
    source_id   String,
    id          String,
    attempt     UInt16,
    at          DateTime64(3, 'UTC'),
    event       LowCardinality(String),
    url         String,
    status_code UInt16,
    ok          UInt8,
    error       String,
    duration_ms UInt32
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant, source_id, id, attempt);

-- Large event payloads passed by reference (pipeline/runtime/blobs.ts). Internal, not per tenant:
-- ids are random. Gone after a day, far longer than any event waits.
CREATE TABLE IF NOT EXISTS blobs
(
    id         String,
    created_at DateTime64(3, 'UTC'),
    data       String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
ORDER BY id
TTL toDateTime(created_at) + INTERVAL 1 DAY;
