// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A message with no business meaning, for runtime tests and benchmarks of the bus and the codec. wds.events.TestPing v1 (schemas/events/TestPing/v1.avsc). */
export interface TestPing {
  /** Any id the sender chooses. */
  id: string;
  /** Sequence number within the sender's run. */
  seq: number;
  /** Filler of the size under test. */
  payload: Buffer;
  /** Epoch milliseconds when sent. */
  sentAtMs: number;
}
