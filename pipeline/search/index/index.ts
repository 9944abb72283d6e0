/**
 * The local search index: web search from the pages this instance has read, with no outside
 * provider (issue 16). The parts:
 *
 * - infra/clickhouse/0005_search_index.sql — `search_docs` (one row per URL per key: its
 *   newest copy, title, description, the start of its text, language, publication time,
 *   length) and `search_postings` (the inverted index: one row per term of a copy, sorted by
 *   term, so a query reads only its terms' key ranges), written through `search_page_terms`
 *   (one row per page, expanded by a materialized view). Both tables are ReplacingMergeTree on
 *   the copy's fetch time: the newest copy of a URL per key wins.
 * - tokenize.ts — one tokenizer for documents and queries: Unicode runs of letters and digits,
 *   NFKC, lower case, diacritics folded, CJK bigrams, a light English plural rule, stop words
 *   of en/de/fr/es. Measured on the corpus pages' text (1,120 pages, 7.8 MB): 10–14 MB/s,
 *   3–4× faster than `Intl.Segmenter` word segmentation alone (before any folding).
 * - text.ts, rows.ts — a scrape document → its plain text → its rows (title 3×, description
 *   2×; at most 1,500 terms and 50,000 characters of text per page).
 * - page.ts — the parser's hook: a fresh page stored in `pages` (HTML or text, status < 400)
 *   also writes its two index rows, in parallel with the `pages` write. Building them costs
 *   0.75–1.2 ms per corpus page (bench/search.ts), beside 10–14 ms to build its document.
 * - query.ts — BM25 (k1 1.2, b 0.75) over the visible postings of the query's terms, then what
 *   the candidates show, from `search_shown`: only a key's newest copy counts, one result per
 *   URL (the caller's own copy first), lang and time filters, paging. Two statements per search.
 * - snippet.ts — ~200 characters of the stored text around the first query term.
 * - provider.ts — `LocalIndexProvider`, the `local` SearchProvider.
 *
 * Visibility everywhere: a key sees its own copies and the copies any key stored as
 * shareable (pages fetched without the caller's own headers: pipeline/pages/cache.ts).
 *
 * - infra/clickhouse/0008_search_reads.sql — both tables keep compact parts (what a search reads
 *   of a part is a few columns of a few granules), and `search_lengths` (each copy's key,
 *   visibility, version and length, filled by a view) serves BM25's statistics.
 * - infra/clickhouse/0009_search_shown.sql — `search_shown`: what a result shows of a copy in
 *   one narrow column, filled by a view from `search_docs`.
 *
 * bench/search.ts, 100,000 pages in chdb on a quiet 2-core machine (before 0009): p50
 * 13.2–13.6 ms, p99 21.7–23.5 ms, 70–72 queries/s; a plain scan of the same text
 * (positionCaseInsensitiveUTF8 per term) p50 285–294 ms: 21.0–21.7× its queries/s (the scan
 * uses both cores, the index one; 39–40× less CPU per query), p99 at 7–8% of its p50. On the
 * same machine when 1.5–1.8× slower at single-threaded work: 16.1–17.5× with 0009, 14.0–14.9×
 * without. 9.6 KB on disk per page (search_docs 1.2 KB, search_postings 7.3 KB, search_shown
 * 1.1 KB, search_lengths 21 B).
 */
export { LocalIndexProvider, MAX_QUERY_TERMS, queryTerms, rangeStartMs, unappliedFilters, type LocalIndexOptions } from './provider.js';
export { flushSearchRows, isIndexable, pageSearchRows, SEARCH_MAX_QUEUED_PAGES, SEARCH_WRITE_DELAY_MS, SEARCH_WRITE_TABLES, writeSearchRows, type FetchedPage } from './page.js';
export { indexRows, normalizeLang, pageIndexFacts, urlHash, type IndexedPage, type IndexRows, type PageFacts } from './rows.js';
export { BM25_B, BM25_K1, corpusStats, indexStats, rank, statsFor, type CorpusStats, type IndexStats, type RankedHit, type RankQuery, type Ranking, type ShownDoc } from './query.js';
export { snippetOf } from './snippet.js';
export { eachTerm, tokenize } from './tokenize.js';
