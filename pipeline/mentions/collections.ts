/**
 * Collections of a mention watch: one record per time the watch's platforms were asked
 * (`watch_collections`, infra/clickhouse/0007_mentions.sql; versioned, read with FINAL).
 *
 * Statuses: `queued` (the frontier started it), `running` (the searcher took it), then
 * `completed` (at least one platform answered; charged), `failed` (none did: nothing is
 * charged), `skipped_overlap` (the watch's previous collection still ran) or
 * `skipped_no_credits` (the key could not pay), each final one with its reason. Ids sort by
 * creation time (`col_` + 12 hex digits of the epoch ms + random), so "newest" is the largest.
 *
 * `sinceMs` is how far back the collection asks: the previous completed collection's start,
 * less SINCE_MARGIN_MS (platforms index posts late; what was stored before is recognised and
 * dropped), or FIRST_REACH_MS before now for a watch's first collection.
 */
import { randomBytes } from 'node:crypto';
import { parseJsonObject } from '../runtime/json.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import { lastScheduledRuns, newestRuns, runFields, unfinishedRuns, type NewestRuns, type RunRow, type RunTable } from '../runtime/store/runs.js';
import type { Store } from '../runtime/store/store.js';
import type { PlatformResult } from './found.js';

export type CollectionStatus = 'queued' | 'running' | 'completed' | 'failed' | 'skipped_overlap' | 'skipped_no_credits';
export const FINAL_COLLECTION_STATUSES: readonly CollectionStatus[] = ['completed', 'failed', 'skipped_overlap', 'skipped_no_credits'];
export type CollectionTrigger = 'scheduled';

/** A watch's first collection reaches back a week (what the platforms' recent searches hold). */
export const FIRST_REACH_MS = 7 * 24 * 3_600_000;
/** Posts a platform indexed late are still asked for; what was stored before is recognised. */
export const SINCE_MARGIN_MS = 30 * 60_000;

export interface CollectionRecord {
  readonly id: string;
  readonly tenant: string;
  readonly watchId: string;
  readonly version: number;
  readonly trigger: CollectionTrigger;
  readonly status: CollectionStatus;
  readonly reason: string;
  readonly scheduledAtMs: number;
  readonly queuedAtMs: number;
  readonly startedAtMs: number | null;
  readonly finishedAtMs: number | null;
  readonly sinceMs: number;
  readonly platforms: Readonly<Record<string, PlatformResult>>;
  readonly found: number;
  readonly creditsUsed: number;
}

type Reader = Pick<Store, 'query'>;

export function newCollectionId(nowMs = Date.now()): string {
  return `col_${nowMs.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
}

export const isFinalCollection = (status: CollectionStatus) => FINAL_COLLECTION_STATUSES.includes(status);

/** A new collection, `queued`. */
export function queuedCollection(c: { tenant: string; watchId: string; trigger: CollectionTrigger; scheduledAtMs: number; sinceMs: number; nowMs: number }): CollectionRecord {
  return {
    id: newCollectionId(c.nowMs),
    tenant: c.tenant,
    watchId: c.watchId,
    version: 1,
    trigger: c.trigger,
    status: 'queued',
    reason: '',
    scheduledAtMs: c.scheduledAtMs,
    queuedAtMs: c.nowMs,
    startedAtMs: null,
    finishedAtMs: null,
    sinceMs: c.sinceMs,
    platforms: {},
    found: 0,
    creditsUsed: 0,
  };
}

/** Writes this version of the collection (its version is the status's rank, so a later status always wins). */
export async function writeCollection(writer: Pick<BatchWriter, 'write'>, c: CollectionRecord): Promise<void> {
  await writer.write('watch_collections', [
    {
      tenant: c.tenant,
      watch_id: c.watchId,
      id: c.id,
      version: STATUS_RANK[c.status],
      trigger: c.trigger,
      status: c.status,
      reason: c.reason,
      scheduled_at: new Date(c.scheduledAtMs),
      queued_at: new Date(c.queuedAtMs),
      started_at: c.startedAtMs === null ? null : new Date(c.startedAtMs),
      finished_at: c.finishedAtMs === null ? null : new Date(c.finishedAtMs),
      since_at: new Date(c.sinceMs),
      platforms: JSON.stringify(c.platforms),
      found: c.found,
      credits_used: c.creditsUsed,
    },
  ]);
}

const STATUS_RANK: Readonly<Record<CollectionStatus, number>> = {
  queued: 1,
  running: 2,
  skipped_overlap: 3,
  skipped_no_credits: 3,
  failed: 3,
  completed: 3,
};

const COLUMNS = `tenant, watch_id, id, version, trigger, status, reason,
  toUnixTimestamp64Milli(scheduled_at) AS scheduled_ms, toUnixTimestamp64Milli(queued_at) AS queued_ms,
  toUnixTimestamp64Milli(started_at) AS started_ms, toUnixTimestamp64Milli(finished_at) AS finished_ms,
  toUnixTimestamp64Milli(since_at) AS since_ms, platforms, found, credits_used`;

export const COLLECTION_BY_ID = `
SELECT ${COLUMNS} FROM watch_collections FINAL
WHERE tenant = {tenant:String} AND watch_id = {watchId:String} AND id = {id:String}`;

/** A watch's collections as runs (runs.ts): the record's current and last collection, resuming, the schedule's anchor. */
const COLLECTION_RUNS: RunTable = { table: 'watch_collections', parent: 'watch_id', columns: COLUMNS };

interface CollectionRow extends RunRow {
  readonly watch_id: string;
  readonly version: string | number;
  readonly since_ms: string | number;
  readonly platforms: string;
  readonly found: string | number;
}

function collectionOf(row: CollectionRow): CollectionRecord {
  return {
    ...runFields(row),
    watchId: row.watch_id,
    version: Number(row.version),
    trigger: row.trigger as CollectionTrigger,
    status: row.status as CollectionStatus,
    sinceMs: Number(row.since_ms),
    platforms: (parseJsonObject(row.platforms) ?? {}) as Record<string, PlatformResult>,
    found: Number(row.found),
  };
}

export async function readCollection(store: Reader, tenant: string, watchId: string, id: string): Promise<CollectionRecord | null> {
  const [row] = await store.query<CollectionRow>(COLLECTION_BY_ID, { tenant, watchId, id });
  return row ? collectionOf(row) : null;
}

/** Per watch: its newest collection and its newest completed one. */
export function newestCollections(store: Reader, tenant: string, watchIds: readonly string[]): Promise<NewestRuns<CollectionRecord>> {
  return newestRuns(store, COLLECTION_RUNS, tenant, watchIds, collectionOf);
}

export function unfinishedCollections(store: Reader, nowMs: number): Promise<CollectionRecord[]> {
  return unfinishedRuns(store, COLLECTION_RUNS, collectionOf, nowMs);
}

/** `tenant/watchId` → when its newest collection was due (ms). */
export function lastScheduledCollections(store: Reader, nowMs: number): Promise<Map<string, number>> {
  return lastScheduledRuns(store, COLLECTION_RUNS, nowMs);
}

/** How far back a collection asks, given the watch's newest completed collection (see the module doc). */
export function sinceFor(lastCompleted: Pick<CollectionRecord, 'startedAtMs' | 'queuedAtMs'> | null, nowMs: number): number {
  if (lastCompleted === null) return nowMs - FIRST_REACH_MS;
  return Math.max(nowMs - FIRST_REACH_MS, (lastCompleted.startedAtMs ?? lastCompleted.queuedAtMs) - SINCE_MARGIN_MS);
}
