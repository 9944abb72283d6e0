/**
 * The searcher's social handler (actors/searcher/social.ts) without a bus: one
 * SocialRequested in, the Reply out, against local stand-ins of the platforms. A platform
 * without its credentials answers `platform_not_configured` naming the settings, asking
 * nothing; the platform's failures are the catalog's codes (a rate limit with its wait in
 * the Reply's data, a platform that hangs `platform_timeout` within MENTION_PLATFORM_TIMEOUT_MS);
 * an event the contract does not allow is refused; credits only when data came back.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleSocialRequested, type SocialDeps } from '../../actors/searcher/index.js';
import { BlueskyConnector } from '../../pipeline/clients/social/bluesky.js';
import { FeedsConnector } from '../../pipeline/clients/social/feeds.js';
import { GitHubConnector } from '../../pipeline/clients/social/github.js';
import { HackerNewsConnector } from '../../pipeline/clients/social/hackernews.js';
import { RedditConnector } from '../../pipeline/clients/social/reddit.js';
import { XConnector } from '../../pipeline/clients/social/x.js';
import { YouTubeConnector } from '../../pipeline/clients/social/youtube.js';
import type { PlatformClients } from '../../pipeline/mentions/connectors.js';
import { WebConnector } from '../../pipeline/mentions/web.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { ReplyValue } from '../../pipeline/runtime/request-reply.js';
import { socialRequested } from '../helpers/events.js';
import { startFakeHackerNews, type FakeHackerNews } from '../helpers/fake-hackernews.js';
import { until } from '../helpers/wait.js';

const log = createLogger('silent');
const NOW = Date.now();

function replyOf(outcome: Outcome): ReplyValue {
  if (outcome.kind !== 'ack' || !outcome.emit?.length) throw new Error(`no reply: ${JSON.stringify(outcome)}`);
  return outcome.emit[0]?.value as ReplyValue;
}

describe('searcher: social calls', () => {
  let hn: FakeHackerNews;
  let hang: net.Server;
  const sockets = new Set<net.Socket>();
  /** Connections the hanging stand-in accepted, and those the other side closed. */
  const hangSeen = { accepted: 0, closed: 0 };
  let hangUrl: string;
  let deps: SocialDeps;
  const run = (platform: string, endpoint: string, input: Record<string, unknown>, signal = new AbortController().signal, more: Partial<SocialDeps> = {}) =>
    handleSocialRequested(socialRequested(platform, endpoint, input), { ...deps, ...more }, signal);

  beforeAll(async () => {
    hn = await startFakeHackerNews([{ id: 1, type: 'story', by: 'pg', time: Math.floor(NOW / 1000) - 3600, title: 'Acme DB launches' }]);
    // Accepts connections, reads what comes and never answers; counts the connections, and
    // those the client gave up (read to their end, so the close is seen).
    hang = net.createServer((socket) => {
      sockets.add(socket);
      hangSeen.accepted++;
      socket.on('close', () => void hangSeen.closed++);
      socket.on('error', () => undefined);
      socket.resume();
    });
    hang.listen(0, '127.0.0.1');
    await once(hang, 'listening');
    hangUrl = `http://127.0.0.1:${(hang.address() as net.AddressInfo).port}`;
    const clients: PlatformClients = {
      web: new WebConnector({ providers: [] }),
      feeds: new FeedsConnector({ fetcher: new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) }) }),
      reddit: new RedditConnector({ url: hangUrl, oauthUrl: hangUrl, credentials: null }),
      hackernews: new HackerNewsConnector({ algoliaUrl: hn.algoliaUrl, firebaseUrl: hn.firebaseUrl }),
      x: new XConnector({ apiUrl: hangUrl, bearerToken: null }),
      bluesky: new BlueskyConnector({ url: hangUrl, credentials: null }),
      youtube: new YouTubeConnector({ apiUrl: hangUrl, apiKey: null }),
      github: new GitHubConnector({ apiUrl: hangUrl, token: null }),
    };
    deps = { clients, platformTimeoutMs: 5_000, log };
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all([hn?.close(), new Promise((resolve) => hang?.close(resolve))]);
  });

  it('answers an endpoint with its data, charged 1 credit; an empty answer costs nothing', async () => {
    const found = replyOf(await run('hackernews', 'search', { query: 'Acme DB' }));
    expect(found).toMatchObject({ ok: true, credits: 1, errorCode: null });
    expect(JSON.parse(found.data ?? '{}')).toMatchObject({ platform: 'hackernews', endpoint: 'search', source: 'hn-algolia', posts: [{ id: '1', title: 'Acme DB launches' }], next: null, warnings: [] });
    const empty = replyOf(await run('hackernews', 'search', { query: 'nothing at all' }));
    expect(empty).toMatchObject({ ok: true, credits: 0 });
    expect(JSON.parse(empty.data ?? '{}').posts).toEqual([]);
  });

  it('answers a platform without its credentials platform_not_configured naming the settings, asking nothing', async () => {
    for (const [platform, endpoint, input, settings] of [
      ['x', 'user', { username: 'ann' }, 'X_BEARER_TOKEN is not set'],
      ['bluesky', 'profile', { actor: 'ann.bsky.social' }, 'BLUESKY_IDENTIFIER and BLUESKY_APP_PASSWORD are not set'],
      ['youtube', 'channel', { channel: '@acme' }, 'YOUTUBE_API_KEY is not set'],
      ['github', 'repository', { owner: 'acme', repo: 'db' }, 'GITHUB_TOKEN is not set'],
      ['web', 'search', { query: 'acme' }, 'no search provider is configured'],
    ] as const) {
      const before = hangSeen.accepted;
      const reply = replyOf(await run(platform, endpoint, input));
      expect(reply, platform).toMatchObject({ ok: false, errorCode: 'platform_not_configured', errorMessage: `${platform} is not configured on this instance: ${settings}`, credits: 0 });
      // The hanging stand-in was never asked.
      expect(hangSeen.accepted, platform).toBe(before);
    }
  });

  it('answers a platform that does not answer platform_timeout within MENTION_PLATFORM_TIMEOUT_MS', async () => {
    const before = { ...hangSeen };
    const reply = replyOf(await run('reddit', 'user', { username: 'ann' }, undefined, { platformTimeoutMs: 300 }));
    // Ended by that limit (its message names it), not by the event's deadline or a default.
    expect(reply).toMatchObject({ ok: false, errorCode: 'platform_timeout', credits: 0 });
    expect(reply.errorMessage).toContain('reddit did not answer within 300 ms');
    // The platform was asked, and the call given up: every connection it opened closed by the
    // searcher, none left hanging (the wait's own bound is the guard, not a measure).
    const opened = hangSeen.accepted - before.accepted;
    expect(opened).toBeGreaterThanOrEqual(1);
    await until('the abandoned call\'s connections to close', () => hangSeen.closed - before.closed === opened, { timeoutMs: 10_000, intervalMs: 10 });
  });

  it("carries a rate limit's wait in the Reply's data, and a platform's failure as platform_failed", async () => {
    hn.algolia = 'rate_limited';
    const limited = replyOf(await run('hackernews', 'item', { id: '1' }));
    hn.algolia = 'garbled';
    const garbled = replyOf(await run('hackernews', 'item', { id: '1' }));
    hn.algolia = 'ok';
    expect(limited).toMatchObject({ ok: false, errorCode: 'platform_rate_limited', credits: 0 });
    expect(JSON.parse(limited.data ?? '{}')).toEqual({ retryAfterMs: 3_600_000 });
    expect(garbled).toMatchObject({ ok: false, errorCode: 'platform_failed', data: null });
    expect(garbled.errorMessage).toContain('could not be read');
    const missing = replyOf(await run('hackernews', 'user', { username: 'nobody' }));
    expect(missing).toMatchObject({ ok: false, errorCode: 'platform_not_found', errorMessage: 'hackernews: no user nobody' });
  });

  it('refuses an event the contract does not allow, and gives a call interrupted by the pool back', async () => {
    expect(replyOf(await run('reddit', 'wiki', {}))).toMatchObject({ ok: false, errorCode: 'social_endpoint_unknown' });
    expect(replyOf(await run('hackernews', 'recent', { list: 'worst' }))).toMatchObject({ ok: false, errorCode: 'bad_request', errorMessage: '`list` must be one of new, top, best, ask, show, job' });
    expect(replyOf(await run('hackernews', 'item', { id: 7 }))).toMatchObject({ ok: false, errorCode: 'bad_request' });
    expect(replyOf(await handleSocialRequested({ ...socialRequested('hackernews', 'item', {}), input: 'not json' }, deps, new AbortController().signal))).toMatchObject({ errorCode: 'bad_request' });
    const stop = new AbortController();
    const pending = run('reddit', 'user', { username: 'ann' }, stop.signal);
    setTimeout(() => stop.abort(), 100);
    expect(await pending).toMatchObject({ kind: 'retry' });
  });
});
