/**
 * Monitor webhooks: a MonitorChecked (a completed check that found pages new, changed,
 * removed or failing) is POSTed to the monitor's `webhook`, signed, retried and recorded as
 * every webhook is (deliver.ts; the delivery's source is the check id, so the check lists it).
 *
 * The body (event `monitor.check.completed`):
 *   {type, monitor: {id, name, goal}, check: {id, trigger, status, scheduledAt, startedAt,
 *    finishedAt, summary: {totalPages, new, same, changed, removed, error}, creditsUsed},
 *    pages: [{url, status, statusCode, error, diff, added, removed, truncated}],
 *    truncated, links: {checks}}
 * `pages` lists the pages that were not `same`. Each page's diff is cut at PAGE_DIFF_CHARS and
 * its line lists at PAGE_LINES; pages stop being added once the body would pass MAX_BODY_BYTES
 * (`truncated` true): the whole check is at `links.checks`, the API path of its monitor's checks.
 */
import { checkPages, readCheck, type CheckRecord, type PageResult } from '../../pipeline/monitors/checks.js';
import { monitorPages, openWebhook, readMonitor, type MonitorRecord } from '../../pipeline/monitors/record.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import type { EventValue } from '../../schemas/events/index.js';
import { deliver, type DeliveryDeps } from './deliver.js';

export const MONITOR_EVENT = 'monitor.check.completed';
export const MAX_BODY_BYTES = 256 * 1024;
export const PAGE_DIFF_CHARS = 8 * 1024;
export const PAGE_LINES = 50;

export interface MonitorNotifierDeps extends DeliveryDeps {
  readonly store: Pick<Store, 'query'>;
  readonly secretFor: (keyId: string) => string;
  /** The deployment's server secret, to open the monitor's sealed webhook URL. */
  readonly serverSecret: string;
  readonly log: Logger;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function pageBody(page: PageResult): Record<string, unknown> {
  const cut = page.diff.length > PAGE_DIFF_CHARS || page.added.length > PAGE_LINES || page.removed.length > PAGE_LINES;
  return {
    url: page.url,
    status: page.status,
    statusCode: page.statusCode || null,
    error: page.error ? { code: page.errorCode, message: page.error } : null,
    diff: page.diff ? page.diff.slice(0, PAGE_DIFF_CHARS) : null,
    added: page.added.slice(0, PAGE_LINES),
    removed: page.removed.slice(0, PAGE_LINES),
    truncated: page.truncated || cut,
  };
}

/** The delivery body of a completed check (see the module doc). */
export function monitorWebhookBody(monitor: MonitorRecord, check: CheckRecord, pages: readonly PageResult[]): string {
  const head = {
    type: MONITOR_EVENT,
    monitor: { id: monitor.id, name: monitor.name, goal: monitor.goal },
    check: {
      id: check.id,
      trigger: check.trigger,
      status: check.status,
      scheduledAt: iso(check.scheduledAtMs),
      startedAt: iso(check.startedAtMs),
      finishedAt: iso(check.finishedAtMs),
      summary: { totalPages: monitorPages(monitor).length, ...check.counts },
      creditsUsed: check.creditsUsed,
    },
    links: { checks: `/v1/monitor/${monitor.id}/checks` },
  };
  const shown: Record<string, unknown>[] = [];
  let size = Buffer.byteLength(JSON.stringify({ ...head, pages: [], truncated: false }));
  let truncated = false;
  for (const page of pages) {
    if (page.status === 'same') continue;
    const body = pageBody(page);
    const bytes = Buffer.byteLength(JSON.stringify(body)) + 1;
    if (size + bytes > MAX_BODY_BYTES) {
      truncated = true;
      break;
    }
    size += bytes;
    shown.push(body);
  }
  return JSON.stringify({ ...head, pages: shown, truncated });
}

export async function handleMonitorChecked(event: EventValue<'MonitorChecked'>, deps: MonitorNotifierDeps, signal: AbortSignal): Promise<Outcome> {
  const monitor = await readMonitor(deps.store, event.tenant, event.monitorId);
  if (!monitor?.sealedWebhook) return { kind: 'ack' };
  const url = openWebhook(deps.serverSecret, monitor);
  if (url === null) {
    deps.log.warn({ monitorId: monitor.id, checkId: event.checkId }, 'monitor webhook not delivered: its URL was sealed under another server secret (set WEBHOOK_SECRET the same on every process)');
    return { kind: 'ack' };
  }
  const check = await readCheck(deps.store, event.tenant, event.monitorId, event.checkId);
  if (!check) return { kind: 'ack' };
  const pages = (await checkPages(deps.store, check.tenant, check.monitorId, [check.id])).get(check.id) ?? [];
  const result = await deliver(
    deps,
    {
      tenant: check.tenant,
      jobId: check.id,
      id: `${check.id}:${MONITOR_EVENT}`,
      event: MONITOR_EVENT,
      url,
      headers: {},
      body: monitorWebhookBody(monitor, check, pages),
      secret: deps.secretFor(check.tenant),
    },
    signal,
  );
  if (result.ok) deps.log.debug({ monitorId: monitor.id, checkId: check.id, attempts: result.attempts }, 'monitor webhook delivered');
  else deps.log.warn({ monitorId: monitor.id, checkId: check.id, attempts: result.attempts, statusCode: result.statusCode, error: result.error }, 'monitor webhook not delivered');
  return { kind: 'ack' };
}
