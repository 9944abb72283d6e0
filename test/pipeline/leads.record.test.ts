/**
 * pipeline/leads/record.ts: a run's record in coordination state and its versions in the
 * store; another key's run is null; a run whose state was lost is answered from the store,
 * `failed` when it had not ended; a run nobody moves for RUN_STALL_MS is failed, never left
 * running; the view shows partial leads without contacts while it runs.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Lead } from '../../pipeline/leads/leads.js';
import { createRun, INTERRUPTED_ERROR, liveRun, newRunId, readRun, resumeRuns, RUN_STALL_MS, runView, saveRun, STALLED_ERROR, takeEnd, type RunParams } from '../../pipeline/leads/record.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const params: RunParams = { query: 'dentists', where: 'Lyon', country: null, limit: 10, sources: ['osm'], contacts: true };
const lead = (name: string): Lead => ({
  id: `osm:node/${name.length}`, name, address: null, phone: null, website: 'https://x.example/', email: null, category: 'dentist', coordinates: null,
  sources: ['osm'], fieldSources: { name: 'osm', website: 'osm' }, refs: [], licenses: ['ODbL-1.0'],
  contacts: { emails: ['a@x.example'], phones: [], contactForms: [], socialLinks: [] },
});

let state: MemoryState;
let rows: Record<string, unknown>[];
const writer = { write: async (_t: string, r: Record<string, unknown>[]) => void rows.push(...r) };
/** The store: the newest written version of the run (FINAL), its times as ClickHouse prints them. */
const store = {
  query: async <R>(_sql: string, p?: Record<string, unknown>) => {
    const mine = rows.filter((r) => r.id === p?.id && r.tenant === p?.tenant);
    const newest = mine.at(-1);
    const ch = (ms: unknown) => new Date(Number(ms)).toISOString().replace('T', ' ').replace('Z', '');
    return (newest ? [{ ...newest, version: mine.length, created_at: ch(newest.created_at), updated_at: ch(newest.updated_at), expires_at: ch(newest.expires_at) }] : []) as R[];
  },
};

beforeEach(() => {
  state = new MemoryState();
  rows = [];
});

describe('pipeline/leads/record', () => {
  it('creates a queued run, live and stored; another key\'s run is null', async () => {
    const id = newRunId();
    await createRun({ state, writer }, { id, tenant: 'a', params, warning: null, nowMs: T0, retentionMs: 3_600_000 });
    expect(await readRun({ state, store, writer }, 'a', id, T0)).toMatchObject({ id, status: 'queued', stage: 'queued', expiresAtMs: T0 + 3_600_000 });
    expect(await readRun({ state, store, writer }, 'b', id, T0)).toBeNull();
    expect(rows).toHaveLength(1);
  });

  it('answers a run whose state is lost from the store: as it ended, or failed when it had not', async () => {
    const id = newRunId();
    const run = await createRun({ state, writer }, { id, tenant: 'a', params, warning: null, nowMs: T0, retentionMs: 3_600_000 });
    await saveRun({ state, writer }, { ...run, status: 'running', stage: 'sources', leads: [lead('Dupont')] }, T0 + 1000, true);
    await state.del(`leads:${id}`);
    const lost = await readRun({ state, store, writer }, 'a', id, T0 + 2000);
    expect(lost).toMatchObject({ status: 'failed', error: INTERRUPTED_ERROR, final: true, leads: [], creditsUsed: 0 });
    expect(rows.at(-1)).toMatchObject({ status: 'failed', error: INTERRUPTED_ERROR });
    expect(await readRun({ state, store, writer }, 'b', id, T0 + 2000)).toBeNull();

    const done = newRunId();
    const other = await createRun({ state, writer }, { id: done, tenant: 'a', params, warning: null, nowMs: T0, retentionMs: 3_600_000 });
    await saveRun({ state, writer }, { ...other, status: 'completed', stage: 'done', final: true, leads: [lead('Martin')], creditsUsed: 1 }, T0 + 1000, true);
    await state.del(`leads:${done}`);
    expect(await readRun({ state, store, writer }, 'a', done, T0 + 5000)).toMatchObject({ status: 'completed', creditsUsed: 1, leads: [{ name: 'Martin' }] });
  });

  it('fails a run nobody moved for RUN_STALL_MS, never leaving it running', async () => {
    const id = newRunId();
    const run = await createRun({ state, writer }, { id, tenant: 'a', params, warning: null, nowMs: T0, retentionMs: 3_600_000 });
    await saveRun({ state, writer }, { ...run, status: 'running', stage: 'contacts' }, T0, true);
    expect((await readRun({ state, store, writer }, 'a', id, T0 + RUN_STALL_MS))?.status).toBe('running');
    const stalled = await readRun({ state, store, writer }, 'a', id, T0 + RUN_STALL_MS + 1);
    expect(stalled).toMatchObject({ status: 'failed', error: STALLED_ERROR, final: true });
    expect((await liveRun(state, id))?.status).toBe('failed');
  });

  it('resumes every run not ended after a restart (its event again, as first sent), and lets ended ones go', async () => {
    const make = (id: string, at: number) => createRun({ state, writer }, { id, tenant: 'a', params, warning: null, nowMs: at, retentionMs: 3_600_000 });
    const queued = await make(newRunId(), T0);
    const running = await make(newRunId(), T0 + 1);
    await saveRun({ state, writer }, { ...running, status: 'running', stage: 'contacts', held: 5 }, T0 + 2);
    const done = await make(newRunId(), T0 + 3);
    await saveRun({ state, writer }, { ...done, status: 'completed', stage: 'done', final: true }, T0 + 4, true);
    const first = await resumeRuns(state, T0 + 10);
    expect(first.map((e) => e.value.runId)).toEqual([queued.id, running.id]);
    expect(first[1]).toMatchObject({ topic: 'leadsRequested', key: running.id, value: { tenant: 'a', kind: 'run', query: JSON.stringify(params), replyTo: null, deadlineMs: running.expiresAtMs } });
    // A second restart finds the same runs (still not ended); the ended one has left the list.
    expect((await resumeRuns(state, T0 + 20)).map((e) => e.value.runId)).toEqual([queued.id, running.id]);
  });

  it('keeps the status that took the end latch first', async () => {
    const id = newRunId();
    const run = await createRun({ state, writer }, { id, tenant: 'a', params, warning: null, nowMs: T0, retentionMs: 3_600_000 });
    expect(await takeEnd(state, run, 'cancelled', null, T0)).toBe(true);
    expect(await takeEnd(state, run, 'completed', null, T0)).toBe(false);
    const stalled = await readRun({ state, store, writer }, 'a', id, T0 + RUN_STALL_MS + 1);
    expect(stalled).toMatchObject({ status: 'cancelled', error: null, final: true });
  });

  it('shows a running run\'s leads without contacts, and a finished one\'s as they are', async () => {
    const id = newRunId();
    const run = await createRun({ state, writer }, { id, tenant: 'a', params, warning: 'fields this API does not know were ignored: x', nowMs: T0, retentionMs: 3_600_000 });
    const running = runView({ ...run, status: 'running', stage: 'contacts', leads: [lead('Dupont')] });
    expect(running).toMatchObject({ status: 'running', partial: true, warning: 'fields this API does not know were ignored: x' });
    expect((running.leads as Lead[])[0]?.contacts).toBeNull();
    expect(runView(run)).toMatchObject({ status: 'queued', partial: false, leads: [] });
    const done = runView({ ...run, status: 'completed', stage: 'done', final: true, leads: [lead('Dupont')] });
    expect(done.partial).toBe(false);
    expect((done.leads as Lead[])[0]?.contacts?.emails).toEqual(['a@x.example']);
    expect(Object.keys(done)).not.toContain('tenant');
  });
});
