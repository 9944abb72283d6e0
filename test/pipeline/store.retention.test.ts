/**
 * Job retention in the store (pipeline/runtime/store/retention.ts) on chdb: the TTLs JOB_RETENTION_HOURS
 * sets on `jobs`, `job_pages` and `job_errors`, set once, changed when the setting changes, and
 * rows past them gone after a merge while newer rows stay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { applyJobRetention } from '../../pipeline/runtime/store/retention.js';
import { chdbAvailable, quietLog, tempDir, type TempDir } from '../helpers/clickhouse.js';

const hasChdb = await chdbAvailable();
const HOUR_MS = 3_600_000;

describe.skipIf(!hasChdb)('pipeline/runtime/store retention (chdb)', () => {
  let dir: TempDir;
  let store: Store;

  beforeAll(async () => {
    dir = tempDir('wds-retention');
    store = await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog);
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    dir?.remove();
  });

  it('sets the TTLs once, and again only where a new setting changes them', async () => {
    expect(await applyJobRetention(store, 24, quietLog)).toEqual(['jobs', 'job_pages', 'job_errors']);
    expect(await applyJobRetention(store, 24, quietLog)).toEqual([]);
    expect(await applyJobRetention(store, 48, quietLog)).toEqual(['job_pages', 'job_errors']);
    const [row] = await store.query<{ create: string }>("SELECT create_table_query AS create FROM system.tables WHERE database = currentDatabase() AND name = 'job_pages'");
    expect(row?.create).toContain('TTL toDateTime(created_at) + toIntervalHour(48)');
  });

  it('drops rows past their retention at the next merge and keeps the rest', async () => {
    await applyJobRetention(store, 48, quietLog);
    const now = Date.now();
    const job = (id: string, createdMs: number) => ({
      tenant: 't',
      id,
      kind: 'crawl',
      status: 'completed',
      version: 1,
      created_at: new Date(createdMs),
      updated_at: new Date(createdMs),
      total: 1,
      completed: 1,
      failed: 0,
      credits_used: 1,
      params: '{}',
      error: '',
      expires_at: new Date(createdMs + 48 * HOUR_MS),
    });
    const page = (jobId: string, createdMs: number) => ({
      tenant: 't',
      job_id: jobId,
      seq: 1,
      url: `https://example.com/${jobId}`,
      status_code: 200,
      content_type: 'text/html',
      final_url: `https://example.com/${jobId}`,
      title: jobId,
      document: '{}',
      content_hash: jobId,
      created_at: new Date(createdMs),
    });
    const error = (jobId: string, atMs: number) => ({ tenant: 't', job_id: jobId, id: 'e1', at: new Date(atMs), url: 'https://example.com/x', code: 'dns_failed', message: '', status_code: 0 });
    await store.insert('jobs', [job('old', now - 50 * HOUR_MS), job('new', now - HOUR_MS)]);
    await store.insert('job_pages', [page('old', now - 50 * HOUR_MS), page('new', now - HOUR_MS)]);
    await store.insert('job_errors', [error('old', now - 50 * HOUR_MS), error('new', now - HOUR_MS)]);
    for (const table of ['jobs', 'job_pages', 'job_errors']) await store.command(`OPTIMIZE TABLE ${table} FINAL`);
    expect(await store.query("SELECT id FROM jobs WHERE tenant = 't' ORDER BY id")).toEqual([{ id: 'new' }]);
    expect(await store.query("SELECT job_id FROM job_pages WHERE tenant = 't' ORDER BY job_id")).toEqual([{ job_id: 'new' }]);
    expect(await store.query("SELECT job_id FROM job_errors WHERE tenant = 't' ORDER BY job_id")).toEqual([{ job_id: 'new' }]);
  });
});
