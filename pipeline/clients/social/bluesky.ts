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
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, isServiceError, postJson, serviceFetcher, ServiceError, type ServiceAnswer } from '../service-http.js';
import { newestFirst, type Collected, type CollectQuery, type Connector, type FoundPost } from './types.js';

export interface BlueskyOptions {
  /** BLUESKY_URL: the PDS. */
  readonly url: string;
  /** BLUESKY_IDENTIFIER and BLUESKY_APP_PASSWORD; null: not configured. */
  readonly credentials: { readonly identifier: string; readonly appPassword: string } | null;
  readonly fetcher?: HttpFetcher;
}

const SERVICE = 'bluesky';
const PER_PAGE = 100;
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
  private readonly login: { readonly identifier: string; readonly password: string } | null;
  private readonly fetcher: HttpFetcher;
  private session: Session | null = null;
  /** The session request under way (create or refresh), which concurrent searches share. */
  private pending: Promise<Session> | null = null;

  constructor(options: BlueskyOptions) {
    this.pds = new URL(options.url);
    const account = options.credentials;
    this.login = account ? { identifier: account.identifier, password: account.appPassword } : null;
    this.notConfigured = options.credentials ? null : 'BLUESKY_IDENTIFIER and BLUESKY_APP_PASSWORD are not set';
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async collect(query: CollectQuery): Promise<Collected> {
    if (!this.login) throw new ServiceError(SERVICE, 'rejected', this.notConfigured ?? 'not configured');
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

  /** A GET with the session's access token; a stale session is renewed and the GET asked again, once. */
  private async authorized(url: URL, query: CollectQuery): Promise<ServiceAnswer> {
    const session = await this.currentSession(query);
    try {
      return await this.get(url, session.accessJwt, query);
    } catch (error) {
      if (!isStale(error)) throw error;
      const renewed = await this.renew(session, query);
      return this.get(url, renewed.accessJwt, query);
    }
  }

  private get(url: URL, accessJwt: string, query: CollectQuery): Promise<ServiceAnswer> {
    return getJson(SERVICE, { url, headers: { Authorization: `Bearer ${accessJwt}` }, ...timing(query) }, this.fetcher);
  }

  private currentSession(query: CollectQuery): Promise<Session> {
    return this.session ? Promise.resolve(this.session) : this.establish(() => this.createSession(query));
  }

  /** A session in place of `stale`: refreshed, or made anew when the refresh is refused. */
  private renew(stale: Session, query: CollectQuery): Promise<Session> {
    // Another search renewed it meanwhile.
    if (this.session && this.session !== stale) return Promise.resolve(this.session);
    this.session = null;
    return this.establish(() =>
      this.refreshSession(stale, query).catch((error: unknown) => {
        if (!isServiceError(error) || (error.status !== 400 && error.status !== 401)) throw error;
        return this.createSession(query);
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

  private async createSession(query: CollectQuery): Promise<Session> {
    const answer = await postJson(SERVICE, { url: below(this.pds, '/xrpc/com.atproto.server.createSession'), body: this.login, ...timing(query) }, this.fetcher);
    return sessionOf(answer, 'createSession');
  }

  private async refreshSession(stale: Session, query: CollectQuery): Promise<Session> {
    const url = below(this.pds, '/xrpc/com.atproto.server.refreshSession');
    const answer = await postJson(SERVICE, { url, headers: { Authorization: `Bearer ${stale.refreshJwt}` }, body: undefined, ...timing(query) }, this.fetcher);
    return sessionOf(answer, 'refreshSession');
  }
}

function timing(query: CollectQuery): { timeoutMs: number; signal?: AbortSignal } {
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
