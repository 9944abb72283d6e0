// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (pipeline/codec/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** Every event type, one per folder in schemas/events/. */
export const EVENT_NAMES = ['JobEvent', 'PageFetched', 'Reply', 'ScrapeRequested', 'TestPing'] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/** The newest schema version of each event: what is written, and what every version is read as. */
export const CURRENT_VERSIONS = {
  JobEvent: 1,
  PageFetched: 1,
  Reply: 1,
  ScrapeRequested: 1,
  TestPing: 1,
} as const satisfies Record<EventName, number>;

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

/** A page was fetched (over HTTP or in a browser) and awaits parsing. wds.events.PageFetched v1 (schemas/events/PageFetched/v1.avsc). */
export interface PageFetched {
  /** Id of the API request (or job page) this work belongs to. */
  requestId: string;
  /** Id of the API key the work is billed to. */
  tenant: string;
  /** The job this page belongs to; null for a synchronous call. */
  jobId: string | null;
  /** The URL that was requested. */
  url: string;
  /** The URL after redirects. */
  finalUrl: string;
  /** HTTP status of the final response. */
  statusCode: number;
  /** Response headers, names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The response's media type, e.g. text/html; charset=utf-8. */
  contentType: string;
  /** The response body as received (or the rendered DOM when rendered is true). */
  body: Buffer;
  /** Epoch milliseconds when the response arrived. */
  fetchedAtMs: number;
  /** True when a browser produced the body. */
  rendered: boolean;
  /** The scrape options as JSON, carried over from ScrapeRequested. */
  options: string;
  /** Topic to send the Reply to; null when nobody waits. */
  replyTo: string | null;
  /** Copied into the Reply. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless. */
  deadlineMs: number;
  /** Credits spent so far on this page (fetch, proxy, render). */
  credits: number;
}

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
  /** Which pool answered (e.g. parser), for logs. */
  source: string | null;
}

/** A page is to be fetched and read: one synchronous scrape, or one page of a crawl or batch job. wds.events.ScrapeRequested v1 (schemas/events/ScrapeRequested/v1.avsc). */
export interface ScrapeRequested {
  /** Id of the API request (or job page) this work belongs to; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to. */
  tenant: string;
  /** The crawl, batch or leads job this page belongs to; null for a synchronous call. */
  jobId: string | null;
  /** The URL to fetch. */
  url: string;
  /** The scrape options as JSON (schemas/api/scrape-options.ts). */
  options: string;
  /** Topic to send the Reply to, for a synchronous call; null when nobody waits. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}

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

/** Event name → the value of its current version. */
export interface EventValues {
  JobEvent: JobEvent;
  PageFetched: PageFetched;
  Reply: Reply;
  ScrapeRequested: ScrapeRequested;
  TestPing: TestPing;
}
