/**
 * Mention webhooks: a MentionsStored (a collection stored new mentions of a watch that has a
 * `webhook`) is POSTed to the watch's webhook, signed, retried and recorded as every webhook
 * is (deliver.ts; the delivery's source is the collection id).
 *
 * The body (event `mentions.found`):
 *   {type, watch: {id, name}, collection: {id}, mentions: [mention as GET /v1/mentions shows
 *    it], truncated, links: {mentions}}
 * newest found first. Mentions stop being added once the body would pass MAX_BODY_BYTES
 * (`truncated` true); all of them are at `links.mentions` (GET /v1/mentions?watch_id=…).
 */
import { mentionsByIds, mentionView } from '../../pipeline/mentions/store.js';
import { openWatchWebhook, readWatch } from '../../pipeline/mentions/watch.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { EventValue } from '../../schemas/events/index.js';
import { deliver } from './deliver.js';
import { MAX_BODY_BYTES, type MonitorNotifierDeps } from './monitor.js';

export const MENTIONS_EVENT = 'mentions.found';

/** The delivery body of a batch (see the module doc). */
export function mentionsWebhookBody(watch: { id: string; name: string }, collectionId: string, mentions: readonly Record<string, unknown>[]): string {
  const head = { type: MENTIONS_EVENT, watch: { id: watch.id, name: watch.name }, collection: { id: collectionId }, links: { mentions: `/v1/mentions?watch_id=${encodeURIComponent(watch.id)}` } };
  let size = Buffer.byteLength(JSON.stringify({ ...head, mentions: [], truncated: false }));
  const shown: Record<string, unknown>[] = [];
  for (const mention of mentions) {
    const bytes = Buffer.byteLength(JSON.stringify(mention)) + 1;
    if (size + bytes > MAX_BODY_BYTES) return JSON.stringify({ ...head, mentions: shown, truncated: true });
    size += bytes;
    shown.push(mention);
  }
  return JSON.stringify({ ...head, mentions: shown, truncated: false });
}

export async function handleMentionsStored(event: EventValue<'MentionsStored'>, deps: MonitorNotifierDeps, signal: AbortSignal): Promise<Outcome> {
  const watch = await readWatch(deps.store, event.tenant, event.watchId);
  if (!watch?.sealedWebhook) return { kind: 'ack' };
  const url = openWatchWebhook(deps.serverSecret, watch);
  if (url === null) {
    deps.log.warn({ watchId: watch.id, collectionId: event.collectionId }, 'watch webhook not delivered: its URL was sealed under another server secret (set WEBHOOK_SECRET the same on every process)');
    return { kind: 'ack' };
  }
  const mentions = await mentionsByIds(deps.store, event.tenant, event.mentionIds);
  if (mentions.length === 0) return { kind: 'ack' };
  const result = await deliver(
    deps,
    {
      tenant: event.tenant,
      jobId: event.collectionId,
      id: `${event.collectionId}:${MENTIONS_EVENT}`,
      event: MENTIONS_EVENT,
      url,
      headers: {},
      body: mentionsWebhookBody(watch, event.collectionId, mentions.map(mentionView)),
      secret: deps.secretFor(event.tenant),
    },
    signal,
  );
  if (result.ok) deps.log.debug({ watchId: watch.id, collectionId: event.collectionId, attempts: result.attempts }, 'watch webhook delivered');
  else deps.log.warn({ watchId: watch.id, collectionId: event.collectionId, attempts: result.attempts, statusCode: result.statusCode, error: result.error }, 'watch webhook not delivered');
  return { kind: 'ack' };
}
