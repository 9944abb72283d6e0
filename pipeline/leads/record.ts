/**
 * Find Leads runs: the live record in coordination state and its versions in the store
 * (`leads_runs`, infra/clickhouse/0013_leads.sql). The gateway creates a run (`queued`) and
 * cancels it; the searcher carries it out (actors/searcher/leads.ts); both read it here.
 *
 * - The live record is the state key `leads:<id>`: the whole run as JSON (its request, status,
 *   leads so far, summary, credits held and charged). Only the searcher carrying the run
 *   writes it while it runs; the gateway writes it only to cancel a run still `queued`.
 * - A run ends once: the first of `completed`, `failed` or `cancelled` to take the latch
 *   `leads:<id>:end` (setIfAbsent) is its final status. DELETE takes it with `cancelled`; the
 *   searcher, which looks at the latch between steps and every CANCEL_POLL_MS while it waits,
 *   then stops, keeps the leads it had, and writes the run `final`.
 * - A version is written to the store when the run is created, starts, has its sources'
 *   leads, and ends, so a run whose live state is lost is still answered: one that had ended
 *   as it was; one lost while `queued` or `running` (the service restarted in embedded mode,
 *   or Redis lost its data) as `failed` with INTERRUPTED_ERROR, written so, never left
 *   running.
 * - Another key's run is null, the same as an unknown id (the gateway's 404).
 */
import { randomUUID } from 'node:crypto';
import type { State } from '../runtime/state/state.js';
import type { Emission } from '../runtime/events.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';
import type { AttributionNotice, Lead } from './leads.js';

export type RunStatus = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';
export type EndStatus = Exclude<RunStatus, 'queued' | 'running'>;
export const END_STATUSES: readonly RunStatus[] = ['completed', 'cancelled', 'failed'];

/** How often a running run looks at its end latch while it waits on a source or a website. */
export const CANCEL_POLL_MS = 250;

/** The documented fields of a run's request (schemas/api/leads-social.ts), defaults filled in. */
export interface RunParams {
  readonly query: string;
  readonly where: string | null;
  readonly country: string | null;
  readonly limit: number;
  /** The source keys asked, in order. */
  readonly sources: readonly string[];
  readonly contacts: boolean;
}

export interface SourceOutcome {
  readonly key: string;
  /** Leads the source found (before merging). */
  readonly found: number;
  /** Why it gave nothing, when it failed or was not asked. */
  readonly error: string | null;
}

export interface RunSummary {
  readonly query: string;
  readonly where: string | null;
  /** The country searched: given, or the place's; null when neither. */
  readonly country: string | null;
  /** The place `where` was resolved to, when it was. */
  readonly area: string | null;
  readonly sources: readonly SourceOutcome[];
  /** The notice of every source whose data is in the leads (ODbL for OpenStreetMap, each register's licence). */
  readonly attribution: readonly AttributionNotice[];
  readonly leads: number;
  /** Leads with a website whose contacts were looked up, and those where some were found. */
  readonly contacts: { readonly looked: number; readonly found: number };
}

/** Where a run is: waiting, asking its sources, reading its leads' websites, ended. */
export type RunStage = 'queued' | 'sources' | 'contacts' | 'done';

export interface LeadsRun {
  readonly id: string;
  readonly tenant: string;
  readonly status: RunStatus;
  readonly stage: RunStage;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly expiresAtMs: number;
  readonly params: RunParams;
  readonly leads: readonly Lead[];
  readonly summary: RunSummary | null;
  readonly error: string | null;
  readonly warning: string | null;
  /** Credits the run holds on its key (0 before it starts and after it settles). */
  readonly held: number;
  readonly creditsUsed: number;
  /** True once the run has ended and its leads and charge are written: nothing changes after. */
  readonly final: boolean;
}

export const runKey = (id: string) => `leads:${id}`;
export const runEndKey = (id: string) => `leads:${id}:end`;
const versionKey = (id: string) => `leads:${id}:version`;
export const newRunId = () => `leads_${randomUUID().replace(/-/g, '')}`;
export const isRunId = (id: string) => /^leads_[0-9a-f]{32}$/.test(id);

/**
 * A run not ended whose record has not changed for this long is answered (and written)
 * `failed` with STALLED_ERROR: no process carries it any more (its event was dead-lettered, or
 * lost with its topic). A running run writes its record at every step, far more often; a
 * queued run waits this long only when the searchers are hopelessly behind.
 */
export const RUN_STALL_MS = 15 * 60_000;

export const STALLED_ERROR = `stalled: the run did not move for ${RUN_STALL_MS / 60_000} minutes (no searcher carried it); nothing more was charged`;

/** Why a run whose live state was lost before it ended is failed. */
export const INTERRUPTED_ERROR =
  'interrupted: the coordination state of this run was lost before it ended (the service restarted in embedded mode, or Redis lost its data); nothing was charged';

export interface RunStateDeps {
  readonly state: State;
  readonly writer: Pick<BatchWriter, 'write'>;
}

const ttlOf = (run: Pick<LeadsRun, 'expiresAtMs'>, nowMs: number) => Math.max(1000, run.expiresAtMs - nowMs);

function rowOf(run: LeadsRun, version: number): Record<string, unknown> {
  return {
    tenant: run.tenant,
    id: run.id,
    version,
    status: run.status,
    created_at: run.createdAtMs,
    updated_at: run.updatedAtMs,
    expires_at: run.expiresAtMs,
    params: JSON.stringify(run.params),
    leads: JSON.stringify(run.leads),
    summary: run.summary ? JSON.stringify(run.summary) : '',
    error: run.error ?? '',
    warning: run.warning ?? '',
    credits_used: run.creditsUsed,
  };
}

function parsed(raw: string | null): LeadsRun | null {
  if (raw === null) return null;
  try {
    const v = JSON.parse(raw) as LeadsRun;
    return typeof v === 'object' && v !== null && typeof v.tenant === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** The live record (any tenant); null when state no longer holds it. */
export async function liveRun(state: State, id: string): Promise<LeadsRun | null> {
  return parsed(await state.get(runKey(id)));
}

/** Writes the live record, and with `store` a new version of it in the store. */
export async function saveRun(deps: RunStateDeps, run: LeadsRun, nowMs: number, store = false): Promise<LeadsRun> {
  const saved = { ...run, updatedAtMs: nowMs };
  await deps.state.set(runKey(run.id), JSON.stringify(saved), ttlOf(run, nowMs));
  if (store) {
    const version = await deps.state.incr(versionKey(run.id));
    await deps.state.expire(versionKey(run.id), ttlOf(run, nowMs));
    await deps.writer.write('leads_runs', [rowOf(saved, version)]);
  }
  return saved;
}

export interface NewRun {
  readonly id: string;
  readonly tenant: string;
  readonly params: RunParams;
  readonly warning: string | null;
  readonly nowMs: number;
  /** How long the run is answered (JOB_RETENTION_HOURS). */
  readonly retentionMs: number;
}

/**
 * The runs not known to have ended, for a restart to resume (one process with a durable state,
 * STATE=file): each run is added when it is created, scored by its creation time; a resume takes
 * the list and puts back the runs it asks again (resumeRuns). Ended runs leave it then.
 */
export const ACTIVE_RUNS_KEY = 'leads:active';

/**
 * After a restart of the one process that owns its state (embedded mode, STATE=file): every
 * run not final is asked again (its LeadsRequested, as the gateway first sent it), so a queued
 * run starts and a running one resumes with the hold its record keeps (the searcher's
 * handler: sources asked again, leads settled once). The state outlived the process, the event
 * on its memory bus did not.
 */
export async function resumeRuns(state: State, nowMs: number): Promise<Emission<'leadsRequested'>[]> {
  const out: Emission<'leadsRequested'>[] = [];
  const kept: { member: string; score: number }[] = [];
  for (;;) {
    const due = await state.zpopDue(ACTIVE_RUNS_KEY, Number.MAX_SAFE_INTEGER, 500);
    for (const entry of due) {
      const run = await liveRun(state, entry.member);
      if (!run || run.final) continue;
      kept.push(entry);
      out.push({
        topic: 'leadsRequested',
        key: run.id,
        value: { requestId: `resume-${run.id}`, tenant: run.tenant, kind: 'run', runId: run.id, query: JSON.stringify(run.params), replyTo: null, correlationId: null, deadlineMs: run.expiresAtMs, createdAtMs: nowMs },
      });
    }
    if (due.length < 500) break;
  }
  for (const { member, score } of kept) await state.zadd(ACTIVE_RUNS_KEY, score, member);
  return out;
}

/** Creates the run, `queued`, live and stored. */
export async function createRun(deps: RunStateDeps, run: NewRun): Promise<LeadsRun> {
  const record: LeadsRun = {
    id: run.id,
    tenant: run.tenant,
    status: 'queued',
    stage: 'queued',
    createdAtMs: run.nowMs,
    updatedAtMs: run.nowMs,
    expiresAtMs: run.nowMs + run.retentionMs,
    params: run.params,
    leads: [],
    summary: null,
    error: null,
    warning: run.warning,
    held: 0,
    creditsUsed: 0,
    final: false,
  };
  const saved = await saveRun(deps, record, run.nowMs, true);
  await deps.state.zadd(ACTIVE_RUNS_KEY, run.nowMs, run.id);
  return saved;
}

/** The status that took the end latch, or null while the run has not ended. */
export async function endedAs(state: State, id: string): Promise<{ status: EndStatus; error: string | null } | null> {
  const raw = await state.get(runEndKey(id));
  if (raw === null) return null;
  try {
    const v = JSON.parse(raw) as { status?: unknown; error?: unknown };
    const status = END_STATUSES.includes(v.status as RunStatus) ? (v.status as EndStatus) : 'failed';
    return { status, error: typeof v.error === 'string' ? v.error : null };
  } catch {
    return { status: 'failed', error: null };
  }
}

/** Takes the end latch with `status`; true when this call ended the run. */
export async function takeEnd(state: State, run: Pick<LeadsRun, 'id' | 'expiresAtMs'>, status: EndStatus, error: string | null, nowMs: number): Promise<boolean> {
  return state.setIfAbsent(runEndKey(run.id), JSON.stringify({ status, error }), ttlOf(run, nowMs));
}

interface RunRow {
  tenant: string;
  id: string;
  version: string | number;
  status: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
  params: string;
  leads: string;
  summary: string;
  error: string;
  warning: string;
  credits_used: string | number;
}

const RUN_BY_ID = `
SELECT * FROM leads_runs FINAL
WHERE tenant = {tenant:String} AND id = {id:String}
LIMIT 1`;

const msOf = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`);

function json<T>(text: string, fallback: T): T {
  try {
    return text ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
}

/**
 * This tenant's run: the live record, else the newest stored version (see the file comment:
 * one lost before it ended is answered, and stored, `failed` with INTERRUPTED_ERROR).
 */
export async function readRun(deps: { state: State; store: Pick<Store, 'query'>; writer?: Pick<BatchWriter, 'write'> }, tenant: string, id: string, nowMs: number): Promise<LeadsRun | null> {
  const live = await liveRun(deps.state, id);
  if (live && live.tenant !== tenant) return null;
  if (live && !live.final && nowMs - live.updatedAtMs > RUN_STALL_MS && deps.writer) return stalled(deps as RunStateDeps, live, nowMs);
  if (live) return live;
  const [row] = await deps.store.query<RunRow>(RUN_BY_ID, { tenant, id });
  if (!row) return null;
  const stored: LeadsRun = {
    id: row.id,
    tenant: row.tenant,
    status: row.status as RunStatus,
    stage: END_STATUSES.includes(row.status as RunStatus) ? 'done' : row.status === 'queued' ? 'queued' : 'sources',
    createdAtMs: msOf(row.created_at),
    updatedAtMs: msOf(row.updated_at),
    expiresAtMs: msOf(row.expires_at),
    params: json<RunParams>(row.params, { query: '', where: null, country: null, limit: 0, sources: [], contacts: false }),
    leads: json<Lead[]>(row.leads, []),
    summary: json<RunSummary | null>(row.summary, null),
    error: row.error || null,
    warning: row.warning || null,
    held: 0,
    creditsUsed: Number(row.credits_used),
    final: END_STATUSES.includes(row.status as RunStatus),
  };
  if (stored.final) return stored;
  const failed: LeadsRun = { ...stored, status: 'failed', stage: 'done', error: INTERRUPTED_ERROR, leads: [], creditsUsed: 0, updatedAtMs: nowMs, final: true };
  await deps.writer?.write('leads_runs', [rowOf(failed, Number(row.version) + 1)]);
  return failed;
}

/** Ends a stalled run `failed` (unless another status took the latch first) and writes it final. */
async function stalled(deps: RunStateDeps, run: LeadsRun, nowMs: number): Promise<LeadsRun> {
  await takeEnd(deps.state, run, 'failed', STALLED_ERROR, nowMs);
  const ended = (await endedAs(deps.state, run.id)) ?? { status: 'failed' as const, error: STALLED_ERROR };
  const failed = ended.status === 'failed';
  return saveRun(deps, { ...run, status: ended.status, error: ended.error, stage: 'done', final: true, held: 0, ...(failed ? { leads: [], creditsUsed: 0 } : {}) }, nowMs, true);
}

/** The run as GET /v1/leads/{id} answers it: while it runs, the leads found so far without contacts. */
export function runView(run: LeadsRun): Record<string, unknown> {
  const running = run.status === 'running' || (run.status !== 'queued' && !run.final);
  return {
    id: run.id,
    status: run.status,
    stage: run.stage,
    partial: running,
    query: run.params.query,
    where: run.params.where,
    country: run.summary?.country ?? run.params.country,
    limit: run.params.limit,
    sources: run.params.sources,
    contacts: run.params.contacts,
    leads: running ? run.leads.map((l) => ({ ...l, contacts: null })) : run.leads,
    summary: run.summary,
    creditsUsed: run.creditsUsed,
    createdAt: new Date(run.createdAtMs).toISOString(),
    updatedAt: new Date(run.updatedAtMs).toISOString(),
    expiresAt: new Date(run.expiresAtMs).toISOString(),
    ...(run.error ? { error: run.error } : {}),
    ...(run.warning ? { warning: run.warning } : {}),
  };
}
