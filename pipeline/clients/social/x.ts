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
 */
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, serviceFetcher, ServiceError } from '../service-http.js';
import { newestFirst, type Collected, type CollectQuery, type Connector, type FoundPost } from './types.js';

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
  private readonly token: string | null;
  private readonly fetcher: HttpFetcher;
  private readonly now: () => number;

  constructor(options: XOptions) {
    this.api = new URL(options.apiUrl);
    this.token = options.bearerToken;
    this.notConfigured = options.bearerToken ? null : 'X_BEARER_TOKEN is not set';
    this.fetcher = options.fetcher ?? serviceFetcher();
    this.now = options.now ?? Date.now;
  }

  async collect(query: CollectQuery): Promise<Collected> {
    if (!this.token) throw new ServiceError(SERVICE, 'rejected', this.notConfigured ?? 'not configured');
    const earliest = this.now() - RECENT_WINDOW_MS;
    const start = Math.max(query.sinceMs, earliest);
    const warnings = query.sinceMs < earliest ? ['X recent search reaches back seven days: older posts are not searched.'] : [];
    const found: FoundPost[] = [];
    for (const q of recentQueries(query.terms)) found.push(...(await this.search(this.token, q, start, query)));
    return { posts: newestFirst(found, query.limit), source: SERVICE, warnings };
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
      const users = new Map<string, string>();
      for (const user of list(record(body.includes)?.users)) {
        const u = record(user);
        const id = text(u?.id);
        const username = text(u?.username);
        if (id && username) users.set(id, username);
      }
      out.push(...list(body.data).map((t) => postOf(t, users)).filter((p): p is FoundPost => p !== null && p.publishedAtMs > query.sinceMs));
      next = text(meta.next_token);
      if (!next) break;
    }
    return out;
  }
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
