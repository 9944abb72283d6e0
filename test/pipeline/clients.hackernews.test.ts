/**
 * The Hacker News connector (pipeline/clients/social/hackernews.ts) against a local stand-in
 * of Algolia's HN Search API and the official Firebase API: each term asked newest first
 * after `since`, paged, merged and deduplicated; comments' HTML made plain text; the Firebase
 * fallback when Algolia fails (down, rate limited, garbled), stories only, stopping once the
 * stories are older than `since`; both down is an error, never an empty answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { HackerNewsConnector } from '../../pipeline/clients/social/hackernews.js';
import { startFakeHackerNews, type FakeHackerNews, type HnItem } from '../helpers/fake-hackernews.js';

const NOW_S = Math.floor(Date.UTC(2026, 10, 26, 12) / 1000);
const HOUR = 3600;
const SINCE_MS = (NOW_S - 24 * HOUR) * 1000;

const ITEMS: HnItem[] = [
  { id: 101, type: 'story', by: 'alice', time: NOW_S - 1 * HOUR, title: 'Show HN: Acme Scraper, self-hosted', text: 'We built <i>Acme Scraper</i> because crawling is hard.' },
  { id: 102, type: 'comment', by: 'bob', time: NOW_S - 2 * HOUR, text: '<p>Acme Scraper crashed on my site.</p><p>It&#x27;s the &quot;robots&quot; parser &amp; the sitemap.</p>' },
  { id: 103, type: 'story', by: 'carol', time: NOW_S - 3 * HOUR, title: 'Ask HN: Is WebGrab better than Acme Scraper?' },
  { id: 104, type: 'story', by: 'dave', time: NOW_S - 4 * HOUR, title: 'Unrelated: a new database', text: 'Nothing to see.' },
  { id: 105, type: 'comment', by: 'erin', time: NOW_S - 5 * HOUR, text: 'WebGrab pricing is steep.' },
  { id: 106, type: 'story', by: 'frank', time: NOW_S - 48 * HOUR, title: 'Acme Scraper 0.1 (old news)' },
  ...Array.from({ length: 30 }, (_, i): HnItem => ({ id: 200 + i, type: 'comment', by: `u${i}`, time: NOW_S - 6 * HOUR - i * 60, text: `acme scraper thought number ${i}` })),
];

describe('pipeline/clients/social/hackernews', () => {
  let hn: FakeHackerNews;
  let connector: HackerNewsConnector;
  const collect = (terms: string[], limit = 100) => connector.collect({ terms, sinceMs: SINCE_MS, limit, timeoutMs: 5000 });

  beforeAll(async () => {
    hn = await startFakeHackerNews(ITEMS);
    connector = new HackerNewsConnector({ algoliaUrl: hn.algoliaUrl, firebaseUrl: hn.firebaseUrl });
  });
  afterAll(() => hn.close());

  it('asks Algolia for each term newest first after `since`, and merges the answers once each', async () => {
    hn.algolia = 'ok';
    hn.requests.length = 0;
    const { posts, source, warnings } = await collect(['Acme Scraper', 'WebGrab']);
    expect(source).toBe('hn-algolia');
    expect(warnings).toEqual([]);
    expect(posts.map((p) => p.externalId).slice(0, 5)).toEqual(['101', '102', '103', '105', '200']);
    // 101, 102, 103 and the thirty comments name Acme Scraper; 103 and 105 name WebGrab; 103 once.
    expect(posts).toHaveLength(34);
    expect(posts.some((p) => p.externalId === '106')).toBe(false);
    const searches = hn.requests.filter((u) => u.pathname.endsWith('/search_by_date'));
    expect(searches[0]?.searchParams.get('numericFilters')).toBe(`created_at_i>${SINCE_MS / 1000}`);
    expect(searches[0]?.searchParams.get('tags')).toBe('(story,comment)');
    expect(new Set(searches.map((u) => u.searchParams.get('query')))).toEqual(new Set(['Acme Scraper', 'WebGrab']));
  });

  it('answers each hit in the common shape, comments as plain text', async () => {
    hn.algolia = 'ok';
    const { posts } = await collect(['crashed']);
    expect(posts).toEqual([
      {
        platform: 'hackernews',
        externalId: '102',
        url: 'https://news.ycombinator.com/item?id=102',
        author: 'bob',
        title: null,
        text: 'Acme Scraper crashed on my site.\nIt\'s the "robots" parser & the sitemap.',
        publishedAtMs: (NOW_S - 2 * HOUR) * 1000,
        lang: null,
      },
    ]);
    const link = (await collect(['WebGrab better'])).posts[0];
    expect(link).toMatchObject({ externalId: '103', title: 'Ask HN: Is WebGrab better than Acme Scraper?', text: 'Ask HN: Is WebGrab better than Acme Scraper?' });
  });

  it('pages with `page` until the hits run out, and stops at `limit`', async () => {
    hn.algolia = 'ok';
    hn.requests.length = 0;
    const all = await connector.collect({ terms: ['acme'], sinceMs: SINCE_MS, limit: 10, timeoutMs: 5000 });
    expect(all.posts).toHaveLength(10);
    const pages = hn.requests.filter((u) => u.pathname.endsWith('/search_by_date')).map((u) => u.searchParams.get('page'));
    expect(pages).toEqual(['0']);
    hn.requests.length = 0;
    const wide = await connector.collect({ terms: ['thought'], sinceMs: SINCE_MS, limit: 25, timeoutMs: 5000 });
    expect(wide.posts).toHaveLength(25);
    expect(hn.requests.filter((u) => u.pathname.endsWith('/search_by_date')).map((u) => u.searchParams.get('hitsPerPage'))).toEqual(['25']);
  });

  it.each(['down', 'rate_limited', 'garbled'] as const)('falls back to the Firebase API when Algolia is %s: stories only, with a warning', async (mode) => {
    hn.algolia = mode;
    hn.requests.length = 0;
    const { posts, source, warnings } = await collect(['acme scraper', 'webgrab']);
    expect(source).toBe('hn-firebase');
    expect(posts.map((p) => p.externalId)).toEqual(['101', '103']);
    expect(warnings[0]).toMatch(/Algolia\) failed .*stories only, no comments/);
    // The scan stopped at the first batch older than `since`: the 48-hour-old story was read, nothing after it.
    expect(hn.requests.filter((u) => u.pathname.startsWith('/v0/item/')).length).toBeLessThanOrEqual(8);
  });

  it('fails, never answering empty, when both APIs are down', async () => {
    const down = new HackerNewsConnector({ algoliaUrl: 'http://127.0.0.1:9/api/v1', firebaseUrl: 'http://127.0.0.1:9/v0' });
    await expect(down.collect({ terms: ['acme'], sinceMs: SINCE_MS, limit: 10, timeoutMs: 2000 })).rejects.toBeInstanceOf(ServiceError);
  });
});
