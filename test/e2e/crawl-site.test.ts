/**
 * Crawls of a generated 2,000-page site full of crawler traps (test/helpers/trap-site.ts)
 * through the production actors in embedded mode: the whole site with robots.txt honoured
 * (every real page stored and fetched exactly once; session-id and tracking-parameter
 * variants collapsed; robots-disallowed URLs never fetched and listed; the calendar bounded
 * by maxDepth; redirect loops ending as `too_many_redirects` error rows; the job completes),
 * the calendar alone bounded by maxDepth and by limit, and `limit` on the whole site.
 *
 * Cursor paging during a running crawl, cancel and webhooks are test/e2e/jobs.test.ts and
 * test/e2e/webhooks.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type Embedded } from '../helpers/embedded.js';
import { CALENDAR_START, LOOPS, PRIVATE_LINKED, REAL_PAGES, startTrapSite, type TrapSite } from '../helpers/trap-site.js';

const API_KEY = 'e2e-crawl-site-key-0123456789';

type Body = Record<string, any>;

let site: TrapSite;
let service: Embedded;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

/** Crawls started by the running test: cancelled after it, so a failed test leaves none running. */
const started: string[] = [];

async function crawl(body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', '/v1/crawl', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  started.push(res.body.data.id as string);
  return res.body.data.id as string;
}

/** A crawl whose counters do not move for this long is stuck. */
const STALL_MS = 45_000;

/**
 * The crawl's status once it ended (every page settled). A crawl stuck `scraping` fails
 * here with its counters: not after a fixed time (a loaded 2-core machine crawls at any
 * speed), but once nothing moved for STALL_MS.
 */
async function ended(id: string): Promise<Body> {
  let progress = '';
  let movedAt = Date.now();
  for (;;) {
    const res = await call('GET', `/v1/crawl/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.data as Body;
    if (data.status !== 'scraping') return data;
    const now = `${data.status} ${data.total} ${data.completed} ${data.failed}`;
    if (now !== progress) [progress, movedAt] = [now, Date.now()];
    else if (Date.now() - movedAt > STALL_MS) throw new Error(`crawl stuck: ${JSON.stringify({ ...data, data: undefined })}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every stored page's sourceURL, in listing order, through the cursor. */
async function storedUrls(id: string): Promise<string[]> {
  const urls: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await call('GET', `/v1/crawl/${id}/pages?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const doc of res.body.data.data as Body[]) urls.push(doc.metadata.sourceURL as string);
    cursor = res.body.data.next as string | null;
  } while (cursor);
  return urls;
}

/** Calendar months `d` steps before and after `start`, inclusive. */
function months(start: { year: number; month: number }, d: number): string[] {
  const out: string[] = [];
  for (let k = -d; k <= d; k++) {
    const index = start.year * 12 + (start.month - 1) + k;
    out.push(`/calendar/${Math.floor(index / 12)}/${(index % 12) + 1}`);
  }
  return out;
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
const sorted = (xs: Iterable<string>) => [...xs].sort();
/** Request targets that are pages (not robots.txt or sitemaps). */
const pageRequests = (targets: readonly string[]) => targets.filter((t) => t !== '/robots.txt' && !t.startsWith('/sitemap'));

beforeAll(async () => {
  site = await startTrapSite();
  service = await startEmbedded({ apiKey: API_KEY, env: { FETCH_ALLOW_PRIVATE: 'true', POOL_CONCURRENCY: '32' } });
});

afterEach(async () => {
  for (const id of started.splice(0)) await call('DELETE', `/v1/crawl/${id}`);
});

afterAll(async () => {
  await service?.stop();
  await site?.close();
});

describe('e2e/crawl-site: a 2,000-page site with traps', () => {
  it('bounds the infinite calendar by maxDepth, and by limit when maxDepth does not', async () => {
    const start = `/calendar/${CALENDAR_START.year}/${CALENDAR_START.month}`;
    const scope = { url: site.url(start), ignoreSitemap: true, allowBackwardLinks: true, includePaths: ['^/calendar/'], maxConcurrency: 10 };

    const byDepth = await crawl({ ...scope, maxDepth: 6, limit: 1000 });
    const deep = await ended(byDepth);
    expect(deep).toMatchObject({ status: 'completed', total: 13, completed: 13, failed: 0 });
    expect(sorted((await storedUrls(byDepth)).map(pathOf))).toEqual(sorted(months(CALENDAR_START, 6)));

    const byLimit = await crawl({ ...scope, maxDepth: 20, limit: 25 });
    const capped = await ended(byLimit);
    expect(capped).toMatchObject({ status: 'completed', total: 25, completed: 25, failed: 0 });
    const urls = (await storedUrls(byLimit)).map(pathOf);
    expect(new Set(urls).size).toBe(25);
    // 25 consecutive months around the start (each side walks as fast as its pages answer).
    const index = (path: string) => {
      const [, y, m] = /^\/calendar\/(\d+)\/(\d+)$/.exec(path) ?? [];
      return Number(y) * 12 + Number(m) - 1;
    };
    const at = urls.map(index).sort((a, b) => a - b);
    expect(urls).toContain(start);
    expect((at.at(-1) as number) - (at[0] as number)).toBe(24);
  }, 180_000);

  it('honours limit on the whole site: the home page and the first sitemap URLs, nothing more fetched', async () => {
    const before = site.requests.length;
    const id = await crawl({ url: site.url('/'), limit: 60, maxConcurrency: 20 });
    const status = await ended(id);
    expect(status).toMatchObject({ status: 'completed', total: 60, completed: 60, failed: 0 });
    const urls = await storedUrls(id);
    expect(urls).toHaveLength(60);
    // Sitemap URLs are admitted when the crawl starts, before any page's links.
    expect(sorted(urls)).toEqual(sorted([site.url('/'), ...Array.from({ length: 59 }, (_, i) => site.url(`/article/${i + 1}`))]));
    const fetched = pageRequests(site.requests.slice(before));
    expect(sorted(fetched)).toEqual(sorted(urls.map(pathOf)));
  }, 180_000);

  it('stores every real page once, skips what robots.txt disallows, bounds the calendar and ends redirect loops as errors', async () => {
    const maxDepth = 4;
    site.requests.length = 0;
    const id = await crawl({ url: site.url('/'), limit: 5000, maxDepth, maxConcurrency: 50, respectRobots: true, scrapeOptions: { formats: ['links'] } });
    const status = await ended(id);

    // The calendar enters at depth 1 (home links it) and goes one month further each level:
    // months up to maxDepth - 1 away on either side.
    const calendar = months(CALENDAR_START, maxDepth - 1);
    expect(calendar).toHaveLength(2 * maxDepth - 1);
    const stored = REAL_PAGES + calendar.length;
    expect(status).toMatchObject({ status: 'completed', total: stored + LOOPS.length, completed: stored, failed: LOOPS.length, creditsUsed: stored });

    // Every real page exactly once, under its clean URL: no session id, no tracking parameter.
    const urls = await storedUrls(id);
    expect(urls).toHaveLength(stored);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls[0]).toBe(site.url('/'));
    const [onCalendar, others] = [urls.filter((u) => pathOf(u).startsWith('/calendar/')), urls.filter((u) => !pathOf(u).startsWith('/calendar/'))];
    expect(sorted(others)).toEqual(sorted(site.pages));
    expect(sorted(onCalendar.map(pathOf))).toEqual(sorted(calendar));

    // What the site served: each real page and calendar month once; no variant of a page, nothing
    // under /private/; the loops' hops (and only those) carry a session id.
    const pages = pageRequests(site.requests);
    const [hops, fetched] = [pages.filter((t) => t.startsWith('/loop/')), pages.filter((t) => !t.startsWith('/loop/'))];
    expect(sorted(fetched)).toEqual(sorted([...site.pages.map(pathOf), ...calendar]));
    expect(fetched.some((t) => /jsessionid|phpsessid|[?&;]sid=|utm_|fbclid|gclid/i.test(t))).toBe(false);
    expect(site.requests.some((t) => t.startsWith('/private/'))).toBe(false);
    expect(hops.filter((t) => t === '/loop/a')).toHaveLength(1);
    expect(hops.filter((t) => t === '/loop/b')).toHaveLength(1);
    expect(hops.filter((t) => t === '/loop/self')).toHaveLength(1);
    expect(hops.filter((t) => t === '/loop/fragment')).toHaveLength(1);
    // /loop/session never repeats a URL: it ends at the redirect limit (the first request + 10 hops).
    expect(hops.filter((t) => t.startsWith('/loop/session'))).toHaveLength(11);

    const errors = await call('GET', `/v1/crawl/${id}/errors`);
    expect(errors.status).toBe(200);
    const privates = [...Array.from({ length: PRIVATE_LINKED }, (_, i) => site.url(`/private/${i + 1}`)), site.url('/private/listed')];
    expect(sorted(errors.body.data.robotsBlocked as string[])).toEqual(sorted(privates));
    const rows = errors.body.data.errors as Body[];
    expect(sorted(rows.map((r) => pathOf(r.url as string)))).toEqual(sorted(LOOPS));
    for (const row of rows) {
      expect(row.code).toBe('too_many_redirects');
      expect(row.message).toMatch(/redirect/);
    }
  }, 900_000);
});
