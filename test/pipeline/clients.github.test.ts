/**
 * The GitHub connector (pipeline/clients/social/github.ts) against a local stand-in of the
 * issue search API: each term a quoted phrase after `since`, newest first, paged; the API's
 * headers and token sent; a spent quota (403 or 429 with the rate-limit headers, a secondary
 * limit's retry-after) is `rate_limited` with its wait, never a refused token; a last request
 * stops the paging with a warning; no token is "not configured", never an empty answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { GitHubConnector } from '../../pipeline/clients/social/github.js';
import { startFakeGitHub, type FakeGitHub, type GhIssue } from '../helpers/fake-github.js';

const NOW = Date.UTC(2026, 10, 26, 12);
const HOUR = 3_600_000;
const SINCE = NOW - 24 * HOUR;
const at = (ms: number) => new Date(ms).toISOString();

const ISSUES: GhIssue[] = [
  { id: 9001, number: 12, repo: 'acme/site', title: 'Acme Scraper crashes on sitemaps', body: 'Steps: run Acme Scraper on a big sitemap.', login: 'alice', createdAt: at(NOW - HOUR) },
  { id: 9002, number: 13, repo: 'acme/site', title: 'Question about WebGrab', body: null, login: 'bob', createdAt: at(NOW - 2 * HOUR) },
  { id: 9003, number: 14, repo: 'other/repo', title: 'Old: acme scraper idea', body: '', login: 'carol', createdAt: at(NOW - 48 * HOUR) },
  ...Array.from({ length: 150 }, (_, i): GhIssue => ({ id: 10_000 + i, number: 100 + i, repo: 'big/repo', title: `Acme Scraper report ${i}`, body: 'details', login: `u${i}`, createdAt: at(NOW - 3 * HOUR - i * 60_000) })),
];

describe('pipeline/clients/social/github', () => {
  let gh: FakeGitHub;
  let connector: GitHubConnector;
  const collect = (terms: string[], limit = 500) => connector.collect({ terms, sinceMs: SINCE, limit, timeoutMs: 5000 });

  beforeAll(async () => {
    gh = await startFakeGitHub(ISSUES);
    connector = new GitHubConnector({ apiUrl: gh.url, token: gh.token });
  });
  afterAll(() => gh.close());

  it('asks for each term as a phrase after `since`, with the API headers, paged, newest first', async () => {
    gh.quota = 'ok';
    gh.requests.length = 0;
    const { posts, source, warnings } = await collect(['Acme Scraper', 'WebGrab']);
    expect(source).toBe('github');
    expect(warnings).toEqual([]);
    expect(posts).toHaveLength(152);
    expect(posts.slice(0, 2)).toEqual([
      { platform: 'github', externalId: '9001', url: 'https://github.com/acme/site/issues/12', author: 'alice', title: 'Acme Scraper crashes on sitemaps', text: 'Steps: run Acme Scraper on a big sitemap.', publishedAtMs: NOW - HOUR, lang: null },
      { platform: 'github', externalId: '9002', url: 'https://github.com/acme/site/issues/13', author: 'bob', title: 'Question about WebGrab', text: '', publishedAtMs: NOW - 2 * HOUR, lang: null },
    ]);
    const first = gh.requests[0];
    expect(first?.url.searchParams.get('q')).toBe(`"Acme Scraper" in:title,body is:issue created:>${at(SINCE).replace('.000Z', 'Z')}`);
    expect(first?.url.searchParams.get('sort')).toBe('created');
    expect(first?.headers).toMatchObject({ accept: 'application/vnd.github+json', authorization: `Bearer ${gh.token}`, 'x-github-api-version': '2022-11-28' });
    expect(gh.requests.filter((r) => r.url.searchParams.get('q')?.startsWith('"Acme')).map((r) => r.url.searchParams.get('page'))).toEqual(['1', '2']);
  });

  it('stops at `limit`', async () => {
    gh.quota = 'ok';
    gh.requests.length = 0;
    expect((await collect(['Acme Scraper'], 30)).posts).toHaveLength(30);
    expect(gh.requests).toHaveLength(1);
  });

  it.each([
    ['spent (403, remaining 0)', 'spent' as const, 50_000],
    ['a secondary limit (403, retry-after)', 'secondary' as const, 30_000],
  ])('reports a quota %s as rate_limited with its wait', async (_what, quota, atLeastMs) => {
    gh.quota = quota;
    const error = await collect(['Acme Scraper']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).kind).toBe('rate_limited');
    expect((error as ServiceError).retryAfterMs).toBeGreaterThanOrEqual(atLeastMs);
  });

  it('stops paging when an answer says the quota is spent, and says so', async () => {
    gh.quota = 'last';
    gh.requests.length = 0;
    const { posts, warnings } = await collect(['Acme Scraper', 'WebGrab']);
    expect(posts).toHaveLength(100);
    expect(gh.requests).toHaveLength(1);
    expect(warnings).toEqual(['GitHub search quota spent: the results stop here until it resets.']);
  });

  it('passes on an incomplete search as a warning', async () => {
    gh.quota = 'ok';
    gh.incomplete = true;
    const { warnings } = await collect(['WebGrab']);
    gh.incomplete = false;
    expect(warnings[0]).toMatch(/timed out on its side/);
  });

  it('is not configured without a token, and a refused token is rejected', async () => {
    const none = new GitHubConnector({ apiUrl: gh.url, token: null });
    expect(none.notConfigured).toBe('GITHUB_TOKEN is not set');
    await expect(none.collect({ terms: ['x'], sinceMs: SINCE, limit: 5, timeoutMs: 1000 })).rejects.toMatchObject({ kind: 'rejected' });
    gh.quota = 'ok';
    const wrong = new GitHubConnector({ apiUrl: gh.url, token: 'ghp_wrong' });
    const error = (await wrong.collect({ terms: ['x'], sinceMs: SINCE, limit: 5, timeoutMs: 1000 }).catch((e: unknown) => e)) as ServiceError;
    expect(error.kind).toBe('rejected');
    expect(error.message).not.toContain('ghp_wrong');
  });
});
