// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** Find Leads work for the searcher pool (actors/searcher/leads.ts): `sources` (GET /v1/leads/sources, on wds.leads.sources: the sources covering a country or a place's country, answered with a Reply) or `run` (POST /v1/leads, on wds.leads.requested: the run `runId`, whose record the gateway created, carried out to its end; no Reply). wds.events.LeadsRequested v1 (schemas/events/LeadsRequested/v1.avsc). */
export interface LeadsRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to; the run belongs to it. */
  tenant: string;
  /** sources: GET /v1/leads/sources; run: a Find Leads run started by POST /v1/leads. */
  kind: "sources" | "run";
  /** The run (kind run): its record in coordination state and the store (pipeline/leads/record.ts). */
  runId: string | null;
  /** For sources: `{country, where}` as JSON; for a run: the request body as JSON (schemas/api/leads-social.ts, defaults filled in). */
  query: string;
  /** Topic to send the Reply to (kind sources). */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which a sources question is pointless and is dropped; a run is carried out whatever its deadline. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}
