/**
 * The body of a monitor's webhook delivery (event `monitor.check.completed`), built by the
 * classifier from the check it just completed and carried to the notifier on MonitorChecked
 * (a v1 event: the notifier builds it from the store).
 *
 *   {type, monitor: {id, name, goal}, check: {id, trigger, status, scheduledAt, startedAt,
 *    finishedAt, summary: {totalPages, new, same, changed, removed, error}, creditsUsed},
 *    pages: [{url, status, statusCode, error, diff, added, removed, truncated}],
 *    truncated, links: {checks}}
 * `pages` lists the pages that were not `same`. Each page's diff is cut at PAGE_DIFF_CHARS and
 * its line lists at PAGE_LINES; pages stop being added once the body would pass MAX_BODY_BYTES
 * (`truncated` true): the whole check is at `links.checks`, the API path of its monitor's checks.
 */
import type { CheckRecord, PageResult } from './checks.js';
import { monitorPages, type MonitorRecord } from './record.js';

export const MONITOR_EVENT = 'monitor.check.completed';
export const MAX_BODY_BYTES = 256 * 1024;
export const PAGE_DIFF_CHARS = 8 * 1024;
export const PAGE_LINES = 50;


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
export function monitorWebhookBody(monitor: Pick<MonitorRecord, 'id' | 'name' | 'goal' | 'url' | 'urls'>, check: CheckRecord, pages: readonly PageResult[]): string {
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
