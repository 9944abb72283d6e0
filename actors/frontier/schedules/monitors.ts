/**
 * Monitor schedules in the frontier: which checks start when.
 *
 * - `rebuildSchedules` (at start-up, and every REBUILD_MS): puts every monitor of the store
 *   on the schedule (pipeline/monitors/schedule.ts), due one interval after its newest
 *   scheduled check was due (or when it was created, for a monitor never checked), so a
 *   monitor keeps its rhythm across restarts; a check missed while nothing ran starts at once.
 *   Rebuilding twice, or from two processes, gives the same due times.
 * - `resumeChecks` (at start-up, and every RESUME_MS): sends again the event of every check
 *   the store has queued or running whose running latch is free (its worker died, or the
 *   embedded process restarted mid-check); the classifier reads only the pages the check had
 *   not judged. A check whose latch is held is still being worked on and is left alone.
 * - `startDueChecks` (every TICK_MS): pops the monitors due now, at most
 *   MONITOR_STARTS_PER_SECOND a second per process (the rest wait, oldest due first: 1,000
 *   monitors due at once start over a few seconds, not at once), puts each back on the
 *   schedule one interval on, takes the due time's slot (a due time is started once, whoever
 *   finds it) and the monitor's running latch (one check at a time: a monitor whose check is
 *   still running gets a `skipped_overlap` check with the reason), writes the check `queued`
 *   and sends its MonitorCheckRequested to the classifier.
 */
import { lastScheduled, queuedCheck, unfinishedChecks, writeCheck, type CheckRecord } from '../../../pipeline/monitors/checks.js';
import { activeMonitors, intervalMs, monitorPages, readMonitor } from '../../../pipeline/monitors/record.js';
import { checkRequestEvent, DUE_KEY, nextDue, runningCheck, scheduledMonitor, scheduleMonitor, slotKey, takeRunning, unscheduleMonitor } from '../../../pipeline/monitors/schedule.js';
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

/** Every stored monitor back on the schedule; returns how many. */
export async function rebuildSchedules(deps: ScheduleDeps): Promise<number> {
  const now = deps.now ?? Date.now;
  const [monitors, anchors] = await Promise.all([activeMonitors(deps.store), lastScheduled(deps.store, now())]);
  for (const monitor of monitors) {
    const every = intervalMs(monitor);
    const anchor = anchors.get(`${monitor.tenant}/${monitor.id}`);
    await scheduleMonitor(deps.state, { id: monitor.id, tenant: monitor.tenant, intervalMs: every }, anchor === undefined ? monitor.createdAtMs : anchor + every);
  }
  return monitors.length;
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
    out.push(checkRequestEvent(check));
  }
  return out;
}

/** Starts the checks due now, within this tick's share of the pace; their events. */
export async function startDueChecks(deps: ScheduleDeps, budget: number): Promise<AnyEmission[]> {
  const now = deps.now ?? Date.now;
  const out: AnyEmission[] = [];
  for (const { member: id, score: dueMs } of await deps.state.zpopDue(DUE_KEY, now(), budget)) {
    const scheduled = await scheduledMonitor(deps.state, id);
    if (!scheduled || scheduled.intervalMs <= 0) continue;
    await scheduleMonitor(deps.state, scheduled, nextDue(dueMs, scheduled.intervalMs, now()));
    if (!(await deps.state.setIfAbsent(slotKey(id, dueMs), '1', scheduled.intervalMs))) continue;
    const monitor = await readMonitor(deps.store, scheduled.tenant, id);
    if (!monitor) {
      await unscheduleMonitor(deps.state, id);
      continue;
    }
    const check = queuedCheck({ tenant: monitor.tenant, monitorId: id, trigger: 'scheduled', scheduledAtMs: dueMs, urls: monitorPages(monitor), nowMs: now() });
    const holder = await takeRunning(deps.state, id, check.id);
    if (holder !== null) {
      await writeCheck(deps.writer, { ...check, status: 'skipped_overlap', reason: `check ${holder} of this monitor is still running`, finishedAtMs: now() });
      continue;
    }
    await writeCheck(deps.writer, check);
    out.push(checkRequestEvent(check));
  }
  return out;
}
