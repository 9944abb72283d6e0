/**
 * A local stand-in for a Bluesky PDS on 127.0.0.1 (sessions, and searchPosts as the PDS
 * proxies it to the AppView), speaking XRPC's shapes and error bodies `{error, message}`:
 * - `POST /xrpc/com.atproto.server.createSession` `{identifier, password}` → `{did, handle,
 *   accessJwt, refreshJwt, active}`; 401 `AuthenticationRequired` for a wrong password;
 * - `POST /xrpc/com.atproto.server.refreshSession` with `Authorization: Bearer <refreshJwt>`
 *   and no body → a new pair (the old refresh token is spent); 400 `ExpiredToken` for an
 *   expired refresh token, 401 `InvalidToken` for an unknown one, 400 `InvalidRequest` when
 *   a body comes with it (a procedure without input);
 * - `GET /xrpc/app.bsky.feed.searchPosts` (`q`, `sort`, `since`, `limit` 1–100, `cursor`)
 *   with `Authorization: Bearer <accessJwt>` → `{cursor?, hitsTotal, posts}`; 400
 *   `ExpiredToken` for an expired access token, 401 `AuthenticationRequired` without one.
 * `expireAccess()` and `expireRefresh()` expire the tokens given so far; `limited` answers 429
 * `RateLimitExceeded` with `ratelimit-*` headers (the reset as epoch seconds).
 *
 * The social catalog's reads, with the same access token: `app.bsky.actor.getProfile`
 * (400 `InvalidRequest` "Profile not found"), `app.bsky.feed.getAuthorFeed` (the actor's
 * posts and reposts newest first, a repost with its `reason`; `filter=posts_no_replies` leaves
 * replies out; `cursor` an offset), `app.bsky.feed.getPostThread` (the post with its replies
 * nested, oldest first; 400 `NotFound`) and `com.atproto.identity.resolveHandle` (400
 * `InvalidRequest` "Unable to resolve handle").
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BskyPost {
  readonly did: string;
  readonly handle: string;
  readonly rkey: string;
  readonly text: string;
  /** ISO time (the record's claim). */
  readonly createdAt: string;
  readonly langs?: readonly string[];
  /** The `at://` URI of the post it replies to. */
  readonly replyTo?: string;
}

export interface BskyProfile {
  readonly did: string;
  readonly handle: string;
  readonly displayName: string;
  readonly description: string;
  readonly followers: number;
  readonly follows: number;
  readonly posts: number;
  /** ISO time. */
  readonly createdAt: string;
}

export interface FakeBlueskyExtras {
  readonly profiles?: readonly BskyProfile[];
  /** Reposts: `by` (a DID) reposted the post at `of` (its URI). */
  readonly reposts?: readonly { readonly by: string; readonly of: string; readonly at: string }[];
}

export interface FakeBlueskyRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface FakeBluesky {
  /** BLUESKY_URL */
  readonly url: string;
  readonly identifier: string;
  readonly password: string;
  limited: boolean;
  /** How long createSession takes to answer (default 0). */
  sessionDelayMs: number;
  readonly requests: FakeBlueskyRequest[];
  /** Calls of an XRPC method (`createSession`, `refreshSession`, `searchPosts`). */
  calls(method: string): number;
  expireAccess(): void;
  expireRefresh(): void;
  close(): Promise<void>;
}

type TokenState = 'live' | 'expired' | 'spent';

const uriOf = (p: BskyPost) => `at://${p.did}/app.bsky.feed.post/${p.rkey}`;

function postView(p: BskyPost): Record<string, unknown> {
  return {
    uri: uriOf(p),
    cid: `bafyrei${p.rkey}`,
    author: { did: p.did, handle: p.handle, displayName: p.handle.split('.')[0], avatar: `https://cdn.bsky.app/img/avatar/plain/${p.did}/x@jpeg`, labels: [] },
    record: { $type: 'app.bsky.feed.post', text: p.text, createdAt: p.createdAt, ...(p.langs ? { langs: p.langs } : {}), ...(p.replyTo ? { reply: { parent: { uri: p.replyTo, cid: 'bafyparent' }, root: { uri: p.replyTo, cid: 'bafyroot' } } } : {}) },
    replyCount: 0,
    repostCount: 0,
    likeCount: 0,
    quoteCount: 0,
    indexedAt: p.createdAt,
    labels: [],
  };
}

export async function startFakeBluesky(posts: readonly BskyPost[], identifier = 'watcher.bsky.social', password = 'abcd-efgh-ijkl-mnop', extras: FakeBlueskyExtras = {}): Promise<FakeBluesky> {
  const newest = [...posts].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const access = new Map<string, TokenState>();
  const refresh = new Map<string, TokenState>();
  let issued = 0;
  const expire = (tokens: Map<string, TokenState>) => {
    for (const [token, state] of tokens) if (state === 'live') tokens.set(token, 'expired');
  };
  const fake: FakeBluesky = {
    url: '',
    identifier,
    password,
    limited: false,
    sessionDelayMs: 0,
    requests: [],
    calls: (method) => fake.requests.filter((r) => r.url.pathname.endsWith(`.${method}`)).length,
    expireAccess: () => expire(access),
    expireRefresh: () => expire(refresh),
    close: () => Promise.resolve(),
  };
  const newSession = () => {
    issued += 1;
    const pair = { accessJwt: `eyJ.access-${issued}.sig`, refreshJwt: `eyJ.refresh-${issued}.sig` };
    access.set(pair.accessJwt, 'live');
    refresh.set(pair.refreshJwt, 'live');
    return { did: 'did:plc:watcher000000000000000', handle: identifier, ...pair, active: true };
  };
  type Reply = (status: number, body: unknown, headers?: Record<string, string>) => void;
  const bearer = (req: http.IncomingMessage) => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  /** Answers the refusal of a token, or returns false when it is live. */
  const refused = (state: TokenState | undefined, json: Reply, missing: boolean) => {
    if (missing) return (json(401, { error: 'AuthenticationRequired', message: 'Authentication Required' }), true);
    if (state === 'expired') return (json(400, { error: 'ExpiredToken', message: 'Token has expired' }), true);
    if (state !== 'live') return (json(401, { error: 'InvalidToken', message: 'Token could not be verified' }), true);
    return false;
  };

  const search = (url: URL, json: Reply) => {
    const q = (url.searchParams.get('q') ?? '').toLowerCase();
    const limit = Number(url.searchParams.get('limit') ?? 25);
    if (!q || !Number.isInteger(limit) || limit < 1 || limit > 100) return json(400, { error: 'InvalidRequest', message: 'Error: Params must have the property "q"' });
    const since = Date.parse(url.searchParams.get('since') ?? '');
    const matching = newest.filter((p) => (!Number.isFinite(since) || Date.parse(p.createdAt) >= since) && p.text.toLowerCase().includes(q));
    const offset = Number(url.searchParams.get('cursor') ?? 0);
    const page = matching.slice(offset, offset + limit);
    json(200, {
      ...(offset + limit < matching.length ? { cursor: String(offset + limit) } : {}),
      hitsTotal: matching.length,
      posts: page.map(postView),
    }, { 'ratelimit-limit': '3000', 'ratelimit-remaining': '2999', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 300), 'ratelimit-policy': '3000;w=300' });
  };

  const profiles = extras.profiles ?? [];
  const profileOf = (actor: string) => profiles.find((p) => p.did === actor || p.handle === actor);
  /** The catalog's reads, by XRPC method; false for another method. */
  const read = (method: string, url: URL, json: Reply): boolean => {
    const actor = url.searchParams.get('actor') ?? '';
    switch (method) {
      case 'app.bsky.actor.getProfile': {
        const p = profileOf(actor);
        if (!p) return (json(400, { error: 'InvalidRequest', message: 'Profile not found' }), true);
        json(200, { did: p.did, handle: p.handle, displayName: p.displayName, description: p.description, followersCount: p.followers, followsCount: p.follows, postsCount: p.posts, createdAt: p.createdAt, indexedAt: p.createdAt, labels: [] });
        return true;
      }
      case 'app.bsky.feed.getAuthorFeed': {
        const p = profileOf(actor);
        if (!p) return (json(400, { error: 'InvalidRequest', message: 'Profile not found' }), true);
        const noReplies = url.searchParams.get('filter') === 'posts_no_replies';
        const own = newest.filter((q) => q.did === p.did && !(noReplies && q.replyTo)).map((q) => ({ at: q.createdAt, item: { post: postView(q) } }));
        const reposted = (extras.reposts ?? [])
          .filter((r) => r.by === p.did)
          .flatMap((r) => {
            const of = posts.find((q) => uriOf(q) === r.of);
            return of ? [{ at: r.at, item: { post: postView(of), reason: { $type: 'app.bsky.feed.defs#reasonRepost', by: { did: p.did, handle: p.handle }, indexedAt: r.at } } }] : [];
          });
        const feed = [...own, ...reposted].sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).map((f) => f.item);
        const limit = Number(url.searchParams.get('limit') ?? 50);
        const offset = Number(url.searchParams.get('cursor') ?? 0);
        json(200, { ...(offset + limit < feed.length ? { cursor: String(offset + limit) } : {}), feed: feed.slice(offset, offset + limit) });
        return true;
      }
      case 'app.bsky.feed.getPostThread': {
        const uri = url.searchParams.get('uri') ?? '';
        const root = posts.find((q) => uriOf(q) === uri);
        if (!root) return (json(400, { error: 'NotFound', message: `Post not found: ${uri}` }), true);
        const view = (p: BskyPost): Record<string, unknown> => ({
          $type: 'app.bsky.feed.defs#threadViewPost',
          post: postView(p),
          replies: posts
            .filter((q) => q.replyTo === uriOf(p))
            .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
            .map(view),
        });
        json(200, { thread: view(root) });
        return true;
      }
      case 'com.atproto.identity.resolveHandle': {
        const p = profileOf(url.searchParams.get('handle') ?? '');
        if (!p) return (json(400, { error: 'InvalidRequest', message: 'Unable to resolve handle' }), true);
        json(200, { did: p.did });
        return true;
      }
      default:
        return false;
    }
  };

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      fake.requests.push({ method: req.method ?? 'GET', url, headers: req.headers, body });
      const json: Reply = (status, payload, headers = {}) => res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(payload));
      if (fake.limited) {
        return json(429, { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' }, { 'ratelimit-limit': '3000', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 240), 'ratelimit-policy': '3000;w=300' });
      }
      switch (`${req.method} ${url.pathname}`) {
        case 'POST /xrpc/com.atproto.server.createSession': {
          let input: { identifier?: unknown; password?: unknown } = {};
          try {
            input = JSON.parse(body) as typeof input;
          } catch {
            return json(400, { error: 'InvalidRequest', message: 'Request body is not JSON' });
          }
          if (req.headers['content-type'] !== 'application/json' || input.identifier !== identifier || input.password !== password) {
            return json(401, { error: 'AuthenticationRequired', message: 'Invalid identifier or password' });
          }
          const session = newSession();
          return void setTimeout(() => json(200, session), fake.sessionDelayMs);
        }
        case 'POST /xrpc/com.atproto.server.refreshSession': {
          if (body !== '') return json(400, { error: 'InvalidRequest', message: 'A request body was provided when none was expected' });
          const token = bearer(req);
          if (refused(token ? refresh.get(token) : undefined, json, !token)) return;
          refresh.set(token ?? '', 'spent');
          const { accessJwt, refreshJwt, did, handle } = newSession();
          return json(200, { accessJwt, refreshJwt, did, handle, active: true });
        }
        case 'GET /xrpc/app.bsky.feed.searchPosts': {
          const token = bearer(req);
          if (refused(token ? access.get(token) : undefined, json, !token)) return;
          return search(url, json);
        }
        default: {
          const method = url.pathname.replace('/xrpc/', '');
          if (req.method === 'GET' && method !== url.pathname) {
            const token = bearer(req);
            if (refused(token ? access.get(token) : undefined, json, !token)) return;
            if (read(method, url, json)) return;
          }
          return json(501, { error: 'MethodNotImplemented', message: 'Method Not Implemented' });
        }
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
