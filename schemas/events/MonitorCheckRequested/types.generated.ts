// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A monitor check is to run: queued by the frontier when the monitor's schedule is due, or by the gateway for POST /v1/monitor/{id}/run. Its row in monitor_checks (status queued) was written first; the classifier reads each page through the scrape path, judges it against the previous snapshot and completes the check (actors/classifier/). Sent again with the same checkId to resume a check a crash interrupted: pages already judged are not read again. v2 carries the check and what the classifier and notifier need of the monitor, read once by whoever queued it, and the reply address of a manual run. wds.events.MonitorCheckRequested v2 (schemas/events/MonitorCheckRequested/v2.avsc). */
export interface MonitorCheckRequested {
  /** Id of the work (the check id, or the API request for a manual run); in every log line. */
  requestId: string;
  /** Id of the API key the monitor belongs to and the check's pages are billed to. */
  tenant: string;
  /** The monitor. */
  monitorId: string;
  /** The check (its monitor_checks row). */
  checkId: string;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** The check as queued; null (a v1 event): the classifier reads its row. */
  check: {
    /** scheduled or manual. */
    trigger: string;
    scheduledAtMs: number;
    queuedAtMs: number;
    /** The pages to read, in the monitor's order. */
    urls: Array<string>;
    /** Sent again for a check a crash interrupted: the classifier reads its row and the pages it already judged. */
    resumed: boolean;
  } | null;
  /** What the classifier and notifier need of the monitor; null (a v1 event): read from the store. */
  monitor: {
    name: string;
    goal: string | null;
    /** The webhook URL as stored, sealed under the server secret (pipeline/monitors/record.ts); null without one. */
    sealedWebhook: string | null;
  } | null;
  /** A manual run: the topic to answer once the check is final. */
  replyTo: string | null;
  correlationId: string | null;
  /** A manual run: when its answer is no longer awaited (the check runs to its end anyway). */
  deadlineMs: number | null;
}
