/**
 * Monitor schedules in coordination state, shared by the gateway (which schedules a new
 * monitor and takes the running latch for a manual run), the frontier (which starts due
 * checks, actors/frontier/schedules/) and the classifier (which releases the latch).
 *
 * - `monitors:due`: a schedule (sorted set) of monitor ids by the epoch ms their next check is
 *   due. `zpopDue` takes due ids atomically, so two frontier processes never take the same one.
 * - `monitor:<id>`: a hash of what the frontier needs without reading the store: tenant,
 *   intervalMs, nextCheckAt. Deleting a monitor deletes it; an id popped without its hash is
 *   dropped from the schedule.
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
import type { State } from '../runtime/state/state.js';

export const DUE_KEY = 'monitors:due';
export const monitorKey = (id: string) => `monitor:${id}`;
export const runningKey = (id: string) => `monitor:${id}:running`;
export const slotKey = (id: string, dueMs: number) => `monitor:${id}:slot:${dueMs}`;

/** How long the running latch lives without being extended. */
export const RUNNING_TTL_MS = 3 * 60_000;

export interface Scheduled {
  readonly id: string;
  readonly tenant: string;
  readonly intervalMs: number;
}

/** Puts the monitor on the schedule, due at `dueMs` (replacing any due time it had). */
export async function scheduleMonitor(state: State, monitor: Scheduled, dueMs: number): Promise<void> {
  await state.hset(monitorKey(monitor.id), { tenant: monitor.tenant, intervalMs: String(monitor.intervalMs), nextCheckAt: String(dueMs) });
  await state.zadd(DUE_KEY, dueMs, monitor.id);
}

/** Takes the monitor off the schedule (its id leaves `monitors:due` when next popped). */
export async function unscheduleMonitor(state: State, id: string): Promise<void> {
  await state.del(monitorKey(id));
}

/** The monitor's schedule as state holds it; null when it is not scheduled. */
export async function scheduledMonitor(state: State, id: string): Promise<(Scheduled & { nextCheckAt: number }) | null> {
  const h = await state.hgetall(monitorKey(id));
  if (!h.tenant) return null;
  return { id, tenant: h.tenant, intervalMs: Number(h.intervalMs) || 0, nextCheckAt: Number(h.nextCheckAt) || 0 };
}

/** The first due time after `nowMs` on the monitor's grid (`dueMs` + k × interval): missed rounds are not made up. */
export function nextDue(dueMs: number, intervalMs: number, nowMs: number): number {
  if (dueMs > nowMs) return dueMs;
  return dueMs + (Math.floor((nowMs - dueMs) / intervalMs) + 1) * intervalMs;
}

/** Takes the running latch for `checkId`; the id of the check holding it when another does. */
export async function takeRunning(state: State, monitorId: string, checkId: string): Promise<string | null> {
  if (await state.setIfAbsent(runningKey(monitorId), checkId, RUNNING_TTL_MS)) return null;
  const holder = await state.get(runningKey(monitorId));
  if (holder === checkId) {
    await state.expire(runningKey(monitorId), RUNNING_TTL_MS);
    return null;
  }
  // Released between the two calls: try once more.
  if (holder === null && (await state.setIfAbsent(runningKey(monitorId), checkId, RUNNING_TTL_MS))) return null;
  return holder ?? 'another check';
}

/** The check holding the monitor's running latch; null when none does. */
export function runningCheck(state: State, monitorId: string): Promise<string | null> {
  return state.get(runningKey(monitorId));
}

/** Keeps the latch while a long check works. */
export async function extendRunning(state: State, monitorId: string): Promise<void> {
  await state.expire(runningKey(monitorId), RUNNING_TTL_MS);
}

/** Releases the latch if `checkId` still holds it. */
export async function releaseRunning(state: State, monitorId: string, checkId: string): Promise<void> {
  if ((await state.get(runningKey(monitorId))) === checkId) await state.del(runningKey(monitorId));
}

/** The MonitorCheckRequested that hands a queued check to the classifier. */
export function checkRequestEvent(check: { readonly id: string; readonly tenant: string; readonly monitorId: string }, requestId = check.id): AnyEmission {
  return {
    topic: 'monitorChecks',
    key: check.monitorId,
    headers: { [HEADERS.requestId]: requestId },
    value: { requestId, tenant: check.tenant, monitorId: check.monitorId, checkId: check.id, createdAtMs: Date.now() },
  };
}
