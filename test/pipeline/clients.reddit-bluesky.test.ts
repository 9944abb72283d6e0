/**
 * The Reddit and Bluesky connectors (pipeline/clients/social/reddit.ts, bluesky.ts) against
 * local stand-ins speaking their real APIs (test/helpers/fake-reddit.ts, fake-bluesky.ts):
 * each term newest first, paged by the platform's cursor, cut at `since` and `limit`, the
 * answers merged once; Reddit's app-only token asked for once and again on a 401, the public
 * JSON as the fallback with a warning, 429s and a spent quota; Bluesky's session made once,
 * refreshed when it expires (made anew when the refresh is refused too), not configured
 * without an account; no secret in any thrown message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { BlueskyConnector, feedPost } from '../../pipeline/clients/social/bluesky.js';
import { linkPost, QUOTA_WARNING, RedditConnector, timeWindow } from '../../pipeline/clients/social/reddit.js';
import type { CollectQuery } from '../../pipeline/clients/social/types.js';
import { startFakeBluesky, type BskyPost, type FakeBluesky } from '../helpers/fake-bluesky.js';
import { startFakeReddit, type FakeReddit, type RedditPost } from '../helpers/fake-reddit.js';

const NOW = Date.now();
const HOUR = 3_600_000;
const SINCE = NOW - 20 * HOUR;
const query = (terms: string[], limit = 500): CollectQuery => ({ terms, sinceMs: SINCE, limit, timeoutMs: 5000 });

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('pipeline/clients/social/reddit', () => {
  const s = (ms: number) => Math.floor(ms / 1000);
  const POSTS: RedditPost[] = [
    { id: 'abc001', subreddit: 'webscraping', title: 'Acme Scraper crashes on big sitemaps', selftext: 'Steps & <details>: run Acme Scraper on a sitemap.', author: 'alice', createdUtc: s(NOW - HOUR) },
    { id: 'abc002', subreddit: 'SaaS', title: 'WebGrab vs Acme Scraper?', selftext: '', author: '[deleted]', createdUtc: s(NOW - 2 * HOUR), over18: true },
    ...Array.from({ length: 150 }, (_, i): RedditPost => ({ id: `bulk${i}`, subreddit: 'bulk', title: `Acme Scraper tip ${i}`, selftext: 'tip', author: `u${i}`, createdUtc: s(NOW - 3 * HOUR - i * 60_000) })),
    // Inside Reddit's `t=day` window, older than `since`: the paging stops at them.
    ...Array.from({ length: 3 }, (_, i): RedditPost => ({ id: `old${i}`, subreddit: 'old', title: `Old Acme Scraper thread ${i}`, selftext: 'old', author: 'o', createdUtc: s(NOW - 22 * HOUR - i * 60_000) })),
  ];
  let reddit: FakeReddit;
  const connector = (credentials: 'app' | 'wrong' | 'none' = 'app', now?: () => number) =>
    new RedditConnector({
      url: reddit.url,
      oauthUrl: reddit.oauthUrl,
      credentials: credentials === 'none' ? null : { clientId: reddit.clientId, clientSecret: credentials === 'app' ? reddit.clientSecret : 'wrong-secret-9999' },
      ...(now ? { now } : {}),
    });
  const reset = () => {
    reddit.requests.length = 0;
    reddit.quota = 'ok';
    reddit.publicBlocked = false;
    reddit.expiresInS = 86_400;
  };
  const searches = () => reddit.requests.filter((r) => r.url.pathname !== '/api/v1/access_token');

  beforeAll(async () => {
    reddit = await startFakeReddit(POSTS);
  });
  afterAll(() => reddit.close());

  it('searches each term through OAuth newest first, paged by `after` until `since`, with one token', async () => {
    reset();
    const { posts, source, warnings } = await connector().collect(query(['Acme Scraper', 'WebGrab']));
    expect(source).toBe('reddit');
    expect(warnings).toEqual([]);
    expect(posts).toHaveLength(152);
    expect(posts.slice(0, 2)).toEqual([
      { platform: 'reddit', externalId: 't3_abc001', url: 'https://www.reddit.com/r/webscraping/comments/abc001/post_abc001/', author: 'alice', title: 'Acme Scraper crashes on big sitemaps', text: 'Steps & <details>: run Acme Scraper on a sitemap.', publishedAtMs: s(NOW - HOUR) * 1000, lang: null },
      { platform: 'reddit', externalId: 't3_abc002', url: 'https://www.reddit.com/r/SaaS/comments/abc002/post_abc002/', author: null, title: 'WebGrab vs Acme Scraper?', text: 'WebGrab vs Acme Scraper?', publishedAtMs: s(NOW - 2 * HOUR) * 1000, lang: null },
    ]);
    expect(posts.some((p) => p.externalId.startsWith('t3_old'))).toBe(false);
    expect(reddit.tokenRequests()).toBe(1);
    const token = reddit.requests.find((r) => r.url.pathname === '/api/v1/access_token');
    expect(token).toMatchObject({ host: 'www', method: 'POST', body: 'grant_type=client_credentials' });
    expect(token?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const found = searches();
    expect(found.map((r) => [r.host, r.url.pathname, r.url.searchParams.get('q'), r.url.searchParams.get('after')])).toEqual([
      ['oauth', '/search', 'Acme Scraper', null],
      ['oauth', '/search', 'Acme Scraper', 't3_bulk97'],
      ['oauth', '/search', 'WebGrab', null],
    ]);
    expect(Object.fromEntries(found[0]?.url.searchParams ?? [])).toEqual({ q: 'Acme Scraper', sort: 'new', t: 'day', limit: '100', type: 'link', raw_json: '1' });
    expect(found[0]?.headers.authorization).toBe('bearer tok-1');
    expect(found[0]?.headers['user-agent']).toMatch(/^web-data-service\//);
  });

  it('reuses the token across collections, concurrent ones included, and asks again once its time is nearly up', async () => {
    reset();
    reddit.expiresInS = 3600;
    let clock = NOW;
    const c = connector('app', () => clock);
    await Promise.all([c.collect(query(['WebGrab'])), c.collect(query(['sitemaps']))]);
    await c.collect(query(['WebGrab']));
    expect(reddit.tokenRequests()).toBe(1);
    clock += 3600_000 - 30_000;
    await c.collect(query(['WebGrab']));
    expect(reddit.tokenRequests()).toBe(2);
  });

  it('asks for a new token once when a search answers 401', async () => {
    reset();
    const c = connector();
    await c.collect(query(['WebGrab']));
    reddit.expireTokens();
    const { posts, warnings, source } = await c.collect(query(['WebGrab']));
    expect(posts.map((p) => p.externalId)).toEqual(['t3_abc002']);
    expect(warnings).toEqual([]);
    expect(source).toBe('reddit');
    expect(reddit.tokenRequests()).toBe(2);
    expect(searches().map((r) => r.headers.authorization)).toEqual([expect.stringMatching(/^bearer tok-/), expect.stringMatching(/^bearer tok-/), expect.stringMatching(/^bearer tok-/)]);
    expect(new Set(searches().map((r) => r.headers.authorization)).size).toBe(2);
  });

  it('searches the public JSON without credentials, and says so', async () => {
    reset();
    const c = connector('none');
    expect(c.notConfigured).toBeNull();
    const { posts, source, warnings } = await c.collect(query(['Acme Scraper', 'WebGrab']));
    expect(source).toBe('reddit-public');
    expect(warnings).toEqual([expect.stringContaining('public JSON')]);
    expect(posts).toHaveLength(152);
    expect(reddit.tokenRequests()).toBe(0);
    expect(searches().every((r) => r.host === 'www' && r.url.pathname === '/search.json' && r.headers.authorization === undefined)).toBe(true);
  });

  it('falls back to the public JSON when the app credentials are refused, without the secret', async () => {
    reset();
    const { posts, source, warnings } = await connector('wrong').collect(query(['WebGrab']));
    expect(source).toBe('reddit-public');
    expect(posts.map((p) => p.externalId)).toEqual(['t3_abc002']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/OAuth API failed .*401/);
    expect(warnings[0]).not.toContain('wrong-secret-9999');
    expect(searches().map((r) => r.url.pathname)).toEqual(['/search.json']);
  });

  it('reports a refusal of the public JSON as rejected, without the secret', async () => {
    reset();
    reddit.publicBlocked = true;
    const error = await failure(connector('wrong').collect(query(['WebGrab'])));
    expect(error.kind).toBe('rejected');
    expect(error.status).toBe(403);
    for (const secret of ['wrong-secret-9999', Buffer.from(`${reddit.clientId}:wrong-secret-9999`).toString('base64')]) expect(error.message).not.toContain(secret);
  });

  it('reports a 429 as rate_limited with the X-Ratelimit-Reset wait, never falling back', async () => {
    reset();
    reddit.quota = 'limited';
    const error = await failure(connector().collect(query(['WebGrab'])));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(120_000);
    expect(error.message).not.toContain(reddit.clientSecret);
    expect(searches().map((r) => r.url.pathname)).toEqual(['/search']);
  });

  it('stops paging when an answer says no requests remain, and says so', async () => {
    reset();
    reddit.quota = 'last';
    const { posts, warnings } = await connector().collect(query(['Acme Scraper', 'WebGrab']));
    expect(posts).toHaveLength(100);
    expect(searches()).toHaveLength(1);
    expect(warnings).toEqual([QUOTA_WARNING]);
  });

  it('stops at `limit`', async () => {
    reset();
    const { posts } = await connector().collect(query(['Acme Scraper'], 30));
    expect(posts).toHaveLength(30);
    expect(searches().map((r) => r.url.searchParams.get('limit'))).toEqual(['30']);
  });

  it('reads Listing children and picks the window', () => {
    expect(linkPost({ kind: 't1', data: { name: 't1_x', permalink: '/r/a/comments/x/', created_utc: 1 } })).toBeNull();
    expect(linkPost({ kind: 't3', data: { name: 't3_x', permalink: 'https://evil.example/x', created_utc: 1 } })).toBeNull();
    expect(timeWindow(NOW - 30 * 60_000, NOW)).toBe('hour');
    expect(timeWindow(NOW - 3 * 24 * HOUR, NOW)).toBe('week');
    expect(timeWindow(NOW - 400 * 24 * HOUR, NOW)).toBe('all');
  });
});

describe('pipeline/clients/social/bluesky', () => {
  const at = (ms: number) => new Date(ms).toISOString();
  const POSTS: BskyPost[] = [
    { did: 'did:plc:alice0000000000000000000', handle: 'alice.bsky.social', rkey: '3lbqa2a2a2a2a', text: 'Acme Scraper just saved my weekend', createdAt: at(NOW - HOUR), langs: ['en'] },
    { did: 'did:plc:bob00000000000000000000000', handle: 'bob.example.com', rkey: '3lbqb3b3b3b3b', text: 'WebGrab oder Acme Scraper?', createdAt: at(NOW - 2 * HOUR), langs: ['de', 'en'] },
    ...Array.from({ length: 150 }, (_, i): BskyPost => ({ did: 'did:plc:bulk', handle: 'bulk.bsky.social', rkey: `3lbulk${String(i).padStart(4, '0')}`, text: `acme scraper tip ${i}`, createdAt: at(NOW - 3 * HOUR - i * 60_000) })),
    { did: 'did:plc:old', handle: 'old.bsky.social', rkey: '3lbold', text: 'Acme Scraper, long ago', createdAt: at(NOW - 30 * HOUR) },
  ];
  let bsky: FakeBluesky;
  const connector = (password?: string) => new BlueskyConnector({ url: bsky.url, credentials: { identifier: bsky.identifier, appPassword: password ?? bsky.password } });
  const reset = () => {
    bsky.requests.length = 0;
    bsky.limited = false;
  };

  beforeAll(async () => {
    bsky = await startFakeBluesky(POSTS);
  });
  afterAll(() => bsky.close());

  it('is not configured without an identifier and an app password', async () => {
    const none = new BlueskyConnector({ url: 'http://127.0.0.1:9', credentials: null });
    expect(none.notConfigured).toBe('BLUESKY_IDENTIFIER and BLUESKY_APP_PASSWORD are not set');
    expect((await failure(none.collect(query(['x'])))).kind).toBe('rejected');
  });

  it('makes a session, then searches each term latest first after `since`, paged by cursor, merged once', async () => {
    reset();
    const { posts, source, warnings } = await connector().collect(query(['Acme Scraper', 'WebGrab']));
    expect(source).toBe('bluesky');
    expect(warnings).toEqual([]);
    expect(posts).toHaveLength(152);
    expect(posts.slice(0, 2)).toEqual([
      { platform: 'bluesky', externalId: 'at://did:plc:alice0000000000000000000/app.bsky.feed.post/3lbqa2a2a2a2a', url: 'https://bsky.app/profile/alice.bsky.social/post/3lbqa2a2a2a2a', author: 'alice.bsky.social', title: null, text: 'Acme Scraper just saved my weekend', publishedAtMs: Date.parse(at(NOW - HOUR)), lang: 'en' },
      { platform: 'bluesky', externalId: 'at://did:plc:bob00000000000000000000000/app.bsky.feed.post/3lbqb3b3b3b3b', url: 'https://bsky.app/profile/bob.example.com/post/3lbqb3b3b3b3b', author: 'bob.example.com', title: null, text: 'WebGrab oder Acme Scraper?', publishedAtMs: Date.parse(at(NOW - 2 * HOUR)), lang: 'de' },
    ]);
    expect(posts.some((p) => p.externalId.endsWith('3lbold'))).toBe(false);
    expect(bsky.calls('createSession')).toBe(1);
    const create = bsky.requests[0];
    expect(create?.method).toBe('POST');
    expect(JSON.parse(create?.body ?? '{}')).toEqual({ identifier: bsky.identifier, password: bsky.password });
    const found = bsky.requests.filter((r) => r.url.pathname.endsWith('searchPosts'));
    expect(found.map((r) => [r.url.searchParams.get('q'), r.url.searchParams.get('cursor')])).toEqual([
      ['Acme Scraper', null],
      ['Acme Scraper', '100'],
      ['WebGrab', null],
    ]);
    expect(Object.fromEntries(found[0]?.url.searchParams ?? [])).toEqual({ q: 'Acme Scraper', sort: 'latest', since: at(SINCE), limit: '100' });
    expect(found[0]?.headers.authorization).toMatch(/^Bearer eyJ\.access-/);
  });

  it('keeps the session across collections, concurrent ones included, and stops at `limit`', async () => {
    reset();
    const c = connector();
    await Promise.all([c.collect(query(['WebGrab'])), c.collect(query(['weekend']))]);
    const { posts } = await c.collect(query(['Acme Scraper'], 30));
    expect(posts).toHaveLength(30);
    expect(bsky.calls('createSession')).toBe(1);
    expect(bsky.requests.at(-1)?.url.searchParams.get('limit')).toBe('30');
  });

  it("does not fail a call waiting for the shared session with another caller's abort", async () => {
    reset();
    bsky.sessionDelayMs = 300;
    try {
      const c = connector();
      const first = c.collect({ ...query(['WebGrab']), signal: AbortSignal.timeout(50) });
      const second = c.collect(query(['WebGrab']));
      await expect(first).rejects.toThrow();
      expect((await second).posts.map((p) => p.author)).toEqual(['bob.example.com']);
      expect(bsky.calls('createSession')).toBe(1);
    } finally {
      bsky.sessionDelayMs = 0;
    }
  });

  it('refreshes an expired session with the refresh token, then asks again', async () => {
    reset();
    const c = connector();
    await c.collect(query(['WebGrab']));
    bsky.expireAccess();
    const { posts } = await c.collect(query(['WebGrab']));
    expect(posts).toHaveLength(1);
    expect([bsky.calls('createSession'), bsky.calls('refreshSession')]).toEqual([1, 1]);
    const refresh = bsky.requests.find((r) => r.url.pathname.endsWith('refreshSession'));
    expect(refresh).toMatchObject({ method: 'POST', body: '' });
    expect(refresh?.headers.authorization).toMatch(/^Bearer eyJ\.refresh-/);
    await c.collect(query(['WebGrab']));
    expect(bsky.calls('refreshSession')).toBe(1);
  });

  it('makes a new session when the refresh token has expired too', async () => {
    reset();
    const c = connector();
    await c.collect(query(['WebGrab']));
    bsky.expireAccess();
    bsky.expireRefresh();
    const { posts } = await c.collect(query(['WebGrab']));
    expect(posts).toHaveLength(1);
    expect([bsky.calls('createSession'), bsky.calls('refreshSession')]).toEqual([2, 1]);
  });

  it('reports a wrong app password as rejected, and never quotes it', async () => {
    reset();
    const error = await failure(connector('zzzz-wrong-pass-word').collect(query(['WebGrab'])));
    expect(error.kind).toBe('rejected');
    expect(error.errorName).toBe('AuthenticationRequired');
    expect(error.message).not.toContain('zzzz-wrong-pass-word');
  });

  it('reports a 429 as rate_limited with the wait of ratelimit-reset, without the password', async () => {
    reset();
    const c = connector();
    await c.collect(query(['WebGrab']));
    bsky.limited = true;
    const error = await failure(c.collect(query(['WebGrab'])));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(200_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(240_000);
    expect(error.message).not.toContain(bsky.password);
    bsky.limited = false;
  });

  it('reads a post view: indexedAt when createdAt is unreadable, the DID when the handle is invalid', () => {
    const post = feedPost({
      uri: 'at://did:plc:zzz/app.bsky.feed.post/3kq',
      author: { did: 'did:plc:zzz', handle: 'handle.invalid' },
      record: { text: 'hi', createdAt: 'yesterday' },
      indexedAt: '2026-11-26T10:00:00.000Z',
    });
    expect(post).toMatchObject({ url: 'https://bsky.app/profile/did:plc:zzz/post/3kq', author: 'did:plc:zzz', publishedAtMs: Date.parse('2026-11-26T10:00:00.000Z'), lang: null });
    expect(feedPost({ uri: 'https://x/y', record: { text: 'a', createdAt: '2026-01-01T00:00:00Z' } })).toBeNull();
  });
});
