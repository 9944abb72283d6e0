/**
 * A local stand-in for the YouTube Data API's `search.list` on 127.0.0.1 (`GET /youtube/v3/search`
 * with `part`, `type`, `order`, `q`, `publishedAfter`, `maxResults`, `pageToken`, `key`),
 * answering `youtube#searchListResponse` pages with `nextPageToken`. A wrong key is a 400
 * `keyInvalid`; `quota` `spent` answers the API's 403 `quotaExceeded`. Titles come
 * HTML-escaped, as the API sends them.
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

export async function startFakeYouTube(videos: readonly YtVideo[], key = 'AIza-test-key-0123456789'): Promise<FakeYouTube> {
  const newest = [...videos].sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt));
  const fake: FakeYouTube = { url: '', key, quota: 'ok', requests: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests.push(url);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
    const error = (code: number, reason: string, message: string) => json(code, { error: { code, message, errors: [{ message, domain: 'youtube.quota', reason }] } });
    if (url.pathname !== '/youtube/v3/search') return error(404, 'notFound', 'Not Found');
    if (url.searchParams.get('key') !== key) return error(400, 'keyInvalid', 'API key not valid. Please pass a valid API key.');
    if (fake.quota === 'spent') return error(403, 'quotaExceeded', 'The request cannot be completed because you have exceeded your quota.');
    const phrase = (url.searchParams.get('q') ?? '').replaceAll('"', '').toLowerCase();
    const after = Date.parse(url.searchParams.get('publishedAfter') ?? '1970-01-01T00:00:00Z');
    const per = Number(url.searchParams.get('maxResults') ?? 5);
    const offset = Number(url.searchParams.get('pageToken')?.replace('page-', '') ?? 0);
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
