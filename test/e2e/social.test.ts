/**
 * The social catalog end to end in embedded mode, through the production actors (gateway →
 * SocialRequested → searcher → the platform's client → the Reply), against local stand-ins of
 * every platform speaking its real API (test/helpers/fake-*.ts) pointed at by the settings
 * docs/configuration.md documents, a feed site on 127.0.0.1, and the local index for `web`:
 *
 * - GET /v1/social lists every endpoint with its inputs, the very schemas of the OpenAPI
 *   document, its price, and whether each platform is configured; it is free;
 * - every endpoint's happy path, its data in the API's shapes and its cost in the envelope;
 * - an unknown platform or endpoint is a 404 with its code, a body that breaks the endpoint's
 *   inputs a 422 `detail`, both before any credit is reserved (a key with none gets them too);
 * - charged only when data comes back: an empty answer and a failure cost nothing, the
 *   balance says so; what the platform does not have is 404 `platform_not_found`; its rate
 *   limit 429 `platform_rate_limited` with Retry-After.
 * Not configured platforms: test/e2e/social.distributed.test.ts and test/actors/searcher.social.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOCIAL_ENDPOINTS, socialInputName } from '../../schemas/api/social.js';
import { meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFakeBluesky, type FakeBluesky } from '../helpers/fake-bluesky.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { startFakeHackerNews, type FakeHackerNews } from '../helpers/fake-hackernews.js';
import { startFakeReddit, type FakeReddit } from '../helpers/fake-reddit.js';
import { startFakeX, type FakeX } from '../helpers/fake-x.js';
import { startFakeYouTube, type FakeYouTube } from '../helpers/fake-youtube.js';
import { startFeedSite, type FeedSite } from '../helpers/feed-site.js';
import { apiCaller, type Body } from '../helpers/api.js';
import { platformEnv } from '../helpers/platform-env.js';

const API_KEY = 'e2e-social-key-0123456789';
const HOUR = 3_600_000;
const NOW = Date.now();
const at = (ms: number) => new Date(ms).toISOString();
const s = (ms: number) => Math.floor(ms / 1000);
const CHANNEL = 'UCabcdefghijklmnopqrstuv';
const BSKY = 'did:plc:ann00000000000000000000';
const TWEET = '1900000000000000001';

describe('e2e/social (embedded)', () => {
  let svc: Embedded;
  let hn: FakeHackerNews;
  let reddit: FakeReddit;
  let x: FakeX;
  let bsky: FakeBluesky;
  let yt: FakeYouTube;
  let gh: FakeGitHub;
  let site: FeedSite;
  const call = apiCaller(() => svc.base, API_KEY);

  beforeAll(async () => {
    [hn, reddit, x, bsky, yt, gh, site] = await Promise.all([
      startFakeHackerNews(
        [
          { id: 1, type: 'story', by: 'pg', time: s(NOW - 5 * HOUR), title: 'Ask HN: Who uses Acme DB?', text: 'Curious.' },
          { id: 2, type: 'comment', by: 'ann', time: s(NOW - 4 * HOUR), parent: 1, text: 'We run Acme DB in production.' },
          { id: 3, type: 'comment', by: 'ben', time: s(NOW - 3 * HOUR), parent: 2, text: 'How big?' },
        ],
        [{ id: 'pg', created: 1160418092, karma: 157236, about: 'Essays', submitted: [1] }],
      ),
      startFakeReddit(
        [
          { id: 'p1', subreddit: 'databases', title: 'Acme DB in production', selftext: 'Ask me anything', author: 'ann', createdUtc: s(NOW - 2 * HOUR) },
          { id: 'p2', subreddit: 'databases', title: 'Index tuning', selftext: '', author: 'ben', createdUtc: s(NOW - HOUR) },
        ],
        undefined,
        undefined,
        {
          comments: [
            { id: 'c1', postId: 'p1', author: 'cat', body: 'How many nodes?', createdUtc: s(NOW - 90 * 60_000) },
            { id: 'c2', postId: 'p1', parentId: 'c1', author: 'ann', body: 'Three', createdUtc: s(NOW - 80 * 60_000) },
          ],
          users: [{ id: 'abc', name: 'ann', createdUtc: 1_500_000_000, linkKarma: 10, commentKarma: 32 }],
        },
      ),
      startFakeX(
        [
          { id: TWEET, authorId: '11', username: 'ann', text: 'Acme DB 2.0 is out', createdAt: at(NOW - 5 * HOUR), lang: 'en' },
          { id: '1900000000000000002', authorId: '12', username: 'ben', text: 'Congrats!', createdAt: at(NOW - 4 * HOUR), lang: 'en', conversationId: TWEET, replyTo: TWEET },
        ],
        undefined,
        [{ id: '11', username: 'ann', name: 'Ann', description: 'Builder', createdAt: '2012-03-04T05:06:07.000Z', followers: 120, following: 80, tweets: 1 }],
      ),
      startFakeBluesky(
        [
          { did: BSKY, handle: 'ann.bsky.social', rkey: '3lroot', text: 'Acme DB on Bluesky', createdAt: at(NOW - 5 * HOUR), langs: ['en'] },
          { did: 'did:plc:ben', handle: 'ben.bsky.social', rkey: '3lr1', text: 'Welcome!', createdAt: at(NOW - 4 * HOUR), replyTo: `at://${BSKY}/app.bsky.feed.post/3lroot` },
        ],
        undefined,
        undefined,
        { profiles: [{ did: BSKY, handle: 'ann.bsky.social', displayName: 'Ann', description: 'Posting', followers: 10, follows: 5, posts: 1, createdAt: '2023-04-05T06:07:08.000Z' }] },
      ),
      startFakeYouTube(
        [{ id: 'vid00000001', channel: 'Acme', channelId: CHANNEL, title: 'Acme DB launch', description: 'Our launch', publishedAt: at(NOW - 3 * HOUR) }],
        undefined,
        {
          channels: [{ id: CHANNEL, handle: '@Acme', title: 'Acme', description: 'Videos of Acme', publishedAt: '2015-01-02T03:04:05Z', subscribers: 1500, videos: 1 }],
          comments: [{ id: 'cm1', videoId: 'vid00000001', author: '@ann', text: 'Great demo', publishedAt: at(NOW - 2 * HOUR) }],
        },
      ),
      startFakeGitHub(
        [
          { id: 901, number: 1, repo: 'acme/db', title: 'Acme DB crashes on start', body: 'It crashes', login: 'ann', createdAt: at(NOW - 5 * HOUR) },
          { id: 902, number: 2, repo: 'acme/db', title: 'Docs', body: null, login: 'ben', createdAt: at(NOW - 4 * HOUR), pullRequest: true },
        ],
        undefined,
        {
          repos: [{ id: 77, fullName: 'acme/db', description: 'A database', stars: 1234, language: 'Rust', topics: ['database'], license: 'MIT', createdAt: '2020-01-01T00:00:00Z' }],
          comments: [{ id: 5001, issue: 'acme/db#1', login: 'eve', body: 'Same here', createdAt: at(NOW - 4 * HOUR) }],
          users: [{ id: 42, login: 'ann', name: 'Ann A.', bio: 'Databases', followers: 9, following: 2, publicRepos: 12, createdAt: '2011-01-01T00:00:00Z' }],
        },
      ),
      startFeedSite([{ id: 'a', title: 'Acme DB 3.0 released', text: 'The Acme DB team shipped version 3.0.', at: at(NOW - 6 * HOUR) }]),
    ]);
    svc = await startEmbedded({
      apiKey: API_KEY,
      env: {
        FETCH_ALLOW_PRIVATE: 'true',
        SEARCH_PROVIDERS: 'local',
        ...platformEnv({ hn, reddit, x, bsky, yt, gh }),
      },
    });
    // A page this instance has read: `web/search` finds it in the local index.
    expect((await call('POST', '/v1/scrape', { url: site.pageUrl })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await Promise.all([hn?.close(), reddit?.close(), x?.close(), bsky?.close(), yt?.close(), gh?.close(), site?.close()]);
  });

  it('lists every endpoint with its inputs (the OpenAPI components), its price and each platform\'s readiness, for free', async () => {
    const catalog = await call('GET', '/v1/social');
    expect(catalog.status).toBe(200);
    const platforms = catalog.body.data.platforms as Body[];
    expect(platforms.map((p) => p.platform)).toEqual(['web', 'feeds', 'reddit', 'hackernews', 'x', 'bluesky', 'youtube', 'github']);
    expect(platforms.every((p) => p.configured === true && p.missing === null)).toBe(true);
    expect(catalog.body.data.cost.credits).toBe(0);
    const endpoints = platforms.flatMap((p) => p.endpoints as Body[]);
    expect(endpoints).toHaveLength(SOCIAL_ENDPOINTS.length);
    const openapi = (await (await fetch(`${svc.base}/v1/openapi.json`)).json()) as Body;
    for (const e of endpoints) {
      expect(e.path).toBe(`/v1/social/${e.platform}/${e.endpoint}`);
      expect(e.price).toEqual({ key: 'socialCall', credits: 1 });
      expect(e.input, e.path).toEqual(openapi.components.schemas[socialInputName({ platform: e.platform, endpoint: e.endpoint })]);
    }
    expect(endpoints.find((e) => e.path === '/v1/social/reddit/subreddit')?.input.required).toEqual(['subreddit']);
  });

  /** Each endpoint once, with what its answer must hold. */
  const HAPPY: readonly (readonly [string, Body | (() => Body), (data: Body) => void])[] = [
    ['hackernews/search', { query: 'Acme DB' }, (d) => expect(d.posts.map((p: Body) => p.id)).toEqual(['2', '1'])],
    ['hackernews/recent', { list: 'new', limit: 5 }, (d) => expect(d.posts.map((p: Body) => p.title)).toEqual(['Ask HN: Who uses Acme DB?'])],
    ['hackernews/item', { id: '1' }, (d) => expect(d.comments.map((c: Body) => [c.id, c.parentId, c.depth])).toEqual([['2', '1', 1], ['3', '2', 2]])],
    ['hackernews/user', { username: 'pg' }, (d) => expect(d.profile).toMatchObject({ id: 'pg', karma: 157236, createdAt: '2006-10-09T18:21:32.000Z', posts: 1 })],
    ['reddit/search', { query: 'Acme DB' }, (d) => expect(d.posts.map((p: Body) => p.id)).toEqual(['t3_p1'])],
    ['reddit/subreddit', { subreddit: 'databases' }, (d) => expect(d).toMatchObject({ posts: [{ id: 't3_p2' }, { id: 't3_p1' }], next: null })],
    ['reddit/post', { id: 'p1' }, (d) => expect(d.comments.map((c: Body) => [c.id, c.parentId, c.depth, c.text])).toEqual([['t1_c1', 't3_p1', 1, 'How many nodes?'], ['t1_c2', 't1_c1', 2, 'Three']])],
    ['reddit/user', { username: 'ann' }, (d) => expect(d.profile).toMatchObject({ id: 't2_abc', username: 'ann', karma: 42 })],
    ['x/search', { query: 'Acme DB' }, (d) => expect(d.posts.map((p: Body) => p.url)).toEqual([`https://x.com/ann/status/${TWEET}`])],
    ['x/recent', { username: 'ann' }, (d) => expect(d.posts.map((p: Body) => p.text)).toEqual(['Acme DB 2.0 is out'])],
    ['x/post', { id: TWEET }, (d) => expect(d.comments.map((c: Body) => [c.author, c.parentId, c.depth])).toEqual([['ben', TWEET, 1]])],
    ['x/user', { username: 'ann' }, (d) => expect(d.profile).toMatchObject({ id: '11', followers: 120, following: 80, posts: 1 })],
    ['bluesky/search', { query: 'Acme DB' }, (d) => expect(d.posts.map((p: Body) => p.url)).toEqual(['https://bsky.app/profile/ann.bsky.social/post/3lroot'])],
    ['bluesky/recent', { actor: 'ann.bsky.social' }, (d) => expect(d.posts.map((p: Body) => p.text)).toEqual(['Acme DB on Bluesky'])],
    ['bluesky/post', { uri: 'https://bsky.app/profile/ann.bsky.social/post/3lroot' }, (d) => expect(d.comments.map((c: Body) => c.text)).toEqual(['Welcome!'])],
    ['bluesky/profile', { actor: BSKY }, (d) => expect(d.profile).toMatchObject({ id: BSKY, username: 'ann.bsky.social', followers: 10 })],
    ['youtube/search', { query: 'Acme DB' }, (d) => expect(d.posts.map((p: Body) => p.id)).toEqual(['vid00000001'])],
    ['youtube/recent', { channel: '@Acme' }, (d) => expect(d.posts.map((p: Body) => p.title)).toEqual(['Acme DB launch'])],
    ['youtube/video', { id: 'vid00000001' }, (d) => expect(d.comments.map((c: Body) => [c.id, c.text])).toEqual([['cm1', 'Great demo']])],
    ['youtube/channel', { channel: CHANNEL }, (d) => expect(d.profile).toMatchObject({ id: CHANNEL, name: 'Acme', followers: 1500, posts: 1 })],
    ['github/search', { query: 'Acme DB' }, (d) => expect(d.posts.map((p: Body) => p.url)).toEqual(['https://github.com/acme/db/issues/1'])],
    ['github/issues', { owner: 'acme', repo: 'db' }, (d) => expect(d.posts.map((p: Body) => p.title)).toEqual(['Acme DB crashes on start'])],
    ['github/issue', { owner: 'acme', repo: 'db', number: 1 }, (d) => expect(d.comments.map((c: Body) => [c.author, c.text])).toEqual([['eve', 'Same here']])],
    ['github/repository', { owner: 'acme', repo: 'db' }, (d) => expect(d.repository).toMatchObject({ fullName: 'acme/db', stars: 1234, license: 'MIT', topics: ['database'], createdAt: '2020-01-01T00:00:00.000Z' })],
    ['github/user', { username: 'ann' }, (d) => expect(d.profile).toMatchObject({ id: '42', name: 'Ann A.', posts: 12 })],
    ['feeds/read', () => ({ url: site.pageUrl }), (d) => expect(d.posts.map((p: Body) => p.title)).toEqual(['Acme DB 3.0 released'])],
    ['web/search', { query: 'Acme DB' }, (d) => expect(d).toMatchObject({ source: 'local', posts: [{ url: site.pageUrl }] })],
  ];

  it('covers every endpoint of the catalog', () => {
    expect(HAPPY.map(([id]) => id).sort()).toEqual(SOCIAL_ENDPOINTS.map((e) => `${e.platform}/${e.endpoint}`).sort());
  });

  it.each(HAPPY.map(([id, body, check]) => ({ id, body, check })))('$id answers from the platform and costs 1 credit', async ({ id, body, check }) => {
    const res = await call('POST', `/v1/social/${id}`, typeof body === 'function' ? body() : body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.data as Body;
    const [platform, endpoint] = id.split('/');
    expect(data).toMatchObject({ platform, endpoint });
    expect(Array.isArray(data.warnings)).toBe(true);
    check(data);
    expect(data.cost.credits).toBe(1);
    for (const p of [...(data.posts ?? []), ...(data.post ? [data.post] : []), ...(data.comments ?? [])] as Body[]) {
      expect(Object.keys(p).slice(0, 7)).toEqual(['id', 'url', 'author', 'title', 'text', 'publishedAt', 'lang']);
      expect(Number.isFinite(Date.parse(p.publishedAt))).toBe(true);
    }
  });

  it('answers an unknown platform or endpoint 404 with its code, before any reservation', async () => {
    const broke = await meteredKey(svc.dataDir, 0);
    const platform = await call('POST', '/v1/social/myspace/search', { query: 'x' }, broke.key);
    expect(platform.status).toBe(404);
    expect(platform.body.error).toMatchObject({ code: 'social_platform_unknown', retriable: false });
    expect(platform.body.error.message).toContain('web, feeds, reddit, hackernews, x, bluesky, youtube, github');
    const endpoint = await call('POST', '/v1/social/reddit/wiki', { page: 'index' }, broke.key);
    expect(endpoint.status).toBe(404);
    expect(endpoint.body.error.code).toBe('social_endpoint_unknown');
    expect(endpoint.body.error.message).toContain('search, subreddit, post, user');
    // A valid call is where a key without credits is refused.
    expect((await call('POST', '/v1/social/reddit/user', { username: 'ann' }, broke.key)).status).toBe(402);
  });

  it("refuses a body that breaks the endpoint's inputs with 422 detail, before any reservation", async () => {
    const broke = await meteredKey(svc.dataDir, 0);
    const cases: readonly (readonly [string, unknown, (string | number)[], string])[] = [
      ['reddit/subreddit', {}, ['body', 'subreddit'], 'missing'],
      ['reddit/subreddit', { subreddit: 'r/rust' }, ['body', 'subreddit'], 'string_pattern_mismatch'],
      ['reddit/subreddit', { subreddit: 'rust', sort: 'best' }, ['body', 'sort'], 'enum'],
      ['hackernews/search', { query: '   ' }, ['body', 'query'], 'string_empty'],
      ['x/recent', { username: 'ann', limit: 101 }, ['body', 'limit'], 'less_than_equal'],
      ['github/issue', { owner: 'acme', repo: 'db', number: '1' }, ['body', 'number'], 'int_type'],
      ['github/repository', { owner: 'acme', repo: 'db', stars: true }, ['body', 'stars'], 'extra_forbidden'],
      ['bluesky/post', { uri: 'https://example.com/post/1' }, ['body', 'uri'], 'string_pattern_mismatch'],
      ['feeds/read', { url: 'ftp://example.com/feed' }, ['body', 'url'], 'url_invalid'],
      ['web/search', { query: 'x', since: 'yesterday' }, ['body', 'since'], 'date_time_invalid'],
    ];
    for (const [id, body, loc, type] of cases) {
      const res = await call('POST', `/v1/social/${id}`, body, broke.key);
      expect(res.status, `${id} ${JSON.stringify(body)}`).toBe(422);
      expect(res.body.detail, `${id} ${JSON.stringify(body)}`).toContainEqual(expect.objectContaining({ loc, type }));
    }
  });

  it('charges only when data comes back: an empty answer and a failure cost nothing', async () => {
    const paying = await meteredKey(svc.dataDir, 10);
    const found = await call('POST', '/v1/social/github/user', { username: 'ann' }, paying.key);
    expect(found.body.data.cost).toMatchObject({ credits: 1, remaining: 9 });
    const empty = await call('POST', '/v1/social/reddit/search', { query: 'nothing matches this' }, paying.key);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ posts: [], next: null, cost: { credits: 0, remaining: 9 } });
    const missing = await call('POST', '/v1/social/github/repository', { owner: 'acme', repo: 'nope' }, paying.key);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'platform_not_found', message: 'github: no repository acme/nope' });
    for (const [id, body] of [['youtube/channel', { channel: '@nobody' }], ['x/user', { username: 'nobody' }], ['bluesky/profile', { actor: 'nobody.bsky.social' }], ['hackernews/item', { id: '999' }], ['reddit/post', { id: 'zz9' }]] as const) {
      expect((await call('POST', `/v1/social/${id}`, body, paying.key)).body.error?.code, id).toBe('platform_not_found');
    }
    expect(await paying.balance()).toBe(9);
  });

  it("answers a platform's rate limit 429 platform_rate_limited with its wait, and charges nothing", async () => {
    const paying = await meteredKey(svc.dataDir, 10);
    reddit.quota = 'limited';
    gh.quota = 'spent';
    try {
      const limited = await call('POST', '/v1/social/reddit/subreddit', { subreddit: 'databases' }, paying.key);
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ code: 'platform_rate_limited', retriable: true });
      expect(limited.headers.get('retry-after')).toBe('120');
      const spent = await call('POST', '/v1/social/github/repository', { owner: 'acme', repo: 'db' }, paying.key);
      expect(spent.status).toBe(429);
      expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      reddit.quota = 'ok';
      gh.quota = 'ok';
    }
    hn.algolia = 'down';
    try {
      const down = await call('POST', '/v1/social/hackernews/item', { id: '1' }, paying.key);
      expect(down.status).toBe(502);
      expect(down.body.error.code).toBe('platform_failed');
    } finally {
      hn.algolia = 'ok';
    }
    expect(await paying.balance()).toBe(10);
  });
});
