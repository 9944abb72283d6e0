// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A search is wanted (POST /v1/search, /v1/serp, /v1/places/search): the searcher asks the configured providers in order (the local index among them) and answers with a Reply whose data is the results page (actors/searcher/). wds.events.SearchRequested v1 (schemas/events/SearchRequested/v1.avsc). */
export interface SearchRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to; the local index shows it its own pages and the shared ones. */
  tenant: string;
  /** web: POST /v1/search; serp: POST /v1/serp; places: POST /v1/places/search. */
  kind: "web" | "serp" | "places";
  /** The request body as JSON, without scrapeOptions (schemas/api/search.ts, defaults filled in). */
  query: string;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped; the providers' time is bounded by it. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}
