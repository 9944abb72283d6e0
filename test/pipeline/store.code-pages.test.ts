import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CODE_FILES, cleanMappingsOf, ENGINE_LIBRARY, parseSmaps, releaseCleanPages, releaseKnownCleanPages } from '../../pipeline/runtime/store/code-pages.js';
import { ChdbStore } from '../../pipeline/runtime/store/chdb.js';
import { createLogger } from '../../pipeline/runtime/log.js';

const SMAPS = `7f0000000000-7f0000100000 r--p 00000000 fe:00 11 /x/libchdb.so
Rss:                1024 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
7f0000100000-7f0000300000 r-xp 00100000 fe:00 11 /x/libchdb.so
Rss:                2048 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
7f0000300000-7f0000340000 r--p 00300000 fe:00 11 /x/libchdb.so
Rss:                 256 kB
Private_Dirty:       256 kB
Anonymous:           256 kB
7f0000340000-7f0000350000 rw-p 00340000 fe:00 11 /x/libchdb.so
Rss:                  64 kB
Private_Dirty:        64 kB
Anonymous:            64 kB
7f0000350000-7f0000360000 r-xp 00000000 fe:00 12 /x/not-libchdb.so
Rss:                  64 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                  12 kB
Private_Dirty:        12 kB
Anonymous:            12 kB
`;

/** KiB resident in this process's mappings of libchdb.so, clean and written. */
function libraryRss(): { clean: number; written: number } {
  const all = parseSmaps(readFileSync('/proc/self/smaps', 'utf8')).filter((m) => m.path.endsWith('/libchdb.so'));
  const clean = cleanMappingsOf(all, 'libchdb.so');
  const sum = (ms: typeof all) => ms.reduce((n, m) => n + (m.kb.get('Rss') ?? 0), 0);
  return { clean: sum(clean), written: sum(all.filter((m) => !clean.includes(m))) };
}

describe('pipeline/runtime/store/code-pages', () => {
  it('parses smaps and keeps only the unwritten mappings of the named file', () => {
    const mappings = parseSmaps(SMAPS);
    expect(mappings).toHaveLength(6);
    expect(mappings[1]).toMatchObject({ start: 0x7f0000100000n, end: 0x7f0000300000n, perms: 'r-xp', path: '/x/libchdb.so' });
    expect(mappings[1]?.kb.get('Rss')).toBe(2048);
    const clean = cleanMappingsOf(mappings, 'libchdb.so');
    // Not the relocated read-only data (private dirty), not .data (writable), not another file.
    expect(clean.map((m) => m.perms)).toEqual(['r--p', 'r-xp']);
  });

  it('matches a bare file name in any directory, a path only itself', () => {
    const mappings = parseSmaps(SMAPS);
    expect(cleanMappingsOf(mappings, '/x/libchdb.so')).toHaveLength(2);
    expect(cleanMappingsOf(mappings, '/y/libchdb.so')).toHaveLength(0);
    expect(cleanMappingsOf(mappings, '/x/not-libchdb.so').map((m) => m.perms)).toEqual(['r-xp']);
  });

  describe.runIf(process.platform === 'linux')("the node executable's pages", () => {
    /** KiB resident in this process's clean mappings of the node executable. */
    const executableRss = () =>
      cleanMappingsOf(parseSmaps(readFileSync('/proc/self/smaps', 'utf8')), CODE_FILES[1] as string).reduce((n, m) => n + (m.kb.get('Rss') ?? 0), 0);

    it('are released with the engine library, and JavaScript, Intl and crypto keep working', async () => {
      expect(CODE_FILES[0]).toBe(ENGINE_LIBRARY);
      expect(CODE_FILES[1]).toMatch(/\/node[^/]*$/);
      const before = executableRss();
      expect(before).toBeGreaterThan(5_000);
      const released = releaseCleanPages(CODE_FILES);
      expect(released.skipped).toBeUndefined();
      expect(released.kb).toBeGreaterThan(before / 2);
      expect(executableRss()).toBeLessThan(before / 2);
      // Its code and ICU's data come back from the page cache as they run.
      expect('Straße'.normalize('NFKD').toUpperCase()).toBe('STRASSE');
      expect(new Intl.NumberFormat('de-DE').format(1234567.891)).toBe('1.234.567,891');
      const { createHash } = await import('node:crypto');
      expect(createHash('sha256').update('x').digest('hex')).toHaveLength(64);
      // Again from the mappings already known (no smaps read).
      expect(releaseKnownCleanPages(CODE_FILES).mappings).toBeGreaterThan(0);
    });
  });

  describe.runIf(process.platform === 'linux')('on the engine loaded in this process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wds-code-pages-'));
    let store: ChdbStore | null = null;
    afterAll(async () => {
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('releases the start-up pages after migrating, leaves the written ones, and the engine keeps working', async () => {
      store = new ChdbStore({ dataDir: dir }, createLogger('silent'));
      const loaded = libraryRss();
      expect(loaded.clean).toBeGreaterThan(20_000); // tens of MB paged in by loading the library
      await store.migrate(); // releases (ChdbStore.migrate)
      const after = libraryRss();
      expect(after.clean).toBeLessThan(loaded.clean / 2);
      expect(after.written).toBeGreaterThan(0);
      // The engine pages what it needs back in: a write, a merge and a read still work.
      await store.command('CREATE TABLE t (k UInt64, v String) ENGINE = MergeTree ORDER BY k');
      await store.insert('t', [{ k: 1, v: 'one' }]);
      await store.insert('t', [{ k: 2, v: 'two' }]);
      await store.command('OPTIMIZE TABLE t FINAL');
      expect(await store.query('SELECT k, v FROM t ORDER BY k')).toEqual([
        { k: '1', v: 'one' },
        { k: '2', v: 'two' },
      ]);
      const again = releaseCleanPages([ENGINE_LIBRARY]);
      expect(again.skipped).toBeUndefined();
      expect(again.mappings).toBeGreaterThan(0);
    });
  });
});
