// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** Something happened to a job: it started, produced a page, progressed, completed, failed or was cancelled. wds.events.JobEvent v1 (schemas/events/JobEvent/v1.avsc). */
export interface JobEvent {
  /** Id of the API key that owns the job. */
  tenant: string;
  /** The job's id. */
  jobId: string;
  /** The job's kind: crawl, batch, leads, ... */
  kind: string;
  /** What happened: started, page, progress, completed, failed or cancelled. */
  type: string;
  /** Epoch milliseconds when it happened. */
  atMs: number;
  /** Details as a JSON object (the page, the counts, the error). */
  data: string;
}
