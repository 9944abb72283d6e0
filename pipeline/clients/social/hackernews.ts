/**
 * Hacker News as a source of mentions.
 *
 * - **Algolia's HN Search API** (HACKERNEWS_URL, default `https://hn.algolia.com/api/v1`):
 *   `GET /search_by_date?query=<term>&tags=(story,comment)&numericFilters=created_at_i><since>
 *   &hitsPerPage=<n>&page=<p>`, newest first, one query per term (Algolia matches all the words
 *   of a query; a watch's terms are alternatives), paged by `page` until the hits run out
 *   (`nbPages`), reach `limit`, or Algolia's own cap (MAX_PAGES pages). No key; a 429 (about
 *   10,000 requests an hour an IP) is a failure like any other.
 * - **The official Firebase API** as the fallback (HACKERNEWS_FIREBASE_URL, default
 *   `https://hacker-news.firebaseio.com/v0`) when Algolia fails (its repository was archived
 *   in February 2026): `GET /newstories.json` (the newest stories' ids, newest first), then
 *   `GET /item/<id>.json` for each, FIREBASE_PARALLEL at a time, until they are older than
 *   `sinceMs` or FIREBASE_SCAN items were read; a story matches when its title or text
 *   contains a term (case-insensitive). Firebase has no search: comments are not reached, and
 *   the answer's warning says so.
 *
 * A hit's post: `objectID` as the id, `https://news.ycombinator.com/item?id=<id>` as the URL,
 * `author`, the story's `title` (a comment has none; its story's title is not its own),
 * `comment_text` or `story_text` (HTML, made plain text) — a link story without text is its
 * title — and `created_at_i`.
 *
 * The social catalog's reads (types.ts):
 * - `thread`: Algolia's `GET /items/<id>`, the item with its whole comment tree in one answer
 *   (`children`, each with its own; read up to THREAD_MAX_BYTES); walked without recursion in
 *   the thread's order, at most `limit` comments. A deleted comment (no author, no text) is
 *   skipped, its replies kept (answering its parent). Algolia's 404 is NotOnPlatform.
 * - `stories`: a list of the official API (`/newstories.json`, `/topstories.json`,
 *   `/beststories.json`, `/askstories.json`, `/showstories.json`, `/jobstories.json`: ids in
 *   the list's order, 500 at most), `limit` items from an offset (the cursor), read
 *   FIREBASE_PARALLEL at a time; deleted and dead items are left out.
 * - `user`: the official API's `GET /user/<id>.json` (`id`, `created`, `karma`, `about` as
 *   HTML, `submitted`); `null` is NotOnPlatform.
 */
import { mapBounded } from '../../runtime/bounded.js';
import type { HttpFetcher } from '../../runtime/net/http.js';
import { below, list, record, text } from '../json-shapes.js';
import { getJson, isServiceError, serviceFetcher, ServiceError } from '../service-http.js';
import { htmlText } from './html-text.js';
import { MAX_COMMENTS, newestFirst, NotOnPlatform } from './types.js';
import type { Collected, CollectQuery, Connector, FoundComment, FoundPost, PostsPage, Profile, ReadOptions, Thread } from './types.js';

export interface HackerNewsOptions {
  /** HACKERNEWS_URL: Algolia's HN Search API base. */
  readonly algoliaUrl: string;
  /** HACKERNEWS_FIREBASE_URL: the official API's base. */
  readonly firebaseUrl: string;
  readonly fetcher?: HttpFetcher;
}

const SERVICE = 'hackernews';
/** Algolia serves at most 1,000 hits a query: 10 pages of 100. */
export const MAX_PAGES = 10;
const HITS_PER_PAGE = 100;
/** Items the fallback reads at most, and how many at a time. */
export const FIREBASE_SCAN = 300;
const FIREBASE_PARALLEL = 8;

/** The largest item tree read: a thread of thousands of comments is several MiB. */
export const THREAD_MAX_BYTES = 16 * 1024 * 1024;

/** The official API's story lists. */
export const HN_LISTS = ['new', 'top', 'best', 'ask', 'show', 'job'] as const;
export type HnList = (typeof HN_LISTS)[number];

export const itemUrl = (id: string) => `https://news.ycombinator.com/item?id=${encodeURIComponent(id)}`;

export class HackerNewsConnector implements Connector {
  readonly platform = 'hackernews' as const;
  readonly notConfigured = null;
  private readonly algolia: URL;
  private readonly firebase: URL;
  private readonly fetcher: HttpFetcher;

  constructor(options: HackerNewsOptions) {
    this.algolia = new URL(options.algoliaUrl);
    this.firebase = new URL(options.firebaseUrl);
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async collect(query: CollectQuery): Promise<Collected> {
    try {
      const found: FoundPost[] = [];
      for (const term of query.terms) found.push(...(await this.searchAlgolia(term, query)));
      return { posts: newestFirst(found, query.limit), source: 'hn-algolia', warnings: [] };
    } catch (error) {
      if (!isServiceError(error) || query.signal?.aborted) throw error;
      const posts = await this.scanFirebase(query);
      return {
        posts,
        source: 'hn-firebase',
        warnings: [`Hacker News search (Algolia) failed (${error.message}); the newest stories were read from the official API instead: stories only, no comments.`],
      };
    }
  }

  /** `limit` items of a story list from `offset` (see the header). */
  async stories(which: HnList, offset: number, limit: number, options: ReadOptions): Promise<PostsPage> {
    const ids = list(await this.firebaseJson(`/${which}stories.json`, options)).filter((id): id is number => typeof id === 'number');
    const chosen = ids.slice(offset, offset + limit);
    const items = await mapBounded(chosen, FIREBASE_PARALLEL, (id) => this.firebaseJson(`/item/${id}.json`, options).then(itemPost), options.signal);
    if (options.signal?.aborted) throw options.signal.reason;
    const posts = items.filter((p): p is FoundPost => p !== null && p !== undefined);
    return { posts, next: offset + limit < ids.length ? String(offset + limit) : null, warnings: [] };
  }

  /** An item with its comments, at most `limit` of them (see the header). */
  async thread(id: string, limit: number, options: ReadOptions): Promise<Thread> {
    let answer;
    try {
      answer = await getJson(SERVICE, { url: below(this.algolia, `/items/${encodeURIComponent(id)}`), maxBytes: THREAD_MAX_BYTES, ...timing(options) }, this.fetcher);
    } catch (error) {
      if (isServiceError(error) && error.status === 404) throw new NotOnPlatform('hackernews', `no item ${id}`);
      throw error;
    }
    const thread = threadOf(answer.json, Math.min(limit, MAX_COMMENTS));
    if (!thread) throw new ServiceError(SERVICE, 'unreadable', 'Algolia answered an item without an id or a time');
    return thread;
  }

  /** A user's profile (see the header). */
  async user(username: string, options: ReadOptions): Promise<Profile> {
    const u = record(await this.firebaseJson(`/user/${encodeURIComponent(username)}.json`, options));
    const id = text(u?.id);
    if (!u || !id) throw new NotOnPlatform('hackernews', `no user ${username}`);
    const about = text(u.about);
    return {
      platform: 'hackernews',
      id,
      username: id,
      name: null,
      description: about ? htmlText(about) : null,
      url: `https://news.ycombinator.com/user?id=${encodeURIComponent(id)}`,
      createdAtMs: typeof u.created === 'number' ? u.created * 1000 : null,
      followers: null,
      following: null,
      posts: Array.isArray(u.submitted) ? u.submitted.length : null,
      karma: typeof u.karma === 'number' ? u.karma : null,
    };
  }

  private async firebaseJson(path: string, options: ReadOptions): Promise<unknown> {
    return (await getJson(SERVICE, { url: below(this.firebase, path), ...timing(options) }, this.fetcher)).json;
  }

  private async searchAlgolia(term: string, query: CollectQuery): Promise<FoundPost[]> {
    const out: FoundPost[] = [];
    const perPage = Math.min(HITS_PER_PAGE, Math.max(1, query.limit));
    for (let page = 0; page < MAX_PAGES && out.length < query.limit; page++) {
      const url = below(this.algolia, '/search_by_date');
      url.searchParams.set('query', term);
      url.searchParams.set('tags', '(story,comment)');
      url.searchParams.set('numericFilters', `created_at_i>${Math.floor(query.sinceMs / 1000)}`);
      url.searchParams.set('hitsPerPage', String(perPage));
      url.searchParams.set('page', String(page));
      const answer = await getJson(SERVICE, { url, timeoutMs: query.timeoutMs, ...(query.signal ? { signal: query.signal } : {}) }, this.fetcher);
      const body = record(answer.json);
      if (!body || !Array.isArray(body.hits)) throw new ServiceError(SERVICE, 'unreadable', 'Algolia answered without a `hits` list');
      const hits = list(body.hits).map(hitPost).filter((p): p is FoundPost => p !== null && p.publishedAtMs > query.sinceMs);
      out.push(...hits);
      const pages = typeof body.nbPages === 'number' ? body.nbPages : 0;
      if (body.hits.length === 0 || page + 1 >= pages) break;
    }
    return out;
  }

  private async scanFirebase(query: CollectQuery): Promise<FoundPost[]> {
    const signal = query.signal ? { signal: query.signal } : {};
    const ids = list((await getJson(SERVICE, { url: below(this.firebase, '/newstories.json'), timeoutMs: query.timeoutMs, ...signal }, this.fetcher)).json)
      .filter((id): id is number => typeof id === 'number')
      .slice(0, FIREBASE_SCAN);
    const terms = query.terms.map((t) => t.toLowerCase());
    const found: FoundPost[] = [];
    for (let start = 0; start < ids.length && found.length < query.limit; start += FIREBASE_PARALLEL) {
      const batch = ids.slice(start, start + FIREBASE_PARALLEL);
      const items = await mapBounded(batch, FIREBASE_PARALLEL, (id) =>
        getJson(SERVICE, { url: below(this.firebase, `/item/${id}.json`), timeoutMs: query.timeoutMs, ...signal }, this.fetcher).then((a) => itemPost(a.json)),
      );
      const posts = items.filter((p): p is FoundPost => p !== null && p !== undefined);
      found.push(...posts.filter((p) => p.publishedAtMs > query.sinceMs && matches(p, terms)));
      // Newest first: once a whole batch is older than `since`, so is everything after it.
      if (posts.length > 0 && posts.every((p) => p.publishedAtMs <= query.sinceMs)) break;
    }
    return newestFirst(found, query.limit);
  }
}

function timing(options: ReadOptions): { timeoutMs: number; signal?: AbortSignal } {
  return { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
}

/** A node of Algolia's item tree as a post; null when deleted (no author and no text) or without an id or time. */
function nodePost(node: unknown): FoundPost | null {
  const n = record(node);
  const at = typeof n?.created_at_i === 'number' ? n.created_at_i * 1000 : null;
  if (!n || typeof n.id !== 'number' || at === null) return null;
  const title = text(n.title);
  const body = text(n.text);
  const author = text(n.author);
  if (!author && !body && !title) return null;
  const id = String(n.id);
  return { platform: 'hackernews', externalId: id, url: itemUrl(id), author, title, text: body ? htmlText(body) : (title ?? ''), publishedAtMs: at, lang: null };
}

/**
 * An Algolia item tree as a thread: its comments in the thread's order (each before its
 * replies), at most `limit`, walked with a stack (no recursion however deep the tree).
 * Null when the root is not an item.
 */
export function threadOf(tree: unknown, limit: number): Thread | null {
  const root = record(tree);
  const post = nodePost(root);
  if (!root || !post) return null;
  const comments: FoundComment[] = [];
  let truncated = false;
  type Pending = { readonly node: unknown; readonly parentId: string; readonly depth: number };
  const childrenOf = (node: unknown, parentId: string, depth: number): Pending[] => list(record(node)?.children).map((child) => ({ node: child, parentId, depth })).reverse();
  const stack: Pending[] = childrenOf(root, post.externalId, 1);
  while (stack.length > 0) {
    const { node, parentId, depth } = stack.pop() as Pending;
    const comment = nodePost(node);
    const id = comment?.externalId ?? (typeof record(node)?.id === 'number' ? String(record(node)?.id) : null);
    if (comment) {
      if (comments.length >= limit) {
        truncated = true;
        break;
      }
      comments.push({ ...comment, title: null, parentId, depth });
    }
    if (id) stack.push(...childrenOf(node, comment ? id : parentId, comment ? depth + 1 : depth));
  }
  return { post, comments, truncated, warnings: [] };
}

function matches(post: FoundPost, terms: readonly string[]): boolean {
  const haystack = `${post.title ?? ''}\n${post.text}`.toLowerCase();
  return terms.some((t) => haystack.includes(t));
}

/** An Algolia hit as a post; null when it lacks an id or a time. */
export function hitPost(hit: unknown): FoundPost | null {
  const h = record(hit);
  const id = text(h?.objectID);
  const at = typeof h?.created_at_i === 'number' ? h.created_at_i * 1000 : null;
  if (!h || !id || at === null) return null;
  const title = text(h.title);
  const body = text(h.comment_text) ?? text(h.story_text);
  return { platform: 'hackernews', externalId: id, url: itemUrl(id), author: text(h.author), title, text: body ? htmlText(body) : (title ?? ''), publishedAtMs: at, lang: null };
}

/** A Firebase item as a post: stories (and polls, jobs) only; null for comments, deleted or dead items. */
export function itemPost(item: unknown): FoundPost | null {
  const i = record(item);
  if (!i || typeof i.id !== 'number' || typeof i.time !== 'number' || i.deleted === true || i.dead === true || i.type === 'comment') return null;
  const id = String(i.id);
  const title = text(i.title);
  const body = text(i.text);
  return { platform: 'hackernews', externalId: id, url: itemUrl(id), author: text(i.by), title, text: body ? htmlText(body) : (title ?? ''), publishedAtMs: i.time * 1000, lang: null };
}
