/**
 * The body of a watch's webhook delivery (event `mentions.found`), built by the classifier
 * from the mentions it just stored and carried to the notifier on MentionsStored (a v1 event:
 * the notifier builds it from the store).
 *
 *   {type, watch: {id, name}, collection: {id}, mentions: [mention as GET /v1/mentions shows
 *    it], truncated, links: {mentions}}
 * newest found first. Mentions stop being added once the body would pass MAX_BODY_BYTES
 * (`truncated` true); all of them are at `links.mentions` (GET /v1/mentions?watch_id=…).
 */

export const MENTIONS_EVENT = 'mentions.found';
/** The same cap as a monitor's delivery (pipeline/monitors/notice.ts). */
export const MAX_BODY_BYTES = 256 * 1024;

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
