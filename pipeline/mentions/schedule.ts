/**
 * Watch schedules in coordination state: the `watch` DueSchedule
 * (pipeline/runtime/state/due-schedule.ts: `watches:due`, `watch:<id>`, its slots and running
 * latch), shared by the gateway (which schedules a new watch, due at once, and moves it when
 * its interval changes), the frontier (which starts due collections,
 * actors/frontier/schedules/watches.ts) and the classifier (which releases the latch when a
 * collection is stored). One collection of a watch runs at a time.
 */
import { HEADERS } from '../../schemas/topics.js';
import type { AnyEmission } from '../runtime/events.js';
import { DueSchedule } from '../runtime/state/due-schedule.js';
import type { CollectionRecord } from './collections.js';
import type { WatchRecord } from './watch.js';

export const WATCHES = new DueSchedule('watch');

/** How long a collection may take end to end (every platform, then classification). */
export const COLLECTION_DEADLINE_MS = 10 * 60_000;

/**
 * The WatchCollectRequested that hands a queued collection to the searcher: with the watch as
 * the frontier read it and the collection as queued, so the searcher reads neither; without
 * them (a resumed collection) it reads both.
 */
export function collectRequestEvent(c: CollectionRecord, nowMs = Date.now(), watch: WatchRecord | null = null): AnyEmission {
  return {
    topic: 'watchCollections',
    key: c.watchId,
    headers: { [HEADERS.requestId]: c.id },
    value: {
      requestId: c.id,
      tenant: c.tenant,
      watchId: c.watchId,
      collectionId: c.id,
      test: null,
      replyTo: null,
      correlationId: null,
      deadlineMs: nowMs + COLLECTION_DEADLINE_MS,
      createdAtMs: nowMs,
      watch: watch && JSON.stringify(watch),
      collection: watch && JSON.stringify(c),
    },
  };
}
