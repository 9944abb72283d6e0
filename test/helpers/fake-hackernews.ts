/**
 * A local stand-in for Hacker News's two APIs on 127.0.0.1: Algolia's HN Search API
 * (`/api/v1/search_by_date` with `query`, `tags`, `numericFilters=created_at_i>N`,
 * `hitsPerPage`, `page`; answering `hits`, `nbHits`, `page`, `nbPages`, `hitsPerPage`) and the
 * official Firebase API (`/v0/newstories.json`, `/v0/item/<id>.json`), over one set of items.
 * `algolia` sets how the search answers (`ok`, `down` 500, `rate_limited` 429 with
 * Retry-After, `garbled` not JSON); every request is recorded.
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

export async function startFakeHackerNews(items: readonly HnItem[]): Promise<FakeHackerNews> {
  const newestFirst = [...items].sort((a, b) => b.time - a.time);
  const fake: FakeHackerNews = { algoliaUrl: '', firebaseUrl: '', algolia: 'ok', requests: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests.push(url);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    if (url.pathname === '/api/v1/search_by_date') {
      if (fake.algolia === 'down') return json(500, { message: 'internal error' });
      if (fake.algolia === 'rate_limited') return json(429, { message: 'too many requests' }, { 'retry-after': '3600' });
      if (fake.algolia === 'garbled') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      const words = (url.searchParams.get('query') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const after = Number(/created_at_i>(\d+)/.exec(url.searchParams.get('numericFilters') ?? '')?.[1] ?? 0);
      const perPage = Number(url.searchParams.get('hitsPerPage') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 0);
      const matching = newestFirst.filter((i) => i.time > after && words.every((w) => `${i.title ?? ''} ${i.text ?? ''}`.toLowerCase().includes(w)));
      const hits = matching.slice(page * perPage, (page + 1) * perPage).map(hitOf);
      return json(200, { hits, nbHits: matching.length, page, nbPages: Math.ceil(matching.length / perPage), hitsPerPage: perPage, processingTimeMS: 1, query: words.join(' '), params: url.search.slice(1) });
    }
    if (url.pathname === '/v0/newstories.json') return json(200, newestFirst.filter((i) => i.type === 'story').map((i) => i.id));
    const item = /^\/v0\/item\/(\d+)\.json$/.exec(url.pathname);
    if (item) {
      const found = items.find((i) => i.id === Number(item[1]));
      return json(200, found ? { ...found, ...(found.type === 'story' ? {} : { parent: 1 }) } : null);
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
