// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A mention watch is to be collected: queued by the frontier when the watch's schedule is due (its watch_collections row, status queued, written first), or a test of watch fields by the gateway (POST /v1/mentions/watches/{id}/test and /v1/mentions/test: nothing stored, the answer goes to replyTo). The searcher asks each platform of the watch (pipeline/clients/social/, the web search providers, feeds), keeps the posts that match the watch (pipeline/mentions/match.ts) and were not stored before, and hands them to the classifier as MentionsFound (actors/searcher/collect.ts). v2 carries the watch and the collection as the frontier read and queued them, so the searcher reads neither (a resumed collection and a v1 event are read from the store). wds.events.WatchCollectRequested v2 (schemas/events/WatchCollectRequested/v2.avsc). */
export interface WatchCollectRequested {
  /** Id of the work (the collection id, or the API request of a test); in every log line. */
  requestId: string;
  /** Id of the API key the watch belongs to and the collection is billed to. */
  tenant: string;
  /** The watch; empty for a test of unsaved fields. */
  watchId: string;
  /** The collection (its watch_collections row); for a test, the request id. */
  collectionId: string;
  /** For a test only: the watch fields as JSON (schemas/api/monitoring.ts WatchBody, webhook left out). Null for a scheduled collection, which reads its watch from the store. */
  test: string | null;
  /** Topic to send the Reply to (tests). */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless; the platforms' time is bounded by it. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** A scheduled collection: the watch as the frontier read it, as JSON (pipeline/mentions/watch.ts WatchRecord, its webhook sealed). Null: the searcher reads it. */
  watch: string | null;
  /** A scheduled collection: its row as queued, as JSON (pipeline/mentions/collections.ts CollectionRecord). Null (a resumed collection, a v1 event): the searcher reads it. */
  collection: string | null;
}
