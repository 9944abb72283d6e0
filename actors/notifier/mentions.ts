/**
 * Mention webhooks: a MentionsStored (a collection stored new mentions of a watch that has a
 * `webhook`) is POSTed to the watch's webhook, signed, retried and recorded as every webhook
 * is (deliver.ts; the delivery's source is the collection id).
 *
 * The body is pipeline/mentions/notice.ts's. A v2 event carries it and the sealed webhook, so
 * a delivery reads nothing from the store; a v1 event is built from the watch and mention rows.
 */
import { mentionsWebhookBody, MENTIONS_EVENT } from '../../pipeline/mentions/notice.js';
import { mentionsByIds, mentionView } from '../../pipeline/mentions/store.js';
import { openWatchWebhook, readWatch } from '../../pipeline/mentions/watch.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { EventValue } from '../../schemas/events/index.js';
import { deliver } from './deliver.js';
import type { MonitorNotifierDeps } from './monitor.js';

export { mentionsWebhookBody, MENTIONS_EVENT };

type MentionsStored = EventValue<'MentionsStored'>;

/** What a delivery needs: the webhook (sealed) and the body; from the event, or the store for a v1 event. */
async function notice(event: MentionsStored, deps: MonitorNotifierDeps): Promise<{ sealedWebhook: string; body: string } | null> {
  if (event.sealedWebhook !== null && event.body !== null) return { sealedWebhook: event.sealedWebhook, body: event.body };
  const watch = await readWatch(deps.store, event.tenant, event.watchId);
  if (!watch?.sealedWebhook) return null;
  const mentions = await mentionsByIds(deps.store, event.tenant, event.mentionIds);
  if (mentions.length === 0) return null;
  return { sealedWebhook: watch.sealedWebhook, body: mentionsWebhookBody(watch, event.collectionId, mentions.map(mentionView)) };
}

export async function handleMentionsStored(event: MentionsStored, deps: MonitorNotifierDeps, signal: AbortSignal): Promise<Outcome> {
  const found = await notice(event, deps);
  if (!found) return { kind: 'ack' };
  const ids = { watchId: event.watchId, collectionId: event.collectionId };
  const url = openWatchWebhook(deps.serverSecret, { id: event.watchId, sealedWebhook: found.sealedWebhook });
  if (url === null) {
    deps.log.warn(ids, 'watch webhook not delivered: its URL was sealed under another server secret (set WEBHOOK_SECRET the same on every process)');
    return { kind: 'ack' };
  }
  const result = await deliver(
    deps,
    { tenant: event.tenant, jobId: event.collectionId, id: `${event.collectionId}:${MENTIONS_EVENT}`, event: MENTIONS_EVENT, url, headers: {}, body: found.body, secret: deps.secretFor(event.tenant) },
    signal,
  );
  if (result.ok) deps.log.debug({ ...ids, attempts: result.attempts }, 'watch webhook delivered');
  else deps.log.warn({ ...ids, attempts: result.attempts, statusCode: result.statusCode, error: result.error }, 'watch webhook not delivered');
  return { kind: 'ack' };
}
