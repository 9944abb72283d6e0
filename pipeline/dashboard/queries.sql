-- The dashboard's SQL (docs/dashboard.md): every query the dashboard at /dashboard runs, and
-- nothing else. pipeline/dashboard/queries.ts loads this file by name; analysts can run any
-- block against the ClickHouse store directly, e.g. with clickhouse-client:
--
--   clickhouse-client --param_key='key_…' --param_since='2026-11-01 00:00:00' \
--     --param_now='2026-11-29 00:00:00' --query "$(sed -n '/^-- name: usage_by_day$/,/;$/p' pipeline/dashboard/queries.sql)"
--
-- Rules of this file:
-- - A query starts at a `-- name: <name>` line; the comment lines after it say what it answers
--   and its parameters; it ends at the first line ending with `;`.
-- - Every query reads one key's records: `{key:String}` is the key's id (never its secret),
--   and every table is filtered on it (`tenant = {key:String}`).
-- - Read-only: SELECT only.
-- - "Now" is a parameter (`{now:DateTime64(3)}`, the service's clock), never the store's
--   clock, so a window reads the same in a test that fixes its clock.
-- - Times come back as Unix milliseconds (`*_ms`), days as `YYYY-MM-DD` (UTC).

-- name: usage_by_day
-- Requests and credits per UTC day and operation, from `since` to `now`: each /v1 request
-- (api_requests, written by the gateway), and the credits charged outside a request: crawl
-- and batch pages (jobs, by the day the job was created), monitor checks and watch
-- collections. Params: key, since, now.
SELECT day, op, sum(n_requests) AS requests, sum(n_credits) AS credits
FROM
(
    SELECT toString(toDate(at)) AS day, toString(op) AS op, count() AS n_requests, sum(credits) AS n_credits
    FROM api_requests
    WHERE tenant = {key:String} AND at >= {since:DateTime64(3)} AND at < {now:DateTime64(3)}
    GROUP BY day, op
    UNION ALL
    SELECT toString(toDate(created_at)) AS day, concat(toString(kind), ': pages') AS op, toUInt64(0) AS n_requests, sum(credits_used) AS n_credits
    FROM jobs FINAL
    WHERE tenant = {key:String} AND created_at >= {since:DateTime64(3)} AND created_at < {now:DateTime64(3)}
    GROUP BY day, op
    UNION ALL
    SELECT toString(toDate(queued_at)) AS day, 'monitor: checks run' AS op, toUInt64(0) AS n_requests, sum(credits_used) AS n_credits
    FROM monitor_checks FINAL
    WHERE tenant = {key:String} AND queued_at >= {since:DateTime64(3)} AND queued_at < {now:DateTime64(3)}
    GROUP BY day, op
    UNION ALL
    SELECT toString(toDate(queued_at)) AS day, 'watch: collections run' AS op, toUInt64(0) AS n_requests, sum(credits_used) AS n_credits
    FROM watch_collections FINAL
    WHERE tenant = {key:String} AND queued_at >= {since:DateTime64(3)} AND queued_at < {now:DateTime64(3)}
    GROUP BY day, op
)
GROUP BY day, op
HAVING sum(n_requests) > 0 OR sum(n_credits) > 0
ORDER BY day, op;

-- name: errors_by_code
-- Failed /v1 requests from `since` to `now`, by error code and operation, most first.
-- Params: key, since, now.
SELECT toString(code) AS code, toString(op) AS op, count() AS requests, max(status) AS status
FROM api_requests
WHERE tenant = {key:String} AND at >= {since:DateTime64(3)} AND at < {now:DateTime64(3)} AND code != ''
GROUP BY code, op
ORDER BY requests DESC, code, op;

-- name: jobs
-- The key's newest crawl and batch jobs as last stored (a running job's live progress is read
-- from its record in coordination state by the dashboard). Params: key, limit.
SELECT id, toString(kind) AS kind, toString(status) AS status, toUnixTimestamp64Milli(created_at) AS created_ms,
       toUnixTimestamp64Milli(updated_at) AS updated_ms, total, completed, failed, credits_used, error
FROM jobs FINAL
WHERE tenant = {key:String} AND kind IN ('crawl', 'batch')
ORDER BY created_at DESC
LIMIT {limit:UInt32};

-- name: job_pages
-- A job's newest stored pages. Params: key, job, limit.
SELECT seq, url, status_code, title, toUnixTimestamp64Milli(created_at) AS created_ms
FROM job_pages FINAL
WHERE tenant = {key:String} AND job_id = {job:String}
ORDER BY seq DESC
LIMIT {limit:UInt32};

-- name: job_errors
-- The pages a job could not read, newest first. Params: key, job, limit.
SELECT url, toString(code) AS code, message, status_code, toUnixTimestamp64Milli(at) AS at_ms
FROM job_errors FINAL
WHERE tenant = {key:String} AND job_id = {job:String}
ORDER BY at DESC
LIMIT {limit:UInt32};

-- name: monitors
-- The key's monitors (not deleted). Params: key.
SELECT id, name, ifNull(url, '') AS url, urls, interval_minutes, toString(status) AS status,
       toUnixTimestamp64Milli(next_check_at) AS next_check_ms
FROM monitors FINAL
WHERE tenant = {key:String} AND deleted = 0
ORDER BY created_at DESC;

-- name: monitor_checks
-- The newest checks of the key's monitors queued from `since` to `now`, newest first: each
-- monitor's timeline. Params: key, since, now, limit.
SELECT monitor_id, id, toString(trigger) AS trigger, toString(status) AS status, toUnixTimestamp64Milli(queued_at) AS queued_ms,
       count_new, count_same, count_changed, count_removed, count_error, credits_used
FROM monitor_checks FINAL
WHERE tenant = {key:String} AND queued_at >= {since:DateTime64(3)} AND queued_at < {now:DateTime64(3)}
ORDER BY queued_at DESC, id DESC
LIMIT {limit:UInt32};

-- name: monitor_changes
-- The newest pages a check found changed, with their diff. Params: key, limit.
SELECT monitor_id, check_id, url, toUnixTimestamp64Milli(checked_at) AS checked_ms, diff, added, removed, truncated
FROM monitor_check_pages FINAL
WHERE tenant = {key:String} AND status = 'changed'
ORDER BY checked_at DESC
LIMIT {limit:UInt32};

-- name: monitor_deliveries
-- The webhook deliveries of the key's monitor checks (one row per delivery: its last attempt),
-- newest first. Params: key, limit.
SELECT c.monitor_id AS monitor_id, d.source_id AS check_id, toString(d.event) AS event, d.attempts AS attempts, d.ok AS ok,
       d.status_code AS status_code, d.error AS error, d.at_ms AS at_ms
FROM
(
    SELECT source_id, id, any(event) AS event, max(attempt) AS attempts, argMax(ok, attempt) AS ok,
           argMax(status_code, attempt) AS status_code, argMax(error, attempt) AS error,
           toUnixTimestamp64Milli(max(at)) AS at_ms
    FROM webhook_deliveries FINAL
    WHERE tenant = {key:String}
    GROUP BY source_id, id
) AS d
INNER JOIN
(
    SELECT DISTINCT id, monitor_id FROM monitor_checks FINAL WHERE tenant = {key:String}
) AS c ON c.id = d.source_id
ORDER BY at_ms DESC
LIMIT {limit:UInt32};

-- name: mentions_by_day
-- Mentions found from `since` to `now`, per UTC day, category and platform. Params: key, since, now.
SELECT toString(toDate(found_at)) AS day, toString(category) AS category, toString(platform) AS platform, count() AS mentions
FROM mentions FINAL
WHERE tenant = {key:String} AND found_at >= {since:DateTime64(3)} AND found_at < {now:DateTime64(3)}
GROUP BY day, category, platform
ORDER BY day, category, platform;

-- name: newest_mentions
-- The key's newest mentions with their current status. Params: key, limit.
SELECT id, watch_id, url, toString(platform) AS platform, toString(category) AS category, toString(status) AS status,
       title, snippet, author, toUnixTimestamp64Milli(found_at) AS found_ms
FROM mentions FINAL
WHERE tenant = {key:String}
ORDER BY found_at DESC, id
LIMIT {limit:UInt32};

-- name: mention_status_changes
-- The status history of some of the key's mentions, oldest first. Params: key, ids.
SELECT mention_id, toString(from_status) AS from_status, toString(to_status) AS to_status,
       toUnixTimestamp64Milli(changed_at) AS changed_ms
FROM mention_status_changes FINAL
WHERE tenant = {key:String} AND mention_id IN {ids:Array(String)}
ORDER BY changed_at;
