/**
 * Crawl and batch jobs: their live record in coordination state and its snapshots in the
 * store. The gateway creates a job and cancels it; the frontier (actors/frontier/jobs)
 * schedules its pages and counts them; both read it through these functions.
 *
 * The live record is the state hash `job:{<id>}` (tenant, kind, status, counters, params); it
 * is what `GET /v1/crawl/{id}` reads first. Every change is also written to the store's `jobs`
 * table as a whole new version (ReplacingMergeTree(version), read with FINAL), so a job whose
 * state has expired or been lost is still answered from the store. Versions come from
 * `hincrby(version)`, so the newest snapshot wins whichever batch lands first.
 *
 * A job ends once: the first of `completed`, `failed` or `cancelled` to take the latch
 * `job:{<id>}:end` (setIfAbsent) is its final status; later attempts change nothing.
 */
import type { State } from '../runtime/state/state.js';
import { queueWrite, type BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';
import { JOB_BY_ID, JOB_PAGES_COUNT } from '../runtime/store/queries.js';

export type JobKind = 'crawl' | 'batch';
export type JobStatus = 'queued' | 'scraping' | 'completed' | 'failed' | 'cancelled';
export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];
export type EndedStatus = Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>;

/** The time to live of a job's state keys: until its `expiresAt` (at least a second). */
export function jobTtlMs(job: Pick<JobRecord, 'expiresAtMs'>, nowMs = Date.now()): number {
  return Math.max(1000, job.expiresAtMs - nowMs);
}

export interface JobRecord {
  readonly id: string;
  readonly tenant: string;
  readonly kind: JobKind;
  readonly status: JobStatus;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly expiresAtMs: number;
  /** URLs the job holds: queued, in flight or settled (never above a crawl's `limit`). */
  readonly total: number;
  /** Pages stored. */
  readonly completed: number;
  /**
   * Pages stored at or below the watermark: what the pages listing holds (it never reads past
   * the watermark), and so what the status answers as `completed`. `completed` may be ahead
   * of it by the pages stored above the watermark; once every page is settled they agree.
   */
  readonly listed: number;
  /** URLs that could not be read (listed by the errors endpoint). */
  readonly failed: number;
  readonly creditsUsed: number;
  /** The job's request (without the webhook), as JSON. */
  readonly params: string;
  /**
   * The job's webhook (pipeline/jobs/webhook.ts JobWebhook) as JSON, or empty. Kept in the
   * live record only, never in the store: its headers may hold the receiver's credentials.
   */
  readonly webhook: string;
  /** Why a failed job stopped; empty otherwise. */
  readonly error: string;
  /**
   * Every page with a seq at or below this is settled (stored or failed): the pages listing
   * never reads past it, so a cursor cannot step over a page still being written.
   */
  readonly watermark: number;
  /** Pages sent to be fetched so far (the last seq given). */
  readonly scheduled: number;
}

/**
 * A job's live record, and the prefix of every other key of the job (`job:{<id>}:<part>`,
 * actors/frontier/jobs/queue.ts): the id is the keys' hash tag, so all of a job's keys are in
 * one Redis Cluster hash slot, as its work queue's scripts need (docs/scaling.md "Redis").
 * Builds before this kept them as `job:<id>` (docs/scaling.md says how to upgrade).
 */
export const jobKey = (id: string) => `job:{${id}}`;
/** One of a job's other keys: `job:{<id>}:<part>`. */
export const jobPartKey = (id: string, part: string) => `job:{${id}}:${part}`;

/**
 * Running jobs by the time of their last event (ms): the stall watchdog's schedule
 * (actors/frontier/jobs/handler.ts). A job is put on it when it is created; every event of a
 * running job moves it on; the watchdog takes the jobs past the stall time.
 */
export const ACTIVE_JOBS_KEY = 'jobs:active';
export const jobEndKey = (id: string) => jobPartKey(id, 'end');

export interface JobStateDeps {
  readonly state: State;
  readonly writer: Pick<BatchWriter, 'write'>;
}

const num = (value: string | undefined) => (value === undefined ? 0 : Number(value) || 0);

function fromHash(id: string, h: Record<string, string>): JobRecord | null {
  if (!h.tenant) return null;
  return {
    id,
    tenant: h.tenant,
    kind: h.kind === 'batch' ? 'batch' : 'crawl',
    status: (h.status as JobStatus) ?? 'scraping',
    createdAtMs: num(h.createdAtMs),
    updatedAtMs: num(h.updatedAtMs),
    expiresAtMs: num(h.expiresAtMs),
    total: num(h.total),
    completed: num(h.completed),
    listed: num(h.listed),
    failed: num(h.failed),
    creditsUsed: num(h.creditsUsed),
    params: h.params ?? '{}',
    webhook: h.webhook ?? '',
    error: h.error ?? '',
    watermark: num(h.watermark),
    scheduled: num(h.seq),
  };
}

function rowOf(job: JobRecord, version: number): Record<string, unknown> {
  return {
    tenant: job.tenant,
    id: job.id,
    kind: job.kind,
    status: job.status,
    version,
    created_at: job.createdAtMs,
    updated_at: job.updatedAtMs,
    total: job.total,
    completed: job.completed,
    failed: job.failed,
    credits_used: job.creditsUsed,
    params: job.params,
    error: job.error,
    expires_at: job.expiresAtMs,
  };
}

export interface NewJob {
  readonly id: string;
  readonly tenant: string;
  readonly kind: JobKind;
  readonly params: string;
  /** The webhook as JSON (pipeline/jobs/webhook.ts); none when absent. */
  readonly webhook?: string;
  readonly nowMs: number;
  /** How long the job is answered (JOB_RETENTION_HOURS). */
  readonly retentionMs: number;
}

/** Creates the live record (status `scraping`) and its first stored version. */
export async function createJob(deps: JobStateDeps, job: NewJob): Promise<JobRecord> {
  const record: JobRecord = {
    id: job.id,
    tenant: job.tenant,
    kind: job.kind,
    status: 'scraping',
    createdAtMs: job.nowMs,
    updatedAtMs: job.nowMs,
    expiresAtMs: job.nowMs + job.retentionMs,
    total: 0,
    completed: 0,
    listed: 0,
    failed: 0,
    creditsUsed: 0,
    params: job.params,
    webhook: job.webhook ?? '',
    error: '',
    watermark: 0,
    scheduled: 0,
  };
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(record)) if (name !== 'id' && name !== 'scheduled') fields[name] = String(value);
  await deps.state.hset(jobKey(job.id), { ...fields, version: '1' });
  await deps.state.expire(jobKey(job.id), job.retentionMs);
  // Watched from its start: a job whose `started` event was lost (the process died before the
  // frontier read it) is seeded again by the watchdog, or at once by a restart's resume.
  await deps.state.zadd(ACTIVE_JOBS_KEY, job.nowMs, job.id);
  await deps.writer.write('jobs', [rowOf(record, 1)]);
  return record;
}

/** The live record; null when state no longer holds it. */
export async function liveJob(state: State, id: string): Promise<JobRecord | null> {
  return fromHash(id, await state.hgetall(jobKey(id)));
}

interface JobRow {
  tenant: string;
  id: string;
  kind: string;
  status: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
  total: string | number;
  completed: string | number;
  failed: string | number;
  credits_used: string | number;
  params: string;
  error: string;
  version: string | number;
}

const msOf = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`);

/** Why a job whose live state is gone while it ran ended. */
export const INTERRUPTED_ERROR =
  'interrupted: the coordination state of this job was lost while it ran (the service restarted in embedded mode, or Redis lost its data); the pages stored before are kept';

/**
 * This tenant's job: the live record, else the newest stored version. Another tenant's job
 * is null, the same as an unknown id. A stored job still `scraping` whose live state is gone
 * can never move again (its queue and counters were there): it is answered, and with a
 * writer stored, as `failed` with INTERRUPTED_ERROR, never left `scraping` forever.
 */
export async function readJob(
  deps: { state: State; store: Pick<Store, 'query'>; writer?: Pick<BatchWriter, 'write'> },
  tenant: string,
  id: string,
): Promise<JobRecord | null> {
  const live = await liveJob(deps.state, id);
  if (live) return live.tenant === tenant ? live : null;
  const [row] = await deps.store.query<JobRow>(JOB_BY_ID, { tenant, id });
  if (!row) return null;
  const total = Number(row.total);
  const stored: JobRecord = {
    id: row.id,
    tenant: row.tenant,
    kind: row.kind === 'batch' ? 'batch' : 'crawl',
    status: row.status as JobStatus,
    createdAtMs: msOf(row.created_at),
    updatedAtMs: msOf(row.updated_at),
    expiresAtMs: msOf(row.expires_at),
    total,
    completed: Number(row.completed),
    listed: Number(row.completed),
    failed: Number(row.failed),
    creditsUsed: Number(row.credits_used),
    params: row.params,
    webhook: '',
    error: row.error,
    // A stored job is read in full: its writes were all awaited before its last version.
    watermark: Number.MAX_SAFE_INTEGER,
    scheduled: total,
  };
  if (TERMINAL_STATUSES.includes(stored.status)) return stored;
  // Its last version may be a second older than its pages: it is answered with what the
  // listing (read in full: the watermark of a stored job) holds.
  const [counted] = await deps.store.query<{ pages: string | number }>(JOB_PAGES_COUNT, { tenant, jobId: id });
  const pages = counted ? Number(counted.pages) : stored.completed;
  const ended: JobRecord = { ...stored, completed: pages, listed: pages, status: 'failed', error: INTERRUPTED_ERROR, updatedAtMs: Date.now() };
  await deps.writer?.write('jobs', [rowOf(ended, Number(row.version) + 1)]);
  return ended;
}

/** The live record stamped `nowMs` and its next version's row; null when state no longer holds it. */
async function nextVersion(state: State, id: string, nowMs: number): Promise<{ job: JobRecord; row: Record<string, unknown> } | null> {
  const key = jobKey(id);
  await state.hset(key, { updatedAtMs: String(nowMs) });
  const version = await state.hincrby(key, 'version', 1);
  const job = await liveJob(state, id);
  return job ? { job, row: rowOf(job, version) } : null;
}

/** Writes the live record to the store as a new version (after any change) and waits for it to land. */
export async function snapshotJob(deps: JobStateDeps, id: string, nowMs = Date.now()): Promise<JobRecord | null> {
  const next = await nextVersion(deps.state, id, nowMs);
  if (next) await deps.writer.write('jobs', [next.row]);
  return next?.job ?? null;
}

/**
 * How long a running job's progress version waits for its batch: the versions of every job a
 * process moves go in about one insert a second, not one per job per second (each insert costs
 * the store a part to write and merge: bench/README.md "Job versions queued").
 */
export const SNAPSHOT_WRITE_DELAY_MS = 1_000;
/** `jobs` rows queued and not landed past which a progress version waits for its own. */
export const SNAPSHOT_MAX_QUEUED = 1_000;

/**
 * A running job's progress as a new version, queued (SNAPSHOT_WRITE_DELAY_MS) and not waited
 * for: nothing reads it while the live record exists, and the next version supersedes it. The
 * versions that matter when state is gone (the start, the end) go through `snapshotJob`,
 * whose batch takes the queued ones with it. A failed insert is given to `failed`.
 */
export async function queueJobSnapshot(
  deps: { readonly state: State; readonly writer: Pick<BatchWriter, 'write' | 'pending'> },
  id: string,
  failed: (error: unknown) => void,
  nowMs = Date.now(),
): Promise<void> {
  const next = await nextVersion(deps.state, id, nowMs);
  if (next) await queueWrite(deps.writer, 'jobs', [next.row], { maxDelayMs: SNAPSHOT_WRITE_DELAY_MS, maxPendingRows: SNAPSHOT_MAX_QUEUED }, failed);
}

/**
 * Ends the job with `status` unless it has already ended; true when this call ended it.
 * The record is then snapshotted. The end latch is taken first; a call that finds it taken
 * while the record still says `scraping` (the process that took it died before writing the
 * record) writes the latch's status, so a job never reads `scraping` after it ended.
 */
export async function endJob(deps: JobStateDeps, id: string, status: Exclude<JobStatus, 'queued' | 'scraping'>, error = ''): Promise<boolean> {
  const expiresAtMs = Number(await deps.state.hget(jobKey(id), 'expiresAtMs')) || 0;
  const ttlMs = jobTtlMs({ expiresAtMs });
  if (!(await deps.state.setIfAbsent(jobEndKey(id), JSON.stringify({ status, error }), ttlMs))) {
    await repairEnded(deps, id);
    return false;
  }
  await deps.state.hset(jobKey(id), { status, error });
  await snapshotJob(deps, id);
  return true;
}

/**
 * What an end latch says: `{status, error}` as `endJob` writes it; a bare status (not JSON) is
 * read as that status; anything else, or no latch, as `failed` with no error.
 */
export function latchEnd(latch: string | null): { status: EndedStatus; error: string } {
  let ended: { status?: unknown; error?: unknown } = {};
  try {
    const parsed = latch ? (JSON.parse(latch) as unknown) : {};
    if (parsed && typeof parsed === 'object') ended = parsed as typeof ended;
  } catch {
    ended = { status: latch };
  }
  const status = typeof ended.status === 'string' && TERMINAL_STATUSES.includes(ended.status as JobStatus) ? (ended.status as EndedStatus) : 'failed';
  return { status, error: typeof ended.error === 'string' ? ended.error : '' };
}

async function repairEnded(deps: JobStateDeps, id: string): Promise<void> {
  if ((await deps.state.hget(jobKey(id), 'status')) !== 'scraping') return;
  await deps.state.hset(jobKey(id), latchEnd(await deps.state.get(jobEndKey(id))));
  await snapshotJob(deps, id);
}
