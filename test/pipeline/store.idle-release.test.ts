import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSmaps, trimMallocArenas } from '../../pipeline/runtime/store/code-pages.js';
import { IdleRelease, releaseIdleMemory } from '../../pipeline/runtime/store/idle-release.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { loadConfig } from '../../pipeline/service/config.js';

/** An IdleRelease on a hand-moved clock, counting its releases. */
function idleOn(idleMs: number) {
  let now = 1_000;
  let releases = 0;
  const idle = new IdleRelease({ idleMs, now: () => now, release: () => (releases += 1) });
  return {
    idle,
    at: (ms: number) => (now = ms),
    releases: () => releases,
  };
}

describe('IdleRelease', () => {
  it('releases nothing before the store has been used', () => {
    const t = idleOn(5_000);
    expect(t.idle.check(100_000)).toBe(false);
    expect(t.releases()).toBe(0);
  });

  it('releases once after idleMs without a call in flight, and again only after the next use', () => {
    const t = idleOn(5_000);
    t.at(2_000);
    t.idle.begin();
    t.at(3_000);
    t.idle.end();
    expect(t.idle.check(7_999)).toBe(false);
    expect(t.idle.check(8_000)).toBe(true);
    expect(t.idle.check(60_000)).toBe(false);
    expect(t.releases()).toBe(1);
    t.at(61_000);
    t.idle.begin();
    t.idle.end();
    expect(t.idle.check(65_999)).toBe(false);
    expect(t.idle.check(66_000)).toBe(true);
    expect(t.releases()).toBe(2);
  });

  it('never releases while a call is in flight, however long it takes', () => {
    const t = idleOn(1_000);
    t.idle.begin();
    expect(t.idle.check(1_000_000)).toBe(false);
    t.at(1_000_000);
    t.idle.end();
    expect(t.idle.check(1_000_500)).toBe(false);
    expect(t.idle.check(1_001_000)).toBe(true);
  });

  it('counts a failed call as a call (around)', async () => {
    const t = idleOn(1_000);
    await expect(t.idle.around(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(t.idle.check(1_999)).toBe(false);
    expect(t.idle.check(2_000)).toBe(true);
  });

  it('with idleMs 0 never releases', () => {
    const t = idleOn(0);
    t.idle.begin();
    t.idle.end();
    expect(t.idle.check(10_000_000)).toBe(false);
    expect(t.releases()).toBe(0);
  });

  it('STORE_IDLE_RELEASE_MS is a setting, 5000 by default', () => {
    expect(loadConfig({}).storeIdleReleaseMs).toBe(5000);
    expect(loadConfig({ STORE_IDLE_RELEASE_MS: '0' }).storeIdleReleaseMs).toBe(0);
  });
});

describe('releaseIdleMemory (Linux, glibc)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('trims the C heap: malloc_trim is callable', () => {
    expect(typeof trimMallocArenas()).toBe('boolean');
  });

  it("gives back the engine library's clean pages that a store's work paged in", async () => {
    const { ChdbStore } = await import('../../pipeline/runtime/store/chdb.js');
    const dir = mkdtempSync(join(tmpdir(), 'wds-idle-release-'));
    dirs.push(dir);
    const log = createLogger('silent');
    const store = new ChdbStore({ dataDir: join(dir, 'ch') }, log);
    try {
      await store.migrate();
      await store.query('SELECT number, toString(number) FROM numbers(100000) ORDER BY number DESC LIMIT 3');
      const libraryRss = () =>
        parseSmaps(readFileSync('/proc/self/smaps', 'utf8'))
          .filter((m) => m.path.endsWith('/libchdb.so') && !m.perms.includes('w') && m.kb.get('Private_Dirty') === 0)
          .reduce((n, m) => n + (m.kb.get('Rss') ?? 0), 0);
      const before = libraryRss();
      expect(before).toBeGreaterThan(0);
      releaseIdleMemory(log);
      // The engine's own threads may page a little back in at once; most of it stays out.
      expect(libraryRss()).toBeLessThan(before / 2);
      // The engine still works: its pages come back from the page cache.
      expect(await store.query<{ n: string }>('SELECT count() AS n FROM numbers(10)')).toEqual([{ n: '10' }]);
    } finally {
      await store.close();
    }
  });
});
