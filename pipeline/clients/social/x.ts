/**
 * X (Twitter) posts as a source of mentions: API v2 recent search (X_API_URL, default
 * `https://api.x.com`; an app bearer token, X_BEARER_TOKEN, is required — without one the
 * connector reports itself not configured).
 *
 * `GET /2/tweets/search/recent?query=(<"term"> OR …) -is:retweet&start_time=<ISO>
 * &max_results=<10–100>&sort_order=recency&tweet.fields=created_at,author_id,lang
 * &expansions=author_id&user.fields=username,name&next_token=<token>` with `Authorization:
 * Bearer <token>`. The terms go into one query, each quoted, joined by OR, as long as it stays
 * within the 512 characters self-serve tiers allow; more terms make more queries. Recent
 * search covers seven days: `start_time` is never earlier (a watch's first collection reaches
 * back as far as X allows). Pages follow `meta.next_token`. A 429 is `rate_limited` with the
 * wait of `x-rate-limit-reset` (epoch seconds).
 *
 * A post: its `id`, `https://x.com/<username>/status/<id>`, the author's username (from
 * `includes.users`), `text`, `created_at` and `lang` (X's own detection; `und` is none).
 *
 * The social catalog's reads (types.ts), with the same token and the same 429 handling:
 * - `user`: `GET /2/users/by/username/<username>?user.fields=created_at,description,
 *   public_metrics` (`public_metrics`: followers, following, tweet counts);
 * - `recent`: the user's id by that lookup, then `GET /2/users/<id>/tweets?max_results=<5–100>
 *   &exclude=retweets&pagination_token=`: newest first, `meta.next_token` the next cursor;
 * - `thread`: `GET /2/tweets/<id>?tweet.fields=…,conversation_id&expansions=author_id`, then its
 *   replies by recent search of `conversation_id:<id>` (paged, at most `limit`; each reply's
 *   parent from `referenced_tweets` `replied_to`), put in the thread's order. Recent search
 *   reaches back seven days: an older conversation says so in a warning.
 * X answers an unknown user or post with 200 and `errors` (`Not Found Error`, `resource-not-found`)
 * and no `data`: NotOnPlatform.
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, serviceFetcher, ServiceError } from '../service-http.js';
import { Credential, countOf, MAX_COMMENTS, newestFirst, NotOnPlatform, timeOf } from './types.js';
import type { Collected, CollectQuery, Connector, FoundComment, FoundPost, PostsPage, Profile, ReadOptions, Thread } from './types.js';

export interface XOptions {
  /** X_API_URL */
  readonly apiUrl: string;
  /** X_BEARER_TOKEN; null: not configured. */
  readonly bearerToken: string | null;
  readonly fetcher?: HttpFetcher;
  readonly now?: () => number;
}

const SERVICE = 'x';
export const MAX_QUERY_CHARS = 512;
/** Recent search's reach, less a minute so a request is never refused for a start at its edge. */
export const RECENT_WINDOW_MS = 7 * 24 * 3_600_000 - 60_000;
const SUFFIX = ' -is:retweet';
/** Pages a query reads at most (posts count toward a monthly cap). */
export const MAX_PAGES = 5;

/** The terms as few queries as the length limit allows: `("a b" OR c) -is:retweet`. */
export function recentQueries(terms: readonly string[]): string[] {
  const out: string[] = [];
  let group: string[] = [];
  const render = (g: readonly string[]) => `(${g.join(' OR ')})${SUFFIX}`;
  for (const term of terms) {
    const quoted = `"${term.replaceAll('"', ' ').trim()}"`;
    if (group.length > 0 && render([...group, quoted]).length > MAX_QUERY_CHARS) {
      out.push(render(group));
      group = [];
    }
    group.push(quoted);
  }
  if (group.length > 0) out.push(render(group));
  return out;
}

export class XConnector implements Connector {
  readonly platform = 'x' as const;
  readonly notConfigured: string | null;
  private readonly api: URL;
  private readonly token: Credential<string>;
  private readonly fetcher: HttpFetcher;
  private readonly now: () => number;

  constructor(options: XOptions) {
    this.api = new URL(options.apiUrl);
    this.token = new Credential(SERVICE, options.bearerToken, ['X_BEARER_TOKEN']);
    this.notConfigured = this.token.notConfigured;
    this.fetcher = options.fetcher ?? serviceFetcher();
    this.now = options.now ?? Date.now;
  }

  async collect(query: CollectQuery): Promise<Collected> {
    const token = this.token.get();
    const earliest = this.now() - RECENT_WINDOW_MS;
    const start = Math.max(query.sinceMs, earliest);
    const warnings = query.sinceMs < earliest ? ['X recent search reaches back seven days: older posts are not searched.'] : [];
    const found: FoundPost[] = [];
    for (const q of recentQueries(query.terms)) found.push(...(await this.search(token, q, start, query)));
    return { posts: newestFirst(found, query.limit), source: SERVICE, warnings };
  }

  /** A user's profile (see the header). */
  async user(username: string, options: ReadOptions): Promise<Profile> {
    const u = await this.lookUp(username, options);
    const metrics = record(u.public_metrics);
    return {
      platform: 'x',
      id: u.id,
      username: u.username,
      name: text(u.name),
      description: text(u.description),
      url: `https://x.com/${encodeURIComponent(u.username)}`,
      createdAtMs: timeOf(u.created_at),
      followers: countOf(metrics?.followers_count),
      following: countOf(metrics?.following_count),
      posts: countOf(metrics?.tweet_count),
      karma: null,
    };
  }

  /** A user's newest posts, one page from `cursor` (see the header). */
  async recent(username: string, limit: number, cursor: string | null, options: ReadOptions): Promise<PostsPage> {
    const u = await this.lookUp(username, options);
    const url = below(this.api, `/2/users/${encodeURIComponent(u.id)}/tweets`);
    url.searchParams.set('max_results', String(Math.min(100, Math.max(5, limit))));
    url.searchParams.set('exclude', 'retweets');
    url.searchParams.set('tweet.fields', 'created_at,author_id,lang');
    if (cursor) url.searchParams.set('pagination_token', cursor);
    const body = await this.call(url, options);
    const users = new Map([[u.id, u.username]]);
    const posts = list(body.data).map((t) => postOf(t, users)).filter((p): p is FoundPost => p !== null).slice(0, limit);
    return { posts, next: text(record(body.meta)?.next_token), warnings: [] };
  }

  /** A post with its replies, at most `limit` (see the header). */
  async thread(id: string, limit: number, options: ReadOptions): Promise<Thread> {
    const url = below(this.api, `/2/tweets/${encodeURIComponent(id)}`);
    url.searchParams.set('tweet.fields', 'created_at,author_id,lang,conversation_id');
    url.searchParams.set('expansions', 'author_id');
    url.searchParams.set('user.fields', 'username,name');
    const body = await this.call(url, options);
    const post = postOf(body.data, usersOf(body));
    if (!post) throw new NotOnPlatform('x', `no post ${id}`);
    const conversation = text(record(body.data)?.conversation_id) ?? post.externalId;
    const earliest = this.now() - RECENT_WINDOW_MS;
    const warnings = post.publishedAtMs < earliest ? ['X recent search reaches back seven days: replies older than that are not read.'] : [];
    const max = Math.min(limit, MAX_COMMENTS);
    const replies: Reply[] = [];
    let next: string | null = null;
    for (let page = 0; page < MAX_PAGES && replies.length < max; page++) {
      const search = below(this.api, '/2/tweets/search/recent');
      search.searchParams.set('query', `conversation_id:${conversation}`);
      search.searchParams.set('start_time', new Date(Math.max(post.publishedAtMs, earliest)).toISOString());
      search.searchParams.set('max_results', '100');
      search.searchParams.set('sort_order', 'recency');
      search.searchParams.set('tweet.fields', 'created_at,author_id,lang,referenced_tweets');
      search.searchParams.set('expansions', 'author_id');
      search.searchParams.set('user.fields', 'username,name');
      if (next) search.searchParams.set('next_token', next);
      const found = await this.call(search, options);
      const users = usersOf(found);
      for (const t of list(found.data)) {
        const reply = postOf(t, users);
        const parent = list(record(t)?.referenced_tweets).map(record).find((r) => r?.type === 'replied_to');
        if (reply && reply.externalId !== post.externalId) replies.push({ post: reply, parentId: text(parent?.id) ?? post.externalId });
      }
      next = text(record(found.meta)?.next_token);
      if (!next) break;
    }
    const { comments, truncated } = threadOrder(post.externalId, replies, max);
    return { post, comments, truncated: truncated || next !== null, warnings };
  }

  /** A user by username: its id and username; NotOnPlatform when X has none. */
  private async lookUp(username: string, options: ReadOptions): Promise<{ id: string; username: string } & Record<string, unknown>> {
    const url = below(this.api, `/2/users/by/username/${encodeURIComponent(username)}`);
    url.searchParams.set('user.fields', 'created_at,description,public_metrics');
    const u = record((await this.call(url, options)).data);
    const id = text(u?.id);
    const name = text(u?.username);
    if (!u || !id || !name) throw new NotOnPlatform('x', `no user @${username}`);
    return { ...u, id, username: name };
  }

  /** One GET with the token; the answer's body (an object: X answers `errors` without `data` for what it does not have). */
  private async call(url: URL, options: ReadOptions): Promise<Record<string, unknown>> {
    const answer = await getJson(SERVICE, { url, timeoutMs: options.timeoutMs, headers: { Authorization: `Bearer ${this.token.get()}` }, ...(options.signal ? { signal: options.signal } : {}) }, this.fetcher);
    const body = record(answer.json);
    if (!body) throw new ServiceError(SERVICE, 'unreadable', 'the API answered something that is not a JSON object');
    return body;
  }

  private async search(token: string, q: string, startMs: number, query: CollectQuery): Promise<FoundPost[]> {
    const out: FoundPost[] = [];
    let next: string | null = null;
    for (let page = 0; page < MAX_PAGES && out.length < query.limit; page++) {
      const url = below(this.api, '/2/tweets/search/recent');
      url.searchParams.set('query', q);
      url.searchParams.set('start_time', new Date(startMs).toISOString());
      url.searchParams.set('max_results', String(Math.min(100, Math.max(10, query.limit))));
      url.searchParams.set('sort_order', 'recency');
      url.searchParams.set('tweet.fields', 'created_at,author_id,lang');
      url.searchParams.set('expansions', 'author_id');
      url.searchParams.set('user.fields', 'username,name');
      if (next) url.searchParams.set('next_token', next);
      const answer = await getJson(SERVICE, { url, timeoutMs: query.timeoutMs, headers: { Authorization: `Bearer ${token}` }, ...(query.signal ? { signal: query.signal } : {}) }, this.fetcher);
      const body = record(answer.json);
      const meta = record(body?.meta);
      if (!body || !meta) throw new ServiceError(SERVICE, 'unreadable', 'recent search answered without `meta`');
      const users = usersOf(body);
      out.push(...list(body.data).map((t) => postOf(t, users)).filter((p): p is FoundPost => p !== null && p.publishedAtMs > query.sinceMs));
      next = text(meta.next_token);
      if (!next) break;
    }
    return out;
  }
}

/** `includes.users` of an answer: id → username. */
function usersOf(body: Record<string, unknown>): Map<string, string> {
  const users = new Map<string, string>();
  for (const user of list(record(body.includes)?.users)) {
    const u = record(user);
    const id = text(u?.id);
    const username = text(u?.username);
    if (id && username) users.set(id, username);
  }
  return users;
}

interface Reply {
  readonly post: FoundPost;
  readonly parentId: string;
}

/**
 * Replies in the thread's order: each after its parent, oldest first among siblings, with its
 * depth; a reply whose parent was not read answers the post. At most `limit`.
 */
export function threadOrder(rootId: string, replies: readonly Reply[], limit: number): { comments: FoundComment[]; truncated: boolean } {
  const known = new Set(replies.map((r) => r.post.externalId));
  const children = new Map<string, Reply[]>();
  for (const r of [...replies].sort((a, b) => a.post.publishedAtMs - b.post.publishedAtMs)) {
    const parent = known.has(r.parentId) ? r.parentId : rootId;
    children.set(parent, [...(children.get(parent) ?? []), r]);
  }
  const comments: FoundComment[] = [];
  const stack = (children.get(rootId) ?? []).map((r) => ({ r, parentId: rootId, depth: 1 })).reverse();
  const seen = new Set<string>();
  while (stack.length > 0 && comments.length < limit) {
    const { r, parentId, depth } = stack.pop() as { r: Reply; parentId: string; depth: number };
    if (seen.has(r.post.externalId)) continue;
    seen.add(r.post.externalId);
    comments.push({ ...r.post, parentId, depth });
    stack.push(...(children.get(r.post.externalId) ?? []).map((c) => ({ r: c, parentId: r.post.externalId, depth: depth + 1 })).reverse());
  }
  return { comments, truncated: comments.length < known.size };
}

/** A tweet as a post; null when it lacks an id, text or time. */
export function postOf(tweet: unknown, users: ReadonlyMap<string, string>): FoundPost | null {
  const t = record(tweet);
  const id = text(t?.id);
  const at = Date.parse(text(t?.created_at) ?? '');
  if (!t || !id || typeof t.text !== 'string' || !Number.isFinite(at)) return null;
  const username = users.get(text(t.author_id) ?? '') ?? null;
  const lang = text(t.lang);
  return {
    platform: 'x',
    externalId: id,
    url: username ? `https://x.com/${encodeURIComponent(username)}/status/${id}` : `https://x.com/i/status/${id}`,
    author: username,
    title: null,
    text: t.text,
    publishedAtMs: at,
    lang: lang && lang !== 'und' ? lang : null,
  };
}
