/**
 * The dashboard's panels (docs/dashboard.md): what each of GET /dashboard/api/<panel> answers,
 * read for one key through the store with the named queries of queries.sql. Read-only: no
 * panel writes anything. "Now" is the caller's clock (`nowMs`), bound as `{now}`; a window
 * is the WINDOW_DAYS days before it.
 *
 * A running job's progress moves faster than its stored versions (the frontier snapshots
 * it now and then): the jobs panel overlays each job not ended with its live record in
 * coordination state (pipeline/jobs/record.ts), the record GET /v1/crawl/{id} answers.
 */
import { AppError } from '../runtime/errors.js';
import type { State } from '../runtime/state/state.js';
import type { Store } from '../runtime/store/store.js';
import { liveJob, TERMINAL_STATUSES, type JobStatus } from '../jobs/record.js';
import { dashboardQuery, type QueryName } from './queries.js';

export interface PanelDeps {
  readonly store: Pick<Store, 'query'>;
  readonly state: State;
}

/** Days the usage, monitors and mentions panels read back from now. */
export const WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;
/**
 * What each panel shows at most (docs/dashboard.md, "Limits"); each answer names its limits
 * (`limits`), and the checks say when the window held more (`checksTruncated`).
 */
export const PANEL_LIMITS = {
  jobs: 20,
  jobPages: 50,
  jobErrors: 50,
  checks: 5000,
  changes: 10,
  deliveries: 20,
  mentions: 20,
} as const;

type Row = Record<string, unknown>;

const num = (value: unknown): number => Number(value ?? 0);
const str = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

function run(deps: PanelDeps, name: QueryName, key: string, params: Record<string, unknown> = {}): Promise<Row[]> {
  return deps.store.query<Row>(dashboardQuery(name), { key, ...params });
}

function window(nowMs: number): { since: Date; now: Date } {
  return { since: new Date(nowMs - WINDOW_DAYS * DAY_MS), now: new Date(nowMs) };
}

/** The UTC days of the window, oldest first (`YYYY-MM-DD`), so a plot has a slot for a quiet day. */
export function windowDays(nowMs: number, days = WINDOW_DAYS): string[] {
  const out: string[] = [];
  for (let i = days - 1; i >= 0; i--) out.push(new Date(nowMs - i * DAY_MS).toISOString().slice(0, 10));
  return out;
}

/** Usage: requests and credits per day by operation, errors by code. */
export async function usagePanel(deps: PanelDeps, key: string, nowMs: number) {
  const span = window(nowMs);
  const [byDay, errors] = await Promise.all([run(deps, 'usage_by_day', key, span), run(deps, 'errors_by_code', key, span)]);
  const days = byDay.map((r) => ({ day: str(r.day), op: str(r.op), requests: num(r.requests), credits: num(r.credits) }));
  const codes = errors.map((r) => ({ code: str(r.code), op: str(r.op), requests: num(r.requests), status: num(r.status) }));
  return {
    days: windowDays(nowMs),
    byDay: days,
    errors: codes,
    totals: {
      requests: days.reduce((n, r) => n + r.requests, 0),
      credits: days.reduce((n, r) => n + r.credits, 0),
      errors: codes.reduce((n, r) => n + r.requests, 0),
    },
  };
}

/** Jobs: the newest crawls and batches, a job not ended with its live progress. */
export async function jobsPanel(deps: PanelDeps, key: string) {
  const rows = await run(deps, 'jobs', key, { limit: PANEL_LIMITS.jobs });
  const jobs = await Promise.all(
    rows.map(async (r) => {
      const stored = {
        id: str(r.id),
        kind: str(r.kind),
        status: str(r.status),
        createdMs: num(r.created_ms),
        updatedMs: num(r.updated_ms),
        total: num(r.total),
        completed: num(r.completed),
        failed: num(r.failed),
        creditsUsed: num(r.credits_used),
        error: str(r.error),
      };
      if (TERMINAL_STATUSES.includes(stored.status as JobStatus)) return stored;
      const live = await liveJob(deps.state, stored.id);
      if (!live || live.tenant !== key) return stored;
      const { status, total, completed, failed, creditsUsed, updatedAtMs, error } = live;
      return { ...stored, status, total, completed, failed, creditsUsed, updatedMs: updatedAtMs, error };
    }),
  );
  return { jobs, limits: { jobs: PANEL_LIMITS.jobs } };
}

/** One job's newest pages and its errors; a job of another key, or none, is a 404. */
export async function jobDetail(deps: PanelDeps, key: string, jobId: string) {
  const [pages, errors] = await Promise.all([
    run(deps, 'job_pages', key, { job: jobId, limit: PANEL_LIMITS.jobPages }),
    run(deps, 'job_errors', key, { job: jobId, limit: PANEL_LIMITS.jobErrors }),
  ]);
  if (!pages.length && !errors.length) {
    const owned = await run(deps, 'jobs', key, { limit: 1000 });
    if (!owned.some((r) => str(r.id) === jobId)) throw new AppError('not_found', `no job ${jobId} for this key`);
  }
  return {
    id: jobId,
    limits: { pages: PANEL_LIMITS.jobPages, errors: PANEL_LIMITS.jobErrors },
    pages: pages.map((r) => ({ seq: num(r.seq), url: str(r.url), statusCode: num(r.status_code), title: str(r.title), createdMs: num(r.created_ms) })),
    errors: errors.map((r) => ({ url: str(r.url), code: str(r.code), message: str(r.message), statusCode: num(r.status_code), atMs: num(r.at_ms) })),
  };
}

/** Monitors: each monitor's timeline of checks, the newest changes with their diff, webhook deliveries. */
export async function monitorsPanel(deps: PanelDeps, key: string, nowMs: number) {
  const span = window(nowMs);
  const [monitors, newestChecks, changes, deliveries] = await Promise.all([
    run(deps, 'monitors', key),
    run(deps, 'monitor_checks', key, { ...span, limit: PANEL_LIMITS.checks + 1 }),
    run(deps, 'monitor_changes', key, { limit: PANEL_LIMITS.changes }),
    run(deps, 'monitor_deliveries', key, { limit: PANEL_LIMITS.deliveries }),
  ]);
  const checksTruncated = newestChecks.length > PANEL_LIMITS.checks;
  // Newest first from the store, at most the limit; each timeline oldest first.
  const checks = newestChecks.slice(0, PANEL_LIMITS.checks).reverse();
  const timeline = (id: string) =>
    checks
      .filter((c) => str(c.monitor_id) === id)
      .map((c) => ({
        id: str(c.id),
        trigger: str(c.trigger),
        status: str(c.status),
        queuedMs: num(c.queued_ms),
        counts: { new: num(c.count_new), same: num(c.count_same), changed: num(c.count_changed), removed: num(c.count_removed), error: num(c.count_error) },
        credits: num(c.credits_used),
      }));
  return {
    since: span.since.getTime(),
    now: nowMs,
    limits: { checks: PANEL_LIMITS.checks, changes: PANEL_LIMITS.changes, deliveries: PANEL_LIMITS.deliveries },
    checksTruncated,
    monitors: monitors.map((m) => ({
      id: str(m.id),
      name: str(m.name),
      urls: (m.urls as string[] | undefined)?.length ? (m.urls as string[]) : [str(m.url)],
      intervalMinutes: num(m.interval_minutes),
      status: str(m.status),
      nextCheckMs: num(m.next_check_ms),
      checks: timeline(str(m.id)),
    })),
    changes: changes.map((c) => ({
      monitorId: str(c.monitor_id),
      checkId: str(c.check_id),
      url: str(c.url),
      checkedMs: num(c.checked_ms),
      diff: str(c.diff),
      added: (c.added as string[] | undefined) ?? [],
      removed: (c.removed as string[] | undefined) ?? [],
      truncated: num(c.truncated) === 1,
    })),
    deliveries: deliveries.map((d) => ({
      monitorId: str(d.monitor_id),
      checkId: str(d.check_id),
      event: str(d.event),
      attempts: num(d.attempts),
      ok: num(d.ok) === 1,
      statusCode: num(d.status_code),
      error: str(d.error),
      atMs: num(d.at_ms),
    })),
  };
}

/** Mentions: counts per day by category and platform, the newest with their status history. */
export async function mentionsPanel(deps: PanelDeps, key: string, nowMs: number) {
  const [byDay, newest] = await Promise.all([run(deps, 'mentions_by_day', key, window(nowMs)), run(deps, 'newest_mentions', key, { limit: PANEL_LIMITS.mentions })]);
  const ids = newest.map((m) => str(m.id));
  const changes = ids.length ? await run(deps, 'mention_status_changes', key, { ids }) : [];
  return {
    days: windowDays(nowMs),
    limits: { mentions: PANEL_LIMITS.mentions },
    byDay: byDay.map((r) => ({ day: str(r.day), category: str(r.category), platform: str(r.platform), mentions: num(r.mentions) })),
    newest: newest.map((m) => ({
      id: str(m.id),
      watchId: str(m.watch_id),
      url: str(m.url),
      platform: str(m.platform),
      category: str(m.category),
      status: str(m.status),
      title: str(m.title),
      snippet: str(m.snippet),
      author: str(m.author),
      foundMs: num(m.found_ms),
      history: changes
        .filter((c) => str(c.mention_id) === str(m.id))
        .map((c) => ({ from: str(c.from_status), to: str(c.to_status), atMs: num(c.changed_ms) })),
    })),
  };
}
