/**
 * The social catalog in the distributed shape: `main.ts --role gateway` and `searcher` on
 * librdkafka's mock Kafka, Redis and a ClickHouse server, with Hacker News and Reddit
 * stand-ins on 127.0.0.1; X, Bluesky, YouTube and GitHub left without credentials.
 *
 * - GET /v1/social says which platforms lack which settings;
 * - calls travel as SocialRequested on wds.social.requested to the searcher process and back,
 *   charged in the envelope when data came back;
 * - a platform without its credentials answers 503 `platform_not_configured` naming them,
 *   from the searcher process; an unknown endpoint, a bad body and a feed on a private address
 *   are refused by the gateway;
 *   a rate limit is 429 with Retry-After.
 * The embedded counterpart is test/e2e/social.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { startFakeHackerNews, type FakeHackerNews } from '../helpers/fake-hackernews.js';
import { startFakeReddit, type FakeReddit } from '../helpers/fake-reddit.js';
import { hasKafka } from '../helpers/kafka.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';
import { apiCaller, type Body } from '../helpers/api.js';
import { platformEnv } from '../helpers/platform-env.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A call takes well under a second, but one consumer-group rebalance of the mock stalls ~29 s. */
const WAIT = { timeoutMs: 120_000, intervalMs: 500 };
const HOUR = 3_600_000;

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/social distributed (a gateway and a searcher on Kafka)', () => {
  let cluster: Cluster;
  let base: string;
  let hn: FakeHackerNews;
  let reddit: FakeReddit;

  const call = apiCaller(() => base, '', WAIT.timeoutMs);
  const callAs = (method: string, path: string, body?: unknown) => call(method, path, body, cluster.apiKey);

  beforeAll(async () => {
    const at = (h: number) => Math.floor((Date.now() - h * HOUR) / 1000);
    [hn, reddit] = await Promise.all([
      startFakeHackerNews(
        [
          { id: 7001, type: 'story', by: 'ada', time: at(3), title: 'Zephyr Cache 2 is out', text: 'Release notes.' },
          { id: 7002, type: 'comment', by: 'bob', time: at(2), parent: 7001, text: 'Finally, eviction by size.' },
        ],
        [{ id: 'ada', created: 1_300_000_000, karma: 321, submitted: [7001] }],
      ),
      startFakeReddit([{ id: 'z1', subreddit: 'caching', title: 'Zephyr Cache tuning', selftext: 'Tips welcome', author: 'cy', createdUtc: at(1) }]),
    ]);
    cluster = await startCluster({
      main: PRODUCTION_MAIN,
      env: {
        ...platformEnv({ hn, reddit }),
      },
    });
    const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('searcher')]);
    base = gateway.url as string;
    // The first answer absorbs a consumer-group rebalance still pending after start-up.
    await until('a first social call answered', async () => (await callAs('POST', '/v1/social/hackernews/user', { username: 'ada' })).status === 200, WAIT);
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([hn?.close(), reddit?.close()]);
  }, 60_000);

  it('lists the catalog with the settings each unconfigured platform lacks', async () => {
    const res = await callAs('GET', '/v1/social');
    expect(res.status).toBe(200);
    const readiness = Object.fromEntries((res.body.data.platforms as Body[]).map((p) => [p.platform, p.missing]));
    expect(readiness).toEqual({
      web: null,
      feeds: null,
      reddit: null,
      hackernews: null,
      x: 'X_BEARER_TOKEN is not set',
      bluesky: 'BLUESKY_IDENTIFIER and BLUESKY_APP_PASSWORD are not set',
      youtube: 'YOUTUBE_API_KEY is not set',
      github: 'GITHUB_TOKEN is not set',
    });
  }, 60_000);

  it('answers calls through the searcher process, charged when data came back', async () => {
    const item = await callAs('POST', '/v1/social/hackernews/item', { id: '7001' });
    expect(item.status, JSON.stringify(item.body)).toBe(200);
    expect(item.body.data).toMatchObject({ platform: 'hackernews', endpoint: 'item', post: { id: '7001', title: 'Zephyr Cache 2 is out' }, comments: [{ id: '7002', parentId: '7001', depth: 1 }], truncated: false, cost: { credits: 1 } });
    const sub = await callAs('POST', '/v1/social/reddit/subreddit', { subreddit: 'caching', sort: 'new' });
    expect(sub.body.data).toMatchObject({ posts: [{ id: 't3_z1', title: 'Zephyr Cache tuning' }], next: null, cost: { credits: 1 } });
    const empty = await callAs('POST', '/v1/social/reddit/search', { query: 'no such words here' });
    expect(empty.body.data).toMatchObject({ posts: [], cost: { credits: 0 } });
    const searchers = cluster.processes.filter((p) => p.role === 'searcher');
    expect(searchers.some((p) => p.logLines().some((l) => l.msg === 'social answered' && l.platform === 'hackernews' && l.endpoint === 'item'))).toBe(true);
  }, 60_000);

  it('answers a platform without credentials 503 platform_not_configured naming them; refuses unknown endpoints and bad bodies at the gateway', async () => {
    for (const [path, body, settings] of [
      ['/v1/social/x/user', { username: 'ann' }, 'X_BEARER_TOKEN is not set'],
      ['/v1/social/github/repository', { owner: 'acme', repo: 'db' }, 'GITHUB_TOKEN is not set'],
      ['/v1/social/youtube/video', { id: 'vid00000001' }, 'YOUTUBE_API_KEY is not set'],
    ] as const) {
      const res = await callAs('POST', path, body);
      expect(res.status, path).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'platform_not_configured', retriable: false });
      expect(res.body.error.message).toContain(settings);
    }
    expect((await callAs('POST', '/v1/social/hackernews/frontpage', {})).body.error.code).toBe('social_endpoint_unknown');
    // Without FETCH_ALLOW_PRIVATE a feed on a private address is refused, as a page would be.
    const blocked = await callAs('POST', '/v1/social/feeds/read', { url: 'http://127.0.0.1:9/feed.xml' });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe('url_blocked');
    const bad = await callAs('POST', '/v1/social/hackernews/item', { id: 'abc' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ['body', 'id'], msg: 'must be a Hacker News item id (digits)', type: 'string_pattern_mismatch' }]);
  }, 60_000);

  it("answers a platform's rate limit 429 platform_rate_limited with Retry-After", async () => {
    reddit.quota = 'limited';
    try {
      const res = await callAs('POST', '/v1/social/reddit/user', { username: 'cyril' });
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('platform_rate_limited');
      expect(res.headers.get('retry-after')).toBe('120');
    } finally {
      reddit.quota = 'ok';
    }
  }, 60_000);
});
