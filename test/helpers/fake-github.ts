/**
 * A local stand-in for GitHub's issue search on 127.0.0.1 (`GET /search/issues` with `q`,
 * `sort`, `order`, `per_page`, `page`; answering `{total_count, incomplete_results, items}`
 * and the `x-ratelimit-*` headers). It reads the quoted phrase and `created:>` of `q`, wants
 * `Authorization: Bearer <token>` (401 otherwise), and `quota` sets what the rate limit does:
 * `ok`, `spent` (403, remaining 0, a reset time), `secondary` (403 with retry-after), or
 * `last` (answers, saying remaining 0).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GhIssue {
  readonly id: number;
  readonly number: number;
  readonly repo: string;
  readonly title: string;
  readonly body: string | null;
  readonly login: string;
  /** ISO time. */
  readonly createdAt: string;
}

export interface FakeGitHub {
  readonly url: string;
  readonly token: string;
  quota: 'ok' | 'spent' | 'secondary' | 'last';
  incomplete: boolean;
  readonly requests: { url: URL; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startFakeGitHub(issues: readonly GhIssue[], token = 'ghp_test_token_0123456789'): Promise<FakeGitHub> {
  const newest = [...issues].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const fake: FakeGitHub = { url: '', token, quota: 'ok', incomplete: false, requests: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests.push({ url, headers: req.headers });
    const reset = String(Math.floor(Date.now() / 1000) + 60);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '30', 'x-ratelimit-resource': 'search', ...headers }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { message: 'Bad credentials' });
    if (url.pathname !== '/search/issues') return json(404, { message: 'Not Found' });
    if (fake.quota === 'spent') return json(403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset });
    if (fake.quota === 'secondary') return json(403, { message: 'You have exceeded a secondary rate limit' }, { 'retry-after': '30', 'x-ratelimit-remaining': '12' });
    const q = url.searchParams.get('q') ?? '';
    if (!/\bis:(issue|pr)\b/.test(q)) return json(422, { message: 'Validation Failed' });
    const phrase = (/"([^"]*)"/.exec(q)?.[1] ?? '').toLowerCase();
    const after = Date.parse(/created:>(\S+)/.exec(q)?.[1] ?? '1970-01-01T00:00:00Z');
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const matching = newest.filter((i) => Date.parse(i.createdAt) > after && `${i.title} ${i.body ?? ''}`.toLowerCase().includes(phrase));
    const items = matching.slice((page - 1) * perPage, page * perPage).map((i) => ({
      id: i.id,
      number: i.number,
      title: i.title,
      html_url: `https://github.com/${i.repo}/issues/${i.number}`,
      repository_url: `https://api.github.com/repos/${i.repo}`,
      user: { login: i.login },
      state: 'open',
      labels: [],
      comments: 0,
      created_at: i.createdAt,
      updated_at: i.createdAt,
      closed_at: null,
      body: i.body,
      score: 1,
    }));
    json(200, { total_count: matching.length, incomplete_results: fake.incomplete, items }, { 'x-ratelimit-remaining': fake.quota === 'last' ? '0' : '29', 'x-ratelimit-reset': reset });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
