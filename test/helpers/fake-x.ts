/**
 * A local stand-in for X's API v2 recent search on 127.0.0.1 (`GET /2/tweets/search/recent`
 * with `query`, `start_time`, `max_results`, `next_token`, the field and expansion
 * parameters), answering `{data, includes: {users}, meta: {newest_id, oldest_id,
 * result_count, next_token}}`. It reads the quoted terms of `query` (OR), refuses a
 * `start_time` older than seven days (400, as X does), wants the bearer token (401
 * otherwise), and with `limited` answers 429 with `x-rate-limit-*` headers.
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
}

export interface FakeX {
  /** X_API_URL */
  readonly url: string;
  readonly token: string;
  limited: boolean;
  readonly requests: URL[];
  close(): Promise<void>;
}

export async function startFakeX(posts: readonly XPost[], token = 'AAAA-test-bearer-0123456789'): Promise<FakeX> {
  const newest = [...posts].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const fake: FakeX = { url: '', token, limited: false, requests: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests.push(url);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
    if (url.pathname !== '/2/tweets/search/recent') return json(404, { title: 'Not Found' });
    const reset = String(Math.floor(Date.now() / 1000) + 900);
    if (fake.limited) return json(429, { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 }, { 'x-rate-limit-limit': '450', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': reset });
    const start = Date.parse(url.searchParams.get('start_time') ?? '');
    if (Number.isFinite(start) && start < Date.now() - 7 * 24 * 3_600_000) {
      return json(400, { errors: [{ parameters: { start_time: [url.searchParams.get('start_time')] }, message: 'Invalid start_time' }], title: 'Invalid Request' });
    }
    const terms = [...(url.searchParams.get('query') ?? '').matchAll(/"([^"]+)"/g)].map((m) => (m[1] ?? '').toLowerCase());
    const per = Number(url.searchParams.get('max_results') ?? 10);
    const offset = Number(url.searchParams.get('next_token')?.replace('t', '') ?? 0);
    const matching = newest.filter((p) => (!Number.isFinite(start) || Date.parse(p.createdAt) >= start) && terms.some((t) => p.text.toLowerCase().includes(t)));
    const page = matching.slice(offset, offset + per);
    const users = [...new Map(page.map((p) => [p.authorId, { id: p.authorId, name: p.username.toUpperCase(), username: p.username }])).values()];
    json(200, {
      ...(page.length ? { data: page.map((p) => ({ id: p.id, text: p.text, author_id: p.authorId, created_at: p.createdAt, lang: p.lang, edit_history_tweet_ids: [p.id] })), includes: { users } } : {}),
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
