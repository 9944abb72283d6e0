/**
 * Monitor schedules in the frontier: which checks start when.
 *
 * - `rebuildSchedules` (at start-up, and every REBUILD_MS): puts every monitor of the store
 *   on the schedule (pipeline/monitors/schedule.ts), due one interval after its newest
 *   scheduled check was due (or when it was created, for a monitor never checked), so a
 *   monitor keeps its rhythm across restarts; a check missed while nothing ran starts at once.
 *   Rebuilding twice, or from two processes, gives the same due times. A paused monitor is
 *   kept off it (its hash says paused, with that due time for its resume). A monitor whose
 *   hash already reflects a newer version than the store read (a PATCH landed meanwhile) is
 *   left as its PATCH put it; one whose hash reflects an older version (state lost, or a
 *   process died between a PATCH's record and its schedule) takes the record's pause.
 * - `resumeChecks` (at start-up, and every RESUME_MS): sends again the event of every check
 *   the store has queued or running whose running latch is free (its worker died, or the
 *   embedded process restarted mid-check); the classifier reads only the pages the check had
 *   not judged. A check whose latch is held is still being worked on and is left alone.
 * - `startDueChecks` (every TICK_MS): pops the monitors due now, at most
 *   MONITOR_STARTS_PER_SECOND a second per process (the rest wait, oldest due first: 1,000
 *   monitors due at once start over a few seconds, not at once), drops a paused one (it is
 *   put back when resumed), puts each other back on the schedule one interval on, takes the
 *   due time's slot (a due time is started once, whoever finds it) and the monitor's running
 *   latch (one check at a time: a monitor whose check is still running gets a
 *   `skipped_overlap` check with the reason), sends its MonitorCheckRequested to the
 *   classifier and writes the check `queued` behind it.
 */
import { lastScheduled, QUEUED_ROWS, queuedCheck, unfinishedChecks, writeChecks, type CheckRecord } from '../../../pipeline/monitors/checks.js';
import { intervalMs, liveMonitors, readMonitors, type MonitorRecord } from '../../../pipeline/monitors/record.js';
import {
  applyMonitor,
  checkRequestEvent,
  DUE_KEY,
  moveDue,
  nextDue,
  runningCheck,
  scheduledMonitor,
  scheduledOf,
  scheduledPayload,
  scheduleMonitor,
  slotKey,
  takeRunning,
  unscheduleMonitor,
  type Scheduled,
  type ScheduledPayload,
} from '../../../pipeline/monitors/schedule.js';
import type { AnyEmission } from '../../../pipeline/runtime/events.js';
import type { Logger } from '../../../pipeline/runtime/log.js';
import type { State } from '../../../pipeline/runtime/state/state.js';
import type { BatchWriter } from '../../../pipeline/runtime/store/batch-writer.js';
import type { Store } from '../../../pipeline/runtime/store/store.js';

export const TICK_MS = 250;
/** How often the unfinished checks are looked at again (a dead worker's latch expires in RUNNING_TTL_MS). */
export const RESUME_MS = 60_000;
/** How often the schedules are rebuilt from the store besides at start-up. */
export const REBUILD_MS = 10 * 60_000;

export interface ScheduleDeps {
  readonly state: State;
  readonly store: Pick<Store, 'query'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly log: Logger;
  readonly startsPerSecond: number;
  readonly now?: () => number;
}

/** Every stored monitor back on the schedule (a paused one in its hash only); returns how many active ones. */
export async function rebuildSchedules(deps: ScheduleDeps): Promise<number> {
  const now = deps.now ?? Date.now;
  const [monitors, anchors] = await Promise.all([liveMonitors(deps.store), lastScheduled(deps.store, now())]);
  let active = 0;
  for (const monitor of monitors) {
    const every = intervalMs(monitor);
    const anchor = anchors.get(`${monitor.tenant}/${monitor.id}`);
    const dueMs = anchor === undefined ? monitor.createdAtMs : anchor + every;
    const held = await scheduledMonitor(deps.state, monitor.id);
    const version = held?.version ?? 0;
    if (version > monitor.version) continue;
    if (version < monitor.version) await applyMonitor(deps.state, monitor, dueMs);
    else if (!held?.paused) await scheduleMonitor(deps.state, scheduledOf(monitor), dueMs);
    if (monitor.status === 'active') active += 1;
  }
  return active;
}

/** The events of unfinished checks nobody works on; their latches taken for them. */
export async function resumeChecks(deps: ScheduleDeps): Promise<AnyEmission[]> {
  const now = deps.now ?? Date.now;
  const out: AnyEmission[] = [];
  for (const check of await unfinishedChecks(deps.store, now())) {
    // Held: the check (or a newer one) is being worked on; its latch expires if its worker died.
    if ((await runningCheck(deps.state, check.monitorId)) !== null) continue;
    if ((await takeRunning(deps.state, check.monitorId, check.id)) !== null) continue;
    deps.log.info({ monitorId: check.monitorId, checkId: check.id }, 'resuming an interrupted monitor check');
    out.push(checkRequestEvent(check, null, true));
  }
  return out;
}

/**
 * Starts the checks due now, within this tick's share of the pace; their events. What a check
 * needs of its monitor comes from its schedule (a schedule written before it kept that is read
 * from the store, the tick's in one query), and the tick's check rows go in one write behind
 * the events (QUEUED_ROWS: they share the lazy monitor_checks insert of a few seconds; a row that
 * fails is logged, and the check it was for runs all the same).
 */
export async function startDueChecks(deps: ScheduleDeps, budget: number): Promise<AnyEmission[]> {
  const now = deps.now ?? Date.now;
  const due: DueMonitor[] = [];
  for (const { member: id, score: dueMs } of await deps.state.zpopDue(DUE_KEY, now(), budget)) {
    const scheduled = await claimDue(deps, id, dueMs, now);
    if (scheduled) due.push({ id, tenant: scheduled.tenant, dueMs, monitor: scheduledPayload(scheduled) });
  }
  if (due.length === 0) return [];
  const unkept = due.filter((d) => d.monitor === null).map((d) => d.id);
  const stored = await readMonitors(deps.store, unkept);
  const rows: CheckRecord[] = [];
  const out: AnyEmission[] = [];
  for (const d of due) {
    const started = await startDue(deps, d, d.monitor ?? payloadOf(stored.get(d.id), d.tenant), now);
    if (started) rows.push(started.row);
    if (started?.event) out.push(started.event);
  }
  void writeChecks(deps.writer, rows, QUEUED_ROWS).catch((error: unknown) => deps.log.warn({ err: error, checks: rows.length }, 'the queued rows of monitor checks were not written'));
  return out;
}

interface DueMonitor {
  readonly id: string;
  readonly tenant: string;
  readonly dueMs: number;
  /** From its schedule; null when the schedule does not keep it. */
  readonly monitor: ScheduledPayload | null;
}

/** A stored monitor of this tenant as its schedule would keep it; null when there is none (deleted). */
function payloadOf(monitor: MonitorRecord | undefined, tenant: string): ScheduledPayload | null {
  return monitor && monitor.tenant === tenant ? scheduledPayload(scheduledOf(monitor)) : null;
}

/**
 * Puts the monitor back on the schedule one interval on and takes the due time's slot; null
 * when it is not ours to start: deleted (its hash is dropped), paused (left off the due set),
 * or the slot taken.
 */
async function claimDue(deps: ScheduleDeps, id: string, dueMs: number, now: () => number): Promise<Scheduled | null> {
  const scheduled = await scheduledMonitor(deps.state, id);
  if (!scheduled || scheduled.intervalMs <= 0) {
    await unscheduleMonitor(deps.state, id);
    return null;
  }
  if (scheduled.paused) return null;
  await moveDue(deps.state, id, nextDue(dueMs, scheduled.intervalMs, now()));
  return (await deps.state.setIfAbsent(slotKey(id, dueMs), '1', scheduled.intervalMs)) ? scheduled : null;
}

/** One due monitor's check: queued (its row and event), skipped (its row), or none (deleted). */
async function startDue(deps: ScheduleDeps, due: DueMonitor, monitor: ScheduledPayload | null, now: () => number): Promise<{ row: CheckRecord; event?: AnyEmission } | null> {
  if (!monitor) {
    await unscheduleMonitor(deps.state, due.id);
    return null;
  }
  const check = queuedCheck({ tenant: due.tenant, monitorId: due.id, trigger: 'scheduled', scheduledAtMs: due.dueMs, urls: monitor.urls, nowMs: now() });
  const holder = await takeRunning(deps.state, due.id, check.id);
  if (holder !== null) return { row: { ...check, status: 'skipped_overlap', reason: `check ${holder} of this monitor is still running`, finishedAtMs: now() } };
  // What the classifier and notifier need of the monitor travels on the event.
  return { row: check, event: checkRequestEvent(check, monitor) };
}
