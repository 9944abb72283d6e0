/**
 * A local stand-in for the YouTube Data API's `search.list` on 127.0.0.1 (`GET /youtube/v3/search`
 * with `part`, `type`, `order`, `q`, `publishedAfter`, `maxResults`, `pageToken`, `key`),
 * answering `youtube#searchListResponse` pages with `nextPageToken`. A wrong key is a 400
 * `keyInvalid`; `quota` `spent` answers the API's 403 `quotaExceeded`. Titles come
 * HTML-escaped, as the API sends them.
 *
 * The social catalog's reads too (each wanting the key, each answering 403 `quotaExceeded` when
 * the quota is spent): `GET /channels` (`id` or `forHandle`; no `items` for an unknown
 * channel), `GET /playlistItems` (a channel's uploads playlist `UU…`, newest first; 404
 * `playlistNotFound` for another), `GET /videos` (`id`; no `items` for an unknown video) and
 * `GET /commentThreads` (`videoId`, `maxResults`, `pageToken`; each thread with at most five
 * replies inline and its `totalReplyCount`; 403 `commentsDisabled` for a video listed in
 * `commentsOff`).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface YtVideo {
  readonly id: string;
  readonly channel: string;
  readonly title: string;
  readonly description: string;
  /** ISO time. */
  readonly publishedAt: string;
  /** The channel's id (`UC…`), for its uploads playlist. */
  readonly channelId?: string;
}

export interface YtChannel {
  readonly id: string;
  readonly handle: string;
  readonly title: string;
  readonly description: string;
  /** ISO time. */
  readonly publishedAt: string;
  readonly subscribers: number;
  readonly videos: number;
  readonly hidden?: boolean;
}

export interface YtComment {
  readonly id: string;
  readonly videoId: string;
  /** The top-level comment it replies to. */
  readonly parentId?: string;
  readonly author: string;
  readonly text: string;
  /** ISO time. */
  readonly publishedAt: string;
}

export interface FakeYouTubeExtras {
  readonly channels?: readonly YtChannel[];
  readonly comments?: readonly YtComment[];
  /** Videos whose comments are turned off. */
  readonly commentsOff?: readonly string[];
}

export interface FakeYouTube {
  /** YOUTUBE_API_URL */
  readonly url: string;
  readonly key: string;
  quota: 'ok' | 'spent';
  readonly requests: URL[];
  close(): Promise<void>;
}

const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&#39;').replaceAll('<', '&lt;');

const commentResource = (c: YtComment) => ({
  kind: 'youtube#comment',
  etag: `etag-${c.id}`,
  id: c.id,
  snippet: { videoId: c.videoId, textDisplay: c.text, textOriginal: c.text, authorDisplayName: c.author, canRate: true, likeCount: 0, publishedAt: c.publishedAt, updatedAt: c.publishedAt, ...(c.parentId ? { parentId: c.parentId } : {}) },
});

export async function startFakeYouTube(videos: readonly YtVideo[], key = 'AIza-test-key-0123456789', extras: FakeYouTubeExtras = {}): Promise<FakeYouTube> {
  const newest = [...videos].sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt));
  const fake: FakeYouTube = { url: '', key, quota: 'ok', requests: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests.push(url);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
    const error = (code: number, reason: string, message: string) => json(code, { error: { code, message, errors: [{ message, domain: 'youtube.quota', reason }] } });
    if (url.searchParams.get('key') !== key) return error(400, 'keyInvalid', 'API key not valid. Please pass a valid API key.');
    if (fake.quota === 'spent') return error(403, 'quotaExceeded', 'The request cannot be completed because you have exceeded your quota.');
    const channels = extras.channels ?? [];
    const p = url.searchParams;
    const per = Number(p.get('maxResults') ?? 5);
    const offset = Number(p.get('pageToken')?.replace('page-', '') ?? 0);
    const paged = <T>(all: readonly T[]) => ({ items: all.slice(offset, offset + per), ...(offset + per < all.length ? { nextPageToken: `page-${offset + per}` } : {}), pageInfo: { totalResults: all.length, resultsPerPage: per } });
    if (url.pathname === '/youtube/v3/channels') {
      const c = channels.find((ch) => ch.id === p.get('id') || ch.handle.toLowerCase() === (p.get('forHandle') ?? '').toLowerCase());
      const item = c && {
        kind: 'youtube#channel',
        id: c.id,
        snippet: { title: c.title, description: c.description, customUrl: c.handle.toLowerCase(), publishedAt: c.publishedAt, country: 'US' },
        statistics: { viewCount: '1000', subscriberCount: c.hidden ? '0' : String(c.subscribers), hiddenSubscriberCount: c.hidden ?? false, videoCount: String(c.videos) },
      };
      return json(200, { kind: 'youtube#channelListResponse', etag: 'etag', pageInfo: { totalResults: item ? 1 : 0, resultsPerPage: 5 }, ...(item ? { items: [item] } : {}) });
    }
    if (url.pathname === '/youtube/v3/playlistItems') {
      const c = channels.find((ch) => `UU${ch.id.slice(2)}` === p.get('playlistId'));
      if (!c) return error(404, 'playlistNotFound', 'The playlist identified with the request\'s playlistId parameter cannot be found.');
      const uploads = newest.filter((v) => v.channelId === c.id).map((v, i) => ({
        kind: 'youtube#playlistItem',
        id: `pl-${v.id}`,
        snippet: { publishedAt: v.publishedAt, channelId: c.id, title: v.title, description: v.description, channelTitle: c.title, videoOwnerChannelTitle: c.title, videoOwnerChannelId: c.id, playlistId: p.get('playlistId'), position: i, resourceId: { kind: 'youtube#video', videoId: v.id } },
        contentDetails: { videoId: v.id, videoPublishedAt: v.publishedAt },
      }));
      return json(200, { kind: 'youtube#playlistItemListResponse', etag: 'etag', ...paged(uploads) });
    }
    if (url.pathname === '/youtube/v3/videos') {
      const v = videos.find((x) => x.id === p.get('id'));
      const item = v && { kind: 'youtube#video', id: v.id, snippet: { publishedAt: v.publishedAt, channelId: v.channelId ?? `UC${v.channel}`, title: v.title, description: v.description, channelTitle: v.channel, defaultAudioLanguage: 'en' } };
      return json(200, { kind: 'youtube#videoListResponse', etag: 'etag', items: item ? [item] : [], pageInfo: { totalResults: item ? 1 : 0, resultsPerPage: 1 } });
    }
    if (url.pathname === '/youtube/v3/commentThreads') {
      const videoId = p.get('videoId') ?? '';
      if (!videos.some((v) => v.id === videoId)) return error(404, 'videoNotFound', 'The video identified by the videoId parameter could not be found.');
      if (extras.commentsOff?.includes(videoId)) return error(403, 'commentsDisabled', 'The video identified by the videoId parameter has disabled comments.');
      const all = (extras.comments ?? []).filter((c) => c.videoId === videoId);
      const threads = all
        .filter((c) => !c.parentId)
        .sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt))
        .map((top) => {
          const replies = all.filter((c) => c.parentId === top.id).sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt));
          return {
            kind: 'youtube#commentThread',
            id: top.id,
            snippet: { videoId, topLevelComment: commentResource(top), canReply: true, totalReplyCount: replies.length, isPublic: true },
            ...(replies.length ? { replies: { comments: replies.slice(0, 5).map(commentResource) } } : {}),
          };
        });
      return json(200, { kind: 'youtube#commentThreadListResponse', etag: 'etag', ...paged(threads) });
    }
    if (url.pathname !== '/youtube/v3/search') return error(404, 'notFound', 'Not Found');
    const phrase = (url.searchParams.get('q') ?? '').replaceAll('"', '').toLowerCase();
    const after = Date.parse(url.searchParams.get('publishedAfter') ?? '1970-01-01T00:00:00Z');
    const matching = newest.filter((v) => Date.parse(v.publishedAt) > after && `${v.title} ${v.description}`.toLowerCase().includes(phrase));
    const items = matching.slice(offset, offset + per).map((v) => ({
      kind: 'youtube#searchResult',
      etag: `etag-${v.id}`,
      id: { kind: 'youtube#video', videoId: v.id },
      snippet: { publishedAt: v.publishedAt, channelId: `UC${v.channel}`, title: escape(v.title), description: escape(v.description), thumbnails: {}, channelTitle: v.channel, liveBroadcastContent: 'none', publishTime: v.publishedAt },
    }));
    json(200, {
      kind: 'youtube#searchListResponse',
      etag: 'etag',
      ...(offset + per < matching.length ? { nextPageToken: `page-${offset + per}` } : {}),
      regionCode: 'US',
      pageInfo: { totalResults: matching.length, resultsPerPage: per },
      items,
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/youtube/v3`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
