/**
 * The dashboard's SQL file and panels (pipeline/dashboard/): the file holds the named queries
 * the code asks for, each a SELECT filtered on the key; against the embedded store, each panel
 * reads one key's rows of every table and nothing of another key's, within its window ending
 * at the given "now" (the injected clock; no date is fixed: rows are placed relative to it).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobDetail, jobsPanel, mentionsPanel, monitorsPanel, PANEL_LIMITS, usagePanel, windowDays, WINDOW_DAYS } from '../../pipeline/dashboard/panels.js';
import { parseQueries, QUERIES_FILE, QUERY_NAMES } from '../../pipeline/dashboard/queries.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { chdbAvailable, quietLog, tempDir, type TempDir } from '../helpers/clickhouse.js';

const hasChdb = await chdbAvailable();
const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('pipeline/dashboard/queries.sql', () => {
  const queries = parseQueries(readFileSync(QUERIES_FILE, 'utf8'));

  it('holds exactly the named queries the panels run', () => {
    expect([...queries.keys()].sort()).toEqual([...QUERY_NAMES].sort());
  });

  it('is read-only and reads one key: every query a SELECT, every table read filtered on {key:String}', () => {
    for (const [name, sql] of queries) {
      expect(sql, name).toMatch(/^SELECT\b/);
      expect(sql, name).not.toMatch(/\b(INSERT|ALTER|DELETE|UPDATE|DROP|TRUNCATE|OPTIMIZE|CREATE)\b/i);
      const tablesRead = sql.match(/\bFROM [a-z_]+/g) ?? [];
      const keyFilters = sql.match(/tenant = \{key:String\}/g) ?? [];
      expect(tablesRead.length, name).toBeGreaterThan(0);
      expect(keyFilters.length, `${name}: one key filter per table read`).toBe(tablesRead.length);
    }
  });

  it('refuses a query without its closing line and a name given twice', () => {
    expect(() => parseQueries('-- name: a\nSELECT 1\n')).toThrow(/does not end/);
    expect(() => parseQueries('-- name: a\nSELECT 1;\n-- name: a\nSELECT 2;\n')).toThrow(/named twice/);
    expect([...parseQueries('-- name: a\n-- what it does\nSELECT 1\nFROM t;\n')]).toEqual([['a', 'SELECT 1\nFROM t']]);
  });
});

describe.skipIf(!hasChdb)('pipeline/dashboard/panels (embedded store)', () => {
  let dir: TempDir;
  let store: Store;
  const state = new MemoryState();
  const NOW = Date.now();
  const at = (ago: number) => new Date(NOW - ago);

  /** The same records for each key, so that any leak between keys doubles a count. */
  async function seed(key: string, tag: string): Promise<void> {
    await store.insert('api_requests', [
      { tenant: key, at: at(60_000), op: 'scrape', status: 200, code: '', credits: 1, request_id: `${tag}-1` },
      { tenant: key, at: at(2 * DAY), op: 'scrape', status: 200, code: '', credits: 1, request_id: `${tag}-2` },
      { tenant: key, at: at(2 * DAY), op: 'map', status: 422, code: 'validation_failed', credits: 0, request_id: `${tag}-3` },
      // Outside the window: before it, and after "now".
      { tenant: key, at: at((WINDOW_DAYS + 1) * DAY), op: 'scrape', status: 200, code: '', credits: 5, request_id: `${tag}-4` },
      { tenant: key, at: at(-60_000), op: 'scrape', status: 200, code: '', credits: 5, request_id: `${tag}-5` },
    ]);
    const job = { tenant: key, id: `crawl_${tag}`, kind: 'crawl', created_at: at(3_600_000), updated_at: at(60_000), expires_at: at(-DAY), total: 3, completed: 2, failed: 1, credits_used: 2, params: '{}', error: '' };
    await store.insert('jobs', [{ ...job, status: 'scraping', version: 1 }, { ...job, status: 'completed', version: 2 }]);
    await store.insert('job_pages', [1, 2].map((seq) => ({ tenant: key, job_id: `crawl_${tag}`, seq, url: `https://${tag}.example/${seq}`, status_code: 200, title: `${tag} page ${seq}`, created_at: at(60_000) })));
    await store.insert('job_errors', [{ tenant: key, job_id: `crawl_${tag}`, id: 'e1', at: at(60_000), url: `https://${tag}.example/3`, code: 'http_error', message: 'HTTP 500', status_code: 500 }]);
    await store.insert('monitors', [{ tenant: key, id: `mon_${tag}`, version: 1, name: `${tag} monitor`, url: `https://${tag}.example/`, urls: [], interval_minutes: 60, status: 'active', deleted: 0, created_at: at(DAY), updated_at: at(DAY), next_check_at: at(-DAY) }]);
    await store.insert('monitor_checks', [`chk_${tag}_1`, `chk_${tag}_2`].map((id, i) => ({ tenant: key, monitor_id: `mon_${tag}`, id, version: 3, trigger: 'scheduled', status: 'completed', reason: '', scheduled_at: at(DAY - i), queued_at: at(DAY - i * 3_600_000), urls: [], count_new: i ? 0 : 1, count_changed: i, credits_used: 1 })));
    await store.insert('monitor_check_pages', [{ tenant: key, monitor_id: `mon_${tag}`, check_id: `chk_${tag}_2`, url: `https://${tag}.example/`, position: 0, checked_at: at(DAY - 3_600_000), status: 'changed', status_code: 200, diff: `-old ${tag}\n+new ${tag}`, added: [`new ${tag}`], removed: [`old ${tag}`] }]);
    await store.insert('webhook_deliveries', [1, 2].map((attempt) => ({ tenant: key, source_id: `chk_${tag}_2`, id: 'd1', attempt, at: at(DAY - 3_600_000 - attempt), event: 'monitor.check.completed', url: 'https://hooks.example', status_code: attempt === 1 ? 500 : 200, ok: attempt === 1 ? 0 : 1, error: '', duration_ms: 5 })));
    await store.insert('mentions', [
      { tenant: key, id: `men_${tag}`, version: 1, watch_id: 'w', url: `https://${tag}.example/post`, platform: 'reddit', category: 'question', status: 'new', title: `${tag} post`, found_at: at(2 * DAY), updated_at: at(2 * DAY) },
      { tenant: key, id: `men_${tag}`, version: 2, watch_id: 'w', url: `https://${tag}.example/post`, platform: 'reddit', category: 'question', status: 'seen', title: `${tag} post`, found_at: at(2 * DAY), updated_at: at(DAY) },
    ]);
    await store.insert('mention_status_changes', [{ tenant: key, mention_id: `men_${tag}`, changed_at: at(DAY), from_status: 'new', to_status: 'seen' }]);
  }

  beforeAll(async () => {
    dir = tempDir('dashboard-store');
    store = await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog);
    await store.migrate();
    await seed('key_a', 'a');
    await seed('key_b', 'b');
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await state.close();
    dir?.remove();
  });

  const deps = () => ({ store, state });

  it('usage: requests and credits per day and operation in the window, errors by code, the key\'s only', async () => {
    const usage = await usagePanel(deps(), 'key_a', NOW);
    expect(usage.days).toEqual(windowDays(NOW));
    expect(usage.days).toHaveLength(WINDOW_DAYS);
    const requests = (op: string) => usage.byDay.filter((r) => r.op === op).reduce((n, r) => n + r.requests, 0);
    expect(requests('scrape')).toBe(2);
    expect(requests('map')).toBe(1);
    expect(usage.byDay.find((r) => r.op === 'crawl: pages')).toEqual({ day: dayOf(NOW - 3_600_000), op: 'crawl: pages', requests: 0, credits: 2 });
    expect(usage.byDay.filter((r) => r.op === 'monitor: checks run').reduce((n, r) => n + r.credits, 0)).toBe(2);
    expect(usage.errors).toEqual([{ code: 'validation_failed', op: 'map', requests: 1, status: 422 }]);
    expect(usage.totals).toEqual({ requests: 3, credits: 2 + 2 + 2, errors: 1 });
    expect((await usagePanel(deps(), 'key_nobody', NOW)).totals).toEqual({ requests: 0, credits: 0, errors: 0 });
  });

  it('jobs: the key\'s jobs at their newest version, their pages and errors; another key\'s job is a 404', async () => {
    const { jobs } = await jobsPanel(deps(), 'key_a');
    expect(jobs).toEqual([expect.objectContaining({ id: 'crawl_a', kind: 'crawl', status: 'completed', total: 3, completed: 2, failed: 1, creditsUsed: 2 })]);
    const detail = await jobDetail(deps(), 'key_a', 'crawl_a');
    expect(detail.pages.map((p) => p.url)).toEqual(['https://a.example/2', 'https://a.example/1']);
    expect(detail.errors).toEqual([expect.objectContaining({ url: 'https://a.example/3', code: 'http_error', statusCode: 500 })]);
    await expect(jobDetail(deps(), 'key_a', 'crawl_b')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('monitors: each monitor\'s checks in order, the change with its diff, a delivery by its last attempt', async () => {
    const panel = await monitorsPanel(deps(), 'key_a', NOW);
    expect(panel.monitors.map((m) => [m.id, m.name, m.urls])).toEqual([['mon_a', 'a monitor', ['https://a.example/']]]);
    expect(panel.monitors[0]?.checks.map((c) => [c.id, c.counts.new, c.counts.changed])).toEqual([['chk_a_1', 1, 0], ['chk_a_2', 0, 1]]);
    expect(panel.changes).toEqual([expect.objectContaining({ monitorId: 'mon_a', checkId: 'chk_a_2', diff: '-old a\n+new a', added: ['new a'], removed: ['old a'] })]);
    expect(panel.deliveries).toEqual([expect.objectContaining({ monitorId: 'mon_a', checkId: 'chk_a_2', event: 'monitor.check.completed', attempts: 2, ok: true, statusCode: 200 })]);
  });

  it('monitors: past the checks limit, the newest checks and a flag saying so', async () => {
    const count = PANEL_LIMITS.checks + 1;
    await store.insert('monitors', [{ tenant: 'key_c', id: 'mon_c', version: 1, name: 'busy', url: 'https://c.example/', urls: [], interval_minutes: 5, status: 'active', deleted: 0, created_at: at(DAY), updated_at: at(DAY), next_check_at: at(0) }]);
    await store.insert('monitor_checks', Array.from({ length: count }, (_, i) => ({ tenant: 'key_c', monitor_id: 'mon_c', id: `chk_c_${String(i).padStart(5, '0')}`, version: 3, trigger: 'scheduled', status: 'completed', reason: '', scheduled_at: at(DAY), queued_at: at(DAY - i * 10_000), urls: [], credits_used: 1 })));
    const panel = await monitorsPanel(deps(), 'key_c', NOW);
    expect(panel.checksTruncated).toBe(true);
    const checks = panel.monitors[0]?.checks ?? [];
    expect(checks).toHaveLength(PANEL_LIMITS.checks);
    // The oldest (chk_c_00000) is the one left out; the timeline runs oldest first.
    expect(checks[0]?.id).toBe('chk_c_00001');
    expect(checks.at(-1)?.id).toBe(`chk_c_${String(count - 1).padStart(5, '0')}`);
    expect((await monitorsPanel(deps(), 'key_a', NOW)).checksTruncated).toBe(false);
  });

  it('mentions: counts per day by category and platform, the newest at their current status with its history', async () => {
    const panel = await mentionsPanel(deps(), 'key_a', NOW);
    expect(panel.byDay).toEqual([{ day: dayOf(NOW - 2 * DAY), category: 'question', platform: 'reddit', mentions: 1 }]);
    expect(panel.newest).toEqual([expect.objectContaining({ id: 'men_a', status: 'seen', title: 'a post', history: [{ from: 'new', to: 'seen', atMs: NOW - DAY }] })]);
    expect((await mentionsPanel(deps(), 'key_nobody', NOW)).newest).toEqual([]);
  });
});
