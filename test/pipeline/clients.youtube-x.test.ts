/**
 * The YouTube and X connectors (pipeline/clients/social/youtube.ts, x.ts) against local
 * stand-ins of the Data API's search.list and API v2 recent search: terms as phrases after
 * `since`, newest first, paged by each API's token; HTML-escaped titles decoded; X's terms
 * joined by OR within 512 characters and its seven-day reach kept; spent quotas and 429s are
 * `rate_limited` with their wait; no credentials is "not configured", a wrong one `rejected`
 * without the secret in the message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { XConnector, MAX_QUERY_CHARS, recentQueries } from '../../pipeline/clients/social/x.js';
import { YouTubeConnector } from '../../pipeline/clients/social/youtube.js';
import { startFakeX, type FakeX, type XPost } from '../helpers/fake-x.js';
import { startFakeYouTube, type FakeYouTube, type YtVideo } from '../helpers/fake-youtube.js';

const NOW = Date.now();
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

describe('pipeline/clients/social/youtube', () => {
  const VIDEOS: YtVideo[] = [
    { id: 'vid001', channel: 'ScrapeTalk', title: 'Acme Scraper vs "WebGrab" — which is better?', description: 'We compare Acme Scraper & WebGrab.', publishedAt: at(NOW - HOUR) },
    { id: 'vid002', channel: 'DevDaily', title: 'Setting up Acme Scraper', description: '', publishedAt: at(NOW - 2 * HOUR) },
    { id: 'vid003', channel: 'Old', title: 'Acme Scraper first look', description: 'Old.', publishedAt: at(NOW - 30 * 24 * HOUR) },
    ...Array.from({ length: 120 }, (_, i): YtVideo => ({ id: `bulk${i}`, channel: 'Bulk', title: `Acme Scraper tip ${i}`, description: 'tip', publishedAt: at(NOW - 3 * HOUR - i * 60_000) })),
  ];
  const SINCE = NOW - 7 * 24 * HOUR;
  let yt: FakeYouTube;
  beforeAll(async () => {
    yt = await startFakeYouTube(VIDEOS);
  });
  afterAll(() => yt.close());

  it('asks for each term newest first after `since`, decodes titles, and reads at most two pages a term', async () => {
    yt.quota = 'ok';
    yt.requests.length = 0;
    const connector = new YouTubeConnector({ apiUrl: yt.url, apiKey: yt.key });
    const { posts } = await connector.collect({ terms: ['Acme Scraper', 'WebGrab'], sinceMs: SINCE, limit: 500, timeoutMs: 5000 });
    expect(posts[0]).toEqual({
      platform: 'youtube',
      externalId: 'vid001',
      url: 'https://www.youtube.com/watch?v=vid001',
      author: 'ScrapeTalk',
      title: 'Acme Scraper vs "WebGrab" — which is better?',
      text: 'We compare Acme Scraper & WebGrab.',
      publishedAtMs: Date.parse(at(NOW - HOUR)),
      lang: null,
    });
    expect(posts.find((p) => p.externalId === 'vid002')?.text).toBe('Setting up Acme Scraper');
    expect(posts.some((p) => p.externalId === 'vid003')).toBe(false);
    // Two pages of 50 for the first term (quota), one for the second.
    expect(posts).toHaveLength(100);
    const first = yt.requests[0];
    expect(first?.searchParams.get('q')).toBe('"Acme Scraper"');
    expect(first?.searchParams.get('order')).toBe('date');
    expect(first?.searchParams.get('publishedAfter')).toBe(at(SINCE));
    expect(yt.requests.map((u) => u.searchParams.get('pageToken'))).toEqual([null, 'page-50', null]);
  });

  it('reports a spent quota as rate_limited and a bad key as rejected, without the key', async () => {
    yt.quota = 'spent';
    const spent = (await new YouTubeConnector({ apiUrl: yt.url, apiKey: yt.key }).collect({ terms: ['x'], sinceMs: SINCE, limit: 5, timeoutMs: 5000 }).catch((e: unknown) => e)) as ServiceError;
    expect(spent.kind).toBe('rate_limited');
    yt.quota = 'ok';
    const bad = (await new YouTubeConnector({ apiUrl: yt.url, apiKey: 'AIza-wrong-key-000' }).collect({ terms: ['x'], sinceMs: SINCE, limit: 5, timeoutMs: 5000 }).catch((e: unknown) => e)) as ServiceError;
    expect(bad).toBeInstanceOf(ServiceError);
    expect(bad.kind).toBe('unavailable');
    expect(bad.message).not.toContain('AIza-wrong-key-000');
    const none = new YouTubeConnector({ apiUrl: yt.url, apiKey: null });
    expect(none.notConfigured).toBe('YOUTUBE_API_KEY is not set');
    await expect(none.collect({ terms: ['x'], sinceMs: SINCE, limit: 5, timeoutMs: 1000 })).rejects.toMatchObject({ kind: 'rejected' });
  });
});

describe('pipeline/clients/social/x', () => {
  const POSTS: XPost[] = [
    { id: '1860000000000000003', authorId: 'u1', username: 'alice', text: 'Acme Scraper just saved my weekend', createdAt: at(NOW - HOUR), lang: 'en' },
    { id: '1860000000000000002', authorId: 'u2', username: 'bob', text: 'Is WebGrab worth it?', createdAt: at(NOW - 2 * HOUR), lang: 'en' },
    { id: '1860000000000000001', authorId: 'u3', username: 'chloe', text: 'acme scraper ist toll', createdAt: at(NOW - 3 * HOUR), lang: 'und' },
    ...Array.from({ length: 40 }, (_, i): XPost => ({ id: `17${String(i).padStart(17, '0')}`, authorId: 'u9', username: 'bulk', text: `acme scraper #${i}`, createdAt: at(NOW - 4 * HOUR - i * 60_000), lang: 'en' })),
  ];
  let x: FakeX;
  beforeAll(async () => {
    x = await startFakeX(POSTS);
  });
  afterAll(() => x.close());

  it('joins the terms with OR in as few queries as 512 characters allow', () => {
    expect(recentQueries(['Acme Scraper', 'WebGrab'])).toEqual(['("Acme Scraper" OR "WebGrab") -is:retweet']);
    const many = recentQueries(Array.from({ length: 20 }, (_, i) => `${'term'.repeat(10)}${i}`));
    expect(many.length).toBeGreaterThan(1);
    expect(many.every((q) => q.length <= MAX_QUERY_CHARS)).toBe(true);
    expect(many.join(' ').match(/"/g)).toHaveLength(40);
  });

  it('searches the last seven days at most, pages by next_token, and names each author', async () => {
    x.limited = false;
    x.requests.length = 0;
    const connector = new XConnector({ apiUrl: x.url, bearerToken: x.token });
    const { posts, warnings } = await connector.collect({ terms: ['Acme Scraper', 'WebGrab'], sinceMs: NOW - 30 * 24 * HOUR, limit: 25, timeoutMs: 5000 });
    expect(warnings).toEqual(['X recent search reaches back seven days: older posts are not searched.']);
    expect(posts).toHaveLength(25);
    expect(posts.slice(0, 3)).toEqual([
      { platform: 'x', externalId: '1860000000000000003', url: 'https://x.com/alice/status/1860000000000000003', author: 'alice', title: null, text: 'Acme Scraper just saved my weekend', publishedAtMs: Date.parse(at(NOW - HOUR)), lang: 'en' },
      { platform: 'x', externalId: '1860000000000000002', url: 'https://x.com/bob/status/1860000000000000002', author: 'bob', title: null, text: 'Is WebGrab worth it?', publishedAtMs: Date.parse(at(NOW - 2 * HOUR)), lang: 'en' },
      { platform: 'x', externalId: '1860000000000000001', url: 'https://x.com/chloe/status/1860000000000000001', author: 'chloe', title: null, text: 'acme scraper ist toll', publishedAtMs: Date.parse(at(NOW - 3 * HOUR)), lang: null },
    ]);
    expect(x.requests[0]?.searchParams.get('query')).toBe('("Acme Scraper" OR "WebGrab") -is:retweet');
    expect(x.requests.map((u) => u.searchParams.get('next_token'))).toEqual([null]);
    x.requests.length = 0;
    const more = await connector.collect({ terms: ['acme scraper'], sinceMs: NOW - 24 * HOUR, limit: 200, timeoutMs: 5000 });
    expect(more.posts).toHaveLength(42);
    expect(more.warnings).toEqual([]);
    expect(x.requests.map((u) => u.searchParams.get('next_token'))).toEqual([null]);
  });

  it('reports a 429 as rate_limited with the wait of x-rate-limit-reset; no token is not configured', async () => {
    x.limited = true;
    const error = (await new XConnector({ apiUrl: x.url, bearerToken: x.token }).collect({ terms: ['acme'], sinceMs: NOW - HOUR, limit: 10, timeoutMs: 5000 }).catch((e: unknown) => e)) as ServiceError;
    x.limited = false;
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(800_000);
    const none = new XConnector({ apiUrl: x.url, bearerToken: null });
    expect(none.notConfigured).toBe('X_BEARER_TOKEN is not set');
    const wrong = (await new XConnector({ apiUrl: x.url, bearerToken: 'AAAA-wrong' }).collect({ terms: ['acme'], sinceMs: NOW - HOUR, limit: 10, timeoutMs: 5000 }).catch((e: unknown) => e)) as ServiceError;
    expect(wrong.kind).toBe('rejected');
    expect(wrong.message).not.toContain('AAAA-wrong');
  });
});
