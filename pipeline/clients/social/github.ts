/**
 * GitHub issues as a source of mentions: the REST search API (GITHUB_API_URL, default
 * `https://api.github.com`; a token, GITHUB_TOKEN, is required: without one the connector
 * reports itself not configured rather than spend the 10 searches a minute GitHub allows
 * anonymous callers).
 *
 * `GET /search/issues?q="<term>" in:title,body is:issue created:><since ISO>&sort=created
 * &order=desc&per_page=<n>&page=<p>` with `Accept: application/vnd.github+json`,
 * `Authorization: Bearer <token>` and `X-GitHub-Api-Version: 2022-11-28`; one query per term
 * (each quoted: a phrase), pages followed by `page` until an answer is short, `limit` is
 * reached, or GitHub's cap of 1,000 results a query. Issues only (`is:issue`: GitHub refuses
 * queries that do not say issues or pull requests; pull requests are changes, seldom talk).
 *
 * Rate limits: search allows 30 requests a minute with a token. An exhausted quota answers
 * 403 (or 429) with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` (epoch seconds), or a
 * secondary limit's `retry-after`: all are `rate_limited` with the wait. A successful answer
 * whose `x-ratelimit-remaining` is 0 stops the paging there, with a warning, instead of
 * spending a request on a refusal. `incomplete_results` (GitHub's search timed out) is
 * passed on as a warning.
 *
 * An item's post: its global `id`, `html_url`, `user.login`, `title`, `body` (markdown, kept
 * as it is) and `created_at`.
 *
 * The social catalog's reads (types.ts), with the same token and rate-limit rules (the core
 * API's 5,000 requests an hour):
 * - `repository`: `GET /repos/<owner>/<repo>` (description, stars, forks, open issues,
 *   watchers, language, topics, licence, default branch, dates, archived and fork flags);
 * - `issues`: `GET /repos/<owner>/<repo>/issues?state=&sort=created&direction=desc&per_page=
 *   &page=`, newest first; pull requests, which GitHub lists among issues (with a
 *   `pull_request` key), are left out; the next page (the cursor) when the `Link` header has a
 *   `rel="next"`;
 * - `thread`: `GET /repos/<owner>/<repo>/issues/<number>` and its comments,
 *   `GET …/issues/<number>/comments?per_page=100&page=` (oldest first, each answering the issue)
 *   until `limit` or no next page;
 * - `user`: `GET /users/<login>` (name, bio, followers, following, public repositories).
 * A 404 (an unknown or private repository, issue or user) is NotOnPlatform.
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, isServiceError, serviceFetcher, ServiceError, type ServiceAnswer } from '../service-http.js';
import { Credential, MAX_COMMENTS, newestFirst, NotOnPlatform, timeOf } from './types.js';
import type { Collected, CollectQuery, Connector, FoundComment, FoundPost, PostsPage, Profile, ReadOptions, Thread } from './types.js';

/** A repository as GitHub describes it; a field it does not give is null. */
export interface Repository {
  readonly id: number;
  /** `owner/name`. */
  readonly fullName: string;
  readonly owner: string;
  readonly name: string;
  readonly description: string | null;
  readonly url: string;
  readonly homepage: string | null;
  readonly stars: number | null;
  readonly forks: number | null;
  readonly openIssues: number | null;
  readonly watchers: number | null;
  readonly language: string | null;
  readonly topics: readonly string[];
  /** The licence's SPDX id (`MIT`), or its name when it has none. */
  readonly license: string | null;
  readonly defaultBranch: string | null;
  readonly createdAtMs: number | null;
  readonly updatedAtMs: number | null;
  readonly pushedAtMs: number | null;
  readonly archived: boolean;
  readonly fork: boolean;
}

export const ISSUE_STATES = ['open', 'closed', 'all'] as const;
export type IssueState = (typeof ISSUE_STATES)[number];
/** Comment pages a thread reads at most (100 each). */
const MAX_COMMENT_PAGES = MAX_COMMENTS / 100;

export interface GitHubOptions {
  /** GITHUB_API_URL */
  readonly apiUrl: string;
  /** GITHUB_TOKEN; null: not configured. */
  readonly token: string | null;
  readonly fetcher?: HttpFetcher;
}

const SERVICE = 'github';
const PER_PAGE = 100;
/** GitHub answers at most 1,000 results a search. */
export const MAX_RESULTS = 1000;

/** A 403 that is a spent quota, not a refusal of the token. */
const spentQuota = (status: number, headers: Readonly<Record<string, string>>) =>
  (status === 403 && (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined));

export class GitHubConnector implements Connector {
  readonly platform = 'github' as const;
  readonly notConfigured: string | null;
  private readonly api: URL;
  private readonly token: Credential<string>;
  private readonly fetcher: HttpFetcher;

  constructor(options: GitHubOptions) {
    this.api = new URL(options.apiUrl);
    this.token = new Credential(SERVICE, options.token, ['GITHUB_TOKEN']);
    this.notConfigured = this.token.notConfigured;
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async collect(query: CollectQuery): Promise<Collected> {
    this.token.get();
    const found: FoundPost[] = [];
    const warnings: string[] = [];
    for (const term of query.terms) {
      const stop = await this.search(term, query, found, warnings);
      if (stop) break;
    }
    return { posts: newestFirst(found, query.limit), source: SERVICE, warnings };
  }

  /** A repository (see the header). */
  async repository(owner: string, repo: string, options: ReadOptions): Promise<Repository> {
    const r = record((await this.call(`/repos/${seg(owner)}/${seg(repo)}`, {}, options, `no repository ${owner}/${repo}`)).json);
    const fullName = text(r?.full_name);
    if (!r || typeof r.id !== 'number' || !fullName) throw new ServiceError(SERVICE, 'unreadable', 'the repository answered without an id or a name');
    const license = record(r.license);
    const spdx = text(license?.spdx_id);
    const num = (v: unknown) => (typeof v === 'number' ? v : null);
    return {
      id: r.id,
      fullName,
      owner: text(record(r.owner)?.login) ?? owner,
      name: text(r.name) ?? repo,
      description: text(r.description),
      url: text(r.html_url) ?? `https://github.com/${fullName}`,
      homepage: text(r.homepage),
      stars: num(r.stargazers_count),
      forks: num(r.forks_count),
      openIssues: num(r.open_issues_count),
      watchers: num(r.subscribers_count) ?? num(r.watchers_count),
      language: text(r.language),
      topics: list(r.topics).filter((t): t is string => typeof t === 'string'),
      license: spdx && spdx !== 'NOASSERTION' ? spdx : text(license?.name),
      defaultBranch: text(r.default_branch),
      createdAtMs: timeOf(r.created_at),
      updatedAtMs: timeOf(r.updated_at),
      pushedAtMs: timeOf(r.pushed_at),
      archived: r.archived === true,
      fork: r.fork === true,
    };
  }

  /** A repository's newest issues, one page (`cursor`: its number, from 1) (see the header). */
  async issues(owner: string, repo: string, state: IssueState, limit: number, cursor: string | null, options: ReadOptions): Promise<PostsPage> {
    const page = Math.max(1, Number(cursor ?? '1') || 1);
    const params = { state, sort: 'created', direction: 'desc', per_page: String(Math.min(PER_PAGE, Math.max(1, limit))), page: String(page) };
    const answer = await this.call(`/repos/${seg(owner)}/${seg(repo)}/issues`, params, options, `no repository ${owner}/${repo}`);
    if (!Array.isArray(answer.json)) throw new ServiceError(SERVICE, 'unreadable', 'the issues answered without a list');
    const posts = list(answer.json)
      .filter((i) => record(i)?.pull_request === undefined)
      .map(issuePost)
      .filter((p): p is FoundPost => p !== null);
    return { posts, next: hasNext(answer) ? String(page + 1) : null, warnings: [] };
  }

  /** An issue with at most `limit` of its comments, oldest first (see the header). */
  async thread(owner: string, repo: string, number: number, limit: number, options: ReadOptions): Promise<Thread> {
    const where = `/repos/${seg(owner)}/${seg(repo)}/issues/${number}`;
    const missing = `no issue ${owner}/${repo}#${number}`;
    const post = issuePost((await this.call(where, {}, options, missing)).json);
    if (!post) throw new ServiceError(SERVICE, 'unreadable', 'the issue answered without an id, a URL or a time');
    const max = Math.min(limit, MAX_COMMENTS);
    const comments: FoundComment[] = [];
    let more = false;
    for (let page = 1; page <= MAX_COMMENT_PAGES && comments.length < max; page++) {
      const answer = await this.call(`${where}/comments`, { per_page: '100', page: String(page) }, options, missing);
      comments.push(...list(answer.json).map((c) => commentOf(c, post.externalId)).filter((c): c is FoundComment => c !== null));
      more = hasNext(answer);
      if (!more) break;
    }
    return { post, comments: comments.slice(0, max), truncated: more || comments.length > max, warnings: [] };
  }

  /** A user's (or an organisation's) profile (see the header). */
  async user(login: string, options: ReadOptions): Promise<Profile> {
    const u = record((await this.call(`/users/${seg(login)}`, {}, options, `no user ${login}`)).json);
    const name = text(u?.login);
    if (!u || typeof u.id !== 'number' || !name) throw new ServiceError(SERVICE, 'unreadable', 'the user answered without an id or a login');
    const num = (v: unknown) => (typeof v === 'number' ? v : null);
    return {
      platform: 'github',
      id: String(u.id),
      username: name,
      name: text(u.name),
      description: text(u.bio),
      url: text(u.html_url) ?? `https://github.com/${encodeURIComponent(name)}`,
      createdAtMs: timeOf(u.created_at),
      followers: num(u.followers),
      following: num(u.following),
      posts: num(u.public_repos),
      karma: null,
    };
  }

  /** One GET of the REST API with the token; a 404 is NotOnPlatform (`missing`). */
  private async call(path: string, params: Record<string, string>, options: ReadOptions, missing: string): Promise<ServiceAnswer> {
    const headers = this.headers();
    const url = below(this.api, path);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    try {
      return await getJson(SERVICE, { url, timeoutMs: options.timeoutMs, headers, rateLimited: spentQuota, ...(options.signal ? { signal: options.signal } : {}) }, this.fetcher);
    } catch (error) {
      if (isServiceError(error) && error.status === 404) throw new NotOnPlatform('github', missing);
      throw error;
    }
  }

  private headers(): Record<string, string> {
    return { Accept: 'application/vnd.github+json', Authorization: `Bearer ${this.token.get()}`, 'X-GitHub-Api-Version': '2022-11-28' };
  }

  /** One term's pages into `found`; true when the quota is spent and nothing more should be asked. */
  private async search(term: string, query: CollectQuery, found: FoundPost[], warnings: string[]): Promise<boolean> {
    const perPage = Math.min(PER_PAGE, Math.max(1, query.limit));
    const since = new Date(query.sinceMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    let collected = 0;
    for (let page = 1; (page - 1) * perPage < MAX_RESULTS && collected < query.limit; page++) {
      const url = below(this.api, '/search/issues');
      url.searchParams.set('q', `"${term.replaceAll('"', ' ')}" in:title,body is:issue created:>${since}`);
      url.searchParams.set('sort', 'created');
      url.searchParams.set('order', 'desc');
      url.searchParams.set('per_page', String(perPage));
      url.searchParams.set('page', String(page));
      const answer = await getJson(
        SERVICE,
        {
          url,
          timeoutMs: query.timeoutMs,
          headers: this.headers(),
          rateLimited: spentQuota,
          ...(query.signal ? { signal: query.signal } : {}),
        },
        this.fetcher,
      );
      const body = record(answer.json);
      if (!body || !Array.isArray(body.items)) throw new ServiceError(SERVICE, 'unreadable', 'the search answered without an `items` list');
      if (body.incomplete_results === true) warnings.push(`GitHub's search of "${term}" timed out on its side: its results may be incomplete.`);
      const posts = list(body.items).map(issuePost).filter((p): p is FoundPost => p !== null && p.publishedAtMs > query.sinceMs);
      found.push(...posts);
      collected += posts.length;
      if (answer.headers['x-ratelimit-remaining'] === '0') {
        warnings.push('GitHub search quota spent: the results stop here until it resets.');
        return true;
      }
      if (body.items.length < perPage) break;
    }
    return false;
  }
}

/** A search item as a post; null when it lacks an id, a URL or a time. */
export function issuePost(item: unknown): FoundPost | null {
  const i = record(item);
  const url = text(i?.html_url);
  const at = Date.parse(text(i?.created_at) ?? '');
  if (!i || typeof i.id !== 'number' || !url || !Number.isFinite(at)) return null;
  return {
    platform: 'github',
    externalId: String(i.id),
    url,
    author: text(record(i.user)?.login),
    title: text(i.title),
    text: typeof i.body === 'string' ? i.body.trim() : '',
    publishedAtMs: at,
    lang: null,
  };
}

/** A path segment as GitHub names it (owner, repository, login). */
const seg = (v: string) => encodeURIComponent(v);

/** The answer's `Link` header names a next page. */
const hasNext = (answer: ServiceAnswer) => (answer.headers.link ?? '').includes('rel="next"');

/** An issue comment as a comment of the thread; null without an id, a URL or a time. */
function commentOf(item: unknown, issueId: string): FoundComment | null {
  const c = record(item);
  const url = text(c?.html_url);
  const at = timeOf(c?.created_at);
  if (!c || typeof c.id !== 'number' || !url || at === null) return null;
  return {
    platform: 'github',
    externalId: String(c.id),
    url,
    author: text(record(c.user)?.login),
    title: null,
    text: typeof c.body === 'string' ? c.body.trim() : '',
    publishedAtMs: at,
    lang: null,
    parentId: issueId,
    depth: 1,
  };
}
