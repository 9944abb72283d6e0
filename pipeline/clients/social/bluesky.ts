/**
 * Bluesky posts as a source of mentions: `app.bsky.feed.searchPosts`, asked with a session of
 * an account's app password.
 *
 * Settings (the names are a contract with pipeline/mentions/settings.ts):
 * - `BLUESKY_URL` (default `https://bsky.social`): the PDS where the session is made, which
 *   also proxies `app.bsky.*` calls to the AppView;
 * - `BLUESKY_IDENTIFIER` (a handle or an email) and `BLUESKY_APP_PASSWORD`: without both the
 *   connector is not configured. Unauthenticated search is not a fallback: since 2025 it
 *   often answers 403 and refuses `cursor` (atproto #3423, #3583).
 *
 * - **The session**: `POST /xrpc/com.atproto.server.createSession` `{identifier, password}` →
 *   `accessJwt` and `refreshJwt`, kept for every later search (Bluesky allows few session
 *   creations a day; concurrent searches share one request). When a call answers 400 or 401
 *   with `ExpiredToken` (or `InvalidToken`), `POST /xrpc/com.atproto.server.refreshSession`
 *   with `Authorization: Bearer <refreshJwt>` renews it; when that is refused too (the refresh
 *   token expired or was revoked), a new session is made. The call is then asked again, once.
 * - **The search**: `GET /xrpc/app.bsky.feed.searchPosts?q=<term>&sort=latest&since=<ISO>
 *   &limit=<n>&cursor=<cursor>` with `Authorization: Bearer <accessJwt>`; one query per term,
 *   paged by `cursor` until a page holds nothing newer than `sinceMs` (a post's `createdAt` is
 *   its client's claim, so one stray old post does not end a term), `limit` is reached, no
 *   cursor comes back, or MAX_PAGES.
 *
 * Rate limits: a 429 carries `ratelimit-remaining` and `ratelimit-reset` (epoch seconds; no
 * `x-` prefix): `rate_limited` with that wait (service-http reads the header).
 *
 * A post: its `uri` (`at://<did>/app.bsky.feed.post/<rkey>`) as the id,
 * `https://bsky.app/profile/<handle>/post/<rkey>` (the DID when the handle is
 * `handle.invalid`), the author's handle, no title, `record.text`, `record.createdAt` (else
 * `indexedAt`), and `record.langs[0]`. The app password and the tokens never reach a log, a
 * message or an error: they travel in the session request's body and in headers only.
 *
 * The social catalog's reads (types.ts), with the same session:
 * - `profile`: `app.bsky.actor.getProfile?actor=<handle or DID>` (`followersCount`,
 *   `followsCount`, `postsCount`, `createdAt`);
 * - `recent`: `app.bsky.feed.getAuthorFeed?actor=&limit=&cursor=&filter=posts_no_replies`,
 *   the actor's own posts newest first (reposts, which carry a `reason`, left out), `cursor`
 *   the next page's;
 * - `thread`: `app.bsky.feed.getPostThread?uri=&depth=&parentHeight=0`, the post and its
 *   replies (`threadViewPost`s nested in `replies`; `notFoundPost` and `blockedPost` left out),
 *   walked without recursion. A post is named by its `at://` URI or its
 *   `https://bsky.app/profile/<handle or DID>/post/<rkey>` URL, a handle resolved to its DID
 *   by `com.atproto.identity.resolveHandle`.
 * The AppView answers what it does not have with 400 and an XRPC error (`NotFound`,
 * `InvalidRequest` "Profile not found", "Unable to resolve handle"): NotOnPlatform.
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, isServiceError, postJson, serviceFetcher, ServiceError, type ServiceAnswer } from '../service-http.js';
import { Credential, MAX_COMMENTS, newestFirst, NotOnPlatform, timeOf } from './types.js';
import type { Collected, CollectQuery, Connector, FoundComment, FoundPost, PostsPage, Profile, ReadOptions, Thread } from './types.js';

export interface BlueskyOptions {
  /** BLUESKY_URL: the PDS. */
  readonly url: string;
  /** BLUESKY_IDENTIFIER and BLUESKY_APP_PASSWORD; null: not configured. */
  readonly credentials: { readonly identifier: string; readonly appPassword: string } | null;
  readonly fetcher?: HttpFetcher;
}

const SERVICE = 'bluesky';
const PER_PAGE = 100;
/** How deep a thread's replies are asked for. */
export const THREAD_DEPTH = 20;
/** Pages a term reads at most (2,000 posts), against a cursor that never ends. */
export const MAX_PAGES = 20;
/** XRPC error names that say the session is no longer good. */
const STALE_SESSION = new Set(['ExpiredToken', 'InvalidToken']);

interface Session {
  readonly accessJwt: string;
  readonly refreshJwt: string;
}

export class BlueskyConnector implements Connector {
  readonly platform = 'bluesky' as const;
  readonly notConfigured: string | null;
  private readonly pds: URL;
  /** createSession's input; null: not configured. */
  private readonly login: Credential<{ readonly identifier: string; readonly password: string }>;
  private readonly fetcher: HttpFetcher;
  private session: Session | null = null;
  /** The session request under way (create or refresh), which concurrent searches share. */
  private pending: Promise<Session> | null = null;

  constructor(options: BlueskyOptions) {
    this.pds = new URL(options.url);
    const account = options.credentials;
    this.login = new Credential(SERVICE, account ? { identifier: account.identifier, password: account.appPassword } : null, ['BLUESKY_IDENTIFIER', 'BLUESKY_APP_PASSWORD']);
    this.notConfigured = this.login.notConfigured;
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async collect(query: CollectQuery): Promise<Collected> {
    this.login.get();
    const found: FoundPost[] = [];
    for (const term of query.terms) found.push(...(await this.search(term, query)));
    return { posts: newestFirst(found, query.limit), source: SERVICE, warnings: [] };
  }

  private async search(term: string, query: CollectQuery): Promise<FoundPost[]> {
    const out: FoundPost[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES && out.length < query.limit; page++) {
      const url = below(this.pds, '/xrpc/app.bsky.feed.searchPosts');
      url.searchParams.set('q', term);
      url.searchParams.set('sort', 'latest');
      url.searchParams.set('since', new Date(query.sinceMs).toISOString());
      url.searchParams.set('limit', String(Math.min(PER_PAGE, Math.max(1, query.limit))));
      if (cursor) url.searchParams.set('cursor', cursor);
      const body = record((await this.authorized(url, query)).json);
      if (!body || !Array.isArray(body.posts)) throw new ServiceError(SERVICE, 'unreadable', 'searchPosts answered without a `posts` list');
      const posts = list(body.posts).map(feedPost).filter((p): p is FoundPost => p !== null);
      const fresh = posts.filter((p) => p.publishedAtMs > query.sinceMs);
      out.push(...fresh);
      cursor = text(body.cursor);
      if (!cursor || fresh.length === 0) break;
    }
    return out;
  }

  /** An actor's profile (see the header). */
  async profile(actor: string, options: ReadOptions): Promise<Profile> {
    const url = below(this.pds, '/xrpc/app.bsky.actor.getProfile');
    url.searchParams.set('actor', actor);
    const p = record((await this.read(url, options, `no profile ${actor}`)).json);
    const did = text(p?.did);
    if (!p || !did) throw new ServiceError(SERVICE, 'unreadable', 'getProfile answered without a DID');
    const handle = text(p.handle);
    const shown = handle && handle !== 'handle.invalid' ? handle : did;
    return {
      platform: 'bluesky',
      id: did,
      username: handle && handle !== 'handle.invalid' ? handle : null,
      name: text(p.displayName),
      description: text(p.description),
      url: `https://bsky.app/profile/${shown}`,
      createdAtMs: timeOf(p.createdAt),
      followers: typeof p.followersCount === 'number' ? p.followersCount : null,
      following: typeof p.followsCount === 'number' ? p.followsCount : null,
      posts: typeof p.postsCount === 'number' ? p.postsCount : null,
      karma: null,
    };
  }

  /** An actor's own newest posts, one page from `cursor` (see the header). */
  async recent(actor: string, limit: number, cursor: string | null, options: ReadOptions): Promise<PostsPage> {
    const url = below(this.pds, '/xrpc/app.bsky.feed.getAuthorFeed');
    url.searchParams.set('actor', actor);
    url.searchParams.set('limit', String(Math.min(PER_PAGE, Math.max(1, limit))));
    url.searchParams.set('filter', 'posts_no_replies');
    if (cursor) url.searchParams.set('cursor', cursor);
    const body = record((await this.read(url, options, `no actor ${actor}`)).json);
    if (!body || !Array.isArray(body.feed)) throw new ServiceError(SERVICE, 'unreadable', 'getAuthorFeed answered without a `feed` list');
    const posts = list(body.feed)
      .map(record)
      .filter((item) => item && !item.reason)
      .map((item) => feedPost(item?.post))
      .filter((p): p is FoundPost => p !== null);
    return { posts, next: text(body.cursor), warnings: [] };
  }

  /** A post with at most `limit` of its replies (see the header); `ref` is its `at://` URI or bsky.app URL. */
  async thread(ref: string, limit: number, options: ReadOptions): Promise<Thread> {
    const uri = await this.postUri(ref, options);
    const url = below(this.pds, '/xrpc/app.bsky.feed.getPostThread');
    url.searchParams.set('uri', uri);
    url.searchParams.set('depth', String(THREAD_DEPTH));
    url.searchParams.set('parentHeight', '0');
    const root = record(record((await this.read(url, options, `no post ${uri}`)).json)?.thread);
    const post = feedPost(root?.post);
    if (!root || !post) throw new NotOnPlatform('bluesky', `no post ${uri}`);
    return { post, ...repliesOf(root, post.externalId, Math.min(limit, MAX_COMMENTS)), warnings: [] };
  }

  /** A post's `at://` URI from its URI or its bsky.app URL, a handle resolved to its DID. */
  private async postUri(ref: string, options: ReadOptions): Promise<string> {
    if (ref.startsWith('at://')) return ref;
    const parts = URL.canParse(ref) ? new URL(ref).pathname.split('/') : [];
    // /profile/<actor>/post/<rkey>
    const actor = decodeURIComponent(parts[2] ?? '');
    const rkey = decodeURIComponent(parts[4] ?? '');
    if (parts[1] !== 'profile' || parts[3] !== 'post' || !actor || !rkey) throw new NotOnPlatform('bluesky', 'the URL names no post (https://bsky.app/profile/<handle>/post/<id>)');
    if (actor.startsWith('did:')) return `at://${actor}/app.bsky.feed.post/${rkey}`;
    const url = below(this.pds, '/xrpc/com.atproto.identity.resolveHandle');
    url.searchParams.set('handle', actor);
    const did = text(record((await this.read(url, options, `no handle ${actor}`)).json)?.did);
    if (!did) throw new NotOnPlatform('bluesky', `no handle ${actor}`);
    return `at://${did}/app.bsky.feed.post/${rkey}`;
  }

  /** A read with the session; the AppView's 400 for what it does not have is NotOnPlatform (`missing`). */
  private async read(url: URL, options: ReadOptions, missing: string): Promise<ServiceAnswer> {
    this.login.get();
    try {
      return await this.authorized(url, options);
    } catch (error) {
      if (isServiceError(error) && error.status === 400 && (error.errorName === 'NotFound' || error.errorName === 'InvalidRequest')) throw new NotOnPlatform('bluesky', missing);
      throw error;
    }
  }

  /** A GET with the session's access token; a stale session is renewed and the GET asked again, once. */
  private async authorized(url: URL, query: ReadOptions): Promise<ServiceAnswer> {
    const session = await this.currentSession(query);
    try {
      return await this.get(url, session.accessJwt, query);
    } catch (error) {
      if (!isStale(error)) throw error;
      const renewed = await this.renew(session, query);
      return this.get(url, renewed.accessJwt, query);
    }
  }

  private get(url: URL, accessJwt: string, query: ReadOptions): Promise<ServiceAnswer> {
    return getJson(SERVICE, { url, headers: { Authorization: `Bearer ${accessJwt}` }, ...timing(query) }, this.fetcher);
  }

  /**
   * The session request is shared by the calls that wait for it (`establish`), so it runs within
   * the time of the call that started it but not under its signal: one caller's abort or deadline
   * was every waiting caller's error (a 500 where the platform had timed out).
   */
  private currentSession(query: ReadOptions): Promise<Session> {
    return this.session ? Promise.resolve(this.session) : this.establish(() => this.createSession(sessionTiming(query)));
  }

  /** A session in place of `stale`: refreshed, or made anew when the refresh is refused. */
  private renew(stale: Session, query: ReadOptions): Promise<Session> {
    // Another search renewed it meanwhile.
    if (this.session && this.session !== stale) return Promise.resolve(this.session);
    this.session = null;
    return this.establish(() =>
      this.refreshSession(stale, sessionTiming(query)).catch((error: unknown) => {
        if (!isServiceError(error) || (error.status !== 400 && error.status !== 401)) throw error;
        return this.createSession(sessionTiming(query));
      }),
    );
  }

  private establish(make: () => Promise<Session>): Promise<Session> {
    this.pending ??= make()
      .then((session) => (this.session = session))
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private async createSession(query: ReadOptions): Promise<Session> {
    const answer = await postJson(SERVICE, { url: below(this.pds, '/xrpc/com.atproto.server.createSession'), body: this.login.get(), ...timing(query) }, this.fetcher);
    return sessionOf(answer, 'createSession');
  }

  private async refreshSession(stale: Session, query: ReadOptions): Promise<Session> {
    const url = below(this.pds, '/xrpc/com.atproto.server.refreshSession');
    const answer = await postJson(SERVICE, { url, headers: { Authorization: `Bearer ${stale.refreshJwt}` }, body: undefined, ...timing(query) }, this.fetcher);
    return sessionOf(answer, 'refreshSession');
  }
}

/** A shared session request's timing: the starting call's time, no caller's signal (see `currentSession`). */
const sessionTiming = (query: ReadOptions): ReadOptions => ({ timeoutMs: query.timeoutMs });

function timing(query: ReadOptions): { timeoutMs: number; signal?: AbortSignal } {
  return { timeoutMs: query.timeoutMs, ...(query.signal ? { signal: query.signal } : {}) };
}

function isStale(error: unknown): boolean {
  return isServiceError(error) && (error.status === 400 || error.status === 401) && STALE_SESSION.has(error.errorName ?? '');
}

function sessionOf(answer: ServiceAnswer, call: string): Session {
  const body = record(answer.json);
  const accessJwt = text(body?.accessJwt);
  const refreshJwt = text(body?.refreshJwt);
  if (!accessJwt || !refreshJwt) throw new ServiceError(SERVICE, 'unreadable', `${call} answered without the session's tokens`, null, answer.status);
  return { accessJwt, refreshJwt };
}

/** A searchPosts post view as a post; null when it lacks a URI, a record's text or a time. */
export function feedPost(view: unknown): FoundPost | null {
  const v = record(view);
  const uri = text(v?.uri);
  const post = record(v?.record);
  const author = record(v?.author);
  const rkey = uri?.split('/').at(-1);
  const created = Date.parse(text(post?.createdAt) ?? '');
  const at = Number.isFinite(created) ? created : Date.parse(text(v?.indexedAt) ?? '');
  if (!uri?.startsWith('at://') || !rkey || !post || typeof post.text !== 'string' || !Number.isFinite(at)) return null;
  const handle = text(author?.handle);
  const profile = handle && handle !== 'handle.invalid' ? handle : (text(author?.did) ?? uri.split('/')[2] ?? '');
  const lang = text(list(post.langs)[0]);
  return {
    platform: 'bluesky',
    externalId: uri,
    url: `https://bsky.app/profile/${encodeURIComponent(profile).replaceAll('%3A', ':')}/post/${encodeURIComponent(rkey)}`,
    author: profile || null,
    title: null,
    text: post.text,
    publishedAtMs: at,
    lang,
  };
}

/** The replies of a thread view in the thread's order, at most `limit`, walked with a stack. */
function repliesOf(root: Record<string, unknown>, rootId: string, limit: number): { comments: FoundComment[]; truncated: boolean } {
  type Pending = { readonly view: unknown; readonly parentId: string; readonly depth: number };
  const childrenOf = (view: unknown, parentId: string, depth: number): Pending[] => list(record(view)?.replies).map((r) => ({ view: r, parentId, depth })).reverse();
  const stack = childrenOf(root, rootId, 1);
  const comments: FoundComment[] = [];
  let truncated = false;
  while (stack.length > 0) {
    const { view, parentId, depth } = stack.pop() as Pending;
    const reply = feedPost(record(view)?.post);
    if (!reply) continue;
    if (comments.length >= limit) {
      truncated = true;
      break;
    }
    comments.push({ ...reply, parentId, depth });
    stack.push(...childrenOf(view, reply.externalId, depth + 1));
  }
  return { comments, truncated };
}
