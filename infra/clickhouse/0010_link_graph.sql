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
-- Both are `uniqCombined(14)` states: exact up to 1,024 distinct values (but for the rare
-- collision of two 32-bit hashes), past that a HyperLogLog estimate (about 0.8% off) whose
-- state never grows past 12 KiB, however many links a pair has. `uniq` states (up to 65,536
-- hashes, 256 KiB) took about twice as long to read for a popular target (2 million edges in
-- chdb, loaded machine), and its three in link_coverage about 35 ms against 4 ms.
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
-- busiest first" reads T's key range only, a row per referring domain (FINAL merges the rows of
-- a pair not merged yet). Measured with 10 million edges in chdb: bench/domains-backlinks.ts.
CREATE TABLE IF NOT EXISTS link_domains
(
    target_domain String,
    source_domain String,
    links         AggregateFunction(uniqCombined(14), UInt64),
    pages         AggregateFunction(uniqCombined(14), UInt64),
    first_seen    SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_seen     SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (target_domain, source_domain);

CREATE MATERIALIZED VIEW IF NOT EXISTS link_page_edges_domains TO link_domains AS
SELECT target_domain, source_domain,
       uniqCombinedState(14)(cityHash64(source_url, target_url)) AS links,
       uniqCombinedState(14)(cityHash64(source_url)) AS pages,
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

-- How much the graph has seen, in one row once merged (ORDER BY tuple()): linking domains,
-- linking pages and links (distinct, `uniqCombined(14)` as above: estimates past 1,024, three
-- states of 12 KiB at most, read in a few milliseconds) and the first time seen. A backlinks
-- answer reads it beside its rows.
CREATE TABLE IF NOT EXISTS link_coverage
(
    source_domains AggregateFunction(uniqCombined(14), UInt64),
    pages          AggregateFunction(uniqCombined(14), UInt64),
    edges          AggregateFunction(uniqCombined(14), UInt64),
    since          SimpleAggregateFunction(min, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY tuple();

CREATE MATERIALIZED VIEW IF NOT EXISTS link_page_edges_coverage TO link_coverage AS
SELECT uniqCombinedState(14)(cityHash64(source_domain)) AS source_domains,
       uniqCombinedState(14)(cityHash64(source_url)) AS pages,
       uniqCombinedState(14)(cityHash64(source_url, target_url)) AS edges,
       min(seen_at) AS since
FROM link_page_edges
ARRAY JOIN target_urls AS target_url;
