/**
 * What travels from the searcher (which collects) to the classifier (which sorts and stores):
 * each platform's outcome and the posts kept, in the MentionsFound event's shapes.
 *
 * - A post's text is cut at MAX_TEXT_CHARS and its title at MAX_TITLE_CHARS: a mention is a
 *   pointer to a post, not a copy of a long article, and the cut keeps one collection's event
 *   well under the bus's message size (MAX_POSTS_PER_PLATFORM × 8 platforms).
 * - A mention's id is a hash of (tenant, watch, platform, the platform's id of the post): the
 *   same post found by two collections, or twice in one, is one mention.
 */
import { createHash } from 'node:crypto';
import type { EventValue } from '../../schemas/events/index.js';
import type { FoundPost, Platform } from '../clients/social/types.js';

export const MAX_TEXT_CHARS = 2_000;
export const MAX_TITLE_CHARS = 300;
/** Most posts a collection keeps of one platform (newest first). */
export const MAX_POSTS_PER_PLATFORM = 50;

export type FoundMention = EventValue<'MentionsFound'>['posts'][number];

/** `ok`: the platform answered (maybe with warnings); `error`: it failed; `not_configured`: it lacks credentials. */
export type PlatformStatus = 'ok' | 'error' | 'not_configured';

export interface PlatformResult {
  readonly status: PlatformStatus;
  /** Posts that matched the watch and were new (not stored before). */
  readonly found: number;
  /** The service that answered (a platform's fallback names itself); null when none did. */
  readonly source: string | null;
  readonly warnings: readonly string[];
  /** Why it failed or is not configured; null when it answered. */
  readonly error: { readonly code: string; readonly message: string; readonly retryAfterMs?: number } | null;
}

export type PlatformResults = Partial<Record<Platform, PlatformResult>>;

/** Whether any platform answered: a collection where none did failed and is not charged. */
export const anyAnswered = (results: PlatformResults) => Object.values(results).some((r) => r?.status === 'ok');

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function foundMention(post: FoundPost, matched: readonly string[], lang: string | null): FoundMention {
  return {
    platform: post.platform,
    externalId: post.externalId,
    url: post.url,
    author: post.author,
    title: post.title === null ? null : cut(post.title, MAX_TITLE_CHARS),
    text: cut(post.text, MAX_TEXT_CHARS),
    publishedAtMs: post.publishedAtMs,
    lang,
    matched: [...matched],
  };
}

/** The stored mention's id (see the module doc). */
export function mentionId(tenant: string, watchId: string, platform: string, externalId: string): string {
  const digest = createHash('sha256').update(`${tenant}\n${watchId}\n${platform}\n${externalId}`).digest('hex');
  return `men_${digest.slice(0, 32)}`;
}
