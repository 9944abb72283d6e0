/**
 * The social catalog's reads of the platform clients (pipeline/clients/social/*: beside
 * `collect`) against the local stand-ins of each platform's real API (test/helpers/fake-*.ts):
 * a post with its comments in the thread's order (each before its replies, with its parent
 * and depth, cut at `limit` and said `truncated`), an account's profile, its newest posts
 * paged by the platform's own cursor, a subreddit's posts, a repository; what the platform
 * says does not exist is NotOnPlatform; a spent quota is `rate_limited` with its wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { BlueskyConnector } from '../../pipeline/clients/social/bluesky.js';
import { FeedsConnector } from '../../pipeline/clients/social/feeds.js';
import { GitHubConnector } from '../../pipeline/clients/social/github.js';
import { HackerNewsConnector, threadOf } from '../../pipeline/clients/social/hackernews.js';
import { RedditConnector } from '../../pipeline/clients/social/reddit.js';
import { NotOnPlatform } from '../../pipeline/clients/social/types.js';
import { XConnector } from '../../pipeline/clients/social/x.js';
import { YouTubeConnector } from '../../pipeline/clients/social/youtube.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { startFakeBluesky, type FakeBluesky } from '../helpers/fake-bluesky.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { startFakeHackerNews, type FakeHackerNews } from '../helpers/fake-hackernews.js';
import { startFakeReddit, type FakeReddit } from '../helpers/fake-reddit.js';
import { startFakeX, type FakeX } from '../helpers/fake-x.js';
import { startFakeYouTube, type FakeYouTube } from '../helpers/fake-youtube.js';
import { startFeedSite, type FeedSite } from '../helpers/feed-site.js';

const NOW = Date.now();
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();
const s = (ms: number) => Math.floor(ms / 1000);
const T = { timeoutMs: 5000 };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (e: unknown) => e,
  );
}

describe('pipeline/clients/social/hackernews reads', () => {
  let hn: FakeHackerNews;
  let client: HackerNewsConnector;
  beforeAll(async () => {
    hn = await startFakeHackerNews(
      [
        { id: 1, type: 'story', by: 'pg', time: s(NOW - 5 * HOUR), title: 'Ask HN: What are you building?', text: 'Tell us <i>everything</i>.' },
        { id: 2, type: 'comment', by: 'ann', time: s(NOW - 4 * HOUR), parent: 1, text: '<p>A scraper.</p><p>It&#x27;s fast.</p>' },
        { id: 3, type: 'comment', by: 'ben', time: s(NOW - 3 * HOUR), parent: 2, text: 'Which one?' },
        { id: 4, type: 'comment', by: 'gone', time: s(NOW - 3 * HOUR), parent: 1, deleted: true },
        { id: 5, type: 'comment', by: 'cat', time: s(NOW - 2 * HOUR), parent: 4, text: 'Replying to a deleted comment' },
        { id: 6, type: 'comment', by: 'dan', time: s(NOW - HOUR), parent: 1, text: 'A database.' },
        { id: 7, type: 'story', by: 'eve', time: s(NOW - HOUR), title: 'Show HN: A tiny crawler' },
        { id: 8, type: 'story', by: 'fay', time: s(NOW - 30 * 60_000), title: 'A new language' },
      ],
      [{ id: 'pg', created: 1160418092, karma: 157236, about: 'Bug fixer. <a href="https://paulgraham.com">site</a>', submitted: [1, 2, 3] }],
    );
    client = new HackerNewsConnector({ algoliaUrl: hn.algoliaUrl, firebaseUrl: hn.firebaseUrl });
  });
  afterAll(() => hn.close());

  it('reads an item with its comment tree in the thread order, deleted comments left out but their replies kept', async () => {
    const thread = await client.thread('1', 100, T);
    expect(thread.post).toMatchObject({ externalId: '1', author: 'pg', title: 'Ask HN: What are you building?', text: 'Tell us everything.', url: 'https://news.ycombinator.com/item?id=1' });
    expect(thread.comments.map((c) => [c.externalId, c.parentId, c.depth])).toEqual([
      ['2', '1', 1],
      ['3', '2', 2],
      ['5', '1', 1],
      ['6', '1', 1],
    ]);
    expect(thread.comments[0]?.text).toBe("A scraper.\nIt's fast.");
    expect(thread.truncated).toBe(false);
    const cut = await client.thread('1', 2, T);
    expect(cut.comments.map((c) => c.externalId)).toEqual(['2', '3']);
    expect(cut.truncated).toBe(true);
    expect(hn.requests.some((u) => u.pathname === '/api/v1/items/1')).toBe(true);
  });

  it('walks a thread thousands of replies deep without recursion', () => {
    let node: Record<string, unknown> = { id: 100_000, created_at_i: 1, author: 'z', text: 'deepest', children: [] };
    for (let i = 99_999; i > 90_000; i--) node = { id: i, created_at_i: 1, author: 'z', text: `r${i}`, children: [node] };
    const thread = threadOf({ id: 1, created_at_i: 1, author: 'a', title: 'root', children: [node] }, 500);
    expect(thread?.comments).toHaveLength(500);
    expect(thread?.comments[499]?.depth).toBe(500);
    expect(thread?.truncated).toBe(true);
  });

  it('reads a story list from an offset, a user, and says an unknown item or user is not on the platform', async () => {
    const page = await client.stories('new', 0, 2, T);
    expect(page.posts.map((p) => p.externalId)).toEqual(['8', '7']);
    expect(page.next).toBe('2');
    const rest = await client.stories('new', 2, 2, T);
    expect(rest.posts.map((p) => p.externalId)).toEqual(['1']);
    expect(rest.next).toBeNull();
    expect((await client.stories('show', 0, 10, T)).posts.map((p) => p.title)).toEqual(['Show HN: A tiny crawler']);
    expect(await client.user('pg', T)).toEqual({
      platform: 'hackernews',
      id: 'pg',
      username: 'pg',
      name: null,
      description: 'Bug fixer. site',
      url: 'https://news.ycombinator.com/user?id=pg',
      createdAtMs: 1160418092000,
      followers: null,
      following: null,
      posts: 3,
      karma: 157236,
    });
    expect(await rejection(client.user('nobody', T))).toBeInstanceOf(NotOnPlatform);
    expect(await rejection(client.thread('999', 10, T))).toBeInstanceOf(NotOnPlatform);
  });
});

describe('pipeline/clients/social/reddit reads', () => {
  let reddit: FakeReddit;
  const client = (app: boolean) => new RedditConnector({ url: reddit.url, oauthUrl: reddit.oauthUrl, credentials: app ? { clientId: reddit.clientId, clientSecret: reddit.clientSecret } : null });
  beforeAll(async () => {
    reddit = await startFakeReddit(
      [
        { id: 'p1', subreddit: 'rust', title: 'Borrow checker & me', selftext: 'A story <of> pain', author: 'ann', createdUtc: s(NOW - 3 * HOUR) },
        { id: 'p2', subreddit: 'rust', title: 'Release notes', selftext: '', author: 'ben', createdUtc: s(NOW - 2 * HOUR) },
        { id: 'p3', subreddit: 'rust', title: 'Weekly thread', selftext: 'Ask away', author: 'cat', createdUtc: s(NOW - HOUR) },
      ],
      undefined,
      undefined,
      {
        comments: [
          { id: 'c1', postId: 'p1', author: 'dan', body: 'Same here & more', createdUtc: s(NOW - 170 * 60_000) },
          { id: 'c2', postId: 'p1', parentId: 'c1', author: 'eve', body: 'It gets better', createdUtc: s(NOW - 160 * 60_000) },
          { id: 'c3', postId: 'p1', author: '[deleted]', body: '[deleted]', createdUtc: s(NOW - 150 * 60_000) },
        ],
        users: [{ id: 'abc', name: 'ann', createdUtc: 1_500_000_000, linkKarma: 10, commentKarma: 32, title: 'Ann', about: 'Rustacean', followers: 4 }],
      },
    );
  });
  afterAll(() => reddit.close());

  it("pages a subreddit's newest posts by `after`, through OAuth", async () => {
    reddit.requests.length = 0;
    const first = await client(true).subreddit('rust', 'new', null, 2, null, T);
    expect(first.posts.map((p) => p.externalId)).toEqual(['t3_p3', 't3_p2']);
    expect(first.next).toBe('t3_p2');
    expect(first.warnings).toEqual([]);
    const second = await client(true).subreddit('rust', 'new', null, 2, first.next, T);
    expect(second.posts.map((p) => p.externalId)).toEqual(['t3_p1']);
    expect(second.next).toBeNull();
    const listing = reddit.requests.filter((r) => r.url.pathname === '/r/rust/new');
    expect(listing.map((r) => r.host)).toEqual(['oauth', 'oauth']);
    expect(listing[0]?.url.searchParams.get('raw_json')).toBe('1');
  });

  it('reads a post with its comment tree, and through the public JSON without credentials (with a warning)', async () => {
    const thread = await client(false).thread('p1', 100, T);
    expect(thread.warnings[0]).toMatch(/public JSON/);
    expect(thread.post).toMatchObject({ externalId: 't3_p1', title: 'Borrow checker & me', text: 'A story <of> pain' });
    expect(thread.comments).toEqual([
      expect.objectContaining({ externalId: 't1_c1', parentId: 't3_p1', depth: 1, author: 'dan', text: 'Same here & more', url: 'https://www.reddit.com/r/rust/comments/p1/post_p1/c1/' }),
      expect.objectContaining({ externalId: 't1_c2', parentId: 't1_c1', depth: 2, author: 'eve' }),
      expect.objectContaining({ externalId: 't1_c3', parentId: 't3_p1', depth: 1, author: null }),
    ]);
    expect(thread.truncated).toBe(false);
    expect(reddit.requests.some((r) => r.host === 'www' && r.url.pathname === '/comments/p1.json')).toBe(true);
    // Past `limit`, Reddit leaves the rest as a `more` stub.
    const cut = await client(true).thread('t3_p1', 1, T);
    expect(cut.comments.map((c) => c.externalId)).toEqual(['t1_c1']);
    expect(cut.truncated).toBe(true);
  });

  it('reads a user, and says an unknown subreddit, post or user is not on the platform', async () => {
    expect(await client(true).user('ann', T)).toEqual({
      platform: 'reddit',
      id: 't2_abc',
      username: 'ann',
      name: 'Ann',
      description: 'Rustacean',
      url: 'https://www.reddit.com/user/ann/',
      createdAtMs: 1_500_000_000_000,
      followers: 4,
      following: null,
      posts: null,
      karma: 42,
    });
    for (const read of [() => client(true).user('nobody', T), () => client(true).subreddit('nosuchsub', 'new', null, 5, null, T), () => client(false).thread('zz9', 5, T)]) {
      expect(await rejection(read())).toBeInstanceOf(NotOnPlatform);
    }
  });

  it('is rate_limited with its wait on a 429', async () => {
    reddit.quota = 'limited';
    const error = (await rejection(client(true).subreddit('rust', 'hot', null, 5, null, T))) as ServiceError;
    reddit.quota = 'ok';
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(120_000);
  });
});

describe('pipeline/clients/social/x reads', () => {
  let x: FakeX;
  const ROOT = '1900000000000000001';
  beforeAll(async () => {
    x = await startFakeX(
      [
        { id: ROOT, authorId: '11', username: 'ann', text: 'Shipping day', createdAt: at(NOW - 5 * HOUR), lang: 'en' },
        { id: '1900000000000000002', authorId: '12', username: 'ben', text: 'Congrats!', createdAt: at(NOW - 4 * HOUR), lang: 'en', conversationId: ROOT, replyTo: ROOT },
        { id: '1900000000000000003', authorId: '11', username: 'ann', text: 'Thanks Ben', createdAt: at(NOW - 3 * HOUR), lang: 'en', conversationId: ROOT, replyTo: '1900000000000000002' },
        { id: '1900000000000000004', authorId: '13', username: 'cat', text: 'What shipped?', createdAt: at(NOW - 2 * HOUR), lang: 'und', conversationId: ROOT, replyTo: ROOT },
        ...Array.from({ length: 7 }, (_, i) => ({ id: `18000000000000000${10 + i}`, authorId: '11', username: 'ann', text: `older post ${i}`, createdAt: at(NOW - 10 * HOUR - i * HOUR), lang: 'en' })),
      ],
      undefined,
      [{ id: '11', username: 'ann', name: 'Ann', description: 'Builder', createdAt: '2012-03-04T05:06:07.000Z', followers: 120, following: 80, tweets: 11 }],
    );
  });
  afterAll(() => x.close());

  it('reads a user and pages their newest posts by pagination_token', async () => {
    const client = new XConnector({ apiUrl: x.url, bearerToken: x.token });
    expect(await client.user('ann', T)).toEqual({
      platform: 'x',
      id: '11',
      username: 'ann',
      name: 'Ann',
      description: 'Builder',
      url: 'https://x.com/ann',
      createdAtMs: Date.parse('2012-03-04T05:06:07.000Z'),
      followers: 120,
      following: 80,
      posts: 11,
      karma: null,
    });
    const first = await client.recent('ann', 5, null, T);
    expect(first.posts.map((p) => p.text)).toEqual(['Thanks Ben', 'Shipping day', 'older post 0', 'older post 1', 'older post 2']);
    expect(first.posts[0]?.url).toBe('https://x.com/ann/status/1900000000000000003');
    const next = await client.recent('ann', 5, first.next, T);
    expect(next.posts).toHaveLength(4);
    expect(next.next).toBeNull();
    // X wants 5 to 100 a page: a smaller limit asks for 5 and answers the limit.
    expect((await client.recent('ann', 2, null, T)).posts).toHaveLength(2);
  });

  it('reads a post with its replies from its conversation, in the thread order', async () => {
    const client = new XConnector({ apiUrl: x.url, bearerToken: x.token });
    const thread = await client.thread(ROOT, 50, T);
    expect(thread.post).toMatchObject({ externalId: ROOT, author: 'ann', text: 'Shipping day' });
    expect(thread.comments.map((c) => [c.externalId, c.parentId, c.depth])).toEqual([
      ['1900000000000000002', ROOT, 1],
      ['1900000000000000003', '1900000000000000002', 2],
      ['1900000000000000004', ROOT, 1],
    ]);
    expect(thread.warnings).toEqual([]);
    const search = x.requests.filter((u) => u.pathname === '/2/tweets/search/recent').at(-1);
    expect(search?.searchParams.get('query')).toBe(`conversation_id:${ROOT}`);
  });

  it('says an unknown user or post is not on the platform; no token is refused before any request', async () => {
    const client = new XConnector({ apiUrl: x.url, bearerToken: x.token });
    expect(await rejection(client.user('nobody', T))).toBeInstanceOf(NotOnPlatform);
    expect(await rejection(client.thread('1', 5, T))).toBeInstanceOf(NotOnPlatform);
    const before = x.requests.length;
    expect(await rejection(new XConnector({ apiUrl: x.url, bearerToken: null }).user('ann', T))).toMatchObject({ kind: 'rejected' });
    expect(x.requests.length).toBe(before);
  });
});

describe('pipeline/clients/social/bluesky reads', () => {
  let bsky: FakeBluesky;
  let client: BlueskyConnector;
  const ANN = 'did:plc:ann00000000000000000000';
  const root = `at://${ANN}/app.bsky.feed.post/3lroot`;
  beforeAll(async () => {
    bsky = await startFakeBluesky(
      [
        { did: ANN, handle: 'ann.bsky.social', rkey: '3lroot', text: 'Hello Bluesky', createdAt: at(NOW - 5 * HOUR), langs: ['en'] },
        { did: 'did:plc:ben', handle: 'ben.bsky.social', rkey: '3lr1', text: 'Welcome!', createdAt: at(NOW - 4 * HOUR), replyTo: root },
        { did: ANN, handle: 'ann.bsky.social', rkey: '3lr2', text: 'Thanks', createdAt: at(NOW - 3 * HOUR), replyTo: 'at://did:plc:ben/app.bsky.feed.post/3lr1' },
        { did: ANN, handle: 'ann.bsky.social', rkey: '3lnew', text: 'Second post', createdAt: at(NOW - HOUR) },
        { did: 'did:plc:ben', handle: 'ben.bsky.social', rkey: '3lben', text: 'Ben posts', createdAt: at(NOW - 2 * HOUR) },
      ],
      undefined,
      undefined,
      {
        profiles: [{ did: ANN, handle: 'ann.bsky.social', displayName: 'Ann', description: 'Posting', followers: 10, follows: 5, posts: 3, createdAt: '2023-04-05T06:07:08.000Z' }],
        reposts: [{ by: ANN, of: 'at://did:plc:ben/app.bsky.feed.post/3lben', at: at(NOW - 30 * 60_000) }],
      },
    );
    client = new BlueskyConnector({ url: bsky.url, credentials: { identifier: bsky.identifier, appPassword: bsky.password } });
  });
  afterAll(() => bsky.close());

  it("reads a profile and an actor's own newest posts (replies and reposts left out), paged by cursor", async () => {
    expect(await client.profile('ann.bsky.social', T)).toEqual({
      platform: 'bluesky',
      id: ANN,
      username: 'ann.bsky.social',
      name: 'Ann',
      description: 'Posting',
      url: 'https://bsky.app/profile/ann.bsky.social',
      createdAtMs: Date.parse('2023-04-05T06:07:08.000Z'),
      followers: 10,
      following: 5,
      posts: 3,
      karma: null,
    });
    const first = await client.recent('ann.bsky.social', 1, null, T);
    // The repost is the newest item of the feed: left out, so this page holds nothing of Ann's own.
    expect(first.posts).toEqual([]);
    const second = await client.recent('ann.bsky.social', 1, first.next, T);
    expect(second.posts.map((p) => p.text)).toEqual(['Second post']);
    expect((await client.recent('ann.bsky.social', 10, null, T)).posts.map((p) => p.text)).toEqual(['Second post', 'Hello Bluesky']);
    expect(bsky.calls('createSession')).toBe(1);
  });

  it('reads a post thread by its URI or its bsky.app URL (the handle resolved)', async () => {
    const byUri = await client.thread(root, 50, T);
    expect(byUri.post).toMatchObject({ externalId: root, text: 'Hello Bluesky', lang: 'en' });
    expect(byUri.comments.map((c) => [c.text, c.depth])).toEqual([
      ['Welcome!', 1],
      ['Thanks', 2],
    ]);
    expect(byUri.comments[1]?.parentId).toBe('at://did:plc:ben/app.bsky.feed.post/3lr1');
    const byUrl = await client.thread('https://bsky.app/profile/ann.bsky.social/post/3lroot', 1, T);
    expect(byUrl.post.externalId).toBe(root);
    expect(byUrl.comments).toHaveLength(1);
    expect(byUrl.truncated).toBe(true);
    expect(bsky.calls('resolveHandle')).toBe(1);
  });

  it('says an unknown profile, handle or post is not on the platform; 429 is rate_limited with its wait', async () => {
    expect(await rejection(client.profile('nobody.bsky.social', T))).toBeInstanceOf(NotOnPlatform);
    expect(await rejection(client.thread(`at://${ANN}/app.bsky.feed.post/none`, 5, T))).toBeInstanceOf(NotOnPlatform);
    expect(await rejection(client.thread('https://bsky.app/profile/nobody.bsky.social/post/3l', 5, T))).toBeInstanceOf(NotOnPlatform);
    bsky.limited = true;
    const error = (await rejection(client.profile('ann.bsky.social', T))) as ServiceError;
    bsky.limited = false;
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(200_000);
  });
});

describe('pipeline/clients/social/youtube reads', () => {
  let yt: FakeYouTube;
  let client: YouTubeConnector;
  const CHANNEL = 'UCabcdefghijklmnopqrstuv';
  beforeAll(async () => {
    yt = await startFakeYouTube(
      [
        { id: 'vid00000001', channel: 'Acme', channelId: CHANNEL, title: 'Launch & demo', description: 'Our launch', publishedAt: at(NOW - 3 * HOUR) },
        { id: 'vid00000002', channel: 'Acme', channelId: CHANNEL, title: 'Second', description: '', publishedAt: at(NOW - HOUR) },
        { id: 'vid00000003', channel: 'Acme', channelId: CHANNEL, title: 'Quiet', description: 'No comments', publishedAt: at(NOW - 2 * HOUR) },
      ],
      undefined,
      {
        channels: [{ id: CHANNEL, handle: '@Acme', title: 'Acme', description: 'Videos of Acme', publishedAt: '2015-01-02T03:04:05Z', subscribers: 1500, videos: 3 }],
        comments: [
          { id: 'cm1', videoId: 'vid00000001', author: '@ann', text: 'Great demo', publishedAt: at(NOW - 2 * HOUR) },
          ...Array.from({ length: 7 }, (_, i) => ({ id: `cm1.r${i}`, videoId: 'vid00000001', parentId: 'cm1', author: `@r${i}`, text: `reply ${i}`, publishedAt: at(NOW - HOUR + i * 60_000) })),
          { id: 'cm2', videoId: 'vid00000001', author: '@ben', text: 'When is it out?', publishedAt: at(NOW - 90 * 60_000) },
        ],
        commentsOff: ['vid00000003'],
      },
    );
    client = new YouTubeConnector({ apiUrl: yt.url, apiKey: yt.key });
  });
  afterAll(() => yt.close());

  it("reads a channel by id or handle, and its newest uploads paged by pageToken", async () => {
    const profile = await client.channel('@acme', T);
    expect(profile).toEqual({
      platform: 'youtube',
      id: CHANNEL,
      username: '@acme',
      name: 'Acme',
      description: 'Videos of Acme',
      url: `https://www.youtube.com/channel/${CHANNEL}`,
      createdAtMs: Date.parse('2015-01-02T03:04:05Z'),
      followers: 1500,
      following: null,
      posts: 3,
      karma: null,
    });
    expect((await client.channel(CHANNEL, T)).id).toBe(CHANNEL);
    const first = await client.recent('@Acme', 2, null, T);
    expect(first.posts.map((p) => p.externalId)).toEqual(['vid00000002', 'vid00000003']);
    expect(first.posts[0]).toMatchObject({ url: 'https://www.youtube.com/watch?v=vid00000002', author: 'Acme', title: 'Second', text: 'Second' });
    const second = await client.recent(CHANNEL, 2, first.next, T);
    expect(second.posts.map((p) => p.title)).toEqual(['Launch & demo']);
    expect(second.next).toBeNull();
    expect(yt.requests.find((u) => u.pathname.endsWith('/playlistItems'))?.searchParams.get('playlistId')).toBe('UUabcdefghijklmnopqrstuv');
  });

  it('reads a video with its comment threads (five replies inline: the rest truncated), and comments turned off as a warning', async () => {
    const thread = await client.thread('vid00000001', 100, T);
    expect(thread.post).toMatchObject({ externalId: 'vid00000001', title: 'Launch & demo', text: 'Our launch', lang: 'en' });
    expect(thread.comments.map((c) => [c.externalId, c.parentId, c.depth])).toEqual([
      ['cm1', 'vid00000001', 1],
      ...Array.from({ length: 5 }, (_, i) => [`cm1.r${i}`, 'cm1', 2]),
      ['cm2', 'vid00000001', 1],
    ]);
    expect(thread.comments[0]).toMatchObject({ author: '@ann', text: 'Great demo', url: 'https://www.youtube.com/watch?v=vid00000001&lc=cm1' });
    expect(thread.truncated).toBe(true);
    const off = await client.thread('vid00000003', 100, T);
    expect(off.comments).toEqual([]);
    expect(off.warnings).toEqual(['Comments are turned off on this video.']);
  });

  it('says an unknown channel or video is not on the platform; a spent quota is rate_limited', async () => {
    expect(await rejection(client.channel('@nobody', T))).toBeInstanceOf(NotOnPlatform);
    expect(await rejection(client.recent('UCzzzzzzzzzzzzzzzzzzzzzz', 5, null, T))).toBeInstanceOf(NotOnPlatform);
    expect(await rejection(client.thread('nosuchvideo', 5, T))).toBeInstanceOf(NotOnPlatform);
    yt.quota = 'spent';
    const error = await rejection(client.channel(CHANNEL, T));
    yt.quota = 'ok';
    expect(error).toMatchObject({ kind: 'rate_limited' });
    expect(yt.requests.every((u) => u.searchParams.get('key') === yt.key)).toBe(true);
  });
});

describe('pipeline/clients/social/github reads', () => {
  let gh: FakeGitHub;
  let client: GitHubConnector;
  beforeAll(async () => {
    gh = await startFakeGitHub(
      [
        { id: 901, number: 1, repo: 'acme/db', title: 'Crash on start', body: 'It crashes', login: 'ann', createdAt: at(NOW - 5 * HOUR), state: 'closed' },
        { id: 902, number: 2, repo: 'acme/db', title: 'Add docs', body: null, login: 'ben', createdAt: at(NOW - 4 * HOUR), pullRequest: true },
        { id: 903, number: 3, repo: 'acme/db', title: 'Slow query', body: 'Takes 9 s', login: 'cat', createdAt: at(NOW - 3 * HOUR) },
        { id: 904, number: 4, repo: 'acme/db', title: 'ARM builds?', body: 'Please', login: 'dan', createdAt: at(NOW - 2 * HOUR) },
      ],
      undefined,
      {
        repos: [{ id: 77, fullName: 'acme/db', description: 'A database', stars: 1234, language: 'Rust', topics: ['database', 'rust'], license: 'MIT', createdAt: '2020-01-01T00:00:00Z' }],
        comments: [
          { id: 5001, issue: 'acme/db#1', login: 'eve', body: 'Same here', createdAt: at(NOW - 4 * HOUR) },
          { id: 5002, issue: 'acme/db#1', login: 'ann', body: ' Fixed in 1.2 ', createdAt: at(NOW - 3 * HOUR) },
        ],
        users: [{ id: 42, login: 'ann', name: 'Ann A.', bio: 'Databases', followers: 9, following: 2, publicRepos: 12, createdAt: '2011-01-01T00:00:00Z' }],
      },
    );
    client = new GitHubConnector({ apiUrl: gh.url, token: gh.token });
  });
  afterAll(() => gh.close());

  it('reads a repository', async () => {
    expect(await client.repository('acme', 'db', T)).toEqual({
      id: 77,
      fullName: 'acme/db',
      owner: 'acme',
      name: 'db',
      description: 'A database',
      url: 'https://github.com/acme/db',
      homepage: null,
      stars: 1234,
      forks: 3,
      openIssues: 3,
      watchers: 7,
      language: 'Rust',
      topics: ['database', 'rust'],
      license: 'MIT',
      defaultBranch: 'main',
      createdAtMs: Date.parse('2020-01-01T00:00:00Z'),
      updatedAtMs: Date.parse('2020-01-01T00:00:00Z'),
      pushedAtMs: Date.parse('2020-01-01T00:00:00Z'),
      archived: false,
      fork: false,
    });
  });

  it("pages a repository's newest issues (pull requests left out) by the Link header", async () => {
    const first = await client.issues('acme', 'db', 'all', 2, null, T);
    expect(first.posts.map((p) => p.title)).toEqual(['ARM builds?', 'Slow query']);
    expect(first.next).toBe('2');
    const second = await client.issues('acme', 'db', 'all', 2, first.next, T);
    // Page 2 holds the pull request and issue 1: the pull request is left out.
    expect(second.posts.map((p) => p.title)).toEqual(['Crash on start']);
    expect(second.next).toBeNull();
    expect((await client.issues('acme', 'db', 'open', 10, null, T)).posts.map((p) => p.externalId)).toEqual(['904', '903']);
    const request = gh.requests.find((r) => r.url.pathname === '/repos/acme/db/issues');
    expect(request?.url.searchParams.get('sort')).toBe('created');
    expect(request?.headers.authorization).toBe(`Bearer ${gh.token}`);
  });

  it('reads an issue with its comments, and a user; unknown ones are not on the platform; a spent quota is rate_limited', async () => {
    const thread = await client.thread('acme', 'db', 1, 10, T);
    expect(thread.post).toMatchObject({ externalId: '901', title: 'Crash on start', url: 'https://github.com/acme/db/issues/1' });
    expect(thread.comments.map((c) => [c.externalId, c.parentId, c.depth, c.text])).toEqual([
      ['5001', '901', 1, 'Same here'],
      ['5002', '901', 1, 'Fixed in 1.2'],
    ]);
    expect((await client.thread('acme', 'db', 1, 1, T)).truncated).toBe(true);
    expect(await client.user('ann', T)).toMatchObject({ platform: 'github', id: '42', username: 'ann', name: 'Ann A.', description: 'Databases', followers: 9, following: 2, posts: 12, url: 'https://github.com/ann' });
    for (const read of [() => client.repository('acme', 'nope', T), () => client.thread('acme', 'db', 99, 5, T), () => client.user('nobody', T), () => client.issues('no', 'repo', 'all', 5, null, T)]) {
      expect(await rejection(read())).toBeInstanceOf(NotOnPlatform);
    }
    gh.quota = 'spent';
    const error = (await rejection(client.repository('acme', 'db', T))) as ServiceError;
    gh.quota = 'ok';
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(30_000);
  });
});

describe('pipeline/clients/social/feeds read', () => {
  let site: FeedSite;
  beforeAll(async () => {
    site = await startFeedSite([
      { id: 'a', title: 'First post', text: 'Hello', at: at(NOW - 3 * HOUR) },
      { id: 'b', title: 'Second post', text: 'Again', at: at(NOW - HOUR) },
    ]);
  });
  afterAll(() => site.close());

  it('answers every post of a feed, or of the feed a site links, when asked with no terms', async () => {
    const feeds = new FeedsConnector({ fetcher: new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) }) });
    for (const url of [site.feedUrl, site.pageUrl]) {
      const read = await feeds.collect({ terms: [], sinceMs: 0, limit: 10, timeoutMs: 5000, sources: { feeds: [], sites: [url] } });
      expect(read.posts.map((p) => p.title), url).toEqual(['Second post', 'First post']);
    }
  });
});
