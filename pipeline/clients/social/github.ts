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
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, serviceFetcher, ServiceError } from '../service-http.js';
import { newestFirst, type Collected, type CollectQuery, type Connector, type FoundPost } from './types.js';

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
  private readonly token: string | null;
  private readonly fetcher: HttpFetcher;

  constructor(options: GitHubOptions) {
    this.api = new URL(options.apiUrl);
    this.token = options.token;
    this.notConfigured = options.token ? null : 'GITHUB_TOKEN is not set';
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async collect(query: CollectQuery): Promise<Collected> {
    if (!this.token) throw new ServiceError(SERVICE, 'rejected', this.notConfigured ?? 'not configured');
    const found: FoundPost[] = [];
    const warnings: string[] = [];
    for (const term of query.terms) {
      const stop = await this.search(term, query, found, warnings);
      if (stop) break;
    }
    return { posts: newestFirst(found, query.limit), source: SERVICE, warnings };
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
          headers: { Accept: 'application/vnd.github+json', Authorization: `Bearer ${this.token}`, 'X-GitHub-Api-Version': '2022-11-28' },
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
