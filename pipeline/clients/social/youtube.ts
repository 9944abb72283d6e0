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
 *
 * The social catalog's reads (types.ts), with the same key and quota rules (each call below
 * costs 1 unit):
 * - `channel`: `GET /channels?part=snippet,statistics&id=<UC…>` (or `&forHandle=@<handle>`):
 *   its title, description, `customUrl`, `publishedAt`, subscriber count (none when hidden)
 *   and video count; no item is NotOnPlatform;
 * - `recent`: the channel's uploads playlist (`UU` and the channel id's tail; a handle is
 *   looked up first), `GET /playlistItems?part=snippet,contentDetails&playlistId=&maxResults=
 *   &pageToken=`, newest first, each video dated `videoPublishedAt`;
 * - `thread`: `GET /videos?part=snippet&id=` (no item: NotOnPlatform), then its comments,
 *   `GET /commentThreads?part=snippet,replies&videoId=&maxResults=100&order=relevance
 *   &textFormat=plainText&pageToken=` until `limit` or MAX_COMMENT_PAGES: each thread's top
 *   comment answering the video, and the replies the API inlines (at most five: a thread with
 *   more makes the answer `truncated`) answering it. Comments turned off
 *   (403 `commentsDisabled`) are a warning and no comments.
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, isServiceError, serviceFetcher, ServiceError } from '../service-http.js';
import { htmlText } from './html-text.js';
import { Credential, countOf, MAX_COMMENTS, newestFirst, NotOnPlatform, timeOf } from './types.js';
import type { Collected, CollectQuery, Connector, FoundComment, FoundPost, PostsPage, Profile, ReadOptions, Thread } from './types.js';

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

/** Comment pages a thread reads at most. */
export const MAX_COMMENT_PAGES = 5;
/** A channel id (`UC` and 22 characters); else a handle. */
const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;

/** A 403 whose reason is a spent quota, not a refused key. */
const spentQuota = (status: number, _headers: unknown, body: string) => status === 403 && /"reason"\s*:\s*"(quotaExceeded|rateLimitExceeded|userRateLimitExceeded)"/.test(body);

export class YouTubeConnector implements Connector {
  readonly platform = 'youtube' as const;
  readonly notConfigured: string | null;
  private readonly api: URL;
  private readonly apiKey: Credential<string>;
  private readonly fetcher: HttpFetcher;

  constructor(options: YouTubeOptions) {
    this.api = new URL(options.apiUrl);
    this.apiKey = new Credential(SERVICE, options.apiKey, ['YOUTUBE_API_KEY']);
    this.notConfigured = this.apiKey.notConfigured;
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async collect(query: CollectQuery): Promise<Collected> {
    const apiKey = this.apiKey.get();
    const found: FoundPost[] = [];
    for (const term of query.terms) found.push(...(await this.search(apiKey, term, query)));
    return { posts: newestFirst(found, query.limit), source: SERVICE, warnings: [] };
  }

  /** A channel's profile, by its id (`UC…`) or its handle (`@…`) (see the header). */
  async channel(ref: string, options: ReadOptions): Promise<Profile> {
    const c = await this.channelItem(ref, 'snippet,statistics', options);
    const snippet = record(c.item.snippet);
    const stats = record(c.item.statistics);
    const handle = text(snippet?.customUrl);
    return {
      platform: 'youtube',
      id: c.id,
      username: handle,
      name: text(snippet?.title),
      description: text(snippet?.description),
      url: `https://www.youtube.com/channel/${encodeURIComponent(c.id)}`,
      createdAtMs: timeOf(snippet?.publishedAt),
      followers: stats?.hiddenSubscriberCount === true ? null : countOf(stats?.subscriberCount),
      following: null,
      posts: countOf(stats?.videoCount),
      karma: null,
    };
  }

  /** A channel's newest videos, one page from `cursor` (see the header). */
  async recent(ref: string, limit: number, cursor: string | null, options: ReadOptions): Promise<PostsPage> {
    const channelId = CHANNEL_ID.test(ref) ? ref : (await this.channelItem(ref, 'id', options)).id;
    const params: Record<string, string> = { part: 'snippet,contentDetails', playlistId: `UU${channelId.slice(2)}`, maxResults: String(Math.min(PER_PAGE, Math.max(1, limit))) };
    if (cursor) params.pageToken = cursor;
    const body = await this.call('/playlistItems', params, options, `no channel ${ref}`);
    if (!Array.isArray(body.items)) throw new ServiceError(SERVICE, 'unreadable', 'playlistItems.list answered without an `items` list');
    const posts = list(body.items).map(uploadPost).filter((p): p is FoundPost => p !== null);
    return { posts, next: text(body.nextPageToken), warnings: [] };
  }

  /** A video with at most `limit` of its comments (see the header). */
  async thread(videoId: string, limit: number, options: ReadOptions): Promise<Thread> {
    const body = await this.call('/videos', { part: 'snippet', id: videoId }, options, `no video ${videoId}`);
    const post = videoOf(list(body.items)[0]);
    if (!post) throw new NotOnPlatform('youtube', `no video ${videoId}`);
    const max = Math.min(limit, MAX_COMMENTS);
    const comments: FoundComment[] = [];
    let truncated = false;
    let pageToken: string | null = null;
    for (let page = 0; page < MAX_COMMENT_PAGES && comments.length < max; page++) {
      const params: Record<string, string> = { part: 'snippet,replies', videoId, maxResults: '100', order: 'relevance', textFormat: 'plainText' };
      if (pageToken) params.pageToken = pageToken;
      let threads: Record<string, unknown>;
      try {
        threads = await this.call('/commentThreads', params, options, `no video ${videoId}`);
      } catch (error) {
        if (isServiceError(error) && error.errorName === 'commentsDisabled') return { post, comments: [], truncated: false, warnings: ['Comments are turned off on this video.'] };
        throw error;
      }
      for (const t of list(threads.items)) {
        const top = record(record(t)?.snippet);
        const first = commentOf(top?.topLevelComment, post.externalId, 1);
        if (!first) continue;
        const replies = list(record(record(t)?.replies)?.comments).map((r) => commentOf(r, first.externalId, 2)).filter((r): r is FoundComment => r !== null);
        if (typeof top?.totalReplyCount === 'number' && top.totalReplyCount > replies.length) truncated = true;
        comments.push(first, ...replies);
      }
      pageToken = text(threads.nextPageToken);
      if (!pageToken) break;
    }
    if (comments.length > max || pageToken) truncated = true;
    return { post, comments: comments.slice(0, max), truncated, warnings: [] };
  }

  /** A channel's item with `part`, by id or handle; NotOnPlatform when the API has none. */
  private async channelItem(ref: string, part: string, options: ReadOptions): Promise<{ id: string; item: Record<string, unknown> }> {
    const params: Record<string, string> = CHANNEL_ID.test(ref) ? { part, id: ref } : { part, forHandle: ref.startsWith('@') ? ref : `@${ref}` };
    const body = await this.call('/channels', params, options, `no channel ${ref}`);
    const item = record(list(body.items)[0]);
    const id = text(item?.id);
    if (!item || !id) throw new NotOnPlatform('youtube', `no channel ${ref}`);
    return { id, item };
  }

  /** One GET of the Data API with the key; a 404 is NotOnPlatform (`missing`). */
  private async call(path: string, params: Record<string, string>, options: ReadOptions, missing: string): Promise<Record<string, unknown>> {
    const apiKey = this.apiKey.get();
    const url = below(this.api, path);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    url.searchParams.set('key', apiKey);
    try {
      const body = record((await getJson(SERVICE, { url, timeoutMs: options.timeoutMs, rateLimited: spentQuota, ...(options.signal ? { signal: options.signal } : {}) }, this.fetcher)).json);
      if (!body) throw new ServiceError(SERVICE, 'unreadable', `${path} answered something that is not a JSON object`);
      return body;
    } catch (error) {
      if (isServiceError(error) && error.status === 404) throw new NotOnPlatform('youtube', missing);
      throw error;
    }
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

/** A video as a post, from a `videos.list` or `playlistItems.list` snippet (plain text, not HTML). */
function snippetPost(id: string, snippet: Record<string, unknown>, at: number, author: string | null, lang: string | null): FoundPost {
  const title = text(snippet.title);
  return {
    platform: 'youtube',
    externalId: id,
    url: `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`,
    author,
    title,
    text: text(snippet.description) ?? title ?? '',
    publishedAtMs: at,
    lang,
  };
}

/** A `videos.list` item as a post; null without an id or a time. */
export function videoOf(item: unknown): FoundPost | null {
  const i = record(item);
  const id = text(i?.id);
  const snippet = record(i?.snippet);
  const at = timeOf(snippet?.publishedAt);
  if (!id || !snippet || at === null) return null;
  return snippetPost(id, snippet, at, text(snippet.channelTitle), text(snippet.defaultLanguage) ?? text(snippet.defaultAudioLanguage));
}

/** A `playlistItems.list` item (an upload) as a post; null without a video id or a time. */
export function uploadPost(item: unknown): FoundPost | null {
  const i = record(item);
  const snippet = record(i?.snippet);
  const details = record(i?.contentDetails);
  const id = text(details?.videoId) ?? text(record(snippet?.resourceId)?.videoId);
  const at = timeOf(details?.videoPublishedAt) ?? timeOf(snippet?.publishedAt);
  if (!id || !snippet || at === null) return null;
  return snippetPost(id, snippet, at, text(snippet.videoOwnerChannelTitle) ?? text(snippet.channelTitle), null);
}

/** A `comment` resource as a comment (plain text: `textFormat=plainText`); null without an id or a time. */
function commentOf(comment: unknown, parentId: string, depth: number): FoundComment | null {
  const c = record(comment);
  const id = text(c?.id);
  const snippet = record(c?.snippet);
  const at = timeOf(snippet?.publishedAt);
  if (!id || !snippet || at === null) return null;
  const videoId = text(snippet.videoId);
  return {
    platform: 'youtube',
    externalId: id,
    url: `https://www.youtube.com/watch?v=${encodeURIComponent(videoId ?? '')}&lc=${encodeURIComponent(id)}`,
    author: text(snippet.authorDisplayName),
    title: null,
    text: typeof snippet.textDisplay === 'string' ? snippet.textDisplay : (text(snippet.textOriginal) ?? ''),
    publishedAtMs: at,
    lang: null,
    parentId,
    depth,
  };
}
