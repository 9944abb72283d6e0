/**
 * Mention watch schedules in the frontier: which collections start when. The same three
 * steps as the monitors' (schedules/monitors.ts), on the `watch` schedule
 * (pipeline/mentions/schedule.ts):
 *
 * - `rebuildWatchSchedules` (at start-up, and every REBUILD_MS): puts every stored watch on
 *   the schedule, due one interval after its newest collection was due (or at once, for a
 *   watch never collected: a new watch collects at once), so watches keep their rhythm across
 *   restarts; a collection missed while nothing ran starts at once.
 * - `resumeCollections` (at start-up, and every RESUME_MS): sends again the event of every
 *   collection queued or running whose latch is free (its worker died).
 * - `startDueCollections` (every TICK_MS): pops the watches due now, at most
 *   MENTION_STARTS_PER_SECOND a second per process, puts each back one interval on, takes the
 *   due time's slot and the watch's running latch (one collection at a time: a watch whose
 *   collection still runs gets a `skipped_overlap` collection), writes the collection
 *   `queued` and sends its WatchCollectRequested to the searcher.
 */
import { lastScheduledCollections, queuedCollection, unfinishedCollections, writeCollection } from '../../../pipeline/mentions/collections.js';
import { collectRequestEvent, WATCHES } from '../../../pipeline/mentions/schedule.js';
import { activeWatches, readWatch, watchIntervalMs } from '../../../pipeline/mentions/watch.js';
import type { AnyEmission } from '../../../pipeline/runtime/events.js';
import { nextDue } from '../../../pipeline/runtime/state/due-schedule.js';
import type { ScheduleDeps } from './monitors.js';

/** Every stored watch back on the schedule; returns how many. */
export async function rebuildWatchSchedules(deps: ScheduleDeps): Promise<number> {
  const now = deps.now ?? Date.now;
  const [watches, anchors] = await Promise.all([activeWatches(deps.store), lastScheduledCollections(deps.store, now())]);
  for (const watch of watches) {
    const every = watchIntervalMs(watch);
    const anchor = anchors.get(`${watch.tenant}/${watch.id}`);
    await WATCHES.schedule(deps.state, { id: watch.id, tenant: watch.tenant, intervalMs: every }, anchor === undefined ? Math.min(watch.createdAtMs, now()) : anchor + every);
  }
  return watches.length;
}

/** The events of unfinished collections nobody works on; their latches taken for them. */
export async function resumeCollections(deps: ScheduleDeps): Promise<AnyEmission[]> {
  const now = deps.now ?? Date.now;
  const out: AnyEmission[] = [];
  for (const collection of await unfinishedCollections(deps.store, now())) {
    if ((await WATCHES.running(deps.state, collection.watchId)) !== null) continue;
    if ((await WATCHES.takeRunning(deps.state, collection.watchId, collection.id)) !== null) continue;
    deps.log.info({ watchId: collection.watchId, collectionId: collection.id }, 'resuming an interrupted watch collection');
    out.push(collectRequestEvent(collection));
  }
  return out;
}

/** Starts the collections due now, within this tick's share of the pace; their events. */
export async function startDueCollections(deps: ScheduleDeps, budget: number): Promise<AnyEmission[]> {
  const now = deps.now ?? Date.now;
  const out: AnyEmission[] = [];
  for (const { member: id, score: dueMs } of await deps.state.zpopDue(WATCHES.dueKey, now(), budget)) {
    const scheduled = await WATCHES.scheduled(deps.state, id);
    if (!scheduled || scheduled.intervalMs <= 0) continue;
    await WATCHES.schedule(deps.state, scheduled, nextDue(dueMs, scheduled.intervalMs, now()));
    if (!(await deps.state.setIfAbsent(WATCHES.slotKey(id, dueMs), '1', scheduled.intervalMs))) continue;
    const watch = await readWatch(deps.store, scheduled.tenant, id);
    if (!watch) {
      await WATCHES.unschedule(deps.state, id);
      continue;
    }
    // sinceMs is fixed by the searcher when it takes the collection (it reads the last completed one).
    const collection = queuedCollection({ tenant: watch.tenant, watchId: id, trigger: 'scheduled', scheduledAtMs: dueMs, sinceMs: now(), nowMs: now() });
    const holder = await WATCHES.takeRunning(deps.state, id, collection.id);
    if (holder !== null) {
      await writeCollection(deps.writer, { ...collection, status: 'skipped_overlap', reason: `collection ${holder} of this watch is still running`, finishedAtMs: now() });
      continue;
    }
    await writeCollection(deps.writer, collection);
    out.push(collectRequestEvent(collection, now(), watch));
  }
  return out;
}
