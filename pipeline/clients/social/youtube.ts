/**
 * YouTube videos as a source of mentions: the Data API's `search.list` (YOUTUBE_API_URL,
 * default `https://www.googleapis.com/youtube/v3`; a key, YOUTUBE_API_KEY, is required —
 * without one the connector reports itself not configured).
 *
 * `GET /search?part=snippet&type=video&order=date&q=<term>&publishedAfter=<RFC 3339>
 * &maxResults=<n ≤ 50>&pageToken=<token>&key=<key>`, one query per term (each quoted: a
 * phrase), newest first, pages followed by `nextPageToken`. Every call costs 100 units of a
 * default 10,000 a day, so a term reads at most MAX_PAGES pages. A spent quota (403
 * `quotaExceeded` or `rateLimitExceeded`) is `rate_limited`; another 403 (a bad or
 * restricted key) is `rejected`. The key travels in the query, as the API demands; no message
 * quotes it.
 *
 * An item's post: `id.videoId`, `https://www.youtube.com/watch?v=<id>`, the channel's title as
 * the author, the video's title and description (HTML-escaped by the API, decoded here) and
 * `publishedAt`.
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, serviceFetcher, ServiceError } from '../service-http.js';
import { htmlText } from './html-text.js';
import { newestFirst, type Collected, type CollectQuery, type Connector, type FoundPost } from './types.js';

export interface YouTubeOptions {
  /** YOUTUBE_API_URL */
  readonly apiUrl: string;
  /** YOUTUBE_API_KEY; null: not configured. */
  readonly apiKey: string | null;
  readonly fetcher?: HttpFetcher;
}

const SERVICE = 'youtube';
const PER_PAGE = 50;
/** Pages a term reads at most (100 quota units each). */
export const MAX_PAGES = 2;

/** A 403 whose reason is a spent quota, not a refused key. */
const spentQuota = (status: number, _headers: unknown, body: string) => status === 403 && /"reason"\s*:\s*"(quotaExceeded|rateLimitExceeded|userRateLimitExceeded)"/.test(body);

export class YouTubeConnector implements Connector {
  readonly platform = 'youtube' as const;
  readonly notConfigured: string | null;
  private readonly api: URL;
  private readonly apiKey: string | null;
  private readonly fetcher: HttpFetcher;

  constructor(options: YouTubeOptions) {
    this.api = new URL(options.apiUrl);
    this.apiKey = options.apiKey;
    this.notConfigured = options.apiKey ? null : 'YOUTUBE_API_KEY is not set';
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async collect(query: CollectQuery): Promise<Collected> {
    if (!this.apiKey) throw new ServiceError(SERVICE, 'rejected', this.notConfigured ?? 'not configured');
    const found: FoundPost[] = [];
    for (const term of query.terms) found.push(...(await this.search(this.apiKey, term, query)));
    return { posts: newestFirst(found, query.limit), source: SERVICE, warnings: [] };
  }

  private async search(key: string, term: string, query: CollectQuery): Promise<FoundPost[]> {
    const out: FoundPost[] = [];
    let pageToken: string | null = null;
    for (let page = 0; page < MAX_PAGES && out.length < query.limit; page++) {
      const url = below(this.api, '/search');
      url.searchParams.set('part', 'snippet');
      url.searchParams.set('type', 'video');
      url.searchParams.set('order', 'date');
      url.searchParams.set('q', `"${term.replaceAll('"', ' ')}"`);
      url.searchParams.set('publishedAfter', new Date(query.sinceMs).toISOString());
      url.searchParams.set('maxResults', String(Math.min(PER_PAGE, Math.max(1, query.limit))));
      if (pageToken) url.searchParams.set('pageToken', pageToken);
      url.searchParams.set('key', key);
      const answer = await getJson(SERVICE, { url, timeoutMs: query.timeoutMs, rateLimited: spentQuota, ...(query.signal ? { signal: query.signal } : {}) }, this.fetcher);
      const body = record(answer.json);
      if (!body || !Array.isArray(body.items)) throw new ServiceError(SERVICE, 'unreadable', 'search.list answered without an `items` list');
      out.push(...list(body.items).map(videoPost).filter((p): p is FoundPost => p !== null && p.publishedAtMs > query.sinceMs));
      pageToken = text(body.nextPageToken);
      if (!pageToken) break;
    }
    return out;
  }
}

/** A search result as a post; null for a result that is not a video or lacks a time. */
export function videoPost(item: unknown): FoundPost | null {
  const i = record(item);
  const videoId = text(record(i?.id)?.videoId);
  const snippet = record(i?.snippet);
  const at = Date.parse(text(snippet?.publishedAt) ?? '');
  if (!videoId || !snippet || !Number.isFinite(at)) return null;
  const title = text(snippet.title);
  const description = text(snippet.description);
  return {
    platform: 'youtube',
    externalId: videoId,
    url: `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`,
    author: text(snippet.channelTitle),
    title: title ? htmlText(title) : null,
    text: description ? htmlText(description) : title ? htmlText(title) : '',
    publishedAtMs: at,
    lang: null,
  };
}
