/**
 * Reading the local index (infra/clickhouse/0005_search_index.sql) in two statements, every
 * value a bound parameter, the same SQL on both drivers:
 *
 *   CANDIDATES  the postings of the query's terms (`search_postings FINAL`, visible rows only)
 *               → one BM25 score per copy (url_hash, tenant, fetched_at), filtered, best first,
 *               the first `limit` of them, and how many distinct URLs matched (candidatesSql:
 *               one statement per combination of the filters asked for);
 *   COPIES      the `search_shown` rows (0009: search_docs' shown fields in one narrow column)
 *               of the candidates' URLs and keys, with what a result shows; `rank` keeps the
 *               newest per URL and key (what FINAL would keep, without a merge in the read)
 *               and drops it unless the caller may see it.
 *
 * `rank` joins the two: a candidate counts only when it IS its key's newest copy of the URL
 * (same fetched_at), so the postings of terms an older copy had and the newest lacks never
 * score or show, and a copy whose newest version is no longer shareable never shows. One
 * result per URL: the caller's own copy when it is among the URL's live candidates, else the
 * best scoring one; the URL ranks by its best live candidate. When fewer than the page needs
 * survive and there are more candidates, it asks again for 4× as many.
 *
 * Visibility: `tenant = {tenant} OR shareable = 1` on the postings, and on the newest copy of
 * each URL and key, so another key's unshared copy never scores, counts or shows.
 *
 * The score of a copy d for the query terms Q (each term once):
 *
 *   score(d) = Σ_{t ∈ Q ∩ d} idf(t) · tf(t,d) · (k1 + 1) / (tf(t,d) + k1 · (1 − b + b · dl(d) / avgdl))
 *   idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))             k1 = 1.2, b = 0.75
 *
 * - tf and dl are rows.ts's weighted counts (title 3×, description 2×): the title boost.
 * - df(t): visible postings of t (FINAL: one per URL and key; before the lang and time
 *   filters, which select results, not statistics). N, avgdl: visible copies and their mean dl
 *   (`corpusStats`; the provider caches `indexStats`, every key's at once); N is raised to df
 *   when a cached N is behind.
 * - Filters on the postings' own columns: `lang` matches a copy whose language is the tag or
 *   starts with `tag-` (`en` matches `en-us`; a copy without a language never matches);
 *   `sinceMs` keeps copies published at or after it, or, when the publication time is unknown,
 *   fetched at or after it (second precision).
 * - `total`: the results, when every candidate was read; else the number of distinct URLs
 *   among all candidates, an estimate, as it also counts a URL whose only candidates are
 *   postings its newest copy no longer has.
 *
 * A query of one term has one posting per copy (FINAL), so CANDIDATES skips the grouping: each
 * posting is a candidate and df is the number of them (a window over all rows instead of one per
 * term). Measured on 100,000 pages: 5.0 ms against 6.5 ms for one term through the grouping
 * statement.
 *
 * Both statements turn off the engine's expression compilation: the scores' expression holds
 * each query's N and avgdl as constants, so it would be compiled anew (5–6 ms) every time.
 * Planning costs as much as reading here (on 100,000 pages, CANDIDATES takes 12–14 ms of its
 * 19 ms when no posting matches), and each operation in a statement adds to it, so the
 * statements hold as few as the semantics allow: the score in its shortest algebraic form (see
 * IDF and TF_PART), and no filter the query did not ask for.
 */
import type { Store } from '../../runtime/store/store.js';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * Candidates asked for a page ending at result `wanted`: wanted + max(5, wanted / 2) — a few
 * more than results, as a URL's several copies and stale candidates take places; when too few
 * survive, 4× as many are asked.
 */
const candidatesFor = (wanted: number) => wanted + Math.max(5, Math.ceil(wanted / 2));
const NO_COMPILE = 'SETTINGS compile_expressions = 0, compile_aggregate_expressions = 0';

export interface CorpusStats {
  /** Visible document copies. */
  readonly docs: number;
  /** Their mean weighted length. */
  readonly avgDocLen: number;
}

export interface RankQuery {
  readonly tenant: string;
  /** Distinct index terms (tokenize.ts). */
  readonly terms: readonly string[];
  /** A normalized language tag (rows.ts normalizeLang), or '' for any. */
  readonly lang: string;
  /** Epoch ms: results published (else fetched) at or after it; 0 for any time. */
  readonly sinceMs: number;
  readonly offset: number;
  readonly limit: number;
}

export interface ShownDoc {
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly snippetText: string;
  readonly publishedAtMs: number | null;
}

export interface RankedHit {
  /** 1-based, across pages. */
  readonly rank: number;
  readonly score: number;
  /** The key whose copy is shown: the caller's own, or a shared one. */
  readonly tenant: string;
  readonly doc: ShownDoc;
}

export interface Ranking {
  readonly hits: readonly RankedHit[];
  /** Distinct matching URLs (an estimate, see the header). */
  readonly total: number;
  /** Whether results go on past this page. */
  readonly hasMore: boolean;
}

const VISIBLE = '(tenant = {tenant:String} OR shareable = 1)';

/**
 * What every key sees, in one read of `search_lengths` (0008: each copy's key, visibility,
 * version and length): the copies whose newest version is shareable (seen by all) and, per key,
 * its unshared ones. A key's N and avgdl follow from its row and the shared row, so one
 * statement a minute serves every key.
 */
export const INDEX_STATS = `SELECT shareable = 1 AS shared, if(shared, '', tenant) AS owner, count() AS docs, sum(doc_len) AS doc_len
FROM search_lengths FINAL
GROUP BY shared, owner`;

/**
 * The score's factors in the fewest operations (the header's formula, rearranged):
 * - idf: 1 + (N − df + 0.5) / (df + 0.5) = (N + 1) / (df + 0.5), N raised to df;
 * - tf part: k1 · (1 − b + b · dl / avgdl) = k1 · (1 − b) + dl · lengthWeight, with
 *   lengthWeight = k1 · b / avgdl bound per query.
 */
const IDF = 'log((greatest({docs:UInt64}, df) + 1) / (df + 0.5))';
const TF_PART = `tf * ${BM25_K1 + 1} / (tf + ${BM25_K1 * (1 - BM25_B)} + doc_len * {lengthWeight:Float64})`;
const LANG_PASSES = '(lang = {lang:String} OR startsWith(lang, {langPrefix:String}))';
const TIME_PASSES = "dated_at >= toDateTime({sinceS:UInt32}, 'UTC')";

interface Filters {
  readonly lang: boolean;
  readonly since: boolean;
}

/** CANDIDATES for one term: every visible posting is a copy's candidate, df is their count before the filters. */
function singleTermSql(passes: readonly string[], filterColumns: string): string {
  return `
SELECT url_hash AS hash, tenant, toUnixTimestamp64Milli(fetched_at) AS fetched_ms, ${IDF} * part AS score, uniqExact(url_hash) OVER () AS urls
FROM (
  SELECT url_hash, tenant, fetched_at, ${TF_PART} AS part${filterColumns}, count() OVER () AS df
  FROM search_postings FINAL
  WHERE term IN {terms:Array(String)} AND ${VISIBLE}
)${passes.length ? `\nWHERE ${passes.join(' AND ')}` : ''}
ORDER BY score DESC, url_hash ASC, tenant ASC, fetched_at DESC
LIMIT {limit:UInt32}
${NO_COMPILE}`;
}

/**
 * CANDIDATES with the filters a query asks for; one it does not ask for is left out, not passed
 * as "any". With `single`, the statement for a query of one term.
 */
function candidatesSql({ lang, since }: Filters, single: boolean): string {
  const passes = [...(lang ? [LANG_PASSES] : []), ...(since ? [TIME_PASSES] : [])];
  const filterColumns = [...(lang ? ['lang'] : []), ...(since ? ['dated_at'] : [])].map((c) => `, ${c}`).join('');
  if (single) return singleTermSql(passes, filterColumns);
  return `
SELECT url_hash AS hash, tenant, toUnixTimestamp64Milli(fetched_at) AS fetched_ms, score, uniqExact(url_hash) OVER () AS urls
FROM (
  SELECT url_hash, tenant, fetched_at, sum(${IDF} * ${TF_PART}) AS score
  FROM (
    SELECT url_hash, tenant, fetched_at, tf, doc_len${filterColumns}, count() OVER (PARTITION BY term) AS df
    FROM search_postings FINAL
    WHERE term IN {terms:Array(String)} AND ${VISIBLE}
  )${passes.length ? `\n  WHERE ${passes.join(' AND ')}` : ''}
  GROUP BY url_hash, tenant, fetched_at
)
ORDER BY score DESC, url_hash ASC, tenant ASC, fetched_at DESC
LIMIT {limit:UInt32}
${NO_COMPILE}`;
}

const COPIES = `
SELECT url_hash AS hash, tenant, toUnixTimestamp64Milli(fetched_at) AS fetched_ms, shown
FROM search_shown
WHERE url_hash IN {hashes:Array(UInt64)} AND tenant IN {tenants:Array(String)}
${NO_COMPILE}`;

interface Totals {
  readonly docs: number;
  readonly docLen: number;
}

/** The index's copies as every key sees them (INDEX_STATS). */
export interface IndexStats {
  /** Copies whose newest version is shareable. */
  readonly shared: Totals;
  /** Per key, its copies whose newest version is not shareable. */
  readonly unshared: ReadonlyMap<string, Totals>;
}

export async function indexStats(store: Store): Promise<IndexStats> {
  const rows = await store.query<{ shared: number; owner: string; docs: string | number; doc_len: string | number }>(INDEX_STATS);
  let shared: Totals = { docs: 0, docLen: 0 };
  const unshared = new Map<string, Totals>();
  for (const row of rows) {
    const totals = { docs: Number(row.docs), docLen: Number(row.doc_len) };
    if (Number(row.shared) === 1) shared = totals;
    else unshared.set(row.owner, totals);
  }
  return { shared, unshared };
}

/** N and avgdl of what `tenant` sees: the shared copies and its own unshared ones. */
export function statsFor(stats: IndexStats, tenant: string): CorpusStats {
  const own = stats.unshared.get(tenant);
  const docs = stats.shared.docs + (own?.docs ?? 0);
  const docLen = stats.shared.docLen + (own?.docLen ?? 0);
  return { docs, avgDocLen: docs > 0 && docLen > 0 ? docLen / docs : 1 };
}

export async function corpusStats(store: Store, tenant: string): Promise<CorpusStats> {
  return statsFor(await indexStats(store), tenant);
}

interface CandidateRow {
  /** url_hash as decimal text. */
  readonly hash: string;
  readonly tenant: string;
  readonly fetched_ms: string | number;
  readonly score: number;
  readonly urls: string | number;
}

/** A `search_shown` row (0009): `shown` is [shareable, url, title, description, snippet_text, published ms or '']. */
interface ShownRow {
  readonly hash: string;
  readonly tenant: string;
  readonly fetched_ms: string | number;
  readonly shown: readonly string[];
}

interface CopyRow {
  readonly hash: string;
  readonly tenant: string;
  readonly shareable: boolean;
  readonly fetchedMs: number;
  readonly doc: ShownDoc;
}

function copyOf(row: ShownRow): CopyRow {
  const [shareable = '0', url = '', title = '', description = '', snippetText = '', published = ''] = row.shown;
  return {
    hash: row.hash,
    tenant: row.tenant,
    shareable: shareable === '1',
    fetchedMs: Number(row.fetched_ms),
    doc: { url, title, description, snippetText, publishedAtMs: published === '' ? null : Number(published) },
  };
}

const copyKey = (urlHash: string, tenant: string) => `${urlHash}\u0000${tenant}`;

/**
 * The newest copy per (URL, key) among `rows` — what `search_shown FINAL` would give, worked out
 * here so the read needs no merge — keyed by URL and key, leaving out copies `tenant` may not see.
 */
function newestVisible(rows: readonly CopyRow[], tenant: string): Map<string, CopyRow> {
  const newest = new Map<string, CopyRow>();
  for (const row of rows) {
    const key = copyKey(row.hash, row.tenant);
    const seen = newest.get(key);
    if (!seen || row.fetchedMs > seen.fetchedMs) newest.set(key, row);
  }
  for (const [key, row] of newest) if (row.tenant !== tenant && !row.shareable) newest.delete(key);
  return newest;
}

interface UrlResult {
  readonly score: number;
  readonly own: boolean;
  readonly tenant: string;
  readonly doc: ShownDoc;
}

/**
 * The live candidates, one per URL, in the candidates' order (best first): a URL ranks by its
 * best live candidate and shows the caller's own copy when one is among them.
 */
function liveResults(candidates: readonly CandidateRow[], copies: readonly CopyRow[], tenant: string): UrlResult[] {
  const newest = newestVisible(copies, tenant);
  const byUrl = new Map<string, UrlResult>();
  for (const candidate of candidates) {
    const copy = newest.get(copyKey(candidate.hash, candidate.tenant));
    if (!copy || copy.fetchedMs !== Number(candidate.fetched_ms)) continue;
    const seen = byUrl.get(candidate.hash);
    const own = candidate.tenant === tenant;
    if (!seen) byUrl.set(candidate.hash, { score: candidate.score, own, tenant: candidate.tenant, doc: copy.doc });
    else if (own && !seen.own) byUrl.set(candidate.hash, { score: seen.score, own, tenant: candidate.tenant, doc: copy.doc });
  }
  return [...byUrl.values()];
}

async function candidatesOf(store: Store, query: RankQuery, stats: CorpusStats, limit: number): Promise<CandidateRow[]> {
  const sinceS = Math.max(0, Math.floor(query.sinceMs / 1000));
  return store.query<CandidateRow>(candidatesSql({ lang: query.lang !== '', since: sinceS > 0 }, query.terms.length === 1), {
    tenant: query.tenant,
    terms: [...query.terms],
    docs: stats.docs,
    lengthWeight: (BM25_K1 * BM25_B) / stats.avgDocLen,
    lang: query.lang,
    langPrefix: `${query.lang}-`,
    sinceS,
    limit,
  });
}

export async function rank(store: Store, query: RankQuery, stats: CorpusStats): Promise<Ranking> {
  if (query.terms.length === 0) return { hits: [], total: 0, hasMore: false };
  const wanted = query.offset + query.limit;
  let limit = candidatesFor(wanted);
  for (;;) {
    const candidates = await candidatesOf(store, query, stats, limit);
    const hashes = [...new Set(candidates.map((c) => BigInt(c.hash)))];
    const tenants = [...new Set(candidates.map((c) => c.tenant))];
    const copies = hashes.length ? (await store.query<ShownRow>(COPIES, { hashes, tenants })).map(copyOf) : [];
    const results = liveResults(candidates, copies, query.tenant);
    const exhausted = candidates.length < limit;
    if (results.length >= wanted || exhausted) {
      const total = exhausted ? results.length : Math.max(Number(candidates[0]?.urls ?? 0), results.length);
      const hits = results.slice(query.offset, wanted).map((r, i): RankedHit => ({ rank: query.offset + i + 1, score: r.score, tenant: r.tenant, doc: r.doc }));
      return { hits, total, hasMore: exhausted ? results.length > wanted : true };
    }
    limit *= 4;
  }
}
