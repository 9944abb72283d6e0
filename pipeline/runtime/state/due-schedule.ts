/**
 * A schedule of recurring work in coordination state: monitors' checks
 * (pipeline/monitors/schedule.ts) and watches' collections (pipeline/mentions/schedule.ts)
 * each have one, under their own key prefix (`<kind>`):
 *
 * - `<kind>s:due`: a sorted set of ids by the epoch ms their next run is due. `zpopDue` takes
 *   due ids atomically, so two frontier processes never take the same one.
 * - `<kind>:<id>`: a hash of what the frontier needs without reading the store: tenant,
 *   intervalMs, nextCheckAt, and where a family keeps them its payload, `version` (the record
 *   version the hash reflects) and `paused` ('1'). Unscheduling deletes it; an id popped
 *   without its hash is dropped.
 * - `<kind>:<id>:slot:<dueMs>`: taken (setIfAbsent) by the process that starts the run due at
 *   dueMs, so a due time found again (a schedule rebuilt from the store before that run's row
 *   landed) is not started twice. Expires after the interval.
 * - `<kind>:<id>:running`: the id of the run in progress (queued or running): one run at a
 *   time. Taken before the run's event is sent, released by whoever ends the run; it expires
 *   (RUNNING_TTL_MS, extended as the run works) so a run whose worker died is resumed.
 *
 * The store is the truth: the frontier rebuilds every schedule from it at start-up, so memory
 * state losing it all on a restart loses no schedule.
 */
import type { State } from './state.js';

/**
 * How every running latch's key ends. A durable state of one process (file.ts) drops these
 * when it opens: the process that held them is gone, so the runs they hold are resumed at
 * once (the frontier's resume) rather than after RUNNING_TTL_MS.
 */
export const RUNNING_LATCH_SUFFIX = ':running';

/** How long a running latch lives without being extended. */
export const RUNNING_TTL_MS = 3 * 60_000;

export interface Scheduled {
  readonly id: string;
  readonly tenant: string;
  readonly intervalMs: number;
  /** What the scheduler needs of the item to start it without reading the store (its family's JSON); kept until replaced. */
  readonly payload?: string;
}

/** A schedule as its hash holds it. */
export interface HeldSchedule extends Scheduled {
  readonly nextCheckAt: number;
  readonly paused: boolean;
  readonly version: number;
}

/** The first due time after `nowMs` on the grid `dueMs` + k × interval: missed rounds are not made up. */
export function nextDue(dueMs: number, intervalMs: number, nowMs: number): number {
  if (dueMs > nowMs) return dueMs;
  return dueMs + (Math.floor((nowMs - dueMs) / intervalMs) + 1) * intervalMs;
}

export class DueSchedule {
  readonly dueKey: string;

  constructor(private readonly kind: string) {
    this.dueKey = `${kind}s:due`;
  }

  itemKey = (id: string) => `${this.kind}:${id}`;
  runningKey = (id: string) => `${this.kind}:${id}${RUNNING_LATCH_SUFFIX}`;
  slotKey = (id: string, dueMs: number) => `${this.kind}:${id}:slot:${dueMs}`;

  /** Puts the item on the schedule, due at `dueMs` (replacing any due time it had). */
  async schedule(state: State, item: Scheduled, dueMs: number): Promise<void> {
    const fields: Record<string, string> = { tenant: item.tenant, intervalMs: String(item.intervalMs), nextCheckAt: String(dueMs) };
    if (item.payload !== undefined) fields.payload = item.payload;
    await state.hset(this.itemKey(item.id), fields);
    await state.zadd(this.dueKey, dueMs, item.id);
  }

  /** Takes the item off the schedule (its id leaves the due set when next popped). */
  async unschedule(state: State, id: string): Promise<void> {
    await state.del(this.itemKey(id));
  }

  /** The item's schedule as state holds it, with its pause and the record version it reflects (0 when not kept); null when it is not scheduled. */
  async scheduled(state: State, id: string): Promise<HeldSchedule | null> {
    const h = await state.hgetall(this.itemKey(id));
    if (!h.tenant) return null;
    return {
      id,
      tenant: h.tenant,
      intervalMs: Number(h.intervalMs) || 0,
      nextCheckAt: Number(h.nextCheckAt) || 0,
      ...(h.payload === undefined ? {} : { payload: h.payload }),
      paused: h.paused === '1',
      version: Number(h.version) || 0,
    };
  }

  /** Moves a scheduled item's next due time, leaving the rest of its hash as it is now. */
  async moveDue(state: State, id: string, dueMs: number): Promise<void> {
    await state.hset(this.itemKey(id), { nextCheckAt: String(dueMs) });
    await state.zadd(this.dueKey, dueMs, id);
  }

  /** Takes the running latch for `runId`; the id of the run holding it when another does. */
  async takeRunning(state: State, id: string, runId: string): Promise<string | null> {
    const key = this.runningKey(id);
    if (await state.setIfAbsent(key, runId, RUNNING_TTL_MS)) return null;
    const holder = await state.get(key);
    if (holder === runId) {
      await state.expire(key, RUNNING_TTL_MS);
      return null;
    }
    // Released between the two calls: try once more.
    if (holder === null && (await state.setIfAbsent(key, runId, RUNNING_TTL_MS))) return null;
    return holder ?? `another run`;
  }

  /** The run holding the item's latch; null when none does. */
  running(state: State, id: string): Promise<string | null> {
    return state.get(this.runningKey(id));
  }

  /** Keeps the latch while a long run works. */
  async extendRunning(state: State, id: string): Promise<void> {
    await state.expire(this.runningKey(id), RUNNING_TTL_MS);
  }

  /** Releases the latch if `runId` still holds it. */
  async releaseRunning(state: State, id: string, runId: string): Promise<void> {
    if ((await state.get(this.runningKey(id))) === runId) await state.del(this.runningKey(id));
  }
}
