/**
 * A local stand-in for X's API v2 recent search on 127.0.0.1 (`GET /2/tweets/search/recent`
 * with `query`, `start_time`, `max_results`, `next_token`, the field and expansion
 * parameters), answering `{data, includes: {users}, meta: {newest_id, oldest_id,
 * result_count, next_token}}`. It reads the quoted terms of `query` (OR), refuses a
 * `start_time` older than seven days (400, as X does), wants the bearer token (401
 * otherwise), and with `limited` answers 429 with `x-rate-limit-*` headers.
 *
 * The social catalog's reads too: `GET /2/users/by/username/<username>`, `GET
 * /2/users/<id>/tweets` (`max_results` 5–100, else 400; `pagination_token`), `GET
 * /2/tweets/<id>` (with `conversation_id`), and recent search of `conversation_id:<id>` (each
 * reply with `referenced_tweets` `replied_to`). An unknown user or post is X's 200 with
 * `errors` (`Not Found Error`) and no `data`.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface XPost {
  readonly id: string;
  readonly authorId: string;
  readonly username: string;
  readonly text: string;
  /** ISO time. */
  readonly createdAt: string;
  readonly lang: string;
  /** The conversation it belongs to (its own id when it starts one). */
  readonly conversationId?: string;
  /** The post it replies to. */
  readonly replyTo?: string;
}

export interface XUser {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly description: string;
  /** ISO time. */
  readonly createdAt: string;
  readonly followers: number;
  readonly following: number;
  readonly tweets: number;
}

export interface FakeX {
  /** X_API_URL */
  readonly url: string;
  readonly token: string;
  limited: boolean;
  readonly requests: URL[];
  close(): Promise<void>;
}

const notFound = (type: 'user' | 'tweet', parameter: string, value: string) => ({
  errors: [{ value, detail: `Could not find ${type} with ${parameter}: [${value}].`, title: 'Not Found Error', resource_type: type, parameter, resource_id: value, type: 'https://api.twitter.com/2/problems/resource-not-found' }],
});

const tweetOf = (p: XPost) => ({
  id: p.id,
  text: p.text,
  author_id: p.authorId,
  created_at: p.createdAt,
  lang: p.lang,
  conversation_id: p.conversationId ?? p.id,
  edit_history_tweet_ids: [p.id],
  ...(p.replyTo ? { referenced_tweets: [{ type: 'replied_to', id: p.replyTo }] } : {}),
});

const usersOf = (page: readonly XPost[]) => [...new Map(page.map((p) => [p.authorId, { id: p.authorId, name: p.username.toUpperCase(), username: p.username }])).values()];

export async function startFakeX(posts: readonly XPost[], token = 'AAAA-test-bearer-0123456789', accounts: readonly XUser[] = []): Promise<FakeX> {
  const newest = [...posts].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const fake: FakeX = { url: '', token, limited: false, requests: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests.push(url);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
    const reset = String(Math.floor(Date.now() / 1000) + 900);
    if (fake.limited) return json(429, { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 }, { 'x-rate-limit-limit': '450', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': reset });
    const limits = { 'x-rate-limit-limit': '900', 'x-rate-limit-remaining': '899', 'x-rate-limit-reset': reset };
    const byName = /^\/2\/users\/by\/username\/([A-Za-z0-9_]+)$/.exec(url.pathname);
    if (byName) {
      const u = accounts.find((a) => a.username.toLowerCase() === (byName[1] as string).toLowerCase());
      if (!u) return json(200, notFound('user', 'username', byName[1] as string), limits);
      return json(200, { data: { id: u.id, name: u.name, username: u.username, created_at: u.createdAt, description: u.description, public_metrics: { followers_count: u.followers, following_count: u.following, tweet_count: u.tweets, listed_count: 0, like_count: 0 } } }, limits);
    }
    const timeline = /^\/2\/users\/(\d+)\/tweets$/.exec(url.pathname);
    if (timeline) {
      const max = Number(url.searchParams.get('max_results') ?? 10);
      if (!Number.isInteger(max) || max < 5 || max > 100) return json(400, { errors: [{ parameters: { max_results: [String(max)] }, message: 'The `max_results` query parameter value is not between 5 and 100' }], title: 'Invalid Request' });
      const offset = Number(url.searchParams.get('pagination_token')?.replace('p', '') ?? 0);
      const mine = newest.filter((p) => p.authorId === timeline[1]);
      const page = mine.slice(offset, offset + max);
      return json(200, {
        ...(page.length ? { data: page.map(tweetOf) } : {}),
        meta: { result_count: page.length, ...(offset + max < mine.length ? { next_token: `p${offset + max}` } : {}) },
      }, limits);
    }
    const one = /^\/2\/tweets\/(\d+)$/.exec(url.pathname);
    if (one) {
      const p = posts.find((t) => t.id === one[1]);
      if (!p) return json(200, notFound('tweet', 'id', one[1] as string), limits);
      return json(200, { data: tweetOf(p), includes: { users: usersOf([p]) } }, limits);
    }
    if (url.pathname !== '/2/tweets/search/recent') return json(404, { title: 'Not Found' });
    const start = Date.parse(url.searchParams.get('start_time') ?? '');
    if (Number.isFinite(start) && start < Date.now() - 7 * 24 * 3_600_000) {
      return json(400, { errors: [{ parameters: { start_time: [url.searchParams.get('start_time')] }, message: 'Invalid start_time' }], title: 'Invalid Request' });
    }
    const terms = [...(url.searchParams.get('query') ?? '').matchAll(/"([^"]+)"/g)].map((m) => (m[1] ?? '').toLowerCase());
    const per = Number(url.searchParams.get('max_results') ?? 10);
    const offset = Number(url.searchParams.get('next_token')?.replace('t', '') ?? 0);
    const conversation = /conversation_id:(\d+)/.exec(url.searchParams.get('query') ?? '')?.[1];
    const wanted = (p: XPost) => (conversation ? (p.conversationId ?? p.id) === conversation : terms.some((t) => p.text.toLowerCase().includes(t)));
    const matching = newest.filter((p) => (!Number.isFinite(start) || Date.parse(p.createdAt) >= start) && wanted(p));
    const page = matching.slice(offset, offset + per);
    json(200, {
      ...(page.length ? { data: page.map(tweetOf), includes: { users: usersOf(page) } } : {}),
      meta: { result_count: page.length, ...(page.length ? { newest_id: page[0]?.id, oldest_id: page.at(-1)?.id } : {}), ...(offset + per < matching.length ? { next_token: `t${offset + per}` } : {}) },
    }, { 'x-rate-limit-limit': '450', 'x-rate-limit-remaining': '449', 'x-rate-limit-reset': reset });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
