/**
 * Monitor webhooks: a MonitorChecked (a completed check that found pages new, changed,
 * removed or failing) is POSTed to the monitor's `webhook`, signed, retried and recorded as
 * every webhook is (deliver.ts; the delivery's source is the check id, so the check lists it).
 *
 * The body is pipeline/monitors/notice.ts's. A v2 event carries it and the sealed webhook, so
 * a delivery reads nothing from the store; a v1 event (written before v2) is built from the
 * monitor, check and page rows as before.
 */
import { checkPages, readCheck } from '../../pipeline/monitors/checks.js';
import { MAX_BODY_BYTES, MONITOR_EVENT, monitorWebhookBody, PAGE_DIFF_CHARS, PAGE_LINES } from '../../pipeline/monitors/notice.js';
import { openWebhook, readMonitor } from '../../pipeline/monitors/record.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import type { EventValue } from '../../schemas/events/index.js';
import { deliver, type DeliveryDeps } from './deliver.js';

export { MAX_BODY_BYTES, MONITOR_EVENT, monitorWebhookBody, PAGE_DIFF_CHARS, PAGE_LINES };

export interface MonitorNotifierDeps extends DeliveryDeps {
  readonly store: Pick<Store, 'query'>;
  readonly secretFor: (keyId: string) => string;
  /** The deployment's server secret, to open the monitor's sealed webhook URL. */
  readonly serverSecret: string;
  readonly log: Logger;
}

type MonitorChecked = EventValue<'MonitorChecked'>;

/** What a delivery needs: the webhook (sealed) and the body; from the event, or the store for a v1 event. */
async function notice(event: MonitorChecked, deps: MonitorNotifierDeps): Promise<{ sealedWebhook: string; body: string } | null> {
  if (event.sealedWebhook !== null && event.body !== null) return { sealedWebhook: event.sealedWebhook, body: event.body };
  const monitor = await readMonitor(deps.store, event.tenant, event.monitorId);
  if (!monitor?.sealedWebhook) return null;
  const check = await readCheck(deps.store, event.tenant, event.monitorId, event.checkId);
  if (!check) return null;
  const pages = (await checkPages(deps.store, check.tenant, check.monitorId, [check.id])).get(check.id) ?? [];
  return { sealedWebhook: monitor.sealedWebhook, body: monitorWebhookBody(monitor, check, pages) };
}

export async function handleMonitorChecked(event: MonitorChecked, deps: MonitorNotifierDeps, signal: AbortSignal): Promise<Outcome> {
  const found = await notice(event, deps);
  if (!found) return { kind: 'ack' };
  const ids = { monitorId: event.monitorId, checkId: event.checkId };
  const url = openWebhook(deps.serverSecret, { id: event.monitorId, sealedWebhook: found.sealedWebhook });
  if (url === null) {
    deps.log.warn(ids, 'monitor webhook not delivered: its URL was sealed under another server secret (set WEBHOOK_SECRET the same on every process)');
    return { kind: 'ack' };
  }
  const result = await deliver(
    deps,
    { tenant: event.tenant, jobId: event.checkId, id: `${event.checkId}:${MONITOR_EVENT}`, event: MONITOR_EVENT, url, headers: {}, body: found.body, secret: deps.secretFor(event.tenant) },
    signal,
  );
  if (result.ok) deps.log.debug({ ...ids, attempts: result.attempts }, 'monitor webhook delivered');
  else deps.log.warn({ ...ids, attempts: result.attempts, statusCode: result.statusCode, error: result.error }, 'monitor webhook not delivered');
  return { kind: 'ack' };
}
