// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A monitor check completed and found a page new, changed, removed or failing, and the monitor has a webhook: the notifier POSTs the check (its summary and per-page diffs) to it, signed and retried (actors/notifier/monitor.ts). v2 carries the webhook (sealed) and the body the classifier built from what it just judged (pipeline/monitors/notice.ts), so the notifier reads nothing from the store; a v1 event (both null) is read from the store. wds.events.MonitorChecked v2 (schemas/events/MonitorChecked/v2.avsc). */
export interface MonitorChecked {
  /** Id of the API key the monitor belongs to (its webhook signing secret). */
  tenant: string;
  /** The monitor. */
  monitorId: string;
  /** The completed check. */
  checkId: string;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** The monitor's webhook URL as stored, sealed under the server secret (pipeline/monitors/record.ts). */
  sealedWebhook: string | null;
  /** The delivery's JSON body (event monitor.check.completed), within the webhook's MAX_BODY_BYTES. */
  body: string | null;
}
