// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A page read by the parser still needs a model: fields its markup and page rules left empty, a prompt, an abstractive summary. The extractor pool asks the model, then answers and files the page as the parser would have. wds.events.ExtractRequested v1 (schemas/events/ExtractRequested/v1.avsc). */
export interface ExtractRequested {
  /** Id of the API request (or job page) this work belongs to; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to. */
  tenant: string;
  /** The crawl or batch job this page belongs to; null for a synchronous call. */
  jobId: string | null;
  /** The URL that was requested. */
  url: string;
  /** Where the page's redirects ended. */
  finalUrl: string;
  /** The page's HTTP status. */
  statusCode: number;
  /** The page's Content-Type. */
  contentType: string;
  /** Topic to send the Reply to, for a synchronous call; null when nobody waits. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** Credits of the page as read so far (fetched, cached, rendered); the model's price is added by the extractor when the operator's model answers. */
  credits: number;
  /** Where the page came from: fresh, cache or index. */
  source: string;
  /** The page's answer so far as JSON: its formats and metadata, with `json` filled from markup and page rules. */
  document: string;
  /** What is left for a model, as JSON (pipeline/structured/task.ts): the json target and its missing fields, the prompt, the summary, the change tracking to finish. */
  task: string;
  /** The page's main content as markdown, what the model reads (cut to MODEL_MAX_INPUT_CHARS by the extractor). */
  text: string;
  /** The page's title, for a job page's row. */
  title: string;
  /** SHA-256 of the page's body, for a job page's row. */
  contentHash: string;
  /** A job page's links (a crawl follows them). */
  links: Array<string>;
  /** The caller's own model, sealed (see ScrapeRequested.sealedModel); empty: the operator's model. */
  sealedModel: string;
}
