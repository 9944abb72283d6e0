/**
 * The web as a source of mentions: the search providers POST /v1/search asks (SearXNG, Brave,
 * SerpApi, the local index; pipeline/search/providers.ts builds them from SEARCH_PROVIDERS),
 * asked in the same order with the same fallback (pipeline/search/fallback.ts).
 *
 * - One search a term, as a quoted phrase (`"acme scraper"`), one page of at most
 *   RESULTS_PER_TERM results (Brave gives no more than 20 a page). The newest results are
 *   asked for with the time filter every provider applies (`tbs=qdr:…`): the past week when
 *   `sinceMs` is within 7 days, else the past month, else the past year, else none.
 * - A result's post: `externalId` the result's URL normalized as the page cache files it
 *   (pipeline/runtime/url.ts `normalizeUrl`: the same page found by two terms or two
 *   collections is one post), `url`, `title`, `text` the provider's snippet, no author, no
 *   language. `publishedAtMs` is the date the provider gives (ISO 8601, `Mar 2, 2024`,
 *   `3 days ago`); a result without one is dated at the collection, so it passes `sinceMs`
 *   and the mentions store's dedupe by id keeps it once. A dated result not after `sinceMs`
 *   is dropped (the providers' time ranges are coarser than `sinceMs`).
 * - The local index is asked as the watch's key (`query.tenant`): it finds that key's own
 *   pages and the shared ones, never another key's; without a tenant, the shared ones only.
 * - Warnings name each provider that failed before another answered, and which answered. A
 *   term that no provider answered is a warning while another term was answered; when none
 *   was, the collection fails: ServiceError `rate_limited` (with the shortest wait asked)
 *   when every provider was rate limited, else `unavailable`.
 * - Time: each term's search has `timeoutMs`; a provider gets `perProviderMs` of it at most
 *   (SEARCH_TIMEOUT_MS; default the whole), so a provider that hangs leaves time to fall back.
 */
import { ServiceError } from '../clients/service-http.js';
import { isoDate } from '../clients/json-shapes.js';
import { newestFirst, type Collected, type CollectQuery, type Connector, type FoundPost } from '../clients/social/types.js';
import { normalizeUrl } from '../runtime/url.js';
import { askInOrder, ProvidersFailed, type FailedProvider } from '../search/fallback.js';
import type { OrganicResult, SearchProvider, SearchQuery, TimeRange } from '../clients/web-search.js';

export interface WebOptions {
  /** In the order to ask them: `searchProviders(config, store)`. */
  readonly providers: readonly SearchProvider[];
  /** SEARCH_TIMEOUT_MS: the most one provider may take of a term's `timeoutMs`. */
  readonly perProviderMs?: number;
  /** The clock (epoch ms) that dates results: the time filter, undated results, relative dates (the time budget is real time). */
  readonly now?: () => number;
}

const SERVICE = 'web';
export const RESULTS_PER_TERM = 20;
/** The local index shows a key its own pages and the shared ones; no key: the shared ones. */
const SHARED_ONLY = '';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const UNITS_MS: Readonly<Record<string, number>> = { second: 1000, minute: MINUTE, hour: 60 * MINUTE, day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };
/** `3 days ago`, `1 hour ago` (Brave's `age`, Google's dates through SerpApi). */
const AGO = /^(\d{1,4}) (second|minute|hour|day|week|month|year)s? ago$/i;
/** `Mar 2, 2024`, `March 2, 2024`. */
const SPELLED = /^[A-Za-z]{3,9}\.? \d{1,2}, \d{4}$/;

interface Outcome {
  readonly posts: FoundPost[];
  readonly served: Set<string>;
  readonly warnings: Set<string>;
  readonly unanswered: ProvidersFailed[];
}

export class WebConnector implements Connector {
  readonly platform = 'web' as const;
  readonly notConfigured: string | null;
  private readonly providers: readonly SearchProvider[];
  private readonly perProviderMs: number | null;
  private readonly now: () => number;

  constructor(options: WebOptions) {
    this.providers = options.providers;
    this.perProviderMs = options.perProviderMs ?? null;
    this.now = options.now ?? Date.now;
    this.notConfigured = options.providers.length > 0 ? null : 'no search provider is configured';
  }

  async collect(query: CollectQuery): Promise<Collected> {
    const signal = query.signal ?? new AbortController().signal;
    const collectedAtMs = this.now();
    const range = timeRangeFor(query.sinceMs, collectedAtMs);
    const out: Outcome = { posts: [], served: new Set(), warnings: new Set(), unanswered: [] };
    for (const term of query.terms) {
      if (signal.aborted) throw signal.reason;
      await this.searchTerm(term, range, query, signal, collectedAtMs, out);
    }
    if (out.served.size === 0 && out.unanswered.length > 0) throw failureOf(out.unanswered);
    return { posts: newestFirst(out.posts, query.limit), source: out.served.size ? [...out.served].join('+') : SERVICE, warnings: [...out.warnings] };
  }

  private async searchTerm(term: string, range: TimeRange | null, query: CollectQuery, signal: AbortSignal, collectedAtMs: number, out: Outcome): Promise<void> {
    const phrase = term.replaceAll('"', ' ').trim();
    if (!phrase) return;
    const search: SearchQuery = {
      query: `"${phrase}"`,
      num: Math.min(RESULTS_PER_TERM, Math.max(1, query.limit)),
      page: 1,
      lang: null,
      country: null,
      location: null,
      tbs: range ? `qdr:${range}` : null,
      timeRange: range,
      filter: null,
      device: 'desktop',
    };
    const perProviderMs = Math.min(this.perProviderMs ?? query.timeoutMs, query.timeoutMs);
    try {
      const { page, failed } = await askInOrder(this.providers, search, { tenant: query.tenant ?? SHARED_ONLY, deadlineMs: Date.now() + query.timeoutMs, perProviderMs, signal });
      out.served.add(page.provider);
      if (failed.length) out.warnings.add(`${failed.map(describe).join('; ')}; ${page.provider} answered instead.`);
      for (const result of page.organic) {
        const post = resultPost(result, collectedAtMs);
        if (post && post.publishedAtMs > query.sinceMs) out.posts.push(post);
      }
    } catch (error) {
      if (signal.aborted || !(error instanceof ProvidersFailed)) throw error;
      out.unanswered.push(error);
      out.warnings.add(`The search of "${phrase}" failed: ${error.message}`);
    }
  }
}

/** The `tbs` range that covers `sinceMs` (see the header); null when it is older than a year. */
export function timeRangeFor(sinceMs: number, nowMs: number): TimeRange | null {
  const age = nowMs - sinceMs;
  if (age <= 7 * DAY) return 'w';
  if (age <= 31 * DAY) return 'm';
  if (age <= 366 * DAY) return 'y';
  return null;
}

/** A search result as a post; null when its URL does not parse. */
export function resultPost(result: OrganicResult, collectedAtMs: number): FoundPost | null {
  if (!URL.canParse(result.url)) return null;
  return {
    platform: 'web',
    externalId: normalizeUrl(result.url),
    url: result.url,
    author: null,
    title: result.title.trim() || null,
    text: result.snippet,
    publishedAtMs: resultTime(result.date, collectedAtMs) ?? collectedAtMs,
    lang: null,
  };
}

/** A provider's date as epoch ms: ISO 8601, `Mar 2, 2024` (UTC), `3 days ago`; null otherwise or when in the future. */
export function resultTime(date: string | null, nowMs: number): number | null {
  const ms = dateMs(date?.trim() ?? '', nowMs);
  return Number.isFinite(ms) && ms <= nowMs ? ms : null;
}

function dateMs(raw: string, nowMs: number): number {
  const iso = isoDate(raw);
  if (iso) return Date.parse(iso);
  const ago = AGO.exec(raw);
  if (ago) return nowMs - Number(ago[1]) * (UNITS_MS[(ago[2] ?? '').toLowerCase()] ?? Number.NaN);
  return SPELLED.test(raw) ? Date.parse(`${raw.replace('.', '')} UTC`) : Number.NaN;
}

function describe(failure: FailedProvider): string {
  return `${failure.provider} failed (${failure.kind}: ${failure.message})`;
}

/** Every term unanswered: rate limited when every provider was, with the shortest wait. */
function failureOf(unanswered: readonly ProvidersFailed[]): ServiceError {
  const failed = unanswered.flatMap((e) => e.failed);
  const rateLimited = failed.length > 0 && failed.every((f) => f.kind === 'rate_limited');
  const waits = unanswered.map((e) => e.retryAfterMs).filter((w): w is number => w !== null);
  const message = unanswered[0]?.message ?? 'no search provider answered';
  return new ServiceError(SERVICE, rateLimited ? 'rate_limited' : 'unavailable', message, rateLimited && waits.length ? Math.min(...waits) : null);
}
