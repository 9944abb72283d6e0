/**
 * The link graph fed by POST /v1/scrape through the production actors in embedded mode: a
 * local fixture page's links to other domains become edges (queued beside the page, landing
 * within about a second), readable with pipeline/intel/links.ts `backlinks` and `linkingPages`
 * from the service's store; a page read again counts once; a page not kept feeds nothing.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backlinks, linkingPages } from '../../pipeline/intel/links.js';
import { createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { chdbAvailable, quietLog } from '../helpers/clickhouse.js';
import { startEmbedded, type Embedded } from '../helpers/embedded.js';
import { LINKED_DOMAINS, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { scrape } from '../helpers/scrape.js';
import { until } from '../helpers/wait.js';

const API_KEY = 'e2e-link-graph-key-0123456789';
const hasChdb = await chdbAvailable();

describe.skipIf(!hasChdb)('e2e/link-graph (embedded, production actors)', () => {
  let site: FixtureSite;
  let svc: Embedded;
  let store: Store;

  beforeAll(async () => {
    site = await startFixtureSite();
    svc = await startEmbedded({ apiKey: API_KEY, env: { FETCH_ALLOW_PRIVATE: 'true' } });
    // chdb binds one data directory per process: the service's, opened a second time.
    store = await createStore({ kind: 'chdb', dataDir: join(svc.dataDir, 'clickhouse') }, quietLog);
  });

  afterAll(async () => {
    await store?.close();
    await svc?.stop();
    await site?.close();
  });

  /** The linking pages of `domain` once `url` is among them. */
  const linkedFrom = (domain: string, url: string) =>
    until(`${url} among the pages linking to ${domain}`, async () => {
      const pages = await linkingPages(store, domain, 100);
      return pages.some((p) => p.sourceUrl === url) && pages;
    });

  it('files a scraped page’s links to other domains under the page’s host, readable as backlinks', async () => {
    const url = site.url('/links');
    const { status, body } = await scrape(svc.base, API_KEY, { url });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).toContain('Further reading');

    const pages = await linkedFrom('example.org', url);
    expect(pages.map((p) => [p.sourceUrl, p.targetUrl])).toEqual([[url, expect.stringMatching(/^https:\/\/(docs|www)\.example\.org\//)]]);
    for (const domain of LINKED_DOMAINS) {
      const answer = await backlinks(store, domain, 10);
      expect(answer.totalReferringDomains, domain).toBe(1);
      // The fixture site is an address: it is filed as its host.
      expect(answer.referringDomains[0], domain).toMatchObject({ domain: '127.0.0.1', pages: 1, links: domain === 'example.org' ? 2 : 1 });
    }
    const { coverage } = await backlinks(store, 'example.org', 10);
    expect(coverage).toMatchObject({ sourceDomains: 1, pages: 1, edges: 3 });
    expect(Date.parse(coverage.since ?? '')).toBeGreaterThan(0);
    // Its own links are not edges: nothing links to the site's host.
    expect((await backlinks(store, '127.0.0.1', 10)).totalReferringDomains).toBe(0);
  });

  it('counts the page once when it is read again, and moves its last time seen', async () => {
    const url = site.url('/links');
    const before = (await backlinks(store, 'example.org', 10)).referringDomains[0];
    // A query string of its own: fetched fresh, another page of the same host.
    const again = site.url('/links?again=1');
    expect((await scrape(svc.base, API_KEY, { url, maxAge: 0 })).status).toBe(200);
    expect((await scrape(svc.base, API_KEY, { url: again })).status).toBe(200);
    await linkedFrom('example.org', again);
    const after = (await backlinks(store, 'example.org', 10)).referringDomains[0];
    // The page read again adds nothing; the second page adds its two links and itself.
    expect(after).toMatchObject({ domain: '127.0.0.1', links: 4, pages: 2, firstSeen: before?.firstSeen });
    expect(Date.parse(after?.lastSeen ?? '')).toBeGreaterThanOrEqual(Date.parse(before?.lastSeen ?? ''));
  });

  it('feeds nothing from a page the caller asked not to keep, or read with its own headers', async () => {
    const unkept = site.url('/links?unkept=1');
    const own = site.url('/links?own=1');
    expect((await scrape(svc.base, API_KEY, { url: unkept, storeInCache: false })).status).toBe(200);
    expect((await scrape(svc.base, API_KEY, { url: own, headers: { 'x-session': 'mine' } })).status).toBe(200);
    // A page kept after them lands in the same batch or a later one.
    const marker = site.url('/links?kept=1');
    expect((await scrape(svc.base, API_KEY, { url: marker })).status).toBe(200);
    const pages = await linkedFrom('example.net', marker);
    expect(pages.map((p) => p.sourceUrl)).not.toContain(unkept);
    expect(pages.map((p) => p.sourceUrl)).not.toContain(own);
  });
});
