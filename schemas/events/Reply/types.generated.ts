// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** The answer to a synchronous request, sent to the request's replyTo topic. wds.events.Reply v1 (schemas/events/Reply/v1.avsc). */
export interface Reply {
  /** The correlationId of the request this answers. */
  correlationId: string;
  /** True when data holds the result; false when errorCode says what failed. */
  ok: boolean;
  /** The result as JSON, when ok. */
  data: string | null;
  /** An error code from schemas/errors.ts, when not ok. */
  errorCode: string | null;
  /** A message for the client, when not ok. */
  errorMessage: string | null;
  /** Credits the work cost. */
  credits: number;
  /** For a page result, where the page came from: fresh, cache (the caller's own copy within maxAge) or index (the shared index); the gateway returns it as cost.source. For other answers, which pool answered (e.g. fetcher), for logs. */
  source: string | null;
}
