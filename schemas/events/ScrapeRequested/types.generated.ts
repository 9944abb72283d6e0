// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A page is to be fetched and read: one synchronous scrape, or one page of a crawl or batch job. wds.events.ScrapeRequested v4 (schemas/events/ScrapeRequested/v4.avsc). */
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
  /** True when the fetcher met a challenge on the plain HTTP fetch and sent the request on to the renderer (renderRequested) to clear it: the render is charged a fetched page's credits, what the caller reserved. False for a request as its producer routed it, and for v1 bytes. */
  escalated: boolean;
  /** True when the producer (the gateway, the frontier) routed the page to a browser (pipeline/pages/rendering.ts needsBrowser: waitFor, actions, the screenshot or network format): decided once, where the request is routed, and read downstream. False in v1/v2 bytes, whose readers decide it from the options. */
  browser: boolean;
  /** The page cache key (pipeline/pages/cache.ts cacheKeyOf) worked out once by the producer from the options and the browser decision: what the fetcher looks copies up by and what the copy is filed under. Empty in v1/v2 bytes, whose readers work it out from the options. */
  cacheKey: string;
  /** The caller's own model for this request (POST /v1/extract `model`: provider, name and key), sealed with AES-256-GCM under a key derived from the server secret (pipeline/clients/models): the key never travels or rests in clear, and is dropped after the model call. Empty: the operator's model (MODEL_*), if any. */
  sealedModel: string;
}
