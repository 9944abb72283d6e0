// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

/** Every event type, one per folder in schemas/events/. */
export const EVENT_NAMES = ['ExtractRequested', 'FetchRequested', 'IntelRequested', 'JobEvent', 'LeadsRequested', 'MapRequested', 'MentionsFound', 'MentionsStored', 'MonitorCheckRequested', 'MonitorChecked', 'PageFetched', 'ParseRequested', 'Reply', 'ScrapeRequested', 'SearchRequested', 'SocialRequested', 'TestPing', 'WatchCollectRequested'] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/** The newest schema version of each event: what is written, and what every version is read as. */
export const CURRENT_VERSIONS = {
  ExtractRequested: 1,
  FetchRequested: 2,
  IntelRequested: 1,
  JobEvent: 1,
  LeadsRequested: 1,
  MapRequested: 1,
  MentionsFound: 2,
  MentionsStored: 2,
  MonitorCheckRequested: 2,
  MonitorChecked: 2,
  PageFetched: 5,
  ParseRequested: 1,
  Reply: 1,
  ScrapeRequested: 4,
  SearchRequested: 1,
  SocialRequested: 1,
  TestPing: 1,
  WatchCollectRequested: 2,
} as const satisfies Record<EventName, number>;

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

/** A question of site and company intelligence (POST /v1/domain, /v1/domain/report, /v1/domain/history/snapshots, /v1/domain/screen, /v1/company, /v1/products, /v1/posts): the intel pool answers with a Reply whose data is the answer (actors/intel/). wds.events.IntelRequested v1 (schemas/events/IntelRequested/v1.avsc). */
export interface IntelRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to; the reports and snapshots it stores belong to it. */
  tenant: string;
  /** domain: POST /v1/domain; report: /v1/domain/report; snapshots: /v1/domain/history/snapshots; screen: /v1/domain/screen; company, products, posts: /v1/company, /v1/products, /v1/posts. */
  kind: "domain" | "report" | "snapshots" | "screen" | "company" | "products" | "posts";
  /** The request body as JSON (schemas/api/intel.ts, defaults filled in; domain names as the gateway normalised them). */
  query: string;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped; the outside calls and page reads are bounded by it. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}

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

/** Find Leads work for the searcher pool (actors/searcher/leads.ts): `sources` (GET /v1/leads/sources, on wds.leads.sources: the sources covering a country or a place's country, answered with a Reply) or `run` (POST /v1/leads, on wds.leads.requested: the run `runId`, whose record the gateway created, carried out to its end; no Reply). wds.events.LeadsRequested v1 (schemas/events/LeadsRequested/v1.avsc). */
export interface LeadsRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to; the run belongs to it. */
  tenant: string;
  /** sources: GET /v1/leads/sources; run: a Find Leads run started by POST /v1/leads. */
  kind: "sources" | "run";
  /** The run (kind run): its record in coordination state and the store (pipeline/leads/record.ts). */
  runId: string | null;
  /** For sources: `{country, where}` as JSON; for a run: the request body as JSON (schemas/api/leads-social.ts, defaults filled in). */
  query: string;
  /** Topic to send the Reply to (kind sources). */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which a sources question is pointless and is dropped; a run is carried out whatever its deadline. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}

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

/** The posts a collection (or a test) of a mention watch found and kept: the classifier sorts each into a category (the offline classifier, or the operator's model constrained to the seven categories, which also judges relevance when the watch has a context), stores them as mentions and completes the collection; for a test it answers replyTo instead and stores nothing (actors/classifier/mentions.ts). v2 carries the collection as the searcher last wrote it and the watch's name and sealed webhook, so the classifier reads neither. wds.events.MentionsFound v2 (schemas/events/MentionsFound/v2.avsc). */
export interface MentionsFound {
  /** Id of the work; in every log line. */
  requestId: string;
  /** Id of the API key the watch belongs to. */
  tenant: string;
  /** The watch; empty for a test of unsaved fields. */
  watchId: string;
  /** The collection; for a test, the request id. */
  collectionId: string;
  /** What classification needs of the watch, as JSON: {keywords, competitors, context}. */
  terms: string;
  /** Newest first. */
  posts: Array<{
    /** web, feeds, reddit, hackernews, x, bluesky, youtube or github. */
    platform: string;
    /** The platform's id of the post. */
    externalId: string;
    url: string;
    author: string | null;
    title: string | null;
    /** Plain text, cut at MAX_TEXT_CHARS (pipeline/mentions/found.ts). */
    text: string;
    publishedAtMs: number;
    /** Declared by the platform or identified (BCP 47 primary subtag). */
    lang: string | null;
    /** The watch keywords the post contains. */
    matched: Array<string>;
  }>;
  /** JSON: per platform asked, {status, found, source, warnings, error} (pipeline/mentions/found.ts PlatformResult). */
  platforms: string;
  /** Tests only: the topic to answer. */
  replyTo: string | null;
  correlationId: string | null;
  /** For a test, when its answer is no longer awaited. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** The collection as the searcher last wrote it, as JSON (CollectionRecord); null (a test, a v1 event): read from the store. */
  collection: string | null;
  /** The watch's name, for the webhook body. */
  watchName: string | null;
  /** The watch's webhook URL as stored, sealed under the server secret; null without one. */
  sealedWebhook: string | null;
}

/** A collection stored new mentions and the watch has a webhook: the notifier POSTs the batch (read from the store) to it, signed and retried (actors/notifier/mentions.ts). v2 carries the webhook (sealed) and the body the classifier built from the mentions it just stored (pipeline/mentions/notice.ts), so the notifier reads nothing; a v1 event (both null) is read from the store. wds.events.MentionsStored v2 (schemas/events/MentionsStored/v2.avsc). */
export interface MentionsStored {
  /** Id of the API key the watch belongs to (its webhook signing secret). */
  tenant: string;
  watchId: string;
  collectionId: string;
  /** The new mentions of the batch. */
  mentionIds: Array<string>;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** The watch's webhook URL as stored, sealed under the server secret. */
  sealedWebhook: string | null;
  /** The delivery's JSON body (event mentions.found), within the webhook's MAX_BODY_BYTES. */
  body: string | null;
}

/** A monitor check is to run: queued by the frontier when the monitor's schedule is due, or by the gateway for POST /v1/monitor/{id}/run. Its row in monitor_checks (status queued) was written first; the classifier reads each page through the scrape path, judges it against the previous snapshot and completes the check (actors/classifier/). Sent again with the same checkId to resume a check a crash interrupted: pages already judged are not read again. v2 carries the check and what the classifier and notifier need of the monitor, read once by whoever queued it, and the reply address of a manual run. wds.events.MonitorCheckRequested v2 (schemas/events/MonitorCheckRequested/v2.avsc). */
export interface MonitorCheckRequested {
  /** Id of the work (the check id, or the API request for a manual run); in every log line. */
  requestId: string;
  /** Id of the API key the monitor belongs to and the check's pages are billed to. */
  tenant: string;
  /** The monitor. */
  monitorId: string;
  /** The check (its monitor_checks row). */
  checkId: string;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** The check as queued; null (a v1 event): the classifier reads its row. */
  check: {
    /** scheduled or manual. */
    trigger: string;
    scheduledAtMs: number;
    queuedAtMs: number;
    /** The pages to read, in the monitor's order. */
    urls: Array<string>;
    /** Sent again for a check a crash interrupted: the classifier reads its row and the pages it already judged. */
    resumed: boolean;
  } | null;
  /** What the classifier and notifier need of the monitor; null (a v1 event): read from the store. */
  monitor: {
    name: string;
    goal: string | null;
    /** The webhook URL as stored, sealed under the server secret (pipeline/monitors/record.ts); null without one. */
    sealedWebhook: string | null;
  } | null;
  /** A manual run: the topic to answer once the check is final. */
  replyTo: string | null;
  correlationId: string | null;
  /** A manual run: when its answer is no longer awaited (the check runs to its end anyway). */
  deadlineMs: number | null;
}

/** A monitor check completed and found a page new, changed, removed or failing, and the monitor has a webhook: the notifier POSTs the check (its summary and per-page diffs) to it, signed and retried (actors/notifier/monitor.ts). v2 carries the webhook (sealed) and the body the classifier built from what it just judged (pipeline/monitors/notice.ts), so the notifier reads nothing from the store; a v1 event (both null) is read from the store. wds.events.MonitorChecked v2 (schemas/events/MonitorChecked/v2.avsc). */
export interface MonitorChecked {
  /** Id of the API key the monitor belongs to (its webhook signing secret). */
  tenant: string;
  /** The monitor. */
  monitorId: string;
  /** The completed check. */
  checkId: string;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** The monitor's webhook URL as stored, sealed under the server secret (pipeline/monitors/record.ts). */
  sealedWebhook: string | null;
  /** The delivery's JSON body (event monitor.check.completed), within the webhook's MAX_BODY_BYTES. */
  body: string | null;
}

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

/** A search is wanted (POST /v1/search, /v1/serp, /v1/places/search): the searcher asks the configured providers in order (the local index among them) and answers with a Reply whose data is the results page (actors/searcher/). wds.events.SearchRequested v1 (schemas/events/SearchRequested/v1.avsc). */
export interface SearchRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to; the local index shows it its own pages and the shared ones. */
  tenant: string;
  /** web: POST /v1/search; serp: POST /v1/serp; places: POST /v1/places/search. */
  kind: "web" | "serp" | "places";
  /** The request body as JSON, without scrapeOptions (schemas/api/search.ts, defaults filled in). */
  query: string;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped; the providers' time is bounded by it. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
}

/** A call of a social endpoint is wanted (POST /v1/social/{platform}/{endpoint}, schemas/api/social.ts): the searcher asks the platform through its client and answers with a Reply whose data is the endpoint's answer (actors/searcher/social.ts). wds.events.SocialRequested v1 (schemas/events/SocialRequested/v1.avsc). */
export interface SocialRequested {
  /** Id of the API request; in every log line. */
  requestId: string;
  /** Id of the API key the work is billed to; the web platform's local index shows it its own pages and the shared ones. */
  tenant: string;
  /** The catalog's platform (`reddit`, `hackernews`, …). */
  platform: string;
  /** The platform's endpoint (`search`, `post`, …). */
  endpoint: string;
  /** The request body as JSON, validated against the endpoint's input schema with its defaults filled in. */
  input: string;
  /** Topic to send the Reply to. */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless and is dropped; the platform's time is bounded by it. */
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

/** A mention watch is to be collected: queued by the frontier when the watch's schedule is due (its watch_collections row, status queued, written first), or a test of watch fields by the gateway (POST /v1/mentions/watches/{id}/test and /v1/mentions/test: nothing stored, the answer goes to replyTo). The searcher asks each platform of the watch (pipeline/clients/social/, the web search providers, feeds), keeps the posts that match the watch (pipeline/mentions/match.ts) and were not stored before, and hands them to the classifier as MentionsFound (actors/searcher/collect.ts). v2 carries the watch and the collection as the frontier read and queued them, so the searcher reads neither (a resumed collection and a v1 event are read from the store). wds.events.WatchCollectRequested v2 (schemas/events/WatchCollectRequested/v2.avsc). */
export interface WatchCollectRequested {
  /** Id of the work (the collection id, or the API request of a test); in every log line. */
  requestId: string;
  /** Id of the API key the watch belongs to and the collection is billed to. */
  tenant: string;
  /** The watch; empty for a test of unsaved fields. */
  watchId: string;
  /** The collection (its watch_collections row); for a test, the request id. */
  collectionId: string;
  /** For a test only: the watch fields as JSON (schemas/api/monitoring.ts WatchBody, webhook left out). Null for a scheduled collection, which reads its watch from the store. */
  test: string | null;
  /** Topic to send the Reply to (tests). */
  replyTo: string | null;
  /** Copied into the Reply so the waiting requester finds it. */
  correlationId: string | null;
  /** Epoch milliseconds after which the work is pointless; the platforms' time is bounded by it. */
  deadlineMs: number;
  /** Epoch milliseconds when the event was written. */
  createdAtMs: number;
  /** A scheduled collection: the watch as the frontier read it, as JSON (pipeline/mentions/watch.ts WatchRecord, its webhook sealed). Null: the searcher reads it. */
  watch: string | null;
  /** A scheduled collection: its row as queued, as JSON (pipeline/mentions/collections.ts CollectionRecord). Null (a resumed collection, a v1 event): the searcher reads it. */
  collection: string | null;
}

/** Event name → the value of its current version. */
export interface EventValues {
  ExtractRequested: ExtractRequested;
  FetchRequested: FetchRequested;
  IntelRequested: IntelRequested;
  JobEvent: JobEvent;
  LeadsRequested: LeadsRequested;
  MapRequested: MapRequested;
  MentionsFound: MentionsFound;
  MentionsStored: MentionsStored;
  MonitorCheckRequested: MonitorCheckRequested;
  MonitorChecked: MonitorChecked;
  PageFetched: PageFetched;
  ParseRequested: ParseRequested;
  Reply: Reply;
  ScrapeRequested: ScrapeRequested;
  SearchRequested: SearchRequested;
  SocialRequested: SocialRequested;
  TestPing: TestPing;
  WatchCollectRequested: WatchCollectRequested;
}
