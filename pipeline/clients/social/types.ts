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
import { ServiceError } from '../service-http.js';

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

/*
 * The reads of the social catalog (schemas/api/social.ts, GET /v1/social): beside `collect`,
 * the connectors answer a platform's own questions — a post with its comments, an account's
 * profile, its newest posts, a community's posts — in shapes shared by every platform. Each
 * is asked of the platform's real API with the connector's credentials, within `timeoutMs`;
 * the service's failures are ServiceErrors as for `collect`, and what the platform says does
 * not exist is NotOnPlatform.
 */

/** Time and cancellation of one read. */
export interface ReadOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** Most comments a thread answers: a thread's reads stop there and say `truncated`. */
export const MAX_COMMENTS = 500;

/** A comment on a post, or a reply to a comment: a post with its place in the thread. */
export interface FoundComment extends FoundPost {
  /** The platform's id of the post or comment it answers. */
  readonly parentId: string;
  /** 1 for a comment on the post, 2 for a reply to one, … */
  readonly depth: number;
}

/** A post with its comments, in the thread's order (each comment before its replies). */
export interface Thread {
  readonly post: FoundPost;
  readonly comments: readonly FoundComment[];
  /** The platform holds comments that were not read (MAX_COMMENTS, the `limit`, a page the platform left for later). */
  readonly truncated: boolean;
  /** What the answer lacks and why. */
  readonly warnings: readonly string[];
}

/** One page of an account's, a community's or a list's posts. */
export interface PostsPage {
  /** In the platform's order (newest first for an account's posts). */
  readonly posts: readonly FoundPost[];
  /** The platform's cursor for the next page; null on the last. */
  readonly next: string | null;
  /** What the answer lacks and why. */
  readonly warnings: readonly string[];
}

/** An account (a user, a channel) as the platform describes it; a field it does not give is null. */
export interface Profile {
  readonly platform: Platform;
  /** The platform's stable id of the account (a DID, a channel id, a user id). */
  readonly id: string;
  /** The name it is reached by (a handle, a login), when it has one. */
  readonly username: string | null;
  /** Its display name. */
  readonly name: string | null;
  readonly description: string | null;
  /** Where a person sees it. */
  readonly url: string;
  readonly createdAtMs: number | null;
  readonly followers: number | null;
  readonly following: number | null;
  /** Posts (stories and comments, tweets, videos, public repositories) it has published. */
  readonly posts: number | null;
  /** Hacker News karma, Reddit's total karma. */
  readonly karma: number | null;
}

/** The platform says what was asked for does not exist (or is not public): a user, a post, a channel, a repository. */
export class NotOnPlatform extends Error {
  constructor(
    readonly platform: Platform,
    message: string,
  ) {
    super(`${platform}: ${message}`);
    this.name = 'NotOnPlatform';
  }
}

/** A count the platform gives as a number or a decimal string (YouTube's statistics); null otherwise. */
export function countOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return null;
}

/** An ISO time as epoch ms; null when it does not read as one. */
export function timeOf(v: unknown): number | null {
  const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isFinite(ms) ? ms : null;
}

/**
 * A platform's credential from its settings: the value, or why the platform is not configured
 * (`notConfigured`, naming the settings to set). `get` is what every call that needs it asks: an
 * unset credential is a `rejected` ServiceError, never a request without it.
 */
export class Credential<T> {
  readonly notConfigured: string | null;

  constructor(
    private readonly service: string,
    private readonly value: T | null,
    settings: readonly string[],
  ) {
    this.notConfigured = value === null ? `${settings.join(' and ')} ${settings.length > 1 ? 'are' : 'is'} not set` : null;
  }

  get(): T {
    if (this.value === null) throw new ServiceError(this.service, 'rejected', this.notConfigured ?? 'not configured');
    return this.value;
  }
}
