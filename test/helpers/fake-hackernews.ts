/**
 * A local stand-in for Hacker News's two APIs on 127.0.0.1: Algolia's HN Search API
 * (`/api/v1/search_by_date` with `query`, `tags`, `numericFilters=created_at_i>N`,
 * `hitsPerPage`, `page`; answering `hits`, `nbHits`, `page`, `nbPages`, `hitsPerPage`) and the
 * official Firebase API (`/v0/newstories.json`, `/v0/item/<id>.json`), over one set of items.
 * `algolia` sets how Algolia answers (`ok`, `down` 500, `rate_limited` 429 with
 * Retry-After, `garbled` not JSON); every request is recorded.
 *
 * The social catalog's reads too: Algolia's `/api/v1/items/<id>` (the item with its comment
 * tree, `children` nested, built from the items' `parent`; 404 `{"status":404,"error":"Not
 * Found"}` for an unknown id), the official `/v0/<list>stories.json` lists (`new`, `top`,
 * `best`: every story newest first; `ask`, `show`: the stories titled `Ask HN` or `Show HN`;
 * `job`: none) and `/v0/user/<id>.json` (`null` for an unknown user).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HnItem {
  readonly id: number;
  readonly type: 'story' | 'comment';
  readonly by: string;
  /** Epoch seconds. */
  readonly time: number;
  readonly title?: string;
  /** HTML. */
  readonly text?: string;
  readonly url?: string;
  /** A comment's parent (a story or a comment); a comment without one answers story 1. */
  readonly parent?: number;
  /** A deleted comment: no author, no text. */
  readonly deleted?: boolean;
}

export interface HnUser {
  readonly id: string;
  /** Epoch seconds. */
  readonly created: number;
  readonly karma: number;
  /** HTML. */
  readonly about?: string;
  readonly submitted: readonly number[];
}

export interface FakeHackerNews {
  /** HACKERNEWS_URL */
  readonly algoliaUrl: string;
  /** HACKERNEWS_FIREBASE_URL */
  readonly firebaseUrl: string;
  algolia: 'ok' | 'down' | 'rate_limited' | 'garbled';
  readonly requests: URL[];
  close(): Promise<void>;
}

function hitOf(item: HnItem): Record<string, unknown> {
  return {
    objectID: String(item.id),
    created_at: new Date(item.time * 1000).toISOString(),
    created_at_i: item.time,
    title: item.type === 'story' ? (item.title ?? null) : null,
    url: item.url ?? null,
    author: item.by,
    points: item.type === 'story' ? 10 : null,
    story_text: item.type === 'story' ? (item.text ?? null) : null,
    comment_text: item.type === 'comment' ? (item.text ?? null) : null,
    story_id: item.type === 'comment' ? 1 : null,
    _tags: [item.type, `author_${item.by}`],
  };
}

/** An item with its replies, as Algolia's items endpoint nests them (oldest reply first). */
function treeOf(item: HnItem, items: readonly HnItem[]): Record<string, unknown> {
  const replies = items.filter((i) => i.type === 'comment' && (i.parent ?? 1) === item.id && i.id !== item.id).sort((a, b) => a.time - b.time);
  return {
    id: item.id,
    created_at: new Date(item.time * 1000).toISOString(),
    created_at_i: item.time,
    type: item.type,
    author: item.deleted ? null : item.by,
    title: item.type === 'story' ? (item.title ?? null) : null,
    url: item.url ?? null,
    text: item.deleted ? null : (item.text ?? null),
    points: item.type === 'story' ? 10 : null,
    parent_id: item.type === 'comment' ? (item.parent ?? 1) : null,
    story_id: item.type === 'story' ? item.id : 1,
    children: replies.map((r) => treeOf(r, items)),
    options: [],
  };
}

const LISTS: Readonly<Record<string, (i: HnItem) => boolean>> = {
  new: () => true,
  top: () => true,
  best: () => true,
  ask: (i) => (i.title ?? '').startsWith('Ask HN'),
  show: (i) => (i.title ?? '').startsWith('Show HN'),
  job: () => false,
};

export async function startFakeHackerNews(items: readonly HnItem[], users: readonly HnUser[] = []): Promise<FakeHackerNews> {
  const newestFirst = [...items].sort((a, b) => b.time - a.time);
  const fake: FakeHackerNews = { algoliaUrl: '', firebaseUrl: '', algolia: 'ok', requests: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests.push(url);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    if (url.pathname.startsWith('/api/v1/')) {
      if (fake.algolia === 'down') return json(500, { message: 'internal error' });
      if (fake.algolia === 'rate_limited') return json(429, { message: 'too many requests' }, { 'retry-after': '3600' });
      if (fake.algolia === 'garbled') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    }
    if (url.pathname === '/api/v1/search_by_date') {
      const words = (url.searchParams.get('query') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const after = Number(/created_at_i>(\d+)/.exec(url.searchParams.get('numericFilters') ?? '')?.[1] ?? 0);
      const perPage = Number(url.searchParams.get('hitsPerPage') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 0);
      const matching = newestFirst.filter((i) => i.time > after && words.every((w) => `${i.title ?? ''} ${i.text ?? ''}`.toLowerCase().includes(w)));
      const hits = matching.slice(page * perPage, (page + 1) * perPage).map(hitOf);
      return json(200, { hits, nbHits: matching.length, page, nbPages: Math.ceil(matching.length / perPage), hitsPerPage: perPage, processingTimeMS: 1, query: words.join(' '), params: url.search.slice(1) });
    }
    const tree = /^\/api\/v1\/items\/(\d+)$/.exec(url.pathname);
    if (tree) {
      const found = items.find((i) => i.id === Number(tree[1]));
      return found ? json(200, treeOf(found, items)) : json(404, { status: 404, error: 'Not Found' });
    }
    const storyList = /^\/v0\/(\w+)stories\.json$/.exec(url.pathname);
    const keep = storyList ? LISTS[storyList[1] as string] : undefined;
    if (keep) return json(200, newestFirst.filter((i) => i.type === 'story' && keep(i)).map((i) => i.id));
    const user = /^\/v0\/user\/([^/]+)\.json$/.exec(url.pathname);
    if (user) return json(200, users.find((u) => u.id === decodeURIComponent(user[1] as string)) ?? null);
    const item = /^\/v0\/item\/(\d+)\.json$/.exec(url.pathname);
    if (item) {
      const found = items.find((i) => i.id === Number(item[1]));
      return json(200, found ? { ...found, ...(found.type === 'story' ? {} : { parent: found.parent ?? 1 }) } : null);
    }
    json(404, { error: 'not found' });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(fake, {
    algoliaUrl: `${origin}/api/v1`,
    firebaseUrl: `${origin}/v0`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
