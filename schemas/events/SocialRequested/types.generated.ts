// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A call of a social endpoint is wanted (POST /v1/social/{platform}/{endpoint}, schemas/api/social.ts): the searcher asks the platform through its client and answers with a Reply whose data is the endpoint's answer (actors/searcher/social.ts). wds.events.SocialRequested v1 (schemas/events/SocialRequested/v1.avsc). */
export interface SocialRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to; the web platform's local index shows it its own pages and the shared ones. */
  tenant: string;
  /** The catalog's platform (`reddit`, `hackernews`, …). */
  platform: string;
  /** The platform's endpoint (`search`, `post`, …). */
  endpoint: string;
  /** The request body as JSON, validated against the endpoint's input schema with its defaults filled in. */
  input: string;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped; the platform's time is bounded by it. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}
