/**
 * Monitors below the API: the classifier's page judgement (pure), and the frontier's
 * schedules on a real store (chdb) and memory state — the pace at which due checks start,
 * oldest first; a due time started once however often it is found; one check at a time per
 * monitor; the rebuild from the store; the resume of a check nobody works on; the webhook
 * URL sealed at rest; pausing, resuming and changing a monitor (PATCH's record and schedule).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeMovedByNoise, judgePage, MAX_LINES } from '../../actors/classifier/judge.js';
import { MAX_BODY_BYTES, monitorWebhookBody, PAGE_DIFF_CHARS, PAGE_LINES } from '../../actors/notifier/monitor.js';
import { rebuildSchedules, resumeChecks, startDueChecks, type ScheduleDeps } from '../../actors/frontier/schedules/monitors.js';
import { queuedCheck, readCheck, writeCheck } from '../../pipeline/monitors/checks.js';
import { createMonitor, openWebhook, readMonitor, updateMonitor, type MonitorRecord } from '../../pipeline/monitors/record.js';
import { DUE_KEY, nextDue, rescheduleMonitor, runningCheck, scheduledMonitor, scheduledOf, scheduleMonitor, takeRunning } from '../../pipeline/monitors/schedule.js';
import { digestMatch, snapshotDigest } from '../../pipeline/monitors/snapshots.js';
import type { PageSnapshot } from '../../pipeline/pages/changes.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { BatchWriter, type Store } from '../../pipeline/runtime/store/index.js';
import { chdbAvailable, quietLog, tempDir, chdbIn, openMigrated, type OpenedStore } from '../helpers/clickhouse.js';
import { recentNoon } from '../helpers/clock.js';

const hasChdb = await chdbAvailable();
/** A fixed clock the store's 90-day retention keeps (test/helpers/clock.ts). */
const AT = recentNoon();
const PAGE = { url: 'https://shop.test/pricing', position: 0, checkedAtMs: AT };

const snapshot = (markdown: string, statusCode = 200): PageSnapshot => ({ scrapedAt: AT - 3_600_000, statusCode, markdown, json: null });
const reply = (markdown: string, statusCode = 200) => ({ ok: true, data: JSON.stringify({ markdown, metadata: { statusCode } }), errorCode: null, errorMessage: null, credits: 1 });

describe('actors/classifier judgePage', () => {
  it('reports a first check new and keeps its snapshot', () => {
    const { result, snapshot: kept } = judgePage(PAGE, null, reply('# Pricing\n\nStarter: $19\n'));
    expect(result).toMatchObject({ status: 'new', statusCode: 200, credits: 1, diff: '', added: [], removed: [] });
    expect(kept?.markdown).toBe('# Pricing\n\nStarter: $19\n');
  });

  it('reports a real change with its diff and the lines added and removed', () => {
    const { result } = judgePage(PAGE, snapshot('# Pricing\n\nStarter: $19\n\nTeam: $49\n'), reply('# Pricing\n\nStarter: $24\n\nTeam: $49\n'));
    expect(result).toMatchObject({ status: 'changed', added: ['Starter: $24'], removed: ['Starter: $19'], truncated: false });
    expect(result.diff).toContain('-Starter: $19\n+Starter: $24');
  });

  it.each([
    ['a clock', 'Updated 2026-11-26 10:00:01 UTC', 'Updated 2026-11-26 10:05:44 UTC'],
    ['a relative time', 'Posted 3 minutes ago', 'Posted 8 minutes ago'],
    ['a cache-busting query string', '![logo](https://shop.test/logo.png?v=1795734910)', '![logo](https://shop.test/logo.png?v=1795771364)'],
    ['a fingerprinted asset', '[styles](https://shop.test/app.3f9a2c1b.css)', '[styles](https://shop.test/app.9c0d7e11.css)'],
    ['whitespace', 'Starter:   $19  ', 'Starter: $19'],
  ])('reports a page whose only difference is %s same', (_what, before, after) => {
    const { result, snapshot: kept } = judgePage(PAGE, snapshot(`# Pricing\n\n${before}\n`), reply(`# Pricing\n\n${after}\n`));
    expect(result.status).toBe('same');
    expect(result.diff).toBe('');
    // A noise-only page still moves the snapshot on (so the next diff is not all noise); an identical one does not.
    expect(kept === null).toBe(_what === 'whitespace');
    // The digests alone tell it, and judging from them finds what judging against the snapshot finds.
    const match = digestMatch(snapshotDigest(snapshot(`# Pricing\n\n${before}\n`)), snapshot(`# Pricing\n\n${after}\n`));
    expect(match).toBe(_what === 'whitespace' ? 'same' : 'noise');
    // The check judges a page the same as its snapshot against the page itself; one moved by noise with judgeMovedByNoise.
    const read = reply(`# Pricing\n\n${after}\n`);
    const fromDigest = match === 'noise' ? judgeMovedByNoise(PAGE, read) : judgePage(PAGE, snapshot(`# Pricing\n\n${after}\n`), read);
    expect(fromDigest.result).toEqual(result);
    expect(fromDigest.snapshot === null).toBe(_what === 'whitespace');
  });

  it('tells from the digests alone only a page the same up to noise, with the same status', () => {
    const page = '# Pricing\n\nStarter: $19 (updated 2026-11-26 10:00:01 UTC)\n';
    const kept = snapshotDigest(snapshot(page));
    expect(digestMatch(kept, snapshot(`${page}\n\n`))).toBe('same');
    expect(digestMatch(kept, snapshot(page.replace('10:00:01', '10:05:44')))).toBe('noise');
    expect(digestMatch(kept, snapshot(page.replace('$19', '$24')))).toBeNull();
    expect(digestMatch(kept, snapshot(page.replace('10:00:01', '10:05:44'), 203))).toBeNull();
    // A digest kept in the older two-part form knows no noise-free text: the snapshot is read.
    const older = kept.split(':').slice(0, 2).join(':');
    expect(digestMatch(older, snapshot(page))).toBe('same');
    expect(digestMatch(older, snapshot(page.replace('10:00:01', '10:05:44')))).toBeNull();
    // A page still gone whose error page moved by noise keeps its snapshot, as judgePage against it does.
    const gone = judgeMovedByNoise(PAGE, reply('Not found at 10:05:44', 404));
    expect(gone).toEqual(judgePage(PAGE, snapshot('Not found at 10:00:01', 404), reply('Not found at 10:05:44', 404)));
    expect(gone).toMatchObject({ result: { status: 'same' }, snapshot: null });
  });

  it('reports a page gone once: removed, then same while it stays gone; back again is changed', () => {
    const gone = judgePage(PAGE, snapshot('# Pricing\n'), reply('# Not found\n', 404));
    expect(gone.result).toMatchObject({ status: 'removed', statusCode: 404 });
    expect(judgePage(PAGE, snapshot('# Not found\n', 404), reply('# Not found\n', 410)).result.status).toBe('same');
    expect(judgePage(PAGE, snapshot('# Not found\n', 404), reply('# Pricing\n')).result.status).toBe('changed');
  });

  it('reports a page that could not be read, or answered a server error, as an error and keeps the old snapshot', () => {
    const refused = judgePage(PAGE, snapshot('# Pricing\n'), { ok: false, data: null, errorCode: 'connection_refused', errorMessage: 'the server refused the connection', credits: 0 });
    expect(refused).toEqual({ result: expect.objectContaining({ status: 'error', statusCode: 0, errorCode: 'connection_refused', credits: 0 }), snapshot: null });
    const failing = judgePage(PAGE, snapshot('# Pricing\n'), reply('Internal error', 503));
    expect(failing).toEqual({ result: expect.objectContaining({ status: 'error', statusCode: 503, errorCode: 'http_error' }), snapshot: null });
  });

  it('caps the lines it lists and says so', () => {
    // 250 lines a side: past MAX_LINES (200), and D = 500 changed lines keeps the diff well
    // inside DIFF_TIMEOUT_MS on a loaded machine (400 a side, D = 800, took 1.2 s under load
    // and gave the diff up).
    const before = Array.from({ length: 250 }, (_, i) => `old line ${i}`).join('\n\n');
    const after = Array.from({ length: 250 }, (_, i) => `new line ${i}`).join('\n\n');
    const { result } = judgePage(PAGE, snapshot(before), reply(after));
    expect(result.status).toBe('changed');
    expect(result.added).toHaveLength(MAX_LINES);
    expect(result.truncated).toBe(true);
  });
});

describe('actors/notifier monitorWebhookBody', () => {
  const monitor = { id: 'mon_1', tenant: 'k', name: 'Big', url: null, urls: Array.from({ length: 50 }, (_, i) => `https://site.test/${i}`), intervalMinutes: 60, goal: null, sealedWebhook: null, createdAtMs: AT, updatedAtMs: AT };
  const check = { ...queuedCheck({ tenant: 'k', monitorId: 'mon_1', trigger: 'scheduled' as const, scheduledAtMs: AT, urls: monitor.urls, nowMs: AT }), status: 'completed' as const, startedAtMs: AT, finishedAtMs: AT + 1000, counts: { new: 0, same: 1, changed: 49, removed: 0, error: 0 } };
  const pages = monitor.urls.map((url, position) => ({
    url, position, checkedAtMs: AT, status: position === 0 ? ('same' as const) : ('changed' as const), statusCode: 200, errorCode: '', error: '', credits: 1,
    diff: `@@ -1 +1 @@\n${'-old text\n+new text\n'.repeat(1000)}`, added: Array.from({ length: 120 }, () => 'new text'), removed: ['old text'], truncated: false,
  }));

  it('lists the pages that were not same, each diff and list cut, the body within its cap with a link to the whole check', () => {
    const raw = monitorWebhookBody(monitor, check, pages);
    const body = JSON.parse(raw);
    expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(body.truncated).toBe(true);
    expect(body.pages.length).toBeGreaterThan(10);
    expect(body.pages.length).toBeLessThan(49);
    expect(body.pages.every((p: { status: string }) => p.status === 'changed')).toBe(true);
    expect(body.pages[0].diff.length).toBeLessThanOrEqual(PAGE_DIFF_CHARS);
    expect(body.pages[0]).toMatchObject({ truncated: true, removed: ['old text'] });
    expect(body.pages[0].added).toHaveLength(PAGE_LINES);
    expect(body).toMatchObject({ type: 'monitor.check.completed', check: { summary: { totalPages: 50, changed: 49, same: 1 } }, links: { checks: '/v1/monitor/mon_1/checks' } });
  });
});

describe('pipeline/monitors nextDue', () => {
  it('keeps the grid and skips missed rounds', () => {
    expect(nextDue(1000, 300, 900)).toBe(1000);
    expect(nextDue(1000, 300, 1000)).toBe(1300);
    expect(nextDue(1000, 300, 2150)).toBe(2200);
  });
});

describe.skipIf(!hasChdb)('actors/frontier/schedules on chdb and memory state', () => {
  let store: Store;
  let writer: BatchWriter;
  let opened: OpenedStore | undefined;
  const dir = tempDir('wds-monitor-schedules');
  let now = AT;
  let state: MemoryState;
  const deps = (): ScheduleDeps => ({ state, store, writer, log: quietLog, startsPerSecond: 50, now: () => now });

  beforeAll(async () => {
    opened = await openMigrated(() => chdbIn(dir), { maxRows: 1000, maxDelayMs: 5 });
    ({ store, writer } = opened);
  }, 60_000);
  afterAll(() => opened?.close());

  /** The checks a tick starts for this monitor (other tests' monitors share the store, and a rebuild schedules them too). */
  const startedFor = async (m: MonitorRecord) => (await startDueChecks(deps(), 1000)).filter((e) => (e.value as { monitorId: string }).monitorId === m.id);

  const monitorOf = (tenant: string, i: number): Promise<MonitorRecord> =>
    createMonitor(writer, tenant, { name: `m${i}`, url: `https://site.test/${i}`, urls: [], intervalMinutes: 5, goal: null, webhook: null }, AT, 'test-server-secret');

  it('starts due checks at the pace given, oldest due first, each due time once', async () => {
    state = new MemoryState();
    now = AT;
    const monitors = await Promise.all(Array.from({ length: 40 }, (_, i) => monitorOf('pace', i)));
    // Forty monitors all due at once, the oldest due first.
    for (const [i, m] of monitors.entries()) await scheduleMonitor(state, { id: m.id, tenant: m.tenant, intervalMs: 300_000 }, AT - 40 + i);
    const first = await startDueChecks(deps(), 13);
    expect(first).toHaveLength(13);
    expect(first.map((e) => (e.value as { monitorId: string }).monitorId)).toEqual(monitors.slice(0, 13).map((m) => m.id));
    const rest = [...(await startDueChecks(deps(), 13)), ...(await startDueChecks(deps(), 13)), ...(await startDueChecks(deps(), 13))];
    expect(rest).toHaveLength(27);
    expect(await startDueChecks(deps(), 13)).toEqual([]);
    // Each went back on the schedule one interval on, and holds its running latch.
    expect(await scheduledMonitor(state, monitors[0]!.id)).toMatchObject({ nextCheckAt: AT - 40 + 300_000 });
    expect(await state.zcard(DUE_KEY)).toBe(40);
    // The same due time found again (a rebuild before the check landed) is not started twice.
    await state.del(`monitor:${monitors[0]!.id}:running`);
    await scheduleMonitor(state, { id: monitors[0]!.id, tenant: 'pace', intervalMs: 300_000 }, AT - 40);
    expect(await startDueChecks(deps(), 13)).toEqual([]);
  });

  it('queues a check from what its schedule keeps, reading no store, and hands the check and the monitor to the classifier', async () => {
    state = new MemoryState();
    now = AT;
    const m = await createMonitor(writer, 'kept', { name: 'kept "1"', url: 'https://site.test/a', urls: ['https://site.test/b', 'https://site.test/a'], intervalMinutes: 5, goal: 'prices', webhook: null }, AT, 'test-server-secret');
    await scheduleMonitor(state, scheduledOf(m), AT - 1);
    let reads = 0;
    const counted = { query: (sql: string, params?: Record<string, unknown>) => ((reads += 1), store.query(sql, params)) } as Pick<Store, 'query'>;
    const [event] = await startDueChecks({ ...deps(), store: counted }, 10);
    expect(reads).toBe(0);
    expect(event?.value).toMatchObject({
      monitorId: m.id,
      check: { trigger: 'scheduled', scheduledAtMs: AT - 1, queuedAtMs: AT, urls: ['https://site.test/a', 'https://site.test/b'], resumed: false },
      monitor: { name: 'kept "1"', goal: 'prices', sealedWebhook: null },
      replyTo: null,
    });
    // The check's row follows its event in the lazy batch (QUEUED_ROWS) and lands.
    const checkId = (event?.value as { checkId: string }).checkId;
    await writer.flush(['monitor_checks']);
    expect((await readCheck(store, 'kept', m.id, checkId))?.status).toBe('queued');
    expect(await runningCheck(state, m.id)).toBe(checkId);
  });

  it('stores the webhook URL sealed, opened only with the server secret', async () => {
    const hook = 'https://hooks.chat.test/services/T0001/B0002/aVeryPrivateToken?key=another-secret';
    const m = await createMonitor(writer, 'sealed', { name: 'sealed', url: 'https://site.test/', urls: [], intervalMinutes: 5, goal: null, webhook: hook }, AT, 'test-server-secret');
    await writer.flush();
    const [row] = await store.query<{ webhook: string }>(`SELECT webhook FROM monitors FINAL WHERE tenant = 'sealed'`);
    expect(row?.webhook).toMatch(/^v1\./);
    expect(row?.webhook).not.toContain('aVeryPrivateToken');
    const stored = await readMonitor(store, 'sealed', m.id);
    expect(openWebhook('test-server-secret', stored!)).toBe(hook);
    expect(openWebhook('another-server-secret', stored!)).toBeNull();
    // Bound to its monitor: copied onto another monitor's row it does not open.
    expect(openWebhook('test-server-secret', { id: 'mon_other', sealedWebhook: stored!.sealedWebhook })).toBeNull();
  });

  it('skips a due check while the previous one still runs, recording why', async () => {
    state = new MemoryState();
    now = AT;
    const m = await monitorOf('overlap', 1);
    await takeRunning(state, m.id, 'chk_still_running');
    await scheduleMonitor(state, { id: m.id, tenant: m.tenant, intervalMs: 300_000 }, AT - 1);
    expect(await startDueChecks(deps(), 10)).toEqual([]);
    await writer.flush();
    const rows = await store.query<{ status: string; reason: string }>(`SELECT status, reason FROM monitor_checks FINAL WHERE tenant = 'overlap'`);
    expect(rows).toEqual([{ status: 'skipped_overlap', reason: 'check chk_still_running of this monitor is still running' }]);
  });

  it('keeps a paused monitor off the schedule, through a rebuild and a lost state, and resumes it due at once when its time passed', async () => {
    state = new MemoryState();
    now = AT;
    const secret = 'test-server-secret';
    const m = await monitorOf('paused', 1);
    await scheduleMonitor(state, scheduledOf(m), AT);
    expect(await startedFor(m)).toHaveLength(1);
    await state.del(`monitor:${m.id}:running`);
    // Paused (the record first, then its schedule, as the gateway's PATCH does): the due time stays in its hash.
    now = AT + 60_000;
    const paused = await updateMonitor(writer, m, { status: 'paused' }, now, secret);
    expect(await rescheduleMonitor(state, m, paused, now)).toBe(AT + 300_000);
    expect(await readMonitor(store, 'paused', m.id)).toMatchObject({ status: 'paused', version: 2, name: m.name, url: m.url });
    expect(await scheduledMonitor(state, m.id)).toMatchObject({ paused: true, version: 2, nextCheckAt: AT + 300_000 });
    // Its due time comes and goes: no check, and it leaves the due set.
    now = AT + 3 * 300_000 + 5;
    expect(await startedFor(m)).toEqual([]);
    expect(await state.zcard(DUE_KEY)).toBe(0);
    // (The rebuild below puts every monitor of this store on the schedule: the checks started are filtered by monitor.)
    // The rebuild (same state, then state lost) keeps it off, and the classifier still finds it (not deleted).
    await rebuildSchedules(deps());
    expect(await startedFor(m)).toEqual([]);
    state = new MemoryState();
    await rebuildSchedules(deps());
    // One read answers both: the frontier sees the pause, the classifier a monitor not deleted.
    expect(await scheduledMonitor(state, m.id)).toMatchObject({ paused: true, version: 2 });
    expect(await startedFor(m)).toEqual([]);
    // Resumed long after its due time: due at once, then every interval from there.
    const resumed = await updateMonitor(writer, paused, { status: 'active' }, now, secret);
    expect(await rescheduleMonitor(state, paused, resumed, now)).toBe(now);
    expect(await startedFor(m)).toHaveLength(1);
    expect((await scheduledMonitor(state, m.id))?.nextCheckAt).toBe(now + 300_000);
    expect((await readMonitor(store, 'paused', m.id))?.status).toBe('active');
  });

  it('resumes a briefly paused monitor on its rhythm, and a record the schedule missed takes effect at the rebuild', async () => {
    state = new MemoryState();
    now = AT;
    const secret = 'test-server-secret';
    const m = await monitorOf('brief', 1);
    await scheduleMonitor(state, scheduledOf(m), AT + 300_000);
    const paused = await updateMonitor(writer, m, { status: 'paused' }, AT + 10_000, secret);
    await rescheduleMonitor(state, m, paused, AT + 10_000);
    const resumed = await updateMonitor(writer, paused, { status: 'active' }, AT + 20_000, secret);
    expect(await rescheduleMonitor(state, paused, resumed, AT + 20_000)).toBe(AT + 300_000);
    // A process that died between a pause's record and its schedule: the rebuild takes the record's pause.
    const again = await updateMonitor(writer, resumed, { status: 'paused' }, AT + 30_000, secret);
    await rebuildSchedules(deps());
    expect(await scheduledMonitor(state, m.id)).toMatchObject({ paused: true, version: again.version });
    now = AT + 300_000;
    expect(await startedFor(m)).toEqual([]);
  });

  it('checks the new pages and interval from the next check on; a check already queued keeps what it started with', async () => {
    state = new MemoryState();
    now = AT;
    const secret = 'test-server-secret';
    const m = await monitorOf('changed', 1);
    await scheduleMonitor(state, scheduledOf(m), AT);
    const [first] = await startDueChecks(deps(), 10);
    expect(first?.value).toMatchObject({ check: { urls: ['https://site.test/1'] } });
    // Changed while that check is queued: its event and row keep the old page.
    const updated = await updateMonitor(writer, m, { url: null, urls: ['https://site.test/new-a', 'https://site.test/new-b'], intervalMinutes: 10, name: 'renamed' }, AT + 1_000, secret);
    expect(await rescheduleMonitor(state, m, updated, AT + 1_000)).toBe(AT + 600_000);
    const firstId = (first?.value as { checkId: string }).checkId;
    await writer.flush(['monitor_checks']);
    expect((await readCheck(store, 'changed', m.id, firstId))?.urls).toEqual(['https://site.test/1']);
    await state.del(`monitor:${m.id}:running`);
    now = AT + 300_000;
    expect(await startDueChecks(deps(), 10)).toEqual([]);
    now = AT + 600_000;
    const [next] = await startDueChecks(deps(), 10);
    expect(next?.value).toMatchObject({ check: { urls: ['https://site.test/new-a', 'https://site.test/new-b'] }, monitor: { name: 'renamed' } });
    expect((await scheduledMonitor(state, m.id))?.nextCheckAt).toBe(AT + 1_200_000);
    expect(await readMonitor(store, 'changed', m.id)).toMatchObject({ url: null, urls: ['https://site.test/new-a', 'https://site.test/new-b'], intervalMinutes: 10, version: 2, status: 'active' });
  });

  it('rebuilds the schedule from the store and resumes a check nobody works on, once', async () => {
    state = new MemoryState();
    now = AT + 3 * 300_000 + 10;
    const m = await monitorOf('rebuild', 7);
    const never = await monitorOf('rebuild', 8);
    const last = queuedCheck({ tenant: 'rebuild', monitorId: m.id, trigger: 'scheduled', scheduledAtMs: AT + 300_000, urls: [m.url ?? ''], nowMs: AT + 300_000 });
    await writeCheck(writer, { ...last, status: 'running', startedAtMs: AT + 300_000 });
    expect(await rebuildSchedules(deps())).toBeGreaterThanOrEqual(2);
    expect((await scheduledMonitor(state, m.id))?.nextCheckAt).toBe(AT + 600_000);
    expect((await scheduledMonitor(state, never.id))?.nextCheckAt).toBe(AT);
    const resumed = await resumeChecks(deps());
    expect(resumed.filter((e) => (e.value as { checkId: string }).checkId === last.id)).toHaveLength(1);
    expect(await runningCheck(state, m.id)).toBe(last.id);
    // Its latch is held now: a second sweep leaves it to its worker.
    expect((await resumeChecks(deps())).filter((e) => (e.value as { checkId: string }).checkId === last.id)).toEqual([]);
    expect((await readCheck(store, 'rebuild', m.id, last.id))?.status).toBe('running');
  });
});
