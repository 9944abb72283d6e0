// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** The bytes of a URL are wanted as they are (GET /v1/fetch): no parsing, any content type. Answered with a Reply whose data holds the status, content type, final URL and the body in base64. wds.events.FetchRequested v2 (schemas/events/FetchRequested/v2.avsc). */
export interface FetchRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to. */
  tenant: string;
  /** The URL to fetch. */
  url: string;
  /** Proxy route: datacenter, residential or mobile; null lets the fetcher choose (auto). */
  proxy: string | null;
  /** Two-letter country to fetch from (a country proxy pool, Accept-Language); null for none. */
  country: string | null;
  /** A JSON API read (a store's products.json, a Store API or REST page): the fetcher sends it on the HTTP stack's lean path (pipeline/runtime/net/http.ts `lean`: node:http itself; the same guard, proxies, caps and errors). False: the browser-like client. */
  lean: boolean;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}
