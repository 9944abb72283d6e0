/**
 * pipeline/intel/links.ts against the real store, on both drivers: chdb in this process
 * (embedded mode) and @clickhouse/client over HTTP to chdb's ClickHouse interface in its own
 * process (distributed mode). The 0010 migration, edges queued as the parser queues them,
 * backlinks busiest first with their limit and total, what a page read again counts, the
 * coverage, linking pages spread over referring domains, the samples' bound, and outside input
 * bound as parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWriter, createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { backlinks, flushLinkEdges, linkEdgesOf, linkGraphCoverage, linkingPages, queueLinkEdges } from '../../pipeline/intel/links.js';
import { chdbAvailable, clickhouseHttpStore, quietLog, tempDir, openMigrated, type OpenedStore } from '../helpers/clickhouse.js';

const hasChdb = await chdbAvailable();

const T0 = Date.parse('2025-03-04T05:06:07.089Z');
const iso = (ms: number) => new Date(ms).toISOString();

function linkGraphSuite(name: string, open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>) {
  describe.skipIf(!hasChdb)(name, () => {
    let store: Store;
    let writer: BatchWriter;
    let opened: OpenedStore | undefined;

    /** A page read at `at` with these links, queued as the parser queues it, then written. */
    const read = async (page: string, links: readonly string[], at: number) => {
      await queueLinkEdges(writer, linkEdgesOf(page, links, at));
      await flushLinkEdges(writer);
    };

    beforeAll(async () => {
      opened = await openMigrated(open);
      ({ store, writer } = opened);
    });
    afterAll(() => opened?.close());

    it('starts empty: no referring domains, a coverage of zeros and no start', async () => {
      expect(await backlinks(store, 'nobody-links-here.com', 10)).toEqual({
        target: 'nobody-links-here.com',
        referringDomains: [],
        totalReferringDomains: 0,
        coverage: { sourceDomains: 0, pages: 0, edges: 0, since: null },
      });
      expect(await linkingPages(store, 'nobody-links-here.com', 10)).toEqual([]);
    });

    it('creates the graph through the 0010 migration, sorted for the per-target reads', async () => {
      const [recorded] = await store.query<{ name: string }>('SELECT name FROM schema_migrations FINAL WHERE version = 10');
      expect(recorded?.name).toBe('0010_link_graph');
      const tables = await store.query<{ name: string; engine: string; sorting_key: string }>(
        "SELECT name, engine, sorting_key FROM system.tables WHERE database = currentDatabase() AND name IN ('link_page_edges', 'link_domains', 'link_samples', 'link_coverage') ORDER BY name",
      );
      expect(tables).toEqual([
        { name: 'link_coverage', engine: 'AggregatingMergeTree', sorting_key: '' },
        { name: 'link_domains', engine: 'AggregatingMergeTree', sorting_key: 'target_domain, source_domain' },
        { name: 'link_page_edges', engine: 'Null', sorting_key: '' },
        { name: 'link_samples', engine: 'ReplacingMergeTree', sorting_key: 'target_domain, source_domain, slot' },
      ]);
    });

    it('lists referring domains busiest first (links, then pages, then name), at most `limit`, with their total', async () => {
      // busy.org: 3 links from 2 pages; wide.org: 2 links from 2 pages; deep.org: 2 links from one page;
      // a.org and b.org: one link each (tie broken by name).
      await read('https://blog.busy.org/1', ['https://target-one.com/a', 'https://www.target-one.com/b'], T0);
      await read('https://busy.org/2', ['https://shop.target-one.com/c'], T0 + 1000);
      await read('https://wide.org/1', ['https://target-one.com/a'], T0 + 2000);
      await read('https://wide.org/2', ['https://target-one.com/a'], T0 + 3000);
      await read('https://deep.org/1', ['https://target-one.com/a', 'https://target-one.com/b'], T0 + 4000);
      await read('https://b.org/', ['https://target-one.com/'], T0 + 5000);
      await read('https://a.org/', ['https://target-one.com/'], T0 + 6000);
      // Links to another target and the target's own links are not its backlinks.
      await read('https://busy.org/3', ['https://elsewhere.net/'], T0 + 7000);
      await read('https://target-one.com/', ['https://busy.org/', 'https://target-one.com/self'], T0 + 8000);

      const all = await backlinks(store, 'target-one.com', 100);
      expect(all.target).toBe('target-one.com');
      expect(all.totalReferringDomains).toBe(5);
      expect(all.referringDomains).toEqual([
        { domain: 'busy.org', links: 3, pages: 2, firstSeen: iso(T0), lastSeen: iso(T0 + 1000) },
        { domain: 'wide.org', links: 2, pages: 2, firstSeen: iso(T0 + 2000), lastSeen: iso(T0 + 3000) },
        { domain: 'deep.org', links: 2, pages: 1, firstSeen: iso(T0 + 4000), lastSeen: iso(T0 + 4000) },
        { domain: 'a.org', links: 1, pages: 1, firstSeen: iso(T0 + 6000), lastSeen: iso(T0 + 6000) },
        { domain: 'b.org', links: 1, pages: 1, firstSeen: iso(T0 + 5000), lastSeen: iso(T0 + 5000) },
      ]);

      const two = await backlinks(store, 'target-one.com', 2);
      expect(two.referringDomains.map((r) => r.domain)).toEqual(['busy.org', 'wide.org']);
      expect(two.totalReferringDomains).toBe(5);
      // A subdomain or a URL of the target asks for the same domain.
      expect((await backlinks(store, 'https://WWW.Target-One.com/any/page', 100)).referringDomains).toEqual(all.referringDomains);
      expect((await backlinks(store, 'busy.org', 10)).referringDomains.map((r) => r.domain)).toEqual(['target-one.com']);
      // The limit is held to 1 … 1,000.
      expect((await backlinks(store, 'target-one.com', 0)).referringDomains).toHaveLength(1);
    });

    it('counts a page read again once: links are distinct (page, target URL) pairs, pages distinct pages', async () => {
      const page = 'https://reader.org/article';
      await read(page, ['https://target-two.com/x', 'https://target-two.com/y'], T0);
      await read(page, ['https://target-two.com/x', 'https://target-two.com/y'], T0 + 60_000);
      await read(page, ['https://target-two.com/y', 'https://target-two.com/x'], T0 + 120_000);
      expect((await backlinks(store, 'target-two.com', 10)).referringDomains).toEqual([
        { domain: 'reader.org', links: 2, pages: 1, firstSeen: iso(T0), lastSeen: iso(T0 + 120_000) },
      ]);
      // Read again with a new link: the new one counts, the one that left stays known.
      await read(page, ['https://target-two.com/z'], T0 + 180_000);
      // A page stored again after a crash (same time) changes nothing.
      await read(page, ['https://target-two.com/z'], T0 + 180_000);
      expect((await backlinks(store, 'target-two.com', 10)).referringDomains).toEqual([
        { domain: 'reader.org', links: 3, pages: 1, firstSeen: iso(T0), lastSeen: iso(T0 + 180_000) },
      ]);
      // Merged, the answer is the same.
      await store.command('OPTIMIZE TABLE link_domains FINAL');
      expect((await backlinks(store, 'target-two.com', 10)).referringDomains[0]).toMatchObject({ links: 3, pages: 1 });
    });

    it('reports the coverage: linking domains, pages and distinct links, and when the first was seen', async () => {
      const before = await linkGraphCoverage(store);
      await read('https://fresh-source.org/1', ['https://target-three.com/', 'https://other-target.com/'], T0 - 86_400_000);
      await read('https://fresh-source.org/1', ['https://target-three.com/', 'https://other-target.com/'], T0);
      await read('https://fresh-source.org/2', ['https://target-three.com/'], T0);
      const after = await linkGraphCoverage(store);
      expect(after).toEqual({
        sourceDomains: before.sourceDomains + 1,
        pages: before.pages + 2,
        edges: before.edges + 3,
        since: iso(T0 - 86_400_000),
      });
      expect((await backlinks(store, 'target-three.com', 10)).coverage).toEqual(after);
    });

    it('gives linking pages spread over referring domains, newest first, one row per page', async () => {
      const target = 'target-four.com';
      for (let i = 0; i < 3; i += 1) await read(`https://many.org/p${i}`, [`https://${target}/a`, `https://${target}/b`], T0 + i * 1000);
      await read('https://one.org/only', [`https://${target}/`], T0 + 500);
      await read('https://two.org/only', [`https://${target}/`], T0 + 1500);

      // Fewer pages than domains: the domains that linked last, one page each.
      expect((await linkingPages(store, target, 2)).map((p) => p.sourceUrl)).toEqual(['https://many.org/p2', 'https://two.org/only']);
      const three = await linkingPages(store, target, 3);
      // The newest page of each domain first, newest first.
      expect(three.map((p) => p.sourceUrl)).toEqual(['https://many.org/p2', 'https://two.org/only', 'https://one.org/only']);
      expect(three[0]).toMatchObject({ targetUrl: expect.stringMatching(/^https:\/\/target-four\.com\/[ab]$/), lastSeen: iso(T0 + 2000) });
      expect(three[2]).toEqual({ sourceUrl: 'https://one.org/only', targetUrl: 'https://target-four.com/', lastSeen: iso(T0 + 500) });

      const all = await linkingPages(store, `www.${target}`, 100);
      const urls = all.map((p) => p.sourceUrl);
      expect(new Set(urls).size).toBe(urls.length);
      expect(urls.slice(0, 3)).toEqual(['https://many.org/p2', 'https://two.org/only', 'https://one.org/only']);
      // many.org's other pages follow, as far as its four sample slots kept them.
      expect(urls.length).toBeGreaterThanOrEqual(3);
      expect(urls.length).toBeLessThanOrEqual(5);
      for (const url of urls.slice(3)) expect(['https://many.org/p0', 'https://many.org/p1']).toContain(url);
    });

    it('keeps at most four sample links per pair of domains, the newest of each slot', async () => {
      const links = Array.from({ length: 40 }, (_, i) => `https://target-five.com/page-${i}`);
      await read('https://sampler.org/a', links, T0);
      await read('https://sampler.org/b', links, T0 + 1000);
      await store.command('OPTIMIZE TABLE link_samples FINAL');
      const [row] = await store.query<{ n: string; newest: string }>(
        "SELECT count() AS n, countIf(source_url = 'https://sampler.org/b') AS newest FROM link_samples WHERE target_domain = 'target-five.com'",
      );
      expect(Number(row?.n)).toBe(4);
      expect(Number(row?.newest)).toBe(4);
      expect((await backlinks(store, 'target-five.com', 10)).referringDomains[0]).toMatchObject({ domain: 'sampler.org', links: 80, pages: 2 });
    });

    it('binds the target as a parameter: quotes and SQL in it find nothing and break nothing', async () => {
      for (const target of ["x'.com", "evil'--.com", "x.com' OR 1=1 --", 'x.com\\', "'; DROP TABLE link_domains; --", 'a'.repeat(5000), '']) {
        const answer = await backlinks(store, target, 10);
        expect(answer.referringDomains).toEqual([]);
        expect(answer.totalReferringDomains).toBe(0);
        expect(await linkingPages(store, target, 10)).toEqual([]);
      }
      expect((await backlinks(store, 'target-one.com', 100)).totalReferringDomains).toBe(5);
    });
  });
}

linkGraphSuite('pipeline/intel/links store (chdb in-process)', async () => {
  const dir = tempDir('links-chdb');
  const store = await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog);
  return { store, cleanup: async () => dir.remove() };
});

linkGraphSuite('pipeline/intel/links store (ClickHouse HTTP served by chdb)', async () => clickhouseHttpStore('links-chdb-http'));
