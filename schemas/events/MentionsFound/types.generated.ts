// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.
// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than
// lose precision), bytes → Buffer, ["null", T] → T | null.

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
