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
 *
 * The social catalog's reads (types.ts) take the same route (OAuth, else or on its failure the
 * public JSON, whose path ends in `.json`), with `raw_json=1`:
 * - `subreddit`: `GET /r/<name>/<sort>?limit=&after=&t=` (sort `new`, `hot`, `top`, `rising`;
 *   `t` for `top`), a Listing of posts; its `after` is the next page's cursor.
 * - `thread`: `GET /comments/<id>?limit=&sort=`, two Listings: the post, and its comments
 *   (`t1`, each with its `replies` Listing, or `""` when it has none), walked without recursion
 *   in the thread's order; a `more` stub (comments Reddit leaves for another request) makes the
 *   thread `truncated`.
 * - `user`: `GET /user/<name>/about` (a `t2`: `name`, `created_utc`, `total_karma`, its profile
 *   subreddit's `title`, `public_description` and `subscribers`).
 * A 404 (an unknown or banned subreddit, user or post) is NotOnPlatform.
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, isServiceError, postForm, serviceFetcher, ServiceError, type ServiceAnswer } from '../service-http.js';
import { MAX_COMMENTS, newestFirst, NotOnPlatform } from './types.js';
import type { Collected, CollectQuery, Connector, FoundComment, FoundPost, PostsPage, Profile, ReadOptions, Thread } from './types.js';

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

/** The orders of a subreddit's listing. */
export const SUBREDDIT_SORTS = ['new', 'hot', 'top', 'rising'] as const;
export type SubredditSort = (typeof SUBREDDIT_SORTS)[number];
export const TOP_WINDOWS = ['hour', 'day', 'week', 'month', 'year', 'all'] as const;
export type TopWindow = (typeof TOP_WINDOWS)[number];

const PUBLIC_WARNING = 'REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET are not set: Reddit was read through its public JSON, which is throttled hard and may refuse.';

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
    if (!this.basicAuth) warnings.push(PUBLIC_WARNING);
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

  /** A subreddit's posts in `sort` order, one page from `after` (see the header). */
  async subreddit(name: string, sort: SubredditSort, window: TopWindow | null, limit: number, after: string | null, options: ReadOptions): Promise<PostsPage> {
    const params: Record<string, string> = { limit: String(Math.min(PER_PAGE, Math.max(1, limit))) };
    if (after) params.after = after;
    if (sort === 'top' && window) params.t = window;
    const { answer, warnings } = await this.read(`/r/${encodeURIComponent(name)}/${sort}`, params, options, `no subreddit r/${name}`);
    const data = record(record(answer.json)?.data);
    if (!data || !Array.isArray(data.children)) throw new ServiceError(SERVICE, 'unreadable', 'the subreddit answered without a Listing');
    const posts = list(data.children).map(linkPost).filter((p): p is FoundPost => p !== null);
    return { posts, next: text(data.after), warnings };
  }

  /** A post with at most `limit` of its comments (see the header). */
  async thread(id: string, limit: number, options: ReadOptions): Promise<Thread> {
    const bare = id.startsWith('t3_') ? id.slice(3) : id;
    const max = Math.min(limit, MAX_COMMENTS);
    const { answer, warnings } = await this.read(`/comments/${encodeURIComponent(bare)}`, { limit: String(max), sort: 'confidence' }, options, `no post ${bare}`);
    const [postListing, commentListing] = list(answer.json);
    const post = linkPost(list(record(record(postListing)?.data)?.children)[0]);
    if (!post) throw new ServiceError(SERVICE, 'unreadable', 'the comments answer did not start with the post');
    return { post, ...commentsOf(commentListing, max), warnings };
  }

  /** A user's profile (see the header). */
  async user(name: string, options: ReadOptions): Promise<Profile> {
    const { answer } = await this.read(`/user/${encodeURIComponent(name)}/about`, {}, options, `no user u/${name}`);
    const d = record(record(answer.json)?.data);
    const username = text(d?.name);
    const id = text(d?.id);
    if (!d || !username || !id) throw new NotOnPlatform('reddit', `no user u/${name}`);
    const own = record(d.subreddit);
    const karma = typeof d.total_karma === 'number' ? d.total_karma : typeof d.link_karma === 'number' && typeof d.comment_karma === 'number' ? d.link_karma + d.comment_karma : null;
    return {
      platform: 'reddit',
      id: `t2_${id}`,
      username,
      name: text(own?.title),
      description: text(own?.public_description),
      url: `https://www.reddit.com/user/${encodeURIComponent(username)}/`,
      createdAtMs: typeof d.created_utc === 'number' ? Math.round(d.created_utc * 1000) : null,
      followers: typeof own?.subscribers === 'number' ? own.subscribers : null,
      following: null,
      posts: null,
      karma,
    };
  }

  /**
   * One GET of a read, `path` under the OAuth API (with a token) or, without credentials or
   * when OAuth fails as `rejected` or `unavailable`, the public JSON (`<path>.json`); a 404
   * is NotOnPlatform (`missing` says what).
   */
  private async read(path: string, params: Record<string, string>, options: ReadOptions, missing: string): Promise<{ answer: ServiceAnswer; warnings: string[] }> {
    const url = (route: Route) => {
      const u = route === 'oauth' ? below(this.oauth, path) : below(this.site, `${path}.json`);
      for (const [name, value] of Object.entries({ ...params, raw_json: '1' })) u.searchParams.set(name, value);
      return u;
    };
    const notFound = (error: unknown): never => {
      if (isServiceError(error) && error.status === 404) throw new NotOnPlatform('reddit', missing);
      throw error;
    };
    if (!this.basicAuth) return { answer: await this.get(url('public'), {}, options).catch(notFound), warnings: [PUBLIC_WARNING] };
    try {
      return { answer: await this.withToken(url('oauth'), options), warnings: [] };
    } catch (error) {
      if (!fallsBack(error) || options.signal?.aborted) return notFound(error);
      const warning = `Reddit's OAuth API failed (${error.message}); the public JSON was read instead, which is throttled hard.`;
      return { answer: await this.get(url('public'), {}, options).catch(notFound), warnings: [warning] };
    }
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
  private async withToken(url: URL, query: ReadOptions): Promise<ServiceAnswer> {
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

  private get(url: URL, headers: Record<string, string>, query: ReadOptions): Promise<ServiceAnswer> {
    return getJson(SERVICE, { url, headers, timeoutMs: query.timeoutMs, ...(query.signal ? { signal: query.signal } : {}) }, this.fetcher);
  }

  private currentToken(query: ReadOptions): Promise<Token> {
    if (this.token && this.token.expiresAtMs > this.now()) return Promise.resolve(this.token);
    // Shared by the calls that wait for it: within the starting call's time, under no caller's signal
    // (one caller's abort was every waiting caller's error).
    this.pending ??= this.requestToken({ timeoutMs: query.timeoutMs })
      .then((token) => (this.token = token))
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private async requestToken(query: ReadOptions): Promise<Token> {
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

/** A `t1` comment as a comment of the thread; null for other kinds (a `more` stub) or one without a name or time. */
export function commentOf(child: unknown, depth: number): FoundComment | null {
  const c = record(child);
  const d = record(c?.data);
  const name = text(d?.name);
  const parentId = text(d?.parent_id);
  if (c?.kind !== 't1' || !d || !name || !parentId || typeof d.created_utc !== 'number') return null;
  const author = text(d.author);
  const permalink = text(d.permalink);
  return {
    platform: 'reddit',
    externalId: name,
    url: permalink?.startsWith('/') ? `https://www.reddit.com${permalink}` : `https://www.reddit.com/comments/${encodeURIComponent(parentId)}`,
    author: author && author !== '[deleted]' ? author : null,
    title: null,
    text: typeof d.body === 'string' ? d.body : '',
    publishedAtMs: Math.round(d.created_utc * 1000),
    lang: null,
    parentId,
    depth,
  };
}

/** The comments of a comment Listing in the thread's order, at most `limit`, walked with a stack. */
function commentsOf(listing: unknown, limit: number): { comments: FoundComment[]; truncated: boolean } {
  type Pending = { readonly child: unknown; readonly depth: number };
  const childrenOf = (l: unknown, depth: number): Pending[] => list(record(record(l)?.data)?.children).map((child) => ({ child, depth })).reverse();
  const stack = childrenOf(listing, 1);
  const comments: FoundComment[] = [];
  let truncated = false;
  while (stack.length > 0) {
    const { child, depth } = stack.pop() as Pending;
    if (record(child)?.kind === 'more') {
      const count = record(record(child)?.data)?.count;
      if (typeof count !== 'number' || count > 0) truncated = true;
      continue;
    }
    const comment = commentOf(child, depth);
    if (!comment) continue;
    if (comments.length >= limit) {
      truncated = true;
      break;
    }
    comments.push(comment);
    stack.push(...childrenOf(record(record(child)?.data)?.replies, depth + 1));
  }
  return { comments, truncated };
}
