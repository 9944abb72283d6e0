-- 0010_link_graph: which domains link to which (issue 29: the domain lookup's backlinks and the
-- report's link checks; pipeline/intel/links.ts writes and reads it). Every page the parser
-- stores as a shareable fresh copy (scrape and crawl) gives its cross-domain links as edges
-- (linkEdgesOf: a host is filed under its registrable domain, an IP address or a host without
-- one as itself; links within the page's own domain are left out). The graph is one for the
-- service, not per key: it holds only what shareable copies show, which the shared page index
-- shows every key anyway.
--
-- What the counts count, so that a page read again does not count again:
-- * links: distinct (linking page URL, target URL) pairs. A page read twice with the same links
--   adds nothing; a link that left the page stays counted (the graph knows links ever seen,
--   with when they were first and last seen).
-- * pages: distinct linking page URLs.
-- Both are `uniq` states, which keep at most 65,536 hashes: below that a count is exact but for
-- a rare hash collision, past it a sampled estimate; a row stays small whatever it counts.
--
-- How it is written: one row per page into link_page_edges (a Null table: stores nothing), its
-- targets as two parallel arrays, as search_page_terms (0005) carries postings: a page's links
-- travel as one JSONEachRow object. Three materialized views fill the tables below from each
-- insert, each aggregating the insert's rows first. The parser queues these rows in lazy
-- batches (about one insert a second).
--
-- Times are the time the page's request was made (as `pages.fetched_at`), so a page stored
-- again after a crash lands on the same values.
CREATE TABLE IF NOT EXISTS link_page_edges
(
    source_domain  String,
    source_url     String,
    seen_at        DateTime64(3, 'UTC'),
    target_domains Array(String),
    target_urls    Array(String)
)
ENGINE = Null;

-- One row per (target domain, referring domain) once merged: "the referring domains of T,
-- busiest first" reads T's key range only (a row per referring domain) and merges the rows of
-- a pair that are not merged yet. Measured with 10 million edges in chdb: bench/domains-backlinks.ts.
CREATE TABLE IF NOT EXISTS link_domains
(
    target_domain String,
    source_domain String,
    links         AggregateFunction(uniq, UInt64),
    pages         AggregateFunction(uniq, UInt64),
    first_seen    SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_seen     SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (target_domain, source_domain);

CREATE MATERIALIZED VIEW IF NOT EXISTS link_page_edges_domains TO link_domains AS
SELECT target_domain, source_domain,
       uniqState(cityHash64(source_url, target_url)) AS links,
       uniqState(cityHash64(source_url)) AS pages,
       min(seen_at) AS first_seen,
       max(seen_at) AS last_seen
FROM link_page_edges
ARRAY JOIN target_domains AS target_domain, target_urls AS target_url
GROUP BY target_domain, source_domain;

-- A bounded sample of the links themselves, for checking that linking pages still link: per
-- (target domain, referring domain) four slots, a link's slot the hash of its page and target
-- URLs; a slot keeps the newest link seen in it (ReplacingMergeTree(last_seen): read with
-- FINAL). So at most four links per pair once merged, however many the referring domain has.
CREATE TABLE IF NOT EXISTS link_samples
(
    target_domain String,
    source_domain String,
    slot          UInt8,
    source_url    String,
    target_url    String,
    last_seen     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(last_seen)
ORDER BY (target_domain, source_domain, slot);

CREATE MATERIALIZED VIEW IF NOT EXISTS link_page_edges_samples TO link_samples AS
SELECT target_domain, source_domain, slot, newest.1 AS source_url, newest.2 AS target_url, last_seen
FROM
(
    SELECT target_domain, source_domain, toUInt8(cityHash64(source_url, target_url) % 4) AS slot,
           argMax((source_url, target_url), seen_at) AS newest, max(seen_at) AS last_seen
    FROM link_page_edges
    ARRAY JOIN target_domains AS target_domain, target_urls AS target_url
    GROUP BY target_domain, source_domain, slot
);

-- How much the graph has seen, in one row once merged (ORDER BY tuple()): referring domains,
-- linking pages and links (distinct, `uniq` as above) and the first time seen. A backlinks
-- answer reads it beside its rows.
CREATE TABLE IF NOT EXISTS link_coverage
(
    source_domains AggregateFunction(uniq, UInt64),
    pages          AggregateFunction(uniq, UInt64),
    edges          AggregateFunction(uniq, UInt64),
    since          SimpleAggregateFunction(min, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY tuple();

CREATE MATERIALIZED VIEW IF NOT EXISTS link_page_edges_coverage TO link_coverage AS
SELECT uniqState(cityHash64(source_domain)) AS source_domains,
       uniqState(cityHash64(source_url)) AS pages,
       uniqState(cityHash64(source_url, target_url)) AS edges,
       min(seen_at) AS since
FROM link_page_edges
ARRAY JOIN target_urls AS target_url;
