/**
 * Mention watches end to end in embedded mode, through the production actors (gateway → the
 * frontier's watch schedule → WatchCollectRequested → searcher (connectors) → MentionsFound →
 * classifier → store → MentionsStored → notifier → receiver), against local stand-ins of
 * every platform speaking its real API, pointed at by the settings docs/configuration.md documents
 * (HACKERNEWS_URL, GITHUB_API_URL, X_API_URL, REDDIT_URL, REDDIT_OAUTH_URL, BLUESKY_URL, …),
 * a feed served on 127.0.0.1, and a webhook receiver that checks every signature. YouTube is
 * left without a key: it must be reported as not configured, never silently empty.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MENTION_CATEGORIES } from '../../schemas/api/monitoring.js';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import { apiKeyWebhookSecret, meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFakeBluesky, type FakeBluesky } from '../helpers/fake-bluesky.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { startFakeHackerNews, type FakeHackerNews } from '../helpers/fake-hackernews.js';
import { startFakeReddit, type FakeReddit } from '../helpers/fake-reddit.js';
import { startFakeX, type FakeX } from '../helpers/fake-x.js';
import { startHookReceiver, type HookReceiver } from '../helpers/monitor-site.js';
import { until } from '../helpers/wait.js';
import { apiCaller, type ApiAnswer, type Body } from '../helpers/api.js';
import { platformEnv } from '../helpers/platform-env.js';

const API_KEY = 'e2e-mentions-key-0123456789';
const WAIT = { timeoutMs: 45_000, intervalMs: 150 };
const HOUR = 3_600_000;

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** A feed whose items the test changes between collections. */
async function startFeed(): Promise<{ url: string; items: { id: string; title: string; text: string; at: string }[]; close(): Promise<void> }> {
  const items: { id: string; title: string; text: string; at: string }[] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/acme.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html><head><title>Acme DB review</title></head><body><main><h1>Acme DB review</h1><p>We ran Acme DB for a month: fast ingest, a clear admin console, and a few rough edges in backups.</p></main></body></html>');
      return;
    }
    const entries = items
      .map((i) => `<item><guid>urn:e2e:${i.id}</guid><title>${i.title}</title><link>https://blog.example/${i.id}</link><description>${i.text}</description><pubDate>${new Date(i.at).toUTCString()}</pubDate></item>`)
      .join('');
    res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>https://blog.example/</link>${entries}</channel></rss>`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`, items, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('e2e/mentions (embedded)', () => {
  let svc: Embedded;
  let hn: FakeHackerNews;
  let gh: FakeGitHub;
  let x: FakeX;
  let reddit: FakeReddit;
  let bsky: FakeBluesky;
  let feed: Awaited<ReturnType<typeof startFeed>>;
  let hooks: HookReceiver;

  const call = apiCaller(() => svc.base, API_KEY);

  const watchFields = () => ({
    name: 'Acme DB',
    keywords: ['Acme DB'],
    excludeKeywords: ['hiring'],
    competitors: ['Postgres'],
    platforms: ['hackernews', 'github', 'x', 'reddit', 'bluesky', 'youtube', 'feeds', 'web'],
    feeds: [feed.url],
    intervalMinutes: 60,
  });

  const collected = (id: string, after: string | null = null, key = API_KEY) =>
    until('a finished collection', async () => {
      const w = (await call('GET', `/v1/mentions/watches/${id}`, undefined, key)).body.data;
      const last = w?.lastCollection;
      return last && last.id !== after && w.currentCollectionId === null ? w : null;
    }, WAIT);

  beforeAll(async () => {
    [hn, gh, x, reddit, bsky, feed, hooks] = await Promise.all([
      startFakeHackerNews([
        { id: 9001, type: 'story', by: 'ada', time: Math.floor((Date.now() - 2 * HOUR) / 1000), title: 'Acme DB 2.0 crashes when importing a large CSV file', text: 'The import fails with an error every time.' },
        { id: 9002, type: 'comment', by: 'bob', time: Math.floor((Date.now() - 3 * HOUR) / 1000), text: 'Is there a way to run Acme DB on ARM servers?' },
      ]),
      startFakeGitHub([{ id: 501, number: 12, repo: 'acme/db', title: 'Segfault on startup', body: 'After upgrading, Acme DB crashes with a segfault on startup.', login: 'carol', createdAt: ago(4 * HOUR) }]),
      startFakeX([
        { id: '1800000000000000001', authorId: '11', username: 'dave', text: 'We switched from Postgres to Acme DB and our queries are three times faster', createdAt: ago(5 * HOUR), lang: 'en' },
        { id: '1800000000000000002', authorId: '12', username: 'erin', text: 'Acme DB is hiring engineers in Berlin', createdAt: ago(5 * HOUR), lang: 'en' },
      ]),
      startFakeReddit([{ id: 'abc1', subreddit: 'databases', title: 'Looking to buy Acme DB licenses for our team', selftext: 'Any discounts for startups on Acme DB?', author: 'frank', createdUtc: Math.floor((Date.now() - 6 * HOUR) / 1000) }]),
      startFakeBluesky([{ did: 'did:plc:g', handle: 'gina.bsky.social', rkey: '3kabc', text: 'Really love Acme DB, the docs are great!', createdAt: ago(7 * HOUR), langs: ['en'] }]),
      startFeed(),
      startHookReceiver(),
    ]);
    feed.items.push({ id: 'post-1', title: 'Acme DB 3.0 released', text: 'The Acme DB team shipped version 3.0 today.', at: ago(8 * HOUR) });
    svc = await startEmbedded({
      apiKey: API_KEY,
      env: {
        FETCH_ALLOW_PRIVATE: 'true',
        SEARCH_PROVIDERS: 'local',
        ...platformEnv({ hn, gh, x, reddit, bsky }),
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_RETRY_MAX_MS: '100',
        WEBHOOK_ATTEMPTS: '2',
      },
    });
    // A page this instance has read: the `web` platform finds it in the local index.
    const scraped = await call('POST', '/v1/scrape', { url: feed.url.replace('/feed.xml', '/acme.html') });
    expect(scraped.status).toBe(200);
    hooks.secret = await apiKeyWebhookSecret(svc);
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await Promise.all([hn?.close(), gh?.close(), x?.close(), reddit?.close(), bsky?.close(), feed?.close(), hooks?.close()]);
  });

  it('collects at once from every platform, sorts and stores each mention once, and calls the signed webhook', async () => {
    const created = await call('POST', '/v1/mentions/watches', { ...watchFields(), webhook: `${hooks.origin}/mentions` });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const watch = created.body.data;
    expect(watch.id).toMatch(/^wat_/);
    expect(watch).toMatchObject({ name: 'Acme DB', keywords: ['Acme DB'], competitors: ['Postgres'], intervalMinutes: 60, webhook: `${hooks.origin}/mentions`, lastCollection: null });
    expect(watch.platformStatus.youtube).toEqual({ configured: false, reason: 'YOUTUBE_API_KEY is not set' });
    expect(watch.platformStatus.github).toEqual({ configured: true });

    const done = await collected(watch.id);
    const last = done.lastCollection;
    expect(last.status).toBe('completed');
    expect(last.creditsUsed).toBe(1);
    expect(last.platforms.youtube).toMatchObject({ status: 'not_configured', error: { code: 'not_configured' } });
    for (const p of ['hackernews', 'github', 'x', 'reddit', 'bluesky', 'feeds', 'web']) expect(last.platforms[p]?.status, p).toBe('ok');
    expect(last.platforms.web.source).toBe('local');
    expect(last.found).toBe(8);

    const list = await call('GET', `/v1/mentions?watch_id=${watch.id}&limit=100`);
    expect(list.status).toBe(200);
    const mentions = list.body.data.mentions as Body[];
    expect(mentions).toHaveLength(8);
    expect(new Set(mentions.map((m) => m.id)).size).toBe(8);
    // The post with an excluded keyword is dropped.
    expect(mentions.some((m) => String(m.text).includes('hiring'))).toBe(false);
    expect(new Set(mentions.map((m) => m.platform))).toEqual(new Set(['hackernews', 'github', 'x', 'reddit', 'bluesky', 'feeds', 'web']));
    expect(mentions.find((m) => m.platform === 'web')).toMatchObject({ title: 'Acme DB review', url: feed.url.replace('/feed.xml', '/acme.html') });
    for (const m of mentions) {
      expect(MENTION_CATEGORIES).toContain(m.category);
      expect(m.classifier).toBe('linear-v4');
      expect(m.score).toBeGreaterThan(0);
      expect(m.score).toBeLessThanOrEqual(1);
      expect(m).toMatchObject({ status: 'new', watchId: watch.id, collectionId: last.id, matchedKeywords: ['Acme DB'] });
    }
    expect(mentions.find((m) => m.platform === 'bluesky')).toMatchObject({ url: 'https://bsky.app/profile/gina.bsky.social/post/3kabc', author: 'gina.bsky.social' });
    expect(mentions.find((m) => m.platform === 'x' )?.url).toMatch(/^https:\/\/x\.com\/dave\/status\//);
    // Sorting is real: the posts are not all put in one category.
    expect(new Set(mentions.map((m) => m.category)).size).toBeGreaterThan(1);

    const hook = await until('the webhook delivery', () => hooks.received.find((h) => h.body.type === 'mentions.found' && h.body.watch?.id === watch.id), WAIT);
    expect(hook.signed).toBe(true);
    expect(hook.body.collection.id).toBe(last.id);
    expect((hook.body.mentions as Body[]).map((m) => m.id).sort()).toEqual(mentions.map((m) => m.id).sort());
  });

  it('filters, pages newest first, sets statuses with history, and collects only what is new', async () => {
    const watch = ((await call('GET', '/v1/mentions/watches')).body.data.watches as Body[])[0] as Body;
    const onlyGithub = (await call('GET', '/v1/mentions?platform=github')).body.data.mentions as Body[];
    expect(onlyGithub.map((m) => m.platform)).toEqual(['github']);
    const all = (await call('GET', '/v1/mentions?limit=100')).body.data.mentions as Body[];
    const category = all[0]?.category as string;
    const byCategory = (await call('GET', `/v1/mentions?category=${category}`)).body.data.mentions as Body[];
    expect(byCategory.length).toBe(all.filter((m) => m.category === category).length);
    expect((await call('GET', `/v1/mentions?since=${encodeURIComponent(new Date(Date.now() + HOUR).toISOString())}`)).body.data.mentions).toEqual([]);

    // Cursor paging: three pages of 3, 3, 2, each mention once, newest found first.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiAnswer = await call('GET', `/v1/mentions?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body.data.mentions as Body[]).map((m) => m.id));
      cursor = page.body.data.next;
    } while (cursor);
    expect(seen).toEqual(all.map((m) => m.id));
    expect((await call('GET', '/v1/mentions?cursor=not-a-cursor')).status).toBe(400);

    const target = all.find((m) => m.platform === 'hackernews') as Body;
    expect((await call('PATCH', `/v1/mentions/${target.id}`, { status: 'seen' })).status).toBe(200);
    const patched = await call('PATCH', `/v1/mentions/${target.id}`, { status: 'done' });
    expect(patched.body.data.status).toBe('done');
    expect(patched.body.data.statusHistory.map((h: Body) => [h.from, h.to])).toEqual([['new', 'seen'], ['seen', 'done']]);
    expect((await call('PATCH', `/v1/mentions/${target.id}`, { status: 'archived' })).status).toBe(422);
    expect((await call('GET', '/v1/mentions?status=done')).body.data.mentions.map((m: Body) => m.id)).toEqual([target.id]);

    // A new feed item, then a change of keywords collects at once: only the new post is stored; statuses stay.
    feed.items.push({ id: 'post-2', title: 'Acme DB benchmarks', text: 'We measured Acme DB against the rest.', at: ago(10 * 60_000) });
    const before = watch.lastCollection.id;
    const updated = await call('PATCH', `/v1/mentions/watches/${watch.id}`, { keywords: ['Acme DB', 'AcmeDB'] });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ keywords: ['Acme DB', 'AcmeDB'], competitors: ['Postgres'], excludeKeywords: ['hiring'], intervalMinutes: 60 });
    const again = await collected(watch.id, before);
    expect(again.lastCollection).toMatchObject({ status: 'completed', found: 1 });
    const after = (await call('GET', `/v1/mentions?watch_id=${watch.id}&limit=100`)).body.data.mentions as Body[];
    expect(after).toHaveLength(9);
    expect(after[0]?.title).toBe('Acme DB benchmarks');
    expect(after.find((m) => m.id === target.id)?.status).toBe('done');
    // The new post's webhook goes out after the collection is recorded; wait for it so none is in flight later.
    const hook = await until('the second webhook delivery', () => hooks.received.find((h) => h.body.collection?.id === again.lastCollection.id), WAIT);
    expect((hook.body.mentions as Body[]).map((m) => m.title)).toEqual(['Acme DB benchmarks']);
  });

  it('tests watch fields now without storing, sending or charging twice, and names each platform\'s error', async () => {
    const metered = await meteredKey(svc.dataDir, 5);
    const countBefore = ((await call('GET', '/v1/mentions?limit=100')).body.data.mentions as Body[]).length;
    const hooksBefore = hooks.received.length;
    gh.quota = 'spent';
    try {
      const test = await call('POST', '/v1/mentions/test', { ...watchFields(), webhook: `${hooks.origin}/mentions` }, metered.key);
      expect(test.status, JSON.stringify(test.body)).toBe(200);
      const data = test.body.data;
      expect(data.watchId).toBeNull();
      expect(data.platforms.github).toMatchObject({ status: 'error', error: { code: 'provider_rate_limited' } });
      expect(data.platforms.github.error.retryAfterMs).toBeGreaterThan(0);
      expect(data.platforms.youtube).toMatchObject({ status: 'not_configured' });
      expect(data.platforms.bluesky.status).toBe('ok');
      expect(data.platforms.bluesky.mentions[0]).toMatchObject({ url: 'https://bsky.app/profile/gina.bsky.social/post/3kabc', classifier: 'linear-v4' });
      expect(MENTION_CATEGORIES).toContain(data.platforms.bluesky.mentions[0].category);
      expect(data.found).toBeGreaterThanOrEqual(7);
      expect(data.cost.credits).toBe(1);
      expect(await metered.balance()).toBe(4);
    } finally {
      gh.quota = 'ok';
    }
    const watch = ((await call('GET', '/v1/mentions/watches')).body.data.watches as Body[])[0] as Body;
    const saved = await call('POST', `/v1/mentions/watches/${watch.id}/test`, undefined);
    expect(saved.status).toBe(200);
    expect(saved.body.data.watchId).toBe(watch.id);
    expect(saved.body.data.platforms.feeds.mentions.length).toBe(2);
    // Nothing stored, nothing sent.
    expect(((await call('GET', '/v1/mentions?limit=100')).body.data.mentions as Body[]).length).toBe(countBefore);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received.length).toBe(hooksBefore);
  });

  it('keeps each key to its own watches and mentions, and refuses bad bodies with 422', async () => {
    const watch = ((await call('GET', '/v1/mentions/watches')).body.data.watches as Body[])[0] as Body;
    const mention = ((await call('GET', '/v1/mentions')).body.data.mentions as Body[])[0] as Body;
    const keys = new FileKeyRegistry(svc.dataDir);
    const other = await keys.create({ name: 'stranger', credits: 10 }).finally(() => keys.close());
    expect((await call('GET', `/v1/mentions/watches/${watch.id}`, undefined, other.key)).status).toBe(404);
    expect((await call('PATCH', `/v1/mentions/watches/${watch.id}`, { name: 'mine' }, other.key)).status).toBe(404);
    expect((await call('DELETE', `/v1/mentions/watches/${watch.id}`, undefined, other.key)).status).toBe(404);
    expect((await call('POST', `/v1/mentions/watches/${watch.id}/test`, undefined, other.key)).status).toBe(404);
    expect((await call('PATCH', `/v1/mentions/${mention.id}`, { status: 'seen' }, other.key)).status).toBe(404);
    expect((await call('GET', '/v1/mentions', undefined, other.key)).body.data.mentions).toEqual([]);
    expect((await call('GET', '/v1/mentions/watches', undefined, other.key)).body.data.watches).toEqual([]);

    for (const bad of [
      { name: 'x', keywords: [] },
      { name: 'x', keywords: ['a'], platforms: ['myspace'] },
      { name: 'x', keywords: ['a'], intervalMinutes: 1 },
      { name: 'x', keywords: ['a'], feeds: ['not a url'] },
      { keywords: ['a'] },
    ]) {
      const res = await call('POST', '/v1/mentions/watches', bad);
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(Array.isArray(res.body.detail)).toBe(true);
    }
    expect((await call('PATCH', `/v1/mentions/watches/${watch.id}`, {})).status).toBe(422);
    expect((await call('GET', '/v1/mentions?limit=500')).status).toBe(422);
    expect((await call('GET', '/v1/mentions?category=rant')).status).toBe(422);
  });

  it('skips a collection the key cannot pay for, charges nothing for one no platform answered, and forgets a deleted watch but keeps its mentions', async () => {
    const broke = await meteredKey(svc.dataDir, 0);
    const created = await call('POST', '/v1/mentions/watches', { ...watchFields(), name: 'broke' }, broke.key);
    expect(created.status).toBe(200);
    const done = await collected(created.body.data.id, null, broke.key);
    expect(done.lastCollection).toMatchObject({ status: 'skipped_no_credits', creditsUsed: 0 });
    expect((await call('GET', '/v1/mentions', undefined, broke.key)).body.data.mentions).toEqual([]);
    expect((await call('POST', '/v1/mentions/test', { ...watchFields(), name: 'broke' }, broke.key)).status).toBe(402);

    // A collection in which no platform answered is failed, with the reasons, and costs nothing.
    const paying = await meteredKey(svc.dataDir, 3);
    gh.quota = 'spent';
    try {
      const only = await call('POST', '/v1/mentions/watches', { name: 'github only', keywords: ['Acme DB'], platforms: ['github', 'youtube'] }, paying.key);
      const failed = await collected(only.body.data.id, null, paying.key);
      expect(failed.lastCollection).toMatchObject({ status: 'failed', creditsUsed: 0, found: 0 });
      expect(failed.lastCollection.reason).toContain('github');
      expect(failed.lastCollection.platforms.github.error.code).toBe('provider_rate_limited');
      expect(await paying.balance()).toBe(3);
      const tested = await call('POST', '/v1/mentions/test', { name: 'github only', keywords: ['Acme DB'], platforms: ['github', 'youtube'] }, paying.key);
      expect(tested.status).toBe(200);
      expect(tested.body.data.cost.credits).toBe(0);
      expect(await paying.balance()).toBe(3);
    } finally {
      gh.quota = 'ok';
    }

    const watch = ((await call('GET', '/v1/mentions/watches')).body.data.watches as Body[])[0] as Body;
    expect((await call('DELETE', `/v1/mentions/watches/${watch.id}`)).body.data).toMatchObject({ id: watch.id, deleted: true });
    expect((await call('GET', `/v1/mentions/watches/${watch.id}`)).status).toBe(404);
    expect(((await call('GET', `/v1/mentions?watch_id=${watch.id}`)).body.data.mentions as Body[]).length).toBeGreaterThan(0);
  });
});
