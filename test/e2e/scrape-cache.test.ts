/**
 * The scrape cache end to end (scrape options `maxAge` and `storeInCache`, the response's
 * `cost`): the production fetcher and parser in embedded mode (chdb), two API keys, and a
 * local fixture site that counts the requests it gets, so "served from the cache" is proved
 * by the site not being asked again.
 *
 * Key A is API_KEY (unlimited); key B is created in the ledger with 10 credits before start.
 * Each test uses URLs of its own (a query string the site ignores), so counts do not mix.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../main.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { openKeyRegistry } from '../../pipeline/keys/index.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { serveEmbedded } from '../helpers/embedded.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { scrape } from '../helpers/scrape.js';

const KEY_A = 'e2e-cache-key-a-0123456789';
const HOUR_MS = 3_600_000;

let site: FixtureSite;
let service: Service;
let base: string;
let dataDir: string;
let keyB: string;

/** POST /v1/scrape on the service with `body`, which must answer 200: its `data`. */
async function scraped(body: { url: string } & Record<string, unknown>, key = KEY_A) {
  const { status, body: json } = await scrape(base, key, body);
  expect(status, JSON.stringify(json)).toBe(200);
  return json.data as Record<string, any>;
}

/** Requests the fixture site got for this path and query. */
const hits = (path: string) => site.requests.filter((r) => r.path === path).length;

beforeAll(async () => {
  site = await startFixtureSite();
  dataDir = mkdtempSync(join(tmpdir(), 'wds-scrape-cache-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', API_KEY: KEY_A, FETCH_ALLOW_PRIVATE: 'true' });
  const keys = await openKeyRegistry(config, createLogger('silent'));
  keyB = (await keys.create({ name: 'e2e-cache-b', credits: 10 })).key;
  keys.close();
  ({ service, base } = await serveEmbedded(config));
});

afterAll(async () => {
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await site?.close();
});

describe('e2e/scrape-cache (embedded, production actors)', () => {
  it('fetches fresh, then serves the caller\'s copy free, read with other options, without asking the site again', async () => {
    const path = '/html?case=own';
    const url = site.url(path);
    const first = await scraped({ url, maxAge: HOUR_MS });
    expect(first.cost).toEqual({ credits: 1, remaining: null, source: 'fresh' });
    expect(first.markdown).toContain('Hello fixture');
    expect(hits(path)).toBe(1);

    const again = await scraped({ url, maxAge: HOUR_MS });
    expect(again.cost).toEqual({ credits: 0, remaining: null, source: 'cache' });
    expect(again.markdown).toBe(first.markdown);
    expect(again.metadata).toMatchObject({ title: 'Fixture', statusCode: 200, sourceURL: url });

    // Other reading options are served from the same copy: the raw body is what is cached.
    const links = await scraped({ url: `${url}#fragment`, maxAge: HOUR_MS, formats: ['links', 'html'] });
    expect(links.cost.source).toBe('cache');
    expect(Array.isArray(links.links)).toBe(true);
    expect(links.html).toContain('Hello fixture');
    expect(links.markdown).toBeUndefined();
    expect(hits(path)).toBe(1);

    // Options that change the bytes the site sends are another copy.
    const mobile = await scraped({ url, maxAge: HOUR_MS, mobile: true });
    expect(mobile.cost.source).toBe('fresh');
    expect(hits(path)).toBe(2);
  });

  it('serves another key the copy from the shared index at 1 credit', async () => {
    const path = '/html?case=index';
    const url = site.url(path);
    expect((await scraped({ url })).cost.source).toBe('fresh');
    const other = await scraped({ url, maxAge: HOUR_MS }, keyB);
    expect(other.cost).toEqual({ credits: 1, remaining: 9, source: 'index' });
    expect(other.markdown).toContain('Hello fixture');
    expect(hits(path)).toBe(1);
    // A window shorter than the copy's age is a miss: fresh, and B's own copy from then on.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await scraped({ url, maxAge: 10 }, keyB)).cost).toEqual({ credits: 1, remaining: 8, source: 'fresh' });
    expect(hits(path)).toBe(2);
    expect((await scraped({ url, maxAge: HOUR_MS }, keyB)).cost).toEqual({ credits: 0, remaining: 8, source: 'cache' });
    expect(hits(path)).toBe(2);
  });

  it('always fetches with maxAge 0 (the default)', async () => {
    const path = '/html?case=zero';
    const url = site.url(path);
    await scraped({ url });
    for (const body of [{ url, maxAge: 0 }, { url }]) {
      expect((await scraped(body)).cost).toEqual({ credits: 1, remaining: null, source: 'fresh' });
    }
    expect(hits(path)).toBe(3);
  });

  it('keeps nothing for storeInCache: false, so a later maxAge request fetches fresh', async () => {
    const path = '/html?case=nostore';
    const url = site.url(path);
    expect((await scraped({ url, storeInCache: false })).cost.source).toBe('fresh');
    expect((await scraped({ url, maxAge: HOUR_MS })).cost.source).toBe('fresh');
    expect(hits(path)).toBe(2);
    // That second response was kept (storeInCache defaults to true).
    expect((await scraped({ url, maxAge: HOUR_MS })).cost.source).toBe('cache');
    expect(hits(path)).toBe(2);
  });

  it('never shares a copy fetched with the caller\'s own headers', async () => {
    const path = '/echo?case=headers';
    const url = site.url(path);
    const secret = { 'X-Secret': 'only-for-key-a' };
    const mine = await scraped({ url, maxAge: HOUR_MS, headers: secret });
    expect(mine.cost.source).toBe('fresh');
    expect(JSON.stringify(mine)).toContain('only-for-key-a');
    expect(hits(path)).toBe(1);

    // The same key with the same headers is served its own copy.
    const again = await scraped({ url, maxAge: HOUR_MS, headers: secret });
    expect(again.cost).toEqual({ credits: 0, remaining: null, source: 'cache' });
    expect(hits(path)).toBe(1);

    // Another key never sees it: the site is asked again, without the header.
    const other = await scraped({ url, maxAge: HOUR_MS }, keyB);
    expect(other.cost.source).toBe('fresh');
    expect(JSON.stringify(other)).not.toContain('only-for-key-a');
    expect(hits(path)).toBe(2);
    expect(site.requests.filter((r) => r.path === path).map((r) => r.headers['x-secret'])).toEqual(['only-for-key-a', undefined]);

    // Nor does the same key without the headers: it gets B's plain copy from the index.
    const plain = await scraped({ url, maxAge: HOUR_MS });
    expect(plain.cost).toEqual({ credits: 1, remaining: null, source: 'index' });
    expect(JSON.stringify(plain)).not.toContain('only-for-key-a');
    expect(hits(path)).toBe(2);
  });

  it('serves the copy for any window at least its age, however long: back to the first hours of 1970 and before', async () => {
    const path = '/html?case=long-window';
    const url = site.url(path);
    expect((await scraped({ url })).cost.source).toBe('fresh');
    expect(hits(path)).toBe(1);
    // 2e12 ms and more reach before 1970; a window starting in 1970's first hours (Unix time under
    // 10,000 s) is one the store cannot bind as a Unix time either.
    for (const maxAge of [1e12, 2e12, Date.now() - 5_000_000, Date.now() - 1_000, Number.MAX_SAFE_INTEGER]) {
      expect((await scraped({ url, maxAge })).cost, String(maxAge)).toEqual({ credits: 0, remaining: null, source: 'cache' });
      expect((await scraped({ url, maxAge }, keyB)).cost.source, String(maxAge)).toBe('index');
    }
    expect(hits(path)).toBe(1);
  });

  it('does not serve an error page from the cache', async () => {
    const path = '/status/503?case=error';
    const url = site.url(path);
    expect((await scraped({ url, maxAge: HOUR_MS })).metadata.statusCode).toBe(503);
    const again = await scraped({ url, maxAge: HOUR_MS });
    expect(again.cost.source).toBe('fresh');
    expect(hits(path)).toBe(2);
  });
});
