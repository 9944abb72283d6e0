// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** A page was fetched (over HTTP or in a browser) and awaits parsing. wds.events.PageFetched v5 (schemas/events/PageFetched/v5.avsc). */
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
  /** Credits spent so far on this page (fetch, proxy, render); 0 for the caller's own cached copy, 1 for a copy from the shared index. */
  credits: number;
  /** Where the body came from: fresh (fetched for this request), cache (this tenant's copy within maxAge) or index (another tenant's shareable copy within maxAge). Only a fresh body is written to the page cache. */
  source: string;
  /** Epoch milliseconds when the request was made (ScrapeRequested.createdAtMs): the same for every attempt of one request, so its pages row keeps one sort key when the page is fetched again after a crash. 0 when unknown (written as v1). */
  requestedAtMs: number;
  /** What a browser render produced besides the DOM, as a JSON object merged into the document by the parser: `screenshot` (data URL), `actions` ({screenshots, scrapes, javascriptReturns}), `network` (the page's requests), `captcha` (the automatic checkbox click and its evidence). "{}" for a page fetched over HTTP or written as v1/v2. */
  extras: string;
  /** The page cache key, carried over from ScrapeRequested: the copy of a fresh page is filed under it. Empty when written as v1-v3, when the parser works it out from the options. */
  cacheKey: string;
  /** Hex SHA-256 of body, computed once by the reader that produced the page (the content_hash of its stored copies). Empty when written as v1-v3, when the parser hashes the body. */
  bodySha256: string;
  /** The caller's own model for this request (POST /v1/extract `model`: provider, name and key), sealed with AES-256-GCM under a key derived from the server secret (pipeline/clients/models): the key never travels or rests in clear, and is dropped after the model call. Empty: the operator's model (MODEL_*), if any. Copied from ScrapeRequested. */
  sealedModel: string;
}
