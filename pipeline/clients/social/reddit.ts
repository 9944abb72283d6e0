/**
 * Reddit posts as a source of mentions: Reddit's search, through its OAuth API when the
 * operator registered an app, else through the public JSON.
 *
 * Settings (the names are a contract with pipeline/mentions/settings.ts):
 * - `REDDIT_URL` (default `https://www.reddit.com`): the public JSON and the token endpoint;
 * - `REDDIT_OAUTH_URL` (default `https://oauth.reddit.com`): the API with a bearer token;
 * - `REDDIT_CLIENT_ID`, `REDDIT_CLIENT_SECRET`: a "script" or "web" app's id and secret.
 *
 * - **OAuth** (with the id and secret): an app-only token, `POST <REDDIT_URL>/api/v1/access_token`
 *   with `grant_type=client_credentials` and HTTP Basic `id:secret`; kept until a minute
 *   before its `expires_in` (one token request serves every search meanwhile, concurrent ones
 *   included), asked for again once when a search answers 401. Searches are
 *   `GET <REDDIT_OAUTH_URL>/search?q=<term>&sort=new&t=<window>&limit=<n>&type=link&raw_json=1
 *   &after=<fullname>` with `Authorization: bearer <token>`.
 * - **The public JSON**: `GET <REDDIT_URL>/search.json?…` with the same parameters, when no
 *   credentials are set (the connector is still configured: Reddit answers without them,
 *   throttled) or when OAuth fails as `rejected` or `unavailable` (the terms left are searched
 *   there). The answer's warning says so and its source is `reddit-public`.
 *
 * One query per term (Reddit matches all the words of a query; a watch's terms are
 * alternatives), newest first, paged by `after` (the last post's fullname) until a post is
 * older than `sinceMs`, `limit` is reached, `after` is null, or MAX_PAGES (Reddit's listings
 * end near 1,000 items). `t` is the smallest of Reddit's windows that covers `sinceMs`.
 * Requests carry service-http's descriptive User-Agent, as Reddit's API rules require.
 *
 * Rate limits: about 100 queries a minute per client id, reported in `X-Ratelimit-Remaining`
 * (a decimal: `598.0`) and `X-Ratelimit-Reset` (seconds until the window resets). A 429 is
 * `rate_limited` with that wait (never a fallback: the public JSON is throttled harder); an
 * answer whose remaining is below 1 stops the paging there, with a warning, rather than
 * spend a request on a refusal.
 *
 * A post: `name` (`t3_…`) as the id, `https://www.reddit.com<permalink>` (the public site
 * whatever the configured base), `author` (`[deleted]` is none), `title`, `selftext` as it is
 * (markdown; `raw_json=1` keeps `&`, `<`, `>` unescaped) or the title for a link post, and
 * `created_utc`. NSFW (`over_18`) posts are kept: a mention is a mention, and what a watch
 * keeps is the mentions family's choice. The secret and the token never reach a message.
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, isServiceError, postForm, serviceFetcher, ServiceError, type ServiceAnswer } from '../service-http.js';
import { newestFirst, type Collected, type CollectQuery, type Connector, type FoundPost } from './types.js';

export interface RedditOptions {
  /** REDDIT_URL: the public JSON and the token endpoint. */
  readonly url: string;
  /** REDDIT_OAUTH_URL */
  readonly oauthUrl: string;
  /** REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET; null: the public JSON only. */
  readonly credentials: { readonly clientId: string; readonly clientSecret: string } | null;
  readonly fetcher?: HttpFetcher;
  readonly now?: () => number;
}

const SERVICE = 'reddit';
const PER_PAGE = 100;
/** Reddit's listings end near 1,000 items: 10 pages of 100. */
export const MAX_PAGES = 10;
/** A token is asked for again this long before Reddit says it expires. */
const TOKEN_MARGIN_MS = 60_000;
/** Reddit's `t` windows, smallest first. */
const WINDOWS: readonly (readonly [string, number])[] = [
  ['hour', 3_600_000],
  ['day', 86_400_000],
  ['week', 7 * 86_400_000],
  ['month', 31 * 86_400_000],
  ['year', 366 * 86_400_000],
];

export const QUOTA_WARNING = 'Reddit rate limit reached: the results stop here until it resets.';

/** The smallest `t` that reaches back to `sinceMs`. */
export function timeWindow(sinceMs: number, nowMs: number): string {
  return WINDOWS.find(([, ms]) => nowMs - sinceMs <= ms)?.[0] ?? 'all';
}

interface Token {
  readonly value: string;
  readonly expiresAtMs: number;
}

/** Where a search goes: the OAuth API with a token, or the public JSON. */
type Route = 'oauth' | 'public';

export class RedditConnector implements Connector {
  readonly platform = 'reddit' as const;
  readonly notConfigured = null;
  private readonly site: URL;
  private readonly oauth: URL;
  /** `Basic <id:secret>` for the token endpoint; null: no app, the public JSON only. */
  private readonly basicAuth: string | null;
  private readonly fetcher: HttpFetcher;
  private readonly now: () => number;
  private token: Token | null = null;
  /** The token request under way, which concurrent searches share. */
  private pending: Promise<Token> | null = null;

  constructor(options: RedditOptions) {
    this.site = new URL(options.url);
    this.oauth = new URL(options.oauthUrl);
    const app = options.credentials;
    this.basicAuth = app ? `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` : null;
    this.fetcher = options.fetcher ?? serviceFetcher();
    this.now = options.now ?? Date.now;
  }

  async collect(query: CollectQuery): Promise<Collected> {
    const found: FoundPost[] = [];
    const warnings: string[] = [];
    let route: Route = this.basicAuth ? 'oauth' : 'public';
    if (!this.basicAuth) warnings.push('REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET are not set: Reddit was searched through its public JSON, which is throttled hard and may refuse.');
    for (const term of query.terms) {
      let stop: boolean;
      try {
        stop = await this.search(route, term, query, found, warnings);
      } catch (error) {
        if (route === 'public' || !fallsBack(error) || query.signal?.aborted) throw error;
        route = 'public';
        warnings.push(`Reddit's OAuth API failed (${error.message}); the public JSON was searched instead, which is throttled hard.`);
        stop = await this.search(route, term, query, found, warnings);
      }
      if (stop) break;
    }
    return { posts: newestFirst(found, query.limit), source: route === 'oauth' ? SERVICE : 'reddit-public', warnings };
  }

  /** One term's pages into `found`; true when the rate limit is spent and nothing more should be asked. */
  private async search(route: Route, term: string, query: CollectQuery, found: FoundPost[], warnings: string[]): Promise<boolean> {
    let after: string | null = null;
    let collected = 0;
    for (let page = 0; page < MAX_PAGES && collected < query.limit; page++) {
      const url = this.searchUrl(route, term, query, after);
      const answer = route === 'oauth' ? await this.withToken(url, query) : await this.get(url, {}, query);
      const data = record(record(answer.json)?.data);
      if (!data || !Array.isArray(data.children)) throw new ServiceError(SERVICE, 'unreadable', 'the search answered without a Listing');
      const posts = list(data.children).map(linkPost).filter((p): p is FoundPost => p !== null);
      const fresh = posts.filter((p) => p.publishedAtMs > query.sinceMs);
      found.push(...fresh);
      collected += fresh.length;
      if (quotaSpent(answer.headers)) {
        warnings.push(QUOTA_WARNING);
        return true;
      }
      after = text(data.after);
      // Newest first: a post older than `since` ends the term.
      if (!after || fresh.length < posts.length) break;
    }
    return false;
  }

  private searchUrl(route: Route, term: string, query: CollectQuery, after: string | null): URL {
    const url = route === 'oauth' ? below(this.oauth, '/search') : below(this.site, '/search.json');
    url.searchParams.set('q', term);
    url.searchParams.set('sort', 'new');
    url.searchParams.set('t', timeWindow(query.sinceMs, this.now()));
    url.searchParams.set('limit', String(Math.min(PER_PAGE, Math.max(1, query.limit))));
    url.searchParams.set('type', 'link');
    url.searchParams.set('raw_json', '1');
    if (after) url.searchParams.set('after', after);
    return url;
  }

  /** A GET with the token; a 401 (the token revoked or expired early) asks for a new one, once. */
  private async withToken(url: URL, query: CollectQuery): Promise<ServiceAnswer> {
    const token = await this.currentToken(query);
    try {
      return await this.get(url, { Authorization: `bearer ${token.value}` }, query);
    } catch (error) {
      if (!isServiceError(error) || error.status !== 401) throw error;
      if (this.token === token) this.token = null;
      const fresh = await this.currentToken(query);
      return this.get(url, { Authorization: `bearer ${fresh.value}` }, query);
    }
  }

  private get(url: URL, headers: Record<string, string>, query: CollectQuery): Promise<ServiceAnswer> {
    return getJson(SERVICE, { url, headers, timeoutMs: query.timeoutMs, ...(query.signal ? { signal: query.signal } : {}) }, this.fetcher);
  }

  private currentToken(query: CollectQuery): Promise<Token> {
    if (this.token && this.token.expiresAtMs > this.now()) return Promise.resolve(this.token);
    this.pending ??= this.requestToken(query)
      .then((token) => (this.token = token))
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private async requestToken(query: CollectQuery): Promise<Token> {
    const answer = await postForm(
      SERVICE,
      {
        url: below(this.site, '/api/v1/access_token'),
        headers: this.basicAuth ? { Authorization: this.basicAuth } : {},
        form: { grant_type: 'client_credentials' },
        timeoutMs: query.timeoutMs,
        ...(query.signal ? { signal: query.signal } : {}),
      },
      this.fetcher,
    );
    const body = record(answer.json);
    const value = text(body?.access_token);
    // Reddit answers a refused grant with 200 and `{"error": "…"}`.
    if (!value) {
      const refusal = text(body?.error);
      throw new ServiceError(SERVICE, refusal ? 'rejected' : 'unreadable', refusal ? `the token endpoint refused the app's credentials (${refusal})` : 'the token endpoint answered without an `access_token`', null, answer.status);
    }
    const lifetimeMs = (typeof body?.expires_in === 'number' ? body.expires_in : 3600) * 1000;
    return { value, expiresAtMs: this.now() + Math.max(lifetimeMs - TOKEN_MARGIN_MS, lifetimeMs / 2) };
  }
}

/** `X-Ratelimit-Remaining` (a decimal) below one request. */
function quotaSpent(headers: Readonly<Record<string, string>>): boolean {
  const remaining = headers['x-ratelimit-remaining']?.trim();
  return !!remaining && Number(remaining) < 1;
}

/** Failures of the OAuth path that the public JSON may not share: refused credentials, an API down. */
function fallsBack(error: unknown): error is ServiceError {
  return isServiceError(error) && (error.kind === 'rejected' || error.kind === 'unavailable');
}

/** A Listing child (`t3`) as a post; null for other kinds or when it lacks a name, permalink or time. */
export function linkPost(child: unknown): FoundPost | null {
  const c = record(child);
  const d = record(c?.data);
  const name = text(d?.name);
  const permalink = text(d?.permalink);
  if (c?.kind !== 't3' || !d || !name || !permalink?.startsWith('/') || typeof d.created_utc !== 'number') return null;
  const title = text(d.title);
  const author = text(d.author);
  return {
    platform: 'reddit',
    externalId: name,
    url: `https://www.reddit.com${permalink}`,
    author: author && author !== '[deleted]' ? author : null,
    title,
    text: text(d.selftext) ?? title ?? '',
    publishedAtMs: Math.round(d.created_utc * 1000),
    lang: null,
  };
}
