/**
 * Monitors at the gateway: create, list, get, update (pause, resume), delete, run now, list checks.
 *
 * A monitor is stored (pipeline/monitors/record.ts) and put on the frontier's schedule
 * (pipeline/monitors/schedule.ts), due at once: its first check runs within a moment of its
 * creation (every page `new`), the next `intervalMinutes` later, and so on. The frontier
 * starts due checks, the classifier runs them (actors/classifier/), the notifier calls the
 * webhook. Another key's monitor is 404, like an unknown id.
 *
 * The webhook is stored sealed (pipeline/monitors/record.ts) and shown opened to its key.
 * Creating checks the page URLs and the webhook against the SSRF guard (`url_blocked`; the
 * webhook also `dns_failed`), as every fetch and delivery checks them again later. A monitor
 * with a webhook needs the notifier (501 without it).
 *
 * PATCH changes only the fields it names, within the create body's limits (a monitor left
 * with no page is a 422 `detail`), and writes the record again (pipeline/monitors/record.ts)
 * before its schedule (`applyMonitor`): new pages, name, goal and webhook apply from the
 * next check (a check queued or running keeps what its event carries); a new interval moves
 * the next check to one new interval after the last was due, or now if that passed. `status`
 * `paused` keeps the monitor off the schedule (the frontier drops it when it comes due) and
 * refuses POST /run (409 `monitor_paused`); a check already queued or running finishes.
 * `active` resumes it, due when it would have been, or now if that passed while it was
 * paused. A changed webhook passes the same guard as at creation. Free.
 *
 * The record: {id, name, status (`active` | `paused`), url, urls, intervalMinutes, goal,
 * webhook, createdAt, updatedAt, nextCheckAt (null while paused), lastCheckAt, currentCheckId,
 * lastCheckSummary} — `lastCheckAt` and
 * `lastCheckSummary` ({totalPages, new, same, changed, removed, error}) from the newest
 * completed check, `currentCheckId` the check queued or running now, if any (the monitor's running
 * latch in coordination state, else an unfinished check of the store).
 *
 * A check: {id, monitorId, trigger, status, reason, scheduledAt, queuedAt, startedAt,
 * finishedAt, summary, creditsUsed, pages: [{url, status, statusCode, error, diff, added,
 * removed, truncated, checkedAt}], webhook: {deliveries: [{event, status, attempts,
 * statusCode, lastError, lastAttemptAt}]}}. Checks are listed newest first.
 *
 * POST /run queues a check now (409 `monitor_check_running` when one is queued or running) and
 * awaits its final check from the classifier through request-reply (pipeline/runtime/
 * request-reply.ts, as a scrape awaits its page) for up to RUN_WAIT_MS (and never past
 * REQUEST_TIMEOUT_MS): the answer is the completed check, or the check still running (poll the
 * checks). It is billed like a scheduled check: the check itself charges
 * each page it reads (`creditsUsed`); the call adds nothing. A key that cannot pay gets its
 * check recorded `skipped_no_credits` and the call answers 402.
 */
import { AppError } from '../../pipeline/runtime/errors.js';
import {
  checkPages,
  isFinal,
  listChecks,
  newestChecks,
  queuedCheck,
  readCheck,
  writeCheck,
  type CheckRecord,
  type PageResult,
} from '../../pipeline/monitors/checks.js';
import { checkDeliveries, type CheckDelivery } from '../../pipeline/monitors/deliveries.js';
import {
  changedMonitor,
  createMonitor,
  deleteMonitor,
  listMonitors,
  monitorPages,
  openWebhook,
  readMonitor,
  updateMonitor,
  type MonitorChanges,
  type MonitorRecord,
  type MonitorSpec,
} from '../../pipeline/monitors/record.js';
import { applyMonitor, checkRequestFields, rescheduleMonitor, runningCheck, scheduledMonitor, takeRunning, unscheduleMonitor } from '../../pipeline/monitors/schedule.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import type { Static } from '@sinclair/typebox';
import type { MonitorBody, MonitorUpdateBody } from '../../schemas/api/monitoring.js';
import { ValidationFailed } from '../replies.js';
import { tenantOf, type HandlerContext, type OperationHandler, type RecordDeps } from '../handler.js';
import { askPipeline, replyResult } from './ask.js';

export const RUN_WAIT_MS = 30_000;

export interface MonitorHandlerOptions {
  /** The SSRF check of page and webhook URLs (NetGuard). */
  readonly guard: { check(url: string): Promise<unknown> };
  /** The build delivers webhooks (it has the notifier). */
  readonly webhooks: boolean;
  /** WEBHOOK_ATTEMPTS: tells a failed delivery from one still retrying. */
  readonly webhookAttempts: number;
  /** The deployment's server secret, under which webhook URLs are stored sealed (pipeline/webhooks/secret.ts). */
  readonly serverSecret: string;
  /** How long POST /run waits for its check (RUN_WAIT_MS). */
  readonly runWaitMs?: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

async function monitorOf(deps: RecordDeps, ctx: HandlerContext): Promise<MonitorRecord> {
  const id = ctx.params.monitor_id ?? '';
  const monitor = await readMonitor(deps.store, tenantOf(ctx), id);
  if (!monitor) throw new AppError('not_found', `no monitor ${id} for this key`);
  return monitor;
}

function summaryOf(monitor: MonitorRecord, check: CheckRecord) {
  return { totalPages: check.urls.length || monitorPages(monitor).length, ...check.counts };
}

async function monitorView(deps: RecordDeps, options: Pick<MonitorHandlerOptions, 'serverSecret'>, monitor: MonitorRecord, newest: CheckRecord | undefined, completed: CheckRecord | undefined) {
  const scheduled = await scheduledMonitor(deps.state, monitor.id);
  return {
    id: monitor.id,
    name: monitor.name,
    status: monitor.status,
    url: monitor.url,
    urls: monitor.urls,
    intervalMinutes: monitor.intervalMinutes,
    goal: monitor.goal,
    webhook: openWebhook(options.serverSecret, monitor),
    createdAt: iso(monitor.createdAtMs),
    updatedAt: iso(monitor.updatedAtMs),
    nextCheckAt: monitor.status === 'paused' ? null : iso(scheduled?.nextCheckAt ?? null),
    lastCheckAt: iso(completed?.finishedAtMs ?? null),
    // The running latch first: a scheduled check's queued row follows its event (pipeline/monitors/checks.ts QUEUED_ROWS).
    currentCheckId: (await runningCheck(deps.state, monitor.id)) ?? (newest && !isFinal(newest.status) ? newest.id : null),
    lastCheckSummary: completed ? summaryOf(monitor, completed) : null,
  };
}

function pageView(page: PageResult) {
  return {
    url: page.url,
    status: page.status,
    statusCode: page.statusCode || null,
    error: page.error ? { code: page.errorCode, message: page.error } : null,
    diff: page.diff || null,
    added: page.added,
    removed: page.removed,
    truncated: page.truncated,
    checkedAt: iso(page.checkedAtMs),
  };
}

function deliveryView(d: CheckDelivery) {
  return { event: d.event, status: d.status, attempts: d.attempts, statusCode: d.statusCode || null, lastError: d.lastError || null, lastAttemptAt: iso(d.lastAttemptAtMs) };
}

function checkView(monitor: MonitorRecord, check: CheckRecord, pages: readonly PageResult[], deliveries: readonly CheckDelivery[]) {
  return {
    id: check.id,
    monitorId: check.monitorId,
    trigger: check.trigger,
    status: check.status,
    reason: check.reason || null,
    scheduledAt: iso(check.scheduledAtMs),
    queuedAt: iso(check.queuedAtMs),
    startedAt: iso(check.startedAtMs),
    finishedAt: iso(check.finishedAtMs),
    summary: summaryOf(monitor, check),
    creditsUsed: check.creditsUsed,
    pages: pages.map(pageView),
    webhook: { deliveries: deliveries.map(deliveryView) },
  };
}

async function checkViews(deps: RecordDeps, options: MonitorHandlerOptions, monitor: MonitorRecord, checks: readonly CheckRecord[]) {
  const ids = checks.map((c) => c.id);
  const [pages, deliveries] = await Promise.all([
    checkPages(deps.store, monitor.tenant, monitor.id, ids),
    checkDeliveries(deps.store, monitor.tenant, ids, options.webhookAttempts),
  ]);
  return checks.map((c) => checkView(monitor, c, pages.get(c.id) ?? [], deliveries.get(c.id) ?? []));
}

/** The URL passed the guard, or the guard's error named after the field. */
async function guarded(options: MonitorHandlerOptions, field: string, url: string, refuse: (code: string) => boolean): Promise<void> {
  try {
    await options.guard.check(url);
  } catch (error) {
    if (error instanceof AppError && refuse(error.code)) throw new AppError(error.code, `${field}: ${error.message}`, { cause: error });
    if (!(error instanceof AppError)) throw error;
  }
}

export function monitorCreateHandler(deps: RecordDeps, options: MonitorHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const body = ctx.body as Static<typeof MonitorBody>;
      const spec: MonitorSpec = {
        name: body.name,
        url: body.url ?? null,
        urls: body.urls ?? [],
        intervalMinutes: body.intervalMinutes ?? 60,
        goal: body.goal ?? null,
        webhook: body.webhook ?? null,
      };
      if (spec.webhook !== null && !options.webhooks) {
        throw new AppError('not_implemented', 'this instance does not deliver webhooks (it runs no notifier); create the monitor without `webhook` and read its checks');
      }
      // A page whose name does not resolve now may later; an address the guard refuses never will.
      for (const url of monitorPages(spec)) await guarded(options, 'url', url, (code) => code === 'url_blocked');
      if (spec.webhook !== null) await guarded(options, 'webhook', spec.webhook, () => true);
      const monitor = await createMonitor(deps.writer, tenantOf(ctx), spec, Date.now(), options.serverSecret);
      await applyMonitor(deps.state, monitor, monitor.createdAtMs);
      return { data: await monitorView(deps, options, monitor, undefined, undefined) };
    },
  };
}

export function monitorListHandler(deps: RecordDeps, options: Pick<MonitorHandlerOptions, 'serverSecret'>): OperationHandler {
  return {
    async handle(ctx) {
      const monitors = await listMonitors(deps.store, tenantOf(ctx));
      const { newest, completed } = await newestChecks(deps.store, tenantOf(ctx), monitors.map((m) => m.id));
      const views = [];
      for (const m of monitors) views.push(await monitorView(deps, options, m, newest.get(m.id), completed.get(m.id)));
      return { data: { monitors: views } };
    },
  };
}

export function monitorGetHandler(deps: RecordDeps, options: Pick<MonitorHandlerOptions, 'serverSecret'>): OperationHandler {
  return {
    async handle(ctx) {
      const monitor = await monitorOf(deps, ctx);
      const { newest, completed } = await newestChecks(deps.store, monitor.tenant, [monitor.id]);
      return { data: await monitorView(deps, options, monitor, newest.get(monitor.id), completed.get(monitor.id)) };
    },
  };
}

/** The fields a PATCH body names, as changes (a null list is no list). */
function changesOf(body: Static<typeof MonitorUpdateBody>): MonitorChanges {
  const changes: { -readonly [K in keyof MonitorChanges]: MonitorChanges[K] } = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.url !== undefined) changes.url = body.url;
  if (body.urls !== undefined) changes.urls = body.urls ?? [];
  if (body.intervalMinutes !== undefined) changes.intervalMinutes = body.intervalMinutes;
  if (body.goal !== undefined) changes.goal = body.goal;
  if (body.webhook !== undefined) changes.webhook = body.webhook;
  if (body.status !== undefined) changes.status = body.status;
  return changes;
}

export function monitorUpdateHandler(deps: RecordDeps, options: MonitorHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const monitor = await monitorOf(deps, ctx);
      const changes = changesOf(ctx.body as Static<typeof MonitorUpdateBody>);
      const after = changedMonitor(monitor, changes);
      if (monitorPages(after).length === 0) {
        throw new ValidationFailed([{ loc: ['body', changes.urls !== undefined ? 'urls' : 'url'], msg: 'the monitor would have no page left: keep `url`, `urls`, or both', type: 'missing' }]);
      }
      if (changes.webhook != null && !options.webhooks) {
        throw new AppError('not_implemented', 'this instance does not deliver webhooks (it runs no notifier); update the monitor without `webhook` and read its checks');
      }
      if (changes.url != null || changes.urls !== undefined) for (const url of monitorPages({ url: changes.url ?? null, urls: changes.urls ?? [] })) await guarded(options, 'url', url, (code) => code === 'url_blocked');
      if (changes.webhook != null) await guarded(options, 'webhook', changes.webhook, () => true);
      const now = Date.now();
      const updated = await updateMonitor(deps.writer, monitor, changes, now, options.serverSecret);
      await rescheduleMonitor(deps.state, monitor, updated, now);
      const { newest, completed } = await newestChecks(deps.store, monitor.tenant, [monitor.id]);
      return { data: await monitorView(deps, options, updated, newest.get(monitor.id), completed.get(monitor.id)) };
    },
  };
}

export function monitorDeleteHandler(deps: RecordDeps): OperationHandler {
  return {
    async handle(ctx) {
      const monitor = await monitorOf(deps, ctx);
      await deleteMonitor(deps.writer, monitor, Date.now());
      await unscheduleMonitor(deps.state, monitor.id);
      return { data: { id: monitor.id, deleted: true } };
    },
  };
}

export function monitorChecksHandler(deps: RecordDeps, options: MonitorHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const monitor = await monitorOf(deps, ctx);
      const limit = typeof ctx.query.limit === 'number' ? ctx.query.limit : 20;
      const checks = await listChecks(deps.store, monitor.tenant, monitor.id, limit);
      return { data: { checks: await checkViews(deps, options, monitor, checks) } };
    },
  };
}

/**
 * Queues a manual check and awaits its final check through request-reply, as a scrape awaits
 * its page (the event carries the reply address and a deadline); past the wait, the check as
 * stored (still running: poll the checks).
 */
export function monitorRunHandler(deps: RecordDeps, requester: Requester, options: MonitorHandlerOptions): OperationHandler {
  return {
    // The check holds and charges its pages itself, like a scheduled one.
    estimate: () => 0,
    async handle(ctx) {
      const monitor = await monitorOf(deps, ctx);
      if (monitor.status === 'paused') throw new AppError('monitor_paused', `monitor ${monitor.id} is paused: it runs no check until it is resumed (PATCH /v1/monitor/${monitor.id} {"status": "active"})`);
      const now = Date.now();
      const check = queuedCheck({ tenant: monitor.tenant, monitorId: monitor.id, trigger: 'manual', scheduledAtMs: now, urls: monitorPages(monitor), nowMs: now });
      const holder = await takeRunning(deps.state, monitor.id, check.id);
      if (holder !== null) throw new AppError('monitor_check_running', `check ${holder} of this monitor is queued or running; a monitor runs one check at a time`);
      await writeCheck(deps.writer, check);
      const current = await awaitCheck(deps, requester, ctx, monitor, check, options.runWaitMs ?? RUN_WAIT_MS);
      if (current.status === 'skipped_no_credits') throw new AppError('insufficient_credits', `the check was skipped: ${current.reason}`);
      const [view] = await checkViews(deps, options, monitor, [current]);
      return { data: view as Record<string, unknown> };
    },
  };
}

/** The final check the classifier answers with; the check as stored when it does not answer in time. */
async function awaitCheck(deps: RecordDeps, requester: Requester, ctx: HandlerContext, monitor: MonitorRecord, check: CheckRecord, waitMs: number): Promise<CheckRecord> {
  try {
    const reply = await askPipeline(requester, ctx, 'monitorChecks', checkRequestFields(check, monitor), waitMs);
    if (!reply.ok) replyResult(reply);
    return JSON.parse(reply.data ?? '') as CheckRecord;
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'upstream_timeout')) throw error;
    return (await readCheck(deps.store, monitor.tenant, monitor.id, check.id)) ?? check;
  }
}
