// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** An uploaded file is to be read into a scrape document (POST /v1/parse). Answered with a Reply whose data is the document. wds.events.ParseRequested v1 (schemas/events/ParseRequested/v1.avsc). */
export interface ParseRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to. */
  tenant: string;
  /** The file name the upload gave (may be empty). */
  filename: string;
  /** The media type the upload declared for the file (may be empty or application/octet-stream). */
  contentType: string;
  /** The file's bytes. */
  body: Buffer;
  /** Document options as JSON (the parser's subset of the scrape options: formats, onlyMainContent, includeTags, excludeTags, removeBase64Images); {} for the defaults. */
  options: string;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}
