/**
 * Monitor schedules in coordination state (the `monitor` DueSchedule of
 * pipeline/runtime/state/due-schedule.ts), shared by the gateway (which schedules a new
 * monitor and takes the running latch for a manual run), the frontier (which starts due
 * checks, actors/frontier/schedules/) and the classifier (which releases the latch).
 *
 * - `monitors:due`: a schedule (sorted set) of monitor ids by the epoch ms their next check is
 *   due. `zpopDue` takes due ids atomically, so two frontier processes never take the same one.
 * - `monitor:<id>`: a hash of what the frontier needs without reading the store: tenant,
 *   intervalMs, nextCheckAt, the payload (`scheduledPayload`: the pages and what the check's
 *   event carries of the monitor), `version` (the record version it reflects) and `paused`.
 *   A PATCH rewrites it after its record landed (`applyMonitor`); deleting a monitor deletes
 *   it; an id popped without its hash (or with a hash that names no tenant) is dropped from
 *   the schedule. Starting a due check moves only `nextCheckAt` (`moveDue`), so a PATCH
 *   landing meanwhile is not overwritten by what the frontier read before it.
 * - Pausing keeps the hash (with `paused`: the classifier tells a paused monitor from a
 *   deleted one by it, and a check queued before the pause runs) and leaves the due time
 *   where it was; the frontier drops a paused id it pops instead of putting it back. Resuming
 *   puts it back due at that time, or at once when that passed while it was paused.
 * - `monitor:<id>:slot:<dueMs>`: taken (setIfAbsent) by the process that starts the check due
 *   at dueMs; anyone who finds the same due time again (a schedule rebuilt from the store
 *   before that check's row landed) does not start it twice. Expires after the interval.
 * - `monitor:<id>:running`: the check id of the monitor's check in progress (queued or
 *   running): a monitor runs one check at a time. Taken before the check's event is sent,
 *   released by the classifier when the check ends; it expires (RUNNING_TTL_MS, extended as
 *   pages are judged) so a check whose worker died is resumed by the frontier's sweep.
 *
 * The store is the truth: everything here is rebuilt from it at start-up (the frontier's
 * `rebuildSchedules`), so memory state (embedded mode) losing it all on a restart loses no
 * schedule, and neither does a frontier process dying with Redis.
 */
import { HEADERS } from '../../schemas/topics.js';
import type { AnyEmission } from '../runtime/events.js';
import { DueSchedule, type Scheduled } from '../runtime/state/due-schedule.js';
import type { CheckRecord } from './checks.js';
import { parseJsonObject } from '../runtime/json.js';
import { intervalMs, monitorPages, type MonitorRecord } from './record.js';
import type { State } from '../runtime/state/state.js';

export { nextDue, RUNNING_TTL_MS, type Scheduled } from '../runtime/state/due-schedule.js';

const MONITORS = new DueSchedule('monitor');

export const DUE_KEY = MONITORS.dueKey;
export const monitorKey = MONITORS.itemKey;
export const runningKey = MONITORS.runningKey;
export const slotKey = MONITORS.slotKey;

/** Puts the monitor on the schedule, due at `dueMs` (replacing any due time it had). */
export const scheduleMonitor = (state: State, monitor: Scheduled, dueMs: number) => MONITORS.schedule(state, monitor, dueMs);
/** Moves a scheduled monitor's next due time, leaving the rest of its hash as it is now. */
export const moveDue = (state: State, id: string, dueMs: number) => MONITORS.moveDue(state, id, dueMs);

/**
 * Writes what the record says into the monitor's hash: its payload, interval, version and
 * pause, due at `dueMs`. An active monitor goes on the due set; a paused one keeps its due time
 * in the hash only (the frontier drops its id when it pops it).
 */
export async function applyMonitor(state: State, monitor: MonitorRecord, dueMs: number): Promise<void> {
  const scheduled = scheduledOf(monitor);
  await state.hset(monitorKey(monitor.id), {
    tenant: scheduled.tenant,
    intervalMs: String(scheduled.intervalMs),
    nextCheckAt: String(dueMs),
    payload: scheduled.payload ?? '',
    version: String(monitor.version),
    ...(monitor.status === 'paused' ? { paused: '1' } : {}),
  });
  if (monitor.status === 'paused') return;
  await state.hdel(monitorKey(monitor.id), 'paused');
  await state.zadd(DUE_KEY, dueMs, monitor.id);
}
/** Takes the monitor off the schedule (its id leaves `monitors:due` when next popped). */
export const unscheduleMonitor = (state: State, id: string) => MONITORS.unschedule(state, id);
/** The monitor's hash as a schedule, with its pause and the record version it reflects; null when it is not scheduled. */
export const scheduledMonitor = (state: State, id: string) => MONITORS.scheduled(state, id);
/** Takes the running latch for `checkId`; the id of the check holding it when another does. */
export const takeRunning = (state: State, monitorId: string, checkId: string) => MONITORS.takeRunning(state, monitorId, checkId);
/** The check holding the monitor's running latch; null when none does. */
export const runningCheck = (state: State, monitorId: string) => MONITORS.running(state, monitorId);
/** Keeps the latch while a long check works. */
export const extendRunning = (state: State, monitorId: string) => MONITORS.extendRunning(state, monitorId);
/** Releases the latch if `checkId` still holds it. */
export const releaseRunning = (state: State, monitorId: string, checkId: string) => MONITORS.releaseRunning(state, monitorId, checkId);

/**
 * The monitor's schedule after a PATCH of `before` landed as `updated`: due when it was (kept
 * while paused), moved by a new interval to one new interval after the last due time, and at
 * `nowMs` at the earliest (a resumed monitor whose due time passed while it was paused, or a
 * shorter interval already past, checks at once). A monitor with no hash (state lost before
 * the rebuild) is due at once.
 */
export async function rescheduleMonitor(state: State, before: MonitorRecord, updated: MonitorRecord, nowMs: number): Promise<number> {
  const held = await scheduledMonitor(state, before.id);
  const lastDue = held ? held.nextCheckAt - (held.intervalMs || intervalMs(before)) : nowMs - intervalMs(updated);
  const dueMs = Math.max(nowMs, lastDue + intervalMs(updated));
  await applyMonitor(state, updated, dueMs);
  return dueMs;
}

/** What the classifier and the notifier need of a monitor: read once, by whoever queues its check. */
export type CheckedMonitor = Pick<MonitorRecord, 'name' | 'goal' | 'sealedWebhook'>;

/** What the frontier needs of a monitor to queue its check: its pages and what the check's event carries. */
export interface ScheduledPayload extends CheckedMonitor {
  readonly urls: readonly string[];
}

/** The monitor as its schedule keeps it (`scheduleMonitor`), so a due check reads no store. */
export function scheduledOf(monitor: MonitorRecord): Scheduled {
  const payload: ScheduledPayload = { urls: monitorPages(monitor), name: monitor.name, goal: monitor.goal, sealedWebhook: monitor.sealedWebhook };
  return { id: monitor.id, tenant: monitor.tenant, intervalMs: intervalMs(monitor), payload: JSON.stringify(payload) };
}

/** The payload a schedule keeps; null when it has none (scheduled before it was kept) or it does not read. */
export function scheduledPayload(scheduled: Pick<Scheduled, 'payload'>): ScheduledPayload | null {
  const doc = parseJsonObject(scheduled.payload ?? '');
  if (!doc || !Array.isArray(doc.urls) || typeof doc.name !== 'string') return null;
  return {
    urls: doc.urls.filter((u): u is string => typeof u === 'string'),
    name: doc.name,
    goal: typeof doc.goal === 'string' ? doc.goal : null,
    sealedWebhook: typeof doc.sealedWebhook === 'string' ? doc.sealedWebhook : null,
  };
}

/**
 * The MonitorCheckRequested fields of a queued check but those every request carries (`ask`
 * fills them in for a manual run that awaits its answer). `resumed`: sent again after a crash,
 * so the classifier reads the check's row and the pages it already judged; `monitor` null: it
 * reads the monitor too.
 */
export function checkRequestFields(check: CheckRecord, monitor: CheckedMonitor | null, resumed = false) {
  return {
    monitorId: check.monitorId,
    checkId: check.id,
    check: { trigger: check.trigger, scheduledAtMs: check.scheduledAtMs, queuedAtMs: check.queuedAtMs, urls: [...check.urls], resumed },
    monitor: monitor && { name: monitor.name, goal: monitor.goal, sealedWebhook: monitor.sealedWebhook },
  };
}

/** The MonitorCheckRequested that hands a queued check to the classifier (nobody awaits its answer). */
export function checkRequestEvent(check: CheckRecord, monitor: CheckedMonitor | null, resumed = false): AnyEmission {
  return {
    topic: 'monitorChecks',
    key: check.monitorId,
    headers: { [HEADERS.requestId]: check.id },
    value: { requestId: check.id, tenant: check.tenant, ...checkRequestFields(check, monitor, resumed), replyTo: null, correlationId: null, deadlineMs: null, createdAtMs: Date.now() },
  };
}
