/**
 * What a mention connector (one per platform: pipeline/clients/social/<platform>.ts) answers:
 * the posts a platform holds that contain one of a watch's terms, published after a time, in
 * one shape whatever the platform. Matching a watch's exclusions, languages and context, the
 * category and the storage are the mentions family's (pipeline/mentions/), not a connector's.
 *
 * A connector is a client configured by its base URL and credentials (`<PLATFORM>_URL`, keys),
 * tested against a local server speaking the platform's real API. It asks for the newest posts
 * first and pages with the platform's own cursor until it reaches `sinceMs` or `limit`; it
 * reports the service's failures as ServiceErrors (pipeline/clients/service-http.ts), and a
 * platform without the credentials it needs says so (`configured`), never answering empty.
 */
import type { MENTION_PLATFORMS } from '../../../schemas/api/monitoring.js';

export type Platform = (typeof MENTION_PLATFORMS)[number];

export interface FoundPost {
  readonly platform: Platform;
  /** The platform's id of the post (stable: the same post seen twice has the same id). */
  readonly externalId: string;
  /** Where a person reads it. */
  readonly url: string;
  readonly author: string | null;
  /** A story's or video's title; null for posts that have none (comments, tweets). */
  readonly title: string | null;
  /** The post's text as plain text (markup removed, entities decoded). */
  readonly text: string;
  /** When it was published, epoch ms. */
  readonly publishedAtMs: number;
  /** The language the platform declares for it, when it does (BCP 47). */
  readonly lang: string | null;
}

export interface CollectQuery {
  /** A post contains at least one (each term is asked for; the answers are merged). */
  readonly terms: readonly string[];
  /** Only posts published after this (epoch ms). */
  readonly sinceMs: number;
  /** Most posts to answer (newest first). */
  readonly limit: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /**
   * Where the feeds connector (feeds.ts) reads: a watch's feed URLs, and the sites whose pages
   * it discovers feeds on. Other connectors ignore it.
   */
  readonly sources?: { readonly feeds: readonly string[]; readonly sites: readonly string[] };
  /**
   * The API key the watch belongs to: the web connector asks the local index as it, so a key
   * finds its own pages and the shared ones, never another key's. Platforms ignore it.
   */
  readonly tenant?: string;
}

export interface Collected {
  /** Newest first, each post once. */
  readonly posts: readonly FoundPost[];
  /** The service that answered (a platform's fallback names itself). */
  readonly source: string;
  /** What the answer lacks and why (a fallback's narrower reach, a page cut short). */
  readonly warnings: readonly string[];
}

export interface Connector {
  readonly platform: Platform;
  /** Null when it can be asked; else why not (the credentials it lacks), for the watch and test answers. */
  readonly notConfigured: string | null;
  collect(query: CollectQuery): Promise<Collected>;
}

/** Each post once (by external id), newest first, at most `limit`. */
export function newestFirst(posts: Iterable<FoundPost>, limit: number): FoundPost[] {
  const byId = new Map<string, FoundPost>();
  for (const post of posts) if (!byId.has(post.externalId)) byId.set(post.externalId, post);
  return [...byId.values()].sort((a, b) => b.publishedAtMs - a.publishedAtMs || a.externalId.localeCompare(b.externalId)).slice(0, limit);
}
