// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A question of site and company intelligence (POST /v1/domain, /v1/domain/report, /v1/domain/history/snapshots, /v1/domain/screen, /v1/company, /v1/products, /v1/posts): the intel pool answers with a Reply whose data is the answer (actors/intel/). wds.events.IntelRequested v1 (schemas/events/IntelRequested/v1.avsc). */
export interface IntelRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to; the reports and snapshots it stores belong to it. */
  tenant: string;
  /** domain: POST /v1/domain; report: /v1/domain/report; snapshots: /v1/domain/history/snapshots; screen: /v1/domain/screen; company, products, posts: /v1/company, /v1/products, /v1/posts. */
  kind: "domain" | "report" | "snapshots" | "screen" | "company" | "products" | "posts";
  /** The request body as JSON (schemas/api/intel.ts, defaults filled in; domain names as the gateway normalised them). */
  query: string;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped; the outside calls and page reads are bounded by it. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}
