/**
 * A local stand-in for Reddit on 127.0.0.1, as two hosts like the real one:
 * - `url` (www.reddit.com): `POST /api/v1/access_token` (HTTP Basic `id:secret`, a form with
 *   `grant_type=client_credentials`; 401 `{"message":"Unauthorized","error":401}` for wrong
 *   credentials, 200 `{"error":"unsupported_grant_type"}` for another grant, else
 *   `{access_token, token_type:"bearer", expires_in, scope:"*"}`) and the public
 *   `GET /search.json`;
 * - `oauthUrl` (oauth.reddit.com): `GET /search`, wanting `Authorization: bearer <token>` of
 *   a live token (401 otherwise).
 * Searches take `q` (every word, case-insensitive, in the title or selftext), `sort=new`, `t`,
 * `limit`, `after` (a fullname), `raw_json` (without it `&`, `<`, `>` come HTML-escaped, as
 * Reddit sends them) and answer a Listing `{kind, data:{after, before, dist, modhash,
 * children:[{kind:"t3", data}]}}` with `x-ratelimit-used/remaining/reset` headers. `quota`:
 * `ok`, `limited` (429, remaining 0), `last` (answers, saying remaining `0.0`); `publicBlocked`
 * answers the public JSON 403 like Reddit's block page; `expireTokens()` revokes every token.
 *
 * The social catalog's reads, on both hosts (the public ones ending in `.json`): a
 * subreddit's listing `/r/<name>/<sort>` (`new`, `hot`, `top`, `rising`: the fake keeps every
 * order newest first; `limit`, `after`), a post with its comments `/comments/<id>` (two
 * Listings; `t1` comments nested in `replies`, `""` for none; past `limit` comments the rest is
 * a `more` stub, as Reddit leaves them for another request) and a user `/user/<name>/about`
 * (a `t2`). An unknown subreddit, post or user is 404 `{"message":"Not Found","error":404}`.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RedditPost {
  /** Base-36 id, without `t3_`. */
  readonly id: string;
  readonly subreddit: string;
  readonly title: string;
  readonly selftext: string;
  readonly author: string;
  /** Epoch seconds. */
  readonly createdUtc: number;
  readonly over18?: boolean;
}

export interface RedditComment {
  /** Base-36 id, without `t1_`. */
  readonly id: string;
  /** The post's id (without `t3_`). */
  readonly postId: string;
  /** The comment it answers (without `t1_`); none: the post. */
  readonly parentId?: string;
  readonly author: string;
  readonly body: string;
  /** Epoch seconds. */
  readonly createdUtc: number;
}

export interface RedditUser {
  readonly id: string;
  readonly name: string;
  /** Epoch seconds. */
  readonly createdUtc: number;
  readonly linkKarma: number;
  readonly commentKarma: number;
  readonly title?: string;
  readonly about?: string;
  readonly followers?: number;
}

export interface FakeRedditExtras {
  readonly comments?: readonly RedditComment[];
  readonly users?: readonly RedditUser[];
}

export interface FakeRedditRequest {
  readonly host: 'www' | 'oauth';
  readonly method: string;
  readonly url: URL;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface FakeReddit {
  /** REDDIT_URL */
  readonly url: string;
  /** REDDIT_OAUTH_URL */
  readonly oauthUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  quota: 'ok' | 'limited' | 'last';
  publicBlocked: boolean;
  /** `expires_in` of the tokens it gives, seconds. */
  expiresInS: number;
  readonly requests: FakeRedditRequest[];
  tokenRequests(): number;
  expireTokens(): void;
  close(): Promise<void>;
}

const WINDOW_S: Readonly<Record<string, number>> = { hour: 3600, day: 86_400, week: 7 * 86_400, month: 31 * 86_400, year: 366 * 86_400 };
const escapeHtml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function linkData(p: RedditPost, raw: boolean): Record<string, unknown> {
  return {
    id: p.id,
    name: `t3_${p.id}`,
    title: raw ? p.title : escapeHtml(p.title),
    selftext: raw ? p.selftext : escapeHtml(p.selftext),
    author: p.author,
    subreddit: p.subreddit,
    subreddit_name_prefixed: `r/${p.subreddit}`,
    permalink: `/r/${p.subreddit}/comments/${p.id}/post_${p.id}/`,
    url: `https://www.reddit.com/r/${p.subreddit}/comments/${p.id}/post_${p.id}/`,
    created_utc: p.createdUtc,
    score: 1,
    ups: 1,
    num_comments: 0,
    over_18: p.over18 ?? false,
    is_self: p.selftext !== '',
    domain: `self.${p.subreddit}`,
  };
}

const listing = (children: unknown[], after: string | null = null) => ({ kind: 'Listing', data: { after, before: null, dist: children.length, modhash: '', geo_filter: '', children } });

/** A post's comment tree as Reddit nests it, at most `limit` comments; the rest one `more` stub. */
function commentTree(post: RedditPost, comments: readonly RedditComment[], limit: number, raw: boolean): unknown[] {
  let left = limit;
  let cut = 0;
  const mine = comments.filter((c) => c.postId === post.id).sort((a, b) => a.createdUtc - b.createdUtc);
  const build = (parent: string | undefined, depth: number): unknown[] => {
    const out: unknown[] = [];
    for (const c of mine.filter((m) => m.parentId === parent)) {
      if (left <= 0) {
        cut += 1;
        continue;
      }
      left -= 1;
      const replies = build(c.id, depth + 1);
      out.push({
        kind: 't1',
        data: {
          id: c.id,
          name: `t1_${c.id}`,
          parent_id: parent ? `t1_${parent}` : `t3_${post.id}`,
          link_id: `t3_${post.id}`,
          author: c.author,
          body: raw ? c.body : escapeHtml(c.body),
          created_utc: c.createdUtc,
          depth,
          score: 1,
          permalink: `/r/${post.subreddit}/comments/${post.id}/post_${post.id}/${c.id}/`,
          replies: replies.length ? listing(replies) : '',
        },
      });
    }
    return out;
  };
  const top = build(undefined, 0);
  if (cut > 0) top.push({ kind: 'more', data: { count: cut, name: 't1__', id: '_', parent_id: `t3_${post.id}`, depth: 0, children: [] } });
  return top;
}

export async function startFakeReddit(posts: readonly RedditPost[], clientId = 'app-id-0123', clientSecret = 'app-secret-s3cr3t-4567', extras: FakeRedditExtras = {}): Promise<FakeReddit> {
  const newest = [...posts].sort((a, b) => b.createdUtc - a.createdUtc);
  const live = new Set<string>();
  let issued = 0;
  const fake: FakeReddit = {
    url: '',
    oauthUrl: '',
    clientId,
    clientSecret,
    quota: 'ok',
    publicBlocked: false,
    expiresInS: 86_400,
    requests: [],
    tokenRequests: () => fake.requests.filter((r) => r.url.pathname === '/api/v1/access_token').length,
    expireTokens: () => live.clear(),
    close: () => Promise.resolve(),
  };
  type Reply = (status: number, body: unknown, headers?: Record<string, string>) => void;

  const token = (req: http.IncomingMessage, body: string, json: Reply) => {
    if (req.method !== 'POST') return json(405, { message: 'Method Not Allowed', error: 405 });
    if (req.headers.authorization !== `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`) return json(401, { message: 'Unauthorized', error: 401 });
    if (new URLSearchParams(body).get('grant_type') !== 'client_credentials') return json(200, { error: 'unsupported_grant_type' });
    const value = `tok-${++issued}`;
    live.add(value);
    json(200, { access_token: value, token_type: 'bearer', expires_in: fake.expiresInS, scope: '*' });
  };

  const search = (url: URL, json: Reply) => {
    const headers = { 'x-ratelimit-used': '1', 'x-ratelimit-reset': '120' };
    if (fake.quota === 'limited') return json(429, { message: 'Too Many Requests', error: 429 }, { ...headers, 'x-ratelimit-remaining': '0.0' });
    const words = (url.searchParams.get('q') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const windowS = WINDOW_S[url.searchParams.get('t') ?? 'all'];
    const nowS = Date.now() / 1000;
    const matching = newest.filter((p) => (windowS === undefined || p.createdUtc >= nowS - windowS) && words.every((w) => `${p.title} ${p.selftext}`.toLowerCase().includes(w)));
    const after = url.searchParams.get('after');
    const start = after ? matching.findIndex((p) => `t3_${p.id}` === after) + 1 : 0;
    const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 25));
    const page = matching.slice(start, start + limit);
    const raw = url.searchParams.get('raw_json') === '1';
    const children = page.map((p) => ({ kind: 't3', data: linkData(p, raw) }));
    const more = start + limit < matching.length && page.length > 0;
    json(200, { kind: 'Listing', data: { after: more ? `t3_${page.at(-1)?.id}` : null, before: null, dist: page.length, modhash: '', geo_filter: '', children } }, { ...headers, 'x-ratelimit-remaining': fake.quota === 'last' ? '0.0' : '598.0' });
  };

  const notFound = (json: Reply) => json(404, { message: 'Not Found', error: 404 });
  const headers = () => ({ 'x-ratelimit-used': '1', 'x-ratelimit-reset': '120', 'x-ratelimit-remaining': '598.0' });

  /** The catalog's reads at `path` (without `.json`); false when the path is none of them. */
  const read = (path: string, url: URL, json: Reply): boolean => {
    const raw = url.searchParams.get('raw_json') === '1';
    const sub = /^\/r\/([A-Za-z0-9_]+)\/(new|hot|top|rising)$/.exec(path);
    if (sub) {
      const inSub = newest.filter((p) => p.subreddit.toLowerCase() === (sub[1] as string).toLowerCase());
      if (inSub.length === 0) return (notFound(json), true);
      const after = url.searchParams.get('after');
      const start = after ? inSub.findIndex((p) => `t3_${p.id}` === after) + 1 : 0;
      const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 25));
      const page = inSub.slice(start, start + limit);
      const more = start + limit < inSub.length && page.length > 0;
      json(200, listing(page.map((p) => ({ kind: 't3', data: linkData(p, raw) })), more ? `t3_${page.at(-1)?.id}` : null), headers());
      return true;
    }
    const thread = /^\/comments\/([a-z0-9]+)$/.exec(path);
    if (thread) {
      const post = posts.find((p) => p.id === thread[1]);
      if (!post) return (notFound(json), true);
      const limit = Number(url.searchParams.get('limit') ?? 200);
      json(200, [listing([{ kind: 't3', data: linkData(post, raw) }]), listing(commentTree(post, extras.comments ?? [], limit, raw))], headers());
      return true;
    }
    const about = /^\/user\/([A-Za-z0-9_-]+)\/about$/.exec(path);
    if (about) {
      const user = (extras.users ?? []).find((u) => u.name.toLowerCase() === (about[1] as string).toLowerCase());
      if (!user) return (notFound(json), true);
      json(200, {
        kind: 't2',
        data: {
          id: user.id,
          name: user.name,
          created_utc: user.createdUtc,
          link_karma: user.linkKarma,
          comment_karma: user.commentKarma,
          total_karma: user.linkKarma + user.commentKarma,
          subreddit: { display_name_prefixed: `u/${user.name}`, title: user.title ?? '', public_description: user.about ?? '', subscribers: user.followers ?? 0 },
        },
      }, headers());
      return true;
    }
    return false;
  };

  const handler = (host: 'www' | 'oauth') => (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      fake.requests.push({ host, method: req.method ?? 'GET', url, headers: req.headers, body });
      const json: Reply = (status, payload, headers = {}) => res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(payload));
      if (host === 'www' && url.pathname === '/api/v1/access_token') return token(req, body, json);
      if (host === 'www' && url.pathname === '/search.json') {
        if (fake.publicBlocked) return res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>whoa there, pardner!</body></html>');
        return search(url, json);
      }
      if (host === 'oauth') {
        const bearer = /^bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!bearer || !live.has(bearer)) return json(401, { message: 'Unauthorized', error: 401 }, { 'www-authenticate': 'Bearer realm="reddit", error="invalid_token"' });
        if (url.pathname === '/search') return search(url, json);
        if (fake.quota === 'limited') return json(429, { message: 'Too Many Requests', error: 429 }, { ...headers(), 'x-ratelimit-remaining': '0.0' });
        if (read(url.pathname, url, json)) return;
      }
      if (host === 'www' && url.pathname.endsWith('.json')) {
        if (fake.publicBlocked) return res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>whoa there, pardner!</body></html>');
        if (fake.quota === 'limited') return json(429, { message: 'Too Many Requests', error: 429 }, { ...headers(), 'x-ratelimit-remaining': '0.0' });
        if (read(url.pathname.slice(0, -'.json'.length), url, json)) return;
      }
      json(404, { message: 'Not Found', error: 404 });
    });
  };

  const www = http.createServer(handler('www'));
  const oauth = http.createServer(handler('oauth'));
  for (const server of [www, oauth]) server.listen(0, '127.0.0.1');
  await Promise.all([once(www, 'listening'), once(oauth, 'listening')]);
  const close = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(www.address() as AddressInfo).port}`,
    oauthUrl: `http://127.0.0.1:${(oauth.address() as AddressInfo).port}`,
    close: async () => {
      await Promise.all([close(www), close(oauth)]);
    },
  });
}
