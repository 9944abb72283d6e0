/**
 * A local stand-in for GitHub's issue search on 127.0.0.1 (`GET /search/issues` with `q`,
 * `sort`, `order`, `per_page`, `page`; answering `{total_count, incomplete_results, items}`
 * and the `x-ratelimit-*` headers). It reads the quoted phrase and `created:>` of `q`, wants
 * `Authorization: Bearer <token>` (401 otherwise), and `quota` sets what the rate limit does:
 * `ok`, `spent` (403, remaining 0, a reset time), `secondary` (403 with retry-after), or
 * `last` (answers, saying remaining 0).
 *
 * The social catalog's reads too, with the same token and quota: `GET /repos/<owner>/<repo>`,
 * its issues `GET /repos/<owner>/<repo>/issues` (`state`, `per_page`, `page`; newest first,
 * pull requests among them as GitHub lists them; a `Link` header with `rel="next"` while
 * more remain), one issue `…/issues/<number>` and its comments `…/issues/<number>/comments`
 * (oldest first, paged the same way), and `GET /users/<login>`. Anything unknown is 404
 * `{"message":"Not Found"}`.
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
  readonly state?: 'open' | 'closed';
  /** GitHub lists pull requests among a repository's issues. */
  readonly pullRequest?: boolean;
}

export interface GhRepo {
  readonly id: number;
  readonly fullName: string;
  readonly description: string;
  readonly stars: number;
  readonly language: string;
  readonly topics: readonly string[];
  readonly license: string;
  /** ISO time. */
  readonly createdAt: string;
}

export interface GhComment {
  readonly id: number;
  /** `owner/repo#number`. */
  readonly issue: string;
  readonly login: string;
  readonly body: string;
  /** ISO time. */
  readonly createdAt: string;
}

export interface GhUser {
  readonly id: number;
  readonly login: string;
  readonly name: string;
  readonly bio: string;
  readonly followers: number;
  readonly following: number;
  readonly publicRepos: number;
  /** ISO time. */
  readonly createdAt: string;
}

export interface FakeGitHubExtras {
  readonly repos?: readonly GhRepo[];
  readonly comments?: readonly GhComment[];
  readonly users?: readonly GhUser[];
}

export interface FakeGitHub {
  readonly url: string;
  readonly token: string;
  quota: 'ok' | 'spent' | 'secondary' | 'last';
  incomplete: boolean;
  readonly requests: { url: URL; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

const issueJson = (i: GhIssue) => ({
  id: i.id,
  number: i.number,
  title: i.title,
  html_url: `https://github.com/${i.repo}/${i.pullRequest ? 'pull' : 'issues'}/${i.number}`,
  repository_url: `https://api.github.com/repos/${i.repo}`,
  user: { login: i.login },
  state: i.state ?? 'open',
  labels: [],
  comments: 0,
  created_at: i.createdAt,
  updated_at: i.createdAt,
  closed_at: null,
  body: i.body,
  ...(i.pullRequest ? { pull_request: { url: `https://api.github.com/repos/${i.repo}/pulls/${i.number}` } } : {}),
  score: 1,
});

export async function startFakeGitHub(issues: readonly GhIssue[], token = 'ghp_test_token_0123456789', extras: FakeGitHubExtras = {}): Promise<FakeGitHub> {
  const newest = [...issues].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const fake: FakeGitHub = { url: '', token, quota: 'ok', incomplete: false, requests: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests.push({ url, headers: req.headers });
    const reset = String(Math.floor(Date.now() / 1000) + 60);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '30', 'x-ratelimit-resource': 'search', ...headers }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { message: 'Bad credentials' });
    if (fake.quota === 'spent') return json(403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset });
    if (fake.quota === 'secondary') return json(403, { message: 'You have exceeded a secondary rate limit' }, { 'retry-after': '30', 'x-ratelimit-remaining': '12' });
    const notFound = () => json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    /** One page of `all` by `per_page` and `page`, with GitHub's Link header while more remain. */
    const paged = (all: readonly unknown[]) => {
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const more = page * perPage < all.length;
      const next = new URL(url.href, 'http://127.0.0.1');
      next.searchParams.set('page', String(page + 1));
      return json(200, all.slice((page - 1) * perPage, page * perPage), { 'x-ratelimit-remaining': '4999', ...(more ? { link: `<https://api.github.com${next.pathname}${next.search}>; rel="next"` } : {}) });
    };
    const repoPath = /^\/repos\/([^/]+)\/([^/]+)(?:\/issues(?:\/(\d+)(\/comments)?)?)?$/.exec(url.pathname);
    if (repoPath) {
      const fullName = `${decodeURIComponent(repoPath[1] as string)}/${decodeURIComponent(repoPath[2] as string)}`;
      const repo = (extras.repos ?? []).find((r) => r.fullName.toLowerCase() === fullName.toLowerCase());
      if (!repo) return notFound();
      const mine = newest.filter((i) => i.repo === repo.fullName);
      if (!url.pathname.includes('/issues')) {
        const [owner, name] = repo.fullName.split('/');
        return json(200, {
          id: repo.id,
          name,
          full_name: repo.fullName,
          owner: { login: owner, type: 'Organization' },
          html_url: `https://github.com/${repo.fullName}`,
          description: repo.description,
          homepage: '',
          fork: false,
          created_at: repo.createdAt,
          updated_at: repo.createdAt,
          pushed_at: repo.createdAt,
          stargazers_count: repo.stars,
          watchers_count: repo.stars,
          subscribers_count: 7,
          forks_count: 3,
          open_issues_count: mine.filter((i) => (i.state ?? 'open') === 'open').length,
          language: repo.language,
          topics: repo.topics,
          license: { key: repo.license.toLowerCase(), name: `${repo.license} License`, spdx_id: repo.license },
          default_branch: 'main',
          archived: false,
        }, { 'x-ratelimit-remaining': '4999' });
      }
      if (repoPath[3] === undefined) {
        const state = url.searchParams.get('state') ?? 'open';
        return paged(mine.filter((i) => state === 'all' || (i.state ?? 'open') === state).map(issueJson));
      }
      const issue = mine.find((i) => i.number === Number(repoPath[3]));
      if (!issue) return notFound();
      if (!repoPath[4]) return json(200, issueJson(issue), { 'x-ratelimit-remaining': '4999' });
      const comments = (extras.comments ?? [])
        .filter((c) => c.issue === `${repo.fullName}#${issue.number}`)
        .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
        .map((c) => ({ id: c.id, html_url: `https://github.com/${repo.fullName}/issues/${issue.number}#issuecomment-${c.id}`, user: { login: c.login }, body: c.body, created_at: c.createdAt, updated_at: c.createdAt }));
      return paged(comments);
    }
    const userPath = /^\/users\/([^/]+)$/.exec(url.pathname);
    if (userPath) {
      const u = (extras.users ?? []).find((x) => x.login.toLowerCase() === decodeURIComponent(userPath[1] as string).toLowerCase());
      if (!u) return notFound();
      return json(200, { login: u.login, id: u.id, html_url: `https://github.com/${u.login}`, type: 'User', name: u.name, bio: u.bio, followers: u.followers, following: u.following, public_repos: u.publicRepos, created_at: u.createdAt, updated_at: u.createdAt }, { 'x-ratelimit-remaining': '4999' });
    }
    if (url.pathname !== '/search/issues') return notFound();
    const q = url.searchParams.get('q') ?? '';
    if (!/\bis:(issue|pr)\b/.test(q)) return json(422, { message: 'Validation Failed' });
    const phrase = (/"([^"]*)"/.exec(q)?.[1] ?? '').toLowerCase();
    const after = Date.parse(/created:>(\S+)/.exec(q)?.[1] ?? '1970-01-01T00:00:00Z');
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const matching = newest.filter((i) => Date.parse(i.createdAt) > after && !(i.pullRequest && /\bis:issue\b/.test(q)) && `${i.title} ${i.body ?? ''}`.toLowerCase().includes(phrase));
    const items = matching.slice((page - 1) * perPage, page * perPage).map(issueJson);
    json(200, { total_count: matching.length, incomplete_results: fake.incomplete, items }, { 'x-ratelimit-remaining': fake.quota === 'last' ? '0' : '29', 'x-ratelimit-reset': reset });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
