/**
 * Monitor checks and their pages in the store (infra/clickhouse/0006_monitors.sql).
 *
 * A check is a versioned `monitor_checks` row: version 1 `queued` (written by whoever starts
 * it, before its event is sent), 2 `running` (the classifier took it), 3 final: `completed`
 * with its counts, or `skipped_overlap` / `skipped_no_credits` / `skipped_deleted` with the
 * reason. A check resumed after a crash writes `running` again (the same version: either row
 * may stay, both say running). Ids sort by creation time (`chk_` + 12 hex digits of the epoch
 * ms + 16 random hex digits), so newest first is `id DESC` as well.
 *
 * Each page judged is one `monitor_check_pages` row; a resumed check reads which pages it
 * already judged (`judgedPages`) and does not read them again. A check's webhook deliveries
 * are read by deliveries.ts.
 */
import { randomBytes } from 'node:crypto';
import type { BatchWriter, WriteOptions } from '../runtime/store/batch-writer.js';
import { lastScheduledRuns, newestRuns, runFields, unfinishedRuns, type NewestRuns, type RunRow, type RunTable } from '../runtime/store/runs.js';
import type { Store } from '../runtime/store/store.js';

export const PAGE_STATUSES = ['new', 'same', 'changed', 'removed', 'error'] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];
export type CheckStatus = 'queued' | 'running' | 'completed' | 'skipped_overlap' | 'skipped_no_credits' | 'skipped_deleted';
export type CheckTrigger = 'scheduled' | 'manual';
export const FINAL_CHECK_STATUSES: readonly CheckStatus[] = ['completed', 'skipped_overlap', 'skipped_no_credits', 'skipped_deleted'];

export type CheckCounts = Readonly<Record<PageStatus, number>>;
export const NO_COUNTS: CheckCounts = { new: 0, same: 0, changed: 0, removed: 0, error: 0 };

export interface CheckRecord {
  readonly id: string;
  readonly tenant: string;
  readonly monitorId: string;
  readonly trigger: CheckTrigger;
  readonly status: CheckStatus;
  readonly reason: string;
  readonly scheduledAtMs: number;
  readonly queuedAtMs: number;
  readonly startedAtMs: number | null;
  readonly finishedAtMs: number | null;
  readonly urls: readonly string[];
  readonly counts: CheckCounts;
  readonly creditsUsed: number;
}

/** What the classifier found for one page of a check. */
export interface PageResult {
  readonly url: string;
  /** The page's place in the monitor's list. */
  readonly position: number;
  readonly checkedAtMs: number;
  readonly status: PageStatus;
  /** The HTTP status the page answered; 0 when it did not answer. */
  readonly statusCode: number;
  readonly errorCode: string;
  readonly error: string;
  readonly credits: number;
  /** Unified diff of a `changed` page (capped); empty otherwise. */
  readonly diff: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** The diff or the line lists were cut to their caps. */
  readonly truncated: boolean;
}

const VERSION: Readonly<Record<CheckStatus, number>> = {
  queued: 1,
  running: 2,
  completed: 3,
  skipped_overlap: 3,
  skipped_no_credits: 3,
  skipped_deleted: 3,
};

export function newCheckId(nowMs = Date.now()): string {
  return `chk_${nowMs.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
}

export function isFinal(status: CheckStatus): boolean {
  return FINAL_CHECK_STATUSES.includes(status);
}

export interface NewCheck {
  readonly tenant: string;
  readonly monitorId: string;
  readonly trigger: CheckTrigger;
  readonly scheduledAtMs: number;
  readonly urls: readonly string[];
  readonly nowMs: number;
  readonly id?: string;
}

export function queuedCheck(check: NewCheck): CheckRecord {
  return {
    id: check.id ?? newCheckId(check.nowMs),
    tenant: check.tenant,
    monitorId: check.monitorId,
    trigger: check.trigger,
    status: 'queued',
    reason: '',
    scheduledAtMs: check.scheduledAtMs,
    queuedAtMs: check.nowMs,
    startedAtMs: null,
    finishedAtMs: null,
    urls: check.urls,
    counts: NO_COUNTS,
    creditsUsed: 0,
  };
}

const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(ms));

function checkRow(check: CheckRecord): Record<string, unknown> {
  return {
    tenant: check.tenant,
    monitor_id: check.monitorId,
    id: check.id,
    version: VERSION[check.status],
    trigger: check.trigger,
    status: check.status,
    reason: check.reason,
    scheduled_at: new Date(check.scheduledAtMs),
    queued_at: new Date(check.queuedAtMs),
    started_at: dateOrNull(check.startedAtMs),
    finished_at: dateOrNull(check.finishedAtMs),
    urls: check.urls,
    count_new: check.counts.new,
    count_same: check.counts.same,
    count_changed: check.counts.changed,
    count_removed: check.counts.removed,
    count_error: check.counts.error,
    credits_used: check.creditsUsed,
  };
}

/**
 * The rows of a scheduled check that found every page `same` (nothing to report) and the new
 * snapshot of a page that moved only by noise: nobody awaits them, so they wait up to this long for their batch and the
 * checks of about two seconds share one insert per table instead of one each (an insert costs
 * the engine about the same whatever its size: bench/README.md, monitors).
 * actors/classifier/check.ts writes them behind the check's answer and holds the monitor's
 * running latch until they landed.
 */
export const UNCHANGED_ROWS: WriteOptions = { maxDelayMs: 2_000 };

/** Stores this state of the check as its status's version; resolves once it landed. */
export async function writeCheck(writer: Pick<BatchWriter, 'write'>, check: CheckRecord, options: WriteOptions = {}): Promise<void> {
  await writer.write('monitor_checks', [checkRow(check)], options);
}

/**
 * The frontier's `queued` rows (and `skipped_overlap` ones) of scheduled checks: written behind
 * the checks' events, in the batch the classifier's lazy rows of about the same seconds share
 * (UNCHANGED_ROWS), instead of one insert per frontier tick (bench/README.md, monitors). A
 * check that ends within that wait lands its queued and final rows in one insert. Until its
 * queued row landed a check has no stored row: a crash then leaves its due time to the
 * schedule rebuilt from the store (the check runs again, under a new id), and the classifier
 * writes a new snapshot of a page to report only after a row of the check landed (its running
 * row: actors/classifier/check.ts), so no change goes unreported.
 */
export const QUEUED_ROWS: WriteOptions = UNCHANGED_ROWS;

/** Stores several checks in one write (a frontier tick's); resolves once they landed. */
export async function writeChecks(writer: Pick<BatchWriter, 'write'>, checks: readonly CheckRecord[], options: WriteOptions = {}): Promise<void> {
  if (checks.length) await writer.write('monitor_checks', checks.map(checkRow), options);
}

const CHECK_COLUMNS = `tenant, monitor_id, id, trigger, status, reason,
  toUnixTimestamp64Milli(scheduled_at) AS scheduled_ms, toUnixTimestamp64Milli(queued_at) AS queued_ms,
  toUnixTimestamp64Milli(started_at) AS started_ms, toUnixTimestamp64Milli(finished_at) AS finished_ms,
  urls, count_new, count_same, count_changed, count_removed, count_error, credits_used`;

/** One check of a tenant's monitor. Params: tenant, monitorId, id. */
export const CHECK_BY_ID = `
SELECT ${CHECK_COLUMNS} FROM monitor_checks FINAL
WHERE tenant = {tenant:String} AND monitor_id = {monitorId:String} AND id = {id:String}`;

/** A monitor's checks, newest first. Params: tenant, monitorId, limit. */
export const CHECKS_OF_MONITOR = `
SELECT ${CHECK_COLUMNS} FROM monitor_checks FINAL
WHERE tenant = {tenant:String} AND monitor_id = {monitorId:String}
ORDER BY id DESC
LIMIT {limit:UInt32}`;

/** A monitor's checks as runs (runs.ts): the record's current and last check, resuming, the schedule's anchor. */
const CHECK_RUNS: RunTable = { table: 'monitor_checks', parent: 'monitor_id', columns: CHECK_COLUMNS };

interface CheckRow extends RunRow {
  readonly monitor_id: string;
  readonly urls: readonly string[];
  readonly count_new: string | number;
  readonly count_same: string | number;
  readonly count_changed: string | number;
  readonly count_removed: string | number;
  readonly count_error: string | number;
}

function checkOf(row: CheckRow): CheckRecord {
  return {
    ...runFields(row),
    monitorId: row.monitor_id,
    trigger: row.trigger === 'manual' ? 'manual' : 'scheduled',
    status: row.status as CheckStatus,
    urls: row.urls,
    counts: {
      new: Number(row.count_new),
      same: Number(row.count_same),
      changed: Number(row.count_changed),
      removed: Number(row.count_removed),
      error: Number(row.count_error),
    },
  };
}

type Reader = Pick<Store, 'query'>;

export async function readCheck(store: Reader, tenant: string, monitorId: string, id: string): Promise<CheckRecord | null> {
  const [row] = await store.query<CheckRow>(CHECK_BY_ID, { tenant, monitorId, id });
  return row ? checkOf(row) : null;
}

export async function listChecks(store: Reader, tenant: string, monitorId: string, limit: number): Promise<CheckRecord[]> {
  return (await store.query<CheckRow>(CHECKS_OF_MONITOR, { tenant, monitorId, limit })).map(checkOf);
}

/** Each monitor's newest check and newest completed check, by monitor id. */
export function newestChecks(store: Reader, tenant: string, monitorIds: readonly string[]): Promise<NewestRuns<CheckRecord>> {
  return newestRuns(store, CHECK_RUNS, tenant, monitorIds, checkOf);
}

export function unfinishedChecks(store: Reader, nowMs: number): Promise<CheckRecord[]> {
  return unfinishedRuns(store, CHECK_RUNS, checkOf, nowMs);
}

/** `tenant/monitorId` → when its newest scheduled check was due (ms). */
export function lastScheduled(store: Reader, nowMs: number): Promise<Map<string, number>> {
  return lastScheduledRuns(store, CHECK_RUNS, nowMs);
}

// Pages.

const PAGE_COLUMNS = `check_id, url, position, toUnixTimestamp64Milli(checked_at) AS checked_ms, status, status_code,
  error_code, error, credits, diff, added, removed, truncated`;

/** The pages of some checks of one monitor, in each check's page order. Params: tenant, monitorId, checkIds. */
export const CHECK_PAGES = `
SELECT ${PAGE_COLUMNS} FROM monitor_check_pages FINAL
WHERE tenant = {tenant:String} AND monitor_id = {monitorId:String} AND check_id IN {checkIds:Array(String)}
ORDER BY check_id, position, url`;

interface PageRow {
  readonly check_id: string;
  readonly url: string;
  readonly position: string | number;
  readonly checked_ms: string | number;
  readonly status: string;
  readonly status_code: string | number;
  readonly error_code: string;
  readonly error: string;
  readonly credits: string | number;
  readonly diff: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly truncated: string | number;
}

function pageOf(row: PageRow): PageResult {
  return {
    url: row.url,
    position: Number(row.position),
    checkedAtMs: Number(row.checked_ms),
    status: row.status as PageStatus,
    statusCode: Number(row.status_code),
    errorCode: row.error_code,
    error: row.error,
    credits: Number(row.credits),
    diff: row.diff,
    added: row.added,
    removed: row.removed,
    truncated: Number(row.truncated) === 1,
  };
}

/** check id → its pages. */
export async function checkPages(store: Reader, tenant: string, monitorId: string, checkIds: readonly string[]): Promise<Map<string, PageResult[]>> {
  const out = new Map<string, PageResult[]>(checkIds.map((id) => [id, []]));
  if (checkIds.length === 0) return out;
  for (const row of await store.query<PageRow>(CHECK_PAGES, { tenant, monitorId, checkIds })) out.get(row.check_id)?.push(pageOf(row));
  return out;
}

/** The pages this check has already judged (a resumed check skips them). */
export async function judgedPages(store: Reader, check: Pick<CheckRecord, 'tenant' | 'monitorId' | 'id'>): Promise<PageResult[]> {
  return (await checkPages(store, check.tenant, check.monitorId, [check.id])).get(check.id) ?? [];
}

export async function writePage(writer: Pick<BatchWriter, 'write'>, check: Pick<CheckRecord, 'tenant' | 'monitorId' | 'id'>, page: PageResult, options: WriteOptions = {}): Promise<void> {
  await writer.write('monitor_check_pages', [
    {
      tenant: check.tenant,
      monitor_id: check.monitorId,
      check_id: check.id,
      url: page.url,
      position: page.position,
      checked_at: new Date(page.checkedAtMs),
      status: page.status,
      status_code: page.statusCode,
      error_code: page.errorCode,
      error: page.error,
      credits: page.credits,
      diff: page.diff,
      added: page.added,
      removed: page.removed,
      truncated: page.truncated ? 1 : 0,
    },
  ], options);
}

export function countsOf(pages: readonly Pick<PageResult, 'status'>[]): CheckCounts {
  const counts: Record<PageStatus, number> = { ...NO_COUNTS };
  for (const page of pages) counts[page.status] += 1;
  return counts;
}
