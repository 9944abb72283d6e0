import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSmaps, trimMallocArenas } from '../../pipeline/runtime/store/code-pages.js';
import { collectGarbage, IdleRelease, releaseIdleMemory } from '../../pipeline/runtime/store/idle-release.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { loadConfig } from '../../pipeline/service/config.js';

/** An IdleRelease on a hand-moved clock, counting its releases (and which were while busy). */
function idleOn(idleMs: number, busyMs = 0) {
  let now = 1_000;
  let releases = 0;
  const busy: number[] = [];
  const idle = new IdleRelease({
    idleMs,
    busyMs,
    now: () => now,
    release: (whileBusy) => {
      releases += 1;
      if (whileBusy) busy.push(now);
    },
  });
  return {
    idle,
    at: (ms: number) => (now = ms),
    releases: () => releases,
    busy: () => busy,
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

  it('with busyMs, releases while calls keep coming, at most once every busyMs from the first call of the spell', () => {
    const t = idleOn(5_000, 2_000);
    t.at(10_000);
    for (let ms = 10_000; ms <= 17_000; ms += 100) {
      t.at(ms);
      t.idle.begin();
      t.idle.end();
      t.idle.check(ms);
    }
    // Calls every 100 ms from 10 000 to 17 000: released while busy at 12 000, 14 000, 16 000.
    expect(t.busy()).toEqual([12_000, 14_000, 16_000]);
    // Once more for the calls after 16 000, then not again without a new call.
    t.at(18_000);
    expect(t.idle.check(18_000)).toBe(true);
    t.at(20_000);
    expect(t.idle.check(20_000)).toBe(false);
    // Then idle: the idle release once (not busy), and nothing after it until the next call.
    expect(t.idle.check(21_999)).toBe(false);
    t.at(22_000);
    expect(t.idle.check(22_000)).toBe(true);
    expect(t.releases()).toBe(5);
    expect(t.busy()).toEqual([12_000, 14_000, 16_000, 18_000]);
    expect(t.idle.check(40_000)).toBe(false);
    // A new spell counts busyMs from its own first call.
    t.at(50_000);
    t.idle.begin();
    expect(t.idle.check(51_999)).toBe(false);
    t.at(52_000);
    expect(t.idle.check(52_000)).toBe(true);
    expect(t.busy()).toEqual([12_000, 14_000, 16_000, 18_000, 52_000]);
  });

  it('releases while busy even when one call stays in flight, and never while busy with busyMs 0', () => {
    const t = idleOn(1_000, 3_000);
    t.idle.begin();
    expect(t.idle.check(3_999)).toBe(false);
    t.at(4_000);
    expect(t.idle.check(4_000)).toBe(true);
    t.at(7_000);
    expect(t.idle.check(7_000)).toBe(true); // the call is still in flight
    expect(t.busy()).toEqual([4_000, 7_000]);
    const never = idleOn(1_000, 0);
    never.idle.begin();
    expect(never.idle.check(1_000_000)).toBe(false);
    expect(never.releases()).toBe(0);
  });

  it('STORE_BUSY_RELEASE_MS is a setting, 5000 by default', () => {
    expect(loadConfig({}).storeBusyReleaseMs).toBe(5000);
    expect(loadConfig({ STORE_BUSY_RELEASE_MS: '0' }).storeBusyReleaseMs).toBe(0);
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

  it("collects V8's heap and gives its free pages back", () => {
    let garbage: string[] | null = Array.from({ length: 200_000 }, (_, i) => `garbage ${i}`.repeat(4));
    expect(garbage.length).toBe(200_000);
    garbage = null;
    const before = process.memoryUsage().heapTotal;
    expect(collectGarbage()).toBe(true);
    expect(process.memoryUsage().heapTotal).toBeLessThan(before);
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
      // While busy: the same mappings again, found without reading smaps.
      await store.query('SELECT number, toString(number) FROM numbers(100000) ORDER BY number DESC LIMIT 3');
      const pagedIn = libraryRss();
      releaseIdleMemory(log, true);
      expect(libraryRss()).toBeLessThan(pagedIn);
      expect(await store.query<{ n: string }>('SELECT count() AS n FROM numbers(10)')).toEqual([{ n: '10' }]);
    } finally {
      await store.close();
    }
  });
});
