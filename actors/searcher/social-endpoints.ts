/**
 * What each endpoint of the social catalog (schemas/api/social.ts) asks of its platform's
 * client (pipeline/clients/social/, built once per process by pipeline/mentions/connectors.ts
 * `platformClients`), and its answer's data in the API's shapes. One runner per catalog row,
 * keyed by `platform/endpoint`: a row without a runner, or a runner without a row, does not
 * compile.
 *
 * The input was validated by the gateway against the row's schema, defaults filled in; the
 * readers below still refuse what the event contract does not allow (InputError, a
 * `bad_request`), so a hand-made event cannot reach a client with a wrong type.
 *
 * Shapes (the API's, camel case, times ISO 8601):
 * - a post: `{id, url, author, title, text, publishedAt, lang}`; a comment adds `{parentId, depth}`;
 * - a profile: `{id, username, name, description, url, createdAt, followers, following, posts, karma}`;
 * - a repository: `{id, fullName, owner, name, description, url, homepage, stars, forks,
 *   openIssues, watchers, language, topics, license, defaultBranch, createdAt, updatedAt,
 *   pushedAt, archived, fork}`.
 */
import { ISSUE_STATES, type Repository } from '../../pipeline/clients/social/github.js';
import { HN_LISTS } from '../../pipeline/clients/social/hackernews.js';
import { SUBREDDIT_SORTS, TOP_WINDOWS } from '../../pipeline/clients/social/reddit.js';
import type { Collected, Connector, FoundComment, FoundPost, PostsPage, Profile, ReadOptions, Thread } from '../../pipeline/clients/social/types.js';
import type { PlatformClients } from '../../pipeline/mentions/connectors.js';
import type { SocialEndpointId } from '../../schemas/api/social.js';

/** What a runner is given besides its input. */
export interface RunContext {
  readonly clients: PlatformClients;
  /** The API key: the web platform asks the local index as it. */
  readonly tenant: string;
  /** The time and cancellation of the platform's calls. */
  readonly read: ReadOptions;
}

/** An endpoint's answer: its data, and how many things came back (0: nothing to charge). */
export interface SocialAnswer {
  readonly data: Record<string, unknown>;
  readonly found: number;
}

/** An input the event contract does not allow (the gateway validated it: a hand-made event). */
export class InputError extends Error {}

type Input = Readonly<Record<string, unknown>>;
type Runner = (input: Input, ctx: RunContext) => Promise<SocialAnswer>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function postJson(p: FoundPost): Record<string, unknown> {
  return { id: p.externalId, url: p.url, author: p.author, title: p.title, text: p.text, publishedAt: iso(p.publishedAtMs), lang: p.lang };
}

function commentJson(c: FoundComment): Record<string, unknown> {
  return { ...postJson(c), parentId: c.parentId, depth: c.depth };
}

function profileJson(p: Profile): Record<string, unknown> {
  return { id: p.id, username: p.username, name: p.name, description: p.description, url: p.url, createdAt: iso(p.createdAtMs), followers: p.followers, following: p.following, posts: p.posts, karma: p.karma };
}

function repositoryJson(r: Repository): Record<string, unknown> {
  const { createdAtMs, updatedAtMs, pushedAtMs, ...rest } = r;
  return { ...rest, createdAt: iso(createdAtMs), updatedAt: iso(updatedAtMs), pushedAt: iso(pushedAtMs) };
}

// Input readers: the validated body's fields, refused when the event does not hold them.
function str(input: Input, name: string): string {
  const v = input[name];
  if (typeof v !== 'string' || v.trim() === '') throw new InputError(`\`${name}\` must be a non-empty string`);
  return v.trim();
}
function optStr(input: Input, name: string): string | null {
  return input[name] === undefined || input[name] === null ? null : str(input, name);
}
function oneOf<const T extends readonly string[]>(input: Input, name: string, values: T, fallback: T[number]): T[number] {
  const v = optStr(input, name) ?? fallback;
  if (!values.includes(v)) throw new InputError(`\`${name}\` must be one of ${values.join(', ')}`);
  return v;
}
/** A whole number of at least 1; without `fallback`, required. */
function int(input: Input, name: string, fallback?: number): number {
  const v = input[name] ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new InputError(`\`${name}\` must be a whole number of at least 1`);
  return v;
}
function sinceOf(input: Input): number {
  const since = optStr(input, 'since');
  if (since === null) return 0;
  const ms = Date.parse(since);
  if (!Number.isFinite(ms)) throw new InputError('`since` must be a date-time');
  return ms;
}
/** A cursor made of an offset (Hacker News's lists). */
function offsetOf(cursor: string | null): number {
  if (cursor === null) return 0;
  if (!/^\d{1,6}$/.test(cursor)) throw new InputError('`cursor` must be the `next` of a previous page');
  return Number(cursor);
}

const page = (p: PostsPage, source: string): SocialAnswer => ({ data: { posts: p.posts.map(postJson), next: p.next, source, warnings: p.warnings }, found: p.posts.length });
const thread = (t: Thread, source: string): SocialAnswer => ({
  data: { post: postJson(t.post), comments: t.comments.map(commentJson), truncated: t.truncated, source, warnings: t.warnings },
  found: 1 + t.comments.length,
});
const profile = (p: Profile): SocialAnswer => ({ data: { profile: profileJson(p), source: p.platform, warnings: [] }, found: 1 });

/** A search through the platform's mention connector: the query as its one term. */
async function search(connector: Connector, input: Input, ctx: RunContext, extra: { sources?: { feeds: string[]; sites: string[] } } = {}): Promise<SocialAnswer> {
  const collected: Collected = await connector.collect({
    terms: input.query === undefined ? [] : [str(input, 'query')],
    sinceMs: sinceOf(input),
    limit: int(input, 'limit', 25),
    timeoutMs: ctx.read.timeoutMs,
    ...(ctx.read.signal ? { signal: ctx.read.signal } : {}),
    tenant: ctx.tenant,
    ...extra,
  });
  return { data: { posts: collected.posts.map(postJson), next: null, source: collected.source, warnings: collected.warnings }, found: collected.posts.length };
}

export const RUNNERS: { readonly [Id in SocialEndpointId]: Runner } = {
  'hackernews/search': (i, c) => search(c.clients.hackernews, i, c),
  'hackernews/recent': async (i, c) => page(await c.clients.hackernews.stories(oneOf(i, 'list', HN_LISTS, 'new'), offsetOf(optStr(i, 'cursor')), int(i, 'limit', 30), c.read), 'hn-firebase'),
  'hackernews/item': async (i, c) => thread(await c.clients.hackernews.thread(str(i, 'id'), int(i, 'limit', 100), c.read), 'hn-algolia'),
  'hackernews/user': async (i, c) => profile(await c.clients.hackernews.user(str(i, 'username'), c.read)),
  'reddit/search': (i, c) => search(c.clients.reddit, i, c),
  'reddit/subreddit': async (i, c) =>
    page(await c.clients.reddit.subreddit(str(i, 'subreddit'), oneOf(i, 'sort', SUBREDDIT_SORTS, 'new'), oneOf(i, 'time', TOP_WINDOWS, 'day'), int(i, 'limit', 25), optStr(i, 'cursor'), c.read), 'reddit'),
  'reddit/post': async (i, c) => thread(await c.clients.reddit.thread(str(i, 'id'), int(i, 'limit', 100), c.read), 'reddit'),
  'reddit/user': async (i, c) => profile(await c.clients.reddit.user(str(i, 'username'), c.read)),
  'x/search': (i, c) => search(c.clients.x, i, c),
  'x/recent': async (i, c) => page(await c.clients.x.recent(str(i, 'username'), int(i, 'limit', 25), optStr(i, 'cursor'), c.read), 'x'),
  'x/post': async (i, c) => thread(await c.clients.x.thread(str(i, 'id'), int(i, 'limit', 100), c.read), 'x'),
  'x/user': async (i, c) => profile(await c.clients.x.user(str(i, 'username'), c.read)),
  'bluesky/search': (i, c) => search(c.clients.bluesky, i, c),
  'bluesky/recent': async (i, c) => page(await c.clients.bluesky.recent(str(i, 'actor'), int(i, 'limit', 25), optStr(i, 'cursor'), c.read), 'bluesky'),
  'bluesky/post': async (i, c) => thread(await c.clients.bluesky.thread(str(i, 'uri'), int(i, 'limit', 100), c.read), 'bluesky'),
  'bluesky/profile': async (i, c) => profile(await c.clients.bluesky.profile(str(i, 'actor'), c.read)),
  'youtube/search': (i, c) => search(c.clients.youtube, i, c),
  'youtube/recent': async (i, c) => page(await c.clients.youtube.recent(str(i, 'channel'), int(i, 'limit', 25), optStr(i, 'cursor'), c.read), 'youtube'),
  'youtube/video': async (i, c) => thread(await c.clients.youtube.thread(str(i, 'id'), int(i, 'limit', 100), c.read), 'youtube'),
  'youtube/channel': async (i, c) => profile(await c.clients.youtube.channel(str(i, 'channel'), c.read)),
  'github/search': (i, c) => search(c.clients.github, i, c),
  'github/issues': async (i, c) =>
    page(await c.clients.github.issues(str(i, 'owner'), str(i, 'repo'), oneOf(i, 'state', ISSUE_STATES, 'all'), int(i, 'limit', 25), optStr(i, 'cursor'), c.read), 'github'),
  'github/issue': async (i, c) => thread(await c.clients.github.thread(str(i, 'owner'), str(i, 'repo'), int(i, 'number'), int(i, 'limit', 100), c.read), 'github'),
  'github/repository': async (i, c) => ({ data: { repository: repositoryJson(await c.clients.github.repository(str(i, 'owner'), str(i, 'repo'), c.read)), source: 'github', warnings: [] }, found: 1 }),
  'github/user': async (i, c) => profile(await c.clients.github.user(str(i, 'username'), c.read)),
  'feeds/read': (i, c) => search(c.clients.feeds, i, c, { sources: { feeds: [], sites: [str(i, 'url')] } }),
  'web/search': (i, c) => search(c.clients.web, i, c),
};
