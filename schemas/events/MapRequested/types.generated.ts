// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A site's URLs are wanted without fetching every page (POST /v1/map): the frontier reads robots.txt, the sitemaps and a few pages' links, and answers with a Reply whose data is {links: [{url, title?, description?}]}. wds.events.MapRequested v1 (schemas/events/MapRequested/v1.avsc). */
export interface MapRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to. */
  tenant: string;
  /** The site to map: the URL the caller gave. */
  url: string;
  /** The map options as JSON: search, limit, includeSubdomains, ignoreSitemap (schemas/api/page-reading.ts MapBody, defaults filled in). */
  options: string;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped; the discovery answers before it with what it found. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}
