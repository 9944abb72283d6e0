/**
 * The local index as a web-search provider (`local`, pipeline/clients/web-search.ts): this instance's
 * own pages answer the search, with no outside service.
 *
 * - The query text is tokenized as documents are (tokenize.ts) and its distinct terms, at most
 *   MAX_QUERY_TERMS, are ranked with BM25 (query.ts), every term optional: a page holding more
 *   of them ranks higher through the sum. A query with no index term (only stop words or
 *   punctuation) has no results. Quotes, operators and SQL in the text are just text.
 * - N and avgdl are read for every key at once (query.ts indexStats) and reused for STATS_TTL_MS
 *   (60 s).
 * - Applied: `lang` (query.ts: `en` matches `en-US`; pages without a language do not match),
 *   the `tbs` time ranges h/d/w/m/y (published time when the page gives one, else fetch time;
 *   m and y are calendar months and years), `page` and `num`. `device` changes nothing.
 * - Not applied, and listed in `unapplied`: a `lang` that is not a language tag; `country` (a
 *   page's country is not known: a country-code TLD says little, and .com says nothing);
 *   `location`; `filter` (there is no filter language); a `tbs` that is not a time range.
 * - A result's date is the page's publication time (ISO 8601) when it gave one, else null.
 * - `totalResults` counts the visible matching pages after filters (query.ts: an estimate that
 *   may include pages whose newest copy lost the terms); `hasMore` is whether the ranking goes
 *   on past this page.
 * - The provider takes at most `ctx.timeoutMs`: then it fails with a ServiceError `timeout`
 *   (and on `ctx.signal` with the signal's reason); store failures propagate as they are
 *   (store_unavailable), for the searcher's fallback.
 */
import { ServiceError } from '../../clients/service-http.js';
import type { Store } from '../../runtime/store/store.js';
import { displayedUrlOf, emptyPage, type OrganicResult, type ProviderContext, type SearchProvider, type SearchQuery, type SerpPage, type TimeRange } from '../../clients/web-search.js';
import { indexStats, rank, statsFor, type CorpusStats, type IndexStats } from './query.js';
import { normalizeLang } from './rows.js';
import { snippetOf } from './snippet.js';
import { tokenize } from './tokenize.js';

export const MAX_QUERY_TERMS = 32;
export const STATS_TTL_MS = 60_000;

export interface LocalIndexOptions {
  /** The clock (epoch ms), for the time filters and the stats cache. */
  readonly now?: () => number;
  /** How long N and avgdl are reused; default STATS_TTL_MS. */
  readonly statsTtlMs?: number;
  /**
   * Run before every search: writes the index rows this process has queued (page.ts
   * flushSearchRows on the runtime's writer), so a search sees the pages this process stored.
   */
  readonly beforeRead?: () => Promise<void>;
}

/** Epoch ms of the start of a time range ending at `nowMs`. */
export function rangeStartMs(range: TimeRange, nowMs: number): number {
  const d = new Date(nowMs);
  switch (range) {
    case 'h':
      return nowMs - 3_600_000;
    case 'd':
      return nowMs - 86_400_000;
    case 'w':
      return nowMs - 7 * 86_400_000;
    case 'm':
      return d.setUTCMonth(d.getUTCMonth() - 1);
    case 'y':
      return d.setUTCFullYear(d.getUTCFullYear() - 1);
  }
}

/** The query's filters this provider cannot apply. */
export function unappliedFilters(query: SearchQuery): string[] {
  const out: string[] = [];
  if (query.lang && !normalizeLang(query.lang)) out.push('lang');
  if (query.country) out.push('country');
  if (query.location) out.push('location');
  if (query.filter) out.push('filter');
  if (query.tbs && !query.timeRange) out.push('tbs');
  return out;
}

/** The query's distinct terms, in order, at most MAX_QUERY_TERMS. */
export function queryTerms(text: string): string[] {
  return [...new Set(tokenize(text))].slice(0, MAX_QUERY_TERMS);
}

/** Rejects after `ms` with a ServiceError `timeout`, or when `signal` aborts; `settle` stops the timer. */
function deadline(ms: number, signal: AbortSignal): { expired: Promise<never>; settle: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ServiceError('local', 'timeout', `no answer from the local index within ${ms} ms`)), ms);
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  expired.catch(() => {});
  return {
    expired,
    settle: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

export class LocalIndexProvider implements SearchProvider {
  readonly name = 'local' as const;
  private readonly now: () => number;
  private readonly statsTtlMs: number;
  private stats: { readonly at: number; readonly value: Promise<IndexStats> } | null = null;
  private readonly beforeRead: (() => Promise<void>) | null;

  constructor(
    private readonly store: Store,
    options: LocalIndexOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.statsTtlMs = options.statsTtlMs ?? STATS_TTL_MS;
    this.beforeRead = options.beforeRead ?? null;
  }

  async search(query: SearchQuery, ctx: ProviderContext): Promise<SerpPage> {
    const { expired, settle } = deadline(ctx.timeoutMs, ctx.signal);
    try {
      return await Promise.race([this.answer(query, ctx.tenant), expired]);
    } finally {
      settle();
    }
  }

  private async answer(query: SearchQuery, tenant: string): Promise<SerpPage> {
    const page = { ...emptyPage('local'), totalResults: 0, unapplied: unappliedFilters(query) };
    const terms = queryTerms(query.query);
    if (terms.length === 0) return page;
    if (this.beforeRead) await this.beforeRead();
    const offset = (query.page - 1) * query.num;
    const ranking = await rank(
      this.store,
      {
        tenant,
        terms,
        lang: normalizeLang(query.lang),
        sinceMs: query.timeRange ? rangeStartMs(query.timeRange, this.now()) : 0,
        offset,
        limit: query.num,
      },
      await this.corpusStats(tenant),
    );
    const termSet = new Set(terms);
    const organic = ranking.hits.map(
      ({ rank: position, doc }): OrganicResult => ({
        position,
        title: doc.title || doc.url,
        url: doc.url,
        displayedUrl: displayedUrlOf(doc.url),
        snippet: snippetOf(doc.snippetText, doc.description, termSet),
        date: doc.publishedAtMs === null ? null : new Date(doc.publishedAtMs).toISOString(),
      }),
    );
    return { ...page, organic, totalResults: ranking.total, hasMore: ranking.hasMore };
  }

  /** N and avgdl of what `tenant` sees, from every key's statistics read at most every statsTtlMs; a failed read is not kept. */
  private async corpusStats(tenant: string): Promise<CorpusStats> {
    const now = this.now();
    if (!this.stats || now - this.stats.at >= this.statsTtlMs) {
      const value = indexStats(this.store);
      const entry = { at: now, value };
      this.stats = entry;
      value.catch(() => {
        if (this.stats === entry) this.stats = null;
      });
    }
    return statsFor(await this.stats.value, tenant);
  }
}
