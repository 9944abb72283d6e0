/**
 * actors/frontier map discovery and its handler against generated local sites
 * (test/helpers/map-site.ts), without a bus: MapRequested in, the Reply out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_LEAD_MS, timeoutWithin } from '../../actors/frontier/map-budget.js';
import { handleMapRequested as handleMap, mapOptionsOf, type MapHandlerDeps, type MapRequested } from '../../actors/frontier/index.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';
import { mapRequested, runHandler } from '../helpers/events.js';
import { HIDDEN_PER_SECTION, NEWS_PAGE, NEWS_TITLE, SECTIONS, SITEMAP_PAGES, startBareSite, startMapSite, type MapSite } from '../helpers/map-site.js';

const MAP_CREDITS = PRICES.map.credits;

const log = createLogger('silent');
const open = new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }) });
const closed = new HttpFetcher({ guard: new NetGuard({ allowPrivate: false }) });

function request(url: string, options: Record<string, unknown> = {}, deadlineInMs = 30_000): MapRequested {
  return mapRequested(url, options, { requestId: 'req_map_test', tenant: 'key_test', deadlineMs: Date.now() + deadlineInMs });
}

/** The frontier's MapRequested handler, run as the pool runs it (the deadline drop and failure answers are the pool's). */
function handleMapRequested(event: MapRequested, deps: MapHandlerDeps, signal: AbortSignal) {
  return runHandler('MapRequested', (e, ctx) => handleMap(e, { ...deps, log: ctx.log }, ctx.signal), event, { signal, log: deps.log, actor: 'frontier' });
}

interface Answer {
  ok: boolean;
  credits: number;
  errorCode: string | null;
  links: { url: string; title?: string; description?: string }[];
  warning?: string;
}

function reply(outcome: Outcome): Answer {
  expect(outcome.kind).toBe('ack');
  const emit = outcome.kind === 'ack' ? outcome.emit ?? [] : [];
  expect(emit).toHaveLength(1);
  const value = emit[0]?.value as EventValue<'Reply'>;
  const data = value.ok ? (JSON.parse(value.data ?? '{}') as Pick<Answer, 'links' | 'warning'>) : { links: [] };
  return { ok: value.ok, credits: value.credits, errorCode: value.errorCode, ...data };
}

async function map(url: string, options: Record<string, unknown> = {}, http = open, budgetMs?: number): Promise<Answer> {
  return reply(await handleMapRequested(request(url, options), { http, log, ...(budgetMs !== undefined ? { budgetMs } : {}) }, new AbortController().signal));
}

describe('actors/frontier map', () => {
  let site: MapSite;
  beforeAll(async () => {
    site = await startMapSite();
  });
  afterAll(async () => {
    await site?.close();
    open.close();
    closed.close();
  });

  it('finds every sitemap URL (index, gzipped), the home links and the pages only links reach; charges the flat price', async () => {
    site.requests.length = 0;
    const answer = await map(site.url('/'));
    expect(answer.ok).toBe(true);
    expect(answer.credits).toBe(MAP_CREDITS);
    expect(answer.warning).toBeUndefined();
    const urls = answer.links.map((l) => l.url);
    expect(urls[0]).toBe(site.url('/'));
    expect(new Set(urls).size).toBe(urls.length);
    for (let n = 1; n <= SITEMAP_PAGES; n++) expect(urls, `/page/${n}`).toContain(site.url(`/page/${n}`));
    for (let k = 0; k < SECTIONS; k++) {
      expect(urls).toContain(site.url(`/section/${k}`));
      for (let j = 0; j < HIDDEN_PER_SECTION; j++) expect(urls, `/hidden/${k}/${j}`).toContain(site.url(`/hidden/${k}/${j}`));
    }
    expect(urls).toContain(site.url('/animals/zebra-facts'));
    // Listed because the home page links it, never walked: robots.txt disallows /private/.
    expect(urls).toContain(site.url('/private/area'));
    expect(urls).not.toContain(site.url('/secret/1'));
    expect(site.requests).not.toContain('/private/area');
    // Other hosts, subdomains (not asked for), duplicates and tracking parameters stay out.
    expect(urls.filter((u) => !u.startsWith(site.origin))).toEqual([]);
    expect(urls.some((u) => u.includes('utm_') || u.includes('#'))).toBe(false);
    expect(urls).toHaveLength(1 + SECTIONS + SITEMAP_PAGES + 1 + SECTIONS * HIDDEN_PER_SECTION + 1);
    // Titles: the page's own <title> when walked, a sitemap news title, else the link text.
    const byUrl = new Map(answer.links.map((l) => [l.url, l]));
    expect(byUrl.get(site.url('/'))).toMatchObject({ title: 'Map fixture home', description: 'The home of the map fixture' });
    expect(byUrl.get(site.url(`/page/${NEWS_PAGE}`))?.title).toBe(NEWS_TITLE);
    expect(byUrl.get(site.url('/page/3'))?.title).toBe('Page 3');
    expect(byUrl.get(site.url('/hidden/2/3'))?.title).toBe('Hidden 2-3');
    expect(byUrl.get(site.url('/hidden/0/3'))?.title).toBe('Room 0-3');
    expect(byUrl.get(site.url('/private/area'))?.title).toBe('Members');
    // The walk stayed shallow: a few pages, not the site.
    const walked = site.requests.filter((p) => p.startsWith('/page/') || p.startsWith('/section/') || p.startsWith('/hidden/'));
    expect(walked.length).toBeGreaterThanOrEqual(SECTIONS);
    expect(walked.length).toBeLessThanOrEqual(25);
    expect(site.requests).toContain('/sitemaps/pages-2.xml.gz');
  });

  it('filters with search on address or title, case-insensitively, address matches first', async () => {
    const answer = await map(site.url('/'), { search: 'ZEBRA' });
    expect(answer.links.map((l) => l.url)).toEqual([site.url('/animals/zebra-facts'), site.url(`/page/${NEWS_PAGE}`)]);
    // A walked page's <title> is the title shown; the text of links to it still counts for
    // search. The walk reads /section/0's links (the first ten pages of its second level).
    const walked = await map(site.url('/'), { search: 'hidden 0-' });
    expect(walked.links).toEqual(
      Array.from({ length: HIDDEN_PER_SECTION }, (_, j) => ({ url: site.url(`/hidden/0/${j}`), title: `Room 0-${j}`, description: `Hidden page 0-${j}` })),
    );
    const hidden = await map(site.url('/'), { search: 'hidden 4-' });
    expect(hidden.links.map((l) => l.url).sort()).toEqual(Array.from({ length: HIDDEN_PER_SECTION }, (_, j) => site.url(`/hidden/4/${j}`)).sort());
  });

  it('lists subdomains only with includeSubdomains, other hosts never', async () => {
    const port = site.port;
    const answer = await map(site.url('/'), { includeSubdomains: true });
    const urls = answer.links.map((l) => l.url);
    expect(urls).toContain(`http://docs.localhost:${port}/guide`);
    expect(urls).toContain(`http://blog.localhost:${port}/post/1`);
    expect(urls.some((u) => u.startsWith(`http://127.0.0.1:${port}`))).toBe(false);
  });

  it('stops at limit, the seed first', async () => {
    const answer = await map(site.url('/'), { limit: 10 });
    expect(answer.links).toHaveLength(10);
    expect(answer.links[0]?.url).toBe(site.url('/'));
    const one = await map(site.url('/'), { limit: 1 });
    expect(one.links.map((l) => l.url)).toEqual([site.url('/')]);
  });

  it('with ignoreSitemap reads no sitemap and still walks', async () => {
    site.requests.length = 0;
    const answer = await map(site.url('/'), { ignoreSitemap: true });
    expect(site.requests.some((p) => p.includes('sitemap'))).toBe(false);
    const urls = answer.links.map((l) => l.url);
    expect(urls).toContain(site.url('/hidden/0/0'));
    expect(urls).not.toContain(site.url('/page/200'));
  });

  it('walks what robots.txt would forbid when the site has none (a 404), and lists only what it reached', async () => {
    const plain = await startMapSite({ robots: false, sitemaps: false });
    try {
      const answer = await map(plain.url('/'));
      const urls = answer.links.map((l) => l.url);
      expect(plain.requests).toContain('/private/area');
      expect(urls).toContain(plain.url('/secret/1'));
      expect(urls).not.toContain(plain.url(`/page/${NEWS_PAGE}`));
      expect(plain.requests).toContain('/sitemap.xml');
    } finally {
      await plain.close();
    }
  });

  it('answers a site with no sitemap and no links with the seed alone', async () => {
    const bare = await startBareSite();
    try {
      const answer = await map(bare.url('/'));
      expect(answer).toMatchObject({ ok: true, credits: MAP_CREDITS });
      expect(answer.links).toEqual([{ url: bare.url('/'), title: 'Alone' }]);
    } finally {
      await bare.close();
    }
  });

  it('answers the seed fetch failure with its code and no charge', async () => {
    const blocked = await map(site.url('/'), {}, closed);
    expect(blocked).toMatchObject({ ok: false, errorCode: 'url_blocked', credits: 0 });
    const gone = await startBareSite();
    const url = gone.url('/');
    await gone.close();
    expect(await map(url)).toMatchObject({ ok: false, errorCode: 'connection_refused', credits: 0 });
  });

  it('answers at the end of its time budget with what it found by then, and says so', async () => {
    const slow = await startMapSite({ delayMs: (path) => (path.startsWith('/sitemaps/') ? 5_000 : 0) });
    try {
      const answer = await map(slow.url('/'), {}, open, 800);
      expect(answer.ok).toBe(true);
      expect(answer.warning).toMatch(/^The map stopped at its 0\.8 s time budget with \d+ URLs found \(\d+ sitemaps read, \d+ pages walked\); the site may have more\./);
      const urls = answer.links.map((l) => l.url);
      expect(urls[0]).toBe(slow.url('/'));
      expect(urls).toContain(slow.url('/section/4'));
      expect(urls).toContain(slow.url('/hidden/0/0'));
      expect(urls).not.toContain(slow.url('/page/200'));
    } finally {
      await slow.close();
    }
  });

  it("leaves a fetch that would end with the budget to the budget's timer, so the two never race", () => {
    // A sitemap asked for with the rest of the budget used to time out on its own timer, due
    // the same millisecond as the budget's: when it fired first, discovery ended "in time".
    expect(timeoutWithin(800, 800)).toBe(800 + BUDGET_LEAD_MS);
    expect(timeoutWithin(5_000, 800)).toBe(800 + BUDGET_LEAD_MS);
    expect(timeoutWithin(5_000, -3)).toBe(BUDGET_LEAD_MS);
    expect(timeoutWithin(100, 5_000)).toBe(100);
  });

  it("says so when the budget's timer fires before its clock reaches the budget's end", async () => {
    // Timers and Date.now are different clocks: the timer can fire a millisecond early. A
    // frozen clock makes that certain: only the timer can tell the budget is spent.
    const slow = await startMapSite({ delayMs: (path) => (path.startsWith('/sitemaps/') ? 5_000 : 0) });
    try {
      const frozen = Date.now();
      const outcome = await handleMapRequested(request(slow.url('/')), { http: open, log, budgetMs: 400, now: () => frozen }, new AbortController().signal);
      const answer = reply(outcome);
      expect(answer.ok).toBe(true);
      expect(answer.warning).toMatch(/^The map stopped at its 0\.4 s time budget/);
    } finally {
      await slow.close();
    }
  });

  it('answers fetch_timeout when the seed page does not answer within the budget', async () => {
    const hanging = await startMapSite({ delayMs: (path) => (path === '/' ? 10_000 : 0) });
    try {
      const answer = await map(hanging.url('/'), {}, open, 500);
      expect(answer).toMatchObject({ ok: false, errorCode: 'fetch_timeout', credits: 0 });
    } finally {
      await hanging.close();
    }
  });

  it('drops a request past its deadline, and fills the schema defaults into options', async () => {
    site.requests.length = 0;
    const late = await handleMapRequested(request(site.url('/'), {}, -1), { http: open, log }, new AbortController().signal);
    expect(late).toEqual({ kind: 'ack' });
    expect(site.requests).toEqual([]);
    expect(mapOptionsOf('{}')).toEqual({ search: null, limit: 5000, includeSubdomains: false, ignoreSitemap: false });
    expect(mapOptionsOf('{"search":"  ","limit":30000,"includeSubdomains":true,"ignoreSitemap":true}')).toEqual({
      search: null,
      limit: 30000,
      includeSubdomains: true,
      ignoreSitemap: true,
    });
    expect(mapOptionsOf('[1]')).toBeNull();
    expect(mapOptionsOf('not json')).toBeNull();
    const bad = reply(await handleMapRequested({ ...request(site.url('/')), options: 'not json' }, { http: open, log }, new AbortController().signal));
    expect(bad).toMatchObject({ ok: false, errorCode: 'bad_request', credits: 0 });
  });
});
