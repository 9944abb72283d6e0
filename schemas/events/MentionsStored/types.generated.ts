// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A collection stored new mentions and the watch has a webhook: the notifier POSTs the batch (read from the store) to it, signed and retried (actors/notifier/mentions.ts). v2 carries the webhook (sealed) and the body the classifier built from the mentions it just stored (pipeline/mentions/notice.ts), so the notifier reads nothing; a v1 event (both null) is read from the store. wds.events.MentionsStored v2 (schemas/events/MentionsStored/v2.avsc). */
export interface MentionsStored {
  /** Id of the API key the watch belongs to (its webhook signing secret). */
  tenant: string;
  watchId: string;
  collectionId: string;
  /** The new mentions of the batch. */
  mentionIds: Array<string>;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** The watch's webhook URL as stored, sealed under the server secret. */
  sealedWebhook: string | null;
  /** The delivery's JSON body (event mentions.found), within the webhook's MAX_BODY_BYTES. */
  body: string | null;
}
