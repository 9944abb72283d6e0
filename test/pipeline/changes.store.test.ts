/**
 * pipeline/pages/changes.ts against the real store, on both drivers: chdb in this process
 * (embedded mode) and @clickhouse/client over HTTP to chdb's ClickHouse interface in its own
 * process (distributed mode). The 0004_page_changes migration, the newest snapshot per
 * history, per-key isolation, tags (null and "" distinct), URL normalization, outside input
 * bound as parameters, one row per history after a merge, and a scrape-compare-record round.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWriter, createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { compareSnapshots, previousSnapshot, recordSnapshot, snapshotRow, type HistoryKey, type PageSnapshot } from '../../pipeline/pages/changes.js';
import { chdbAvailable, clickhouseHttpStore, quietLog, tempDir, openMigrated, type OpenedStore } from '../helpers/clickhouse.js';

const hasChdb = await chdbAvailable();

const T0 = Date.parse('2025-03-04T05:06:07.089Z');

function snap(markdown: string, at: number, json: Record<string, unknown> | null = null, statusCode = 200): PageSnapshot {
  return { scrapedAt: at, statusCode, markdown, json };
}

function changesSuite(name: string, open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>) {
  describe.skipIf(!hasChdb)(name, () => {
    let store: Store;
    let writer: BatchWriter;
    let opened: OpenedStore | undefined;

    beforeAll(async () => {
      opened = await openMigrated(open);
      ({ store, writer } = opened);
    });
    afterAll(() => opened?.close());

    it('creates page_changes through the 0004 migration, sorted for the per-history lookup', async () => {
      const [recorded] = await store.query<{ name: string }>('SELECT name FROM schema_migrations FINAL WHERE version = 4');
      expect(recorded?.name).toBe('0004_page_changes');
      const [table] = await store.query<{ engine: string; sorting_key: string }>(
        "SELECT engine, sorting_key FROM system.tables WHERE database = currentDatabase() AND name = 'page_changes'",
      );
      expect(table).toEqual({ engine: 'ReplacingMergeTree', sorting_key: 'tenant, url_hash, url, has_tag, tag' });
    });

    it('finds nothing before the first snapshot, then the snapshot as it was written', async () => {
      const key: HistoryKey = { tenant: 'key-first', url: 'https://example.com/first', tag: null };
      expect(await previousSnapshot(store, key)).toBeNull();
      const written = snap('# Title\n\nÜnïcødé 🙂 "quoted" it\'s \\ back\\slash\n', T0, { price: 10, items: [{ a: null }] });
      await recordSnapshot(writer, key, written);
      expect(await previousSnapshot(store, key)).toEqual(written);
      // A scrape without json reads back as null json, not {}.
      const other: HistoryKey = { ...key, url: 'https://example.com/first-nojson' };
      await recordSnapshot(writer, other, snap('text', T0));
      expect((await previousSnapshot(store, other))?.json).toBeNull();
    });

    it('returns the newest snapshot of a history, whatever order the rows landed in', async () => {
      const key: HistoryKey = { tenant: 'key-order', url: 'https://example.com/order', tag: null };
      await recordSnapshot(writer, key, snap('second', T0 + 2000));
      await recordSnapshot(writer, key, snap('first', T0 + 1000));
      await recordSnapshot(writer, key, snap('third', T0 + 3000));
      await recordSnapshot(writer, key, snap('late but old', T0 + 500));
      expect(await previousSnapshot(store, key)).toEqual(snap('third', T0 + 3000));
    });

    it('never shows one key the history of another', async () => {
      const url = 'https://example.com/shared-page';
      await recordSnapshot(writer, { tenant: 'key-a', url, tag: null }, snap('seen by A', T0));
      expect(await previousSnapshot(store, { tenant: 'key-b', url, tag: null })).toBeNull();
      await recordSnapshot(writer, { tenant: 'key-b', url, tag: null }, snap('seen by B', T0 + 10));
      expect((await previousSnapshot(store, { tenant: 'key-a', url, tag: null }))?.markdown).toBe('seen by A');
      expect((await previousSnapshot(store, { tenant: 'key-b', url, tag: null }))?.markdown).toBe('seen by B');
    });

    it('keeps one history per tag, with no tag and the tag "" apart', async () => {
      const url = 'https://example.com/tagged';
      const tenant = 'key-tags';
      await recordSnapshot(writer, { tenant, url, tag: 'daily' }, snap('daily copy', T0));
      await recordSnapshot(writer, { tenant, url, tag: 'weekly' }, snap('weekly copy', T0 + 1));
      await recordSnapshot(writer, { tenant, url, tag: null }, snap('untagged copy', T0 + 2));
      expect((await previousSnapshot(store, { tenant, url, tag: 'daily' }))?.markdown).toBe('daily copy');
      expect((await previousSnapshot(store, { tenant, url, tag: 'weekly' }))?.markdown).toBe('weekly copy');
      expect((await previousSnapshot(store, { tenant, url, tag: null }))?.markdown).toBe('untagged copy');
      expect(await previousSnapshot(store, { tenant, url, tag: '' })).toBeNull();
      await recordSnapshot(writer, { tenant, url, tag: '' }, snap('empty-tag copy', T0 + 3));
      expect((await previousSnapshot(store, { tenant, url, tag: '' }))?.markdown).toBe('empty-tag copy');
      expect((await previousSnapshot(store, { tenant, url, tag: null }))?.markdown).toBe('untagged copy');
    });

    it('files a URL as the page cache does: host case, default port and fragment do not matter', async () => {
      const tenant = 'key-url';
      await recordSnapshot(writer, { tenant, url: 'HTTPS://Example.COM:443/p?b=2&a=1#section', tag: null }, snap('normalized', T0));
      expect((await previousSnapshot(store, { tenant, url: 'https://example.com/p?b=2&a=1', tag: null }))?.markdown).toBe('normalized');
      // Query order is kept: another order is another page.
      expect(await previousSnapshot(store, { tenant, url: 'https://example.com/p?a=1&b=2', tag: null })).toBeNull();
      expect(snapshotRow({ tenant, url: 'https://EXAMPLE.com#x', tag: null }, snap('', T0))).toMatchObject({ url: 'https://example.com/', has_tag: 0, tag: '' });
    });

    it('binds tenant, URL and tag as parameters: quotes, braces and newlines are just text', async () => {
      const nasty: HistoryKey = { tenant: "k'; DROP TABLE page_changes; --", url: "https://example.com/it's?q={x:String}", tag: "tag'\n\\{t}" };
      await recordSnapshot(writer, nasty, snap('nasty', T0));
      expect((await previousSnapshot(store, nasty))?.markdown).toBe('nasty');
      expect(await previousSnapshot(store, { ...nasty, tag: "tag'\n\\{t" })).toBeNull();
      expect(await previousSnapshot(store, { ...nasty, tenant: 'k' })).toBeNull();
    });

    it('keeps only the newest row of each history after a merge', async () => {
      const tenant = 'key-merge';
      const url = 'https://example.com/merged';
      for (let i = 0; i < 5; i++) await recordSnapshot(writer, { tenant, url, tag: 'x' }, snap(`version ${i}`, T0 + i * 1000));
      await recordSnapshot(writer, { tenant, url, tag: null }, snap('other history', T0));
      await store.command('OPTIMIZE TABLE page_changes FINAL');
      const rows = await store.query<{ tag: string; markdown: string }>(
        'SELECT tag, markdown FROM page_changes WHERE tenant = {tenant:String} ORDER BY has_tag, tag',
        { tenant },
      );
      expect(rows).toEqual([
        { tag: '', markdown: 'other history' },
        { tag: 'x', markdown: 'version 4' },
      ]);
    });

    it('serves a scrape round: new, then same, then changed with a diff against the newest snapshot', async () => {
      const key: HistoryKey = { tenant: 'key-round', url: 'https://example.com/round', tag: 'prices' };
      const round = async (markdown: string, at: number) => {
        const current = snap(markdown, at);
        const tracking = compareSnapshots(await previousSnapshot(store, key), current, ['git-diff']);
        await recordSnapshot(writer, key, current);
        return tracking;
      };
      expect((await round('# Prices\n\nBasic: 10 EUR\n', T0)).changeStatus).toBe('new');
      const same = await round('# Prices\n\nBasic:  10 EUR   \n\n\n', T0 + 60_000);
      expect(same).toEqual({ previousScrapeAt: '2025-03-04T05:06:07.089Z', changeStatus: 'same', visibility: 'visible' });
      const changed = await round('# Prices\n\nBasic: 12 EUR\n', T0 + 120_000);
      expect(changed.changeStatus).toBe('changed');
      expect(changed.previousScrapeAt).toBe('2025-03-04T05:07:07.089Z');
      expect(changed.diff?.text).toContain('-Basic: 10 EUR\n+Basic: 12 EUR\n');
    });
  });
}

changesSuite('pipeline/pages/changes store (chdb in-process)', async () => {
  const dir = tempDir('changes-chdb');
  const store = await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog);
  return { store, cleanup: async () => dir.remove() };
});

changesSuite('pipeline/pages/changes store (ClickHouse HTTP served by chdb)', async () => {
  return clickhouseHttpStore('changes-chdb-http');
});
