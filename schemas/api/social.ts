/**
 * The social catalog (GET /v1/social, POST /v1/social/{platform}/{endpoint}), defined once:
 * every endpoint of every platform, its inputs as a closed JSON Schema, what its answer holds
 * and its price. The gateway validates a call's body against its endpoint's `input` (422
 * `detail` as for any body) and serves the catalog from this table; the OpenAPI document
 * lists each `input` as a component (gateway/openapi.ts); the searcher runs each endpoint
 * (actors/searcher/social.ts, one runner per row: a missing or unknown id does not compile).
 *
 * The platforms are those of mention watches (`MENTION_PLATFORMS`), asked through the same
 * clients (pipeline/clients/social/). What an answer's `data` holds, by `answers`:
 * - `posts`: `{posts: [Post], next}`, `next` the cursor of the following page (null on the last);
 * - `thread`: `{post: Post, comments: [Comment], truncated}`, comments in the thread's order;
 * - `profile`: `{profile: Profile}`;
 * - `repository`: `{repository: Repository}`;
 * each with `platform`, `endpoint`, `source` and `warnings`.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Closed, HttpUrl, StringEnum, withError } from './common.js';
import { MENTION_PLATFORMS } from './monitoring.js';
import { PRICES, type PriceName } from './prices.js';

export const SOCIAL_PLATFORMS = MENTION_PLATFORMS;
export type SocialPlatform = (typeof SOCIAL_PLATFORMS)[number];

export const SOCIAL_ANSWERS = ['posts', 'thread', 'profile', 'repository'] as const;
export type SocialAnswer = (typeof SOCIAL_ANSWERS)[number];

export interface SocialEndpoint {
  readonly platform: SocialPlatform;
  /** Its name under the platform: the path's `{endpoint}`. */
  readonly endpoint: string;
  readonly summary: string;
  readonly answers: SocialAnswer;
  /** The body's schema: a closed object, defaults filled in by the validator. */
  readonly input: TSchema;
  /** Its price in schemas/api/prices.ts, charged only when data comes back (rule 10). */
  readonly price: PriceName;
}

/*
 * Every pattern here reads outside input: each is a run of one character class per part, so
 * V8 matches it in linear time (no part can match what its neighbour matches).
 */

/** Text that is not only spaces. */
const NOT_BLANK = { pattern: '\\S', 'x-error': { type: 'string_empty', msg: 'must hold a character other than a space' } };

const query = Type.String({ minLength: 1, maxLength: 500, ...NOT_BLANK, description: 'What to look for: posts that contain it (as a phrase where the platform searches phrases).' });
const since = Type.String({ format: 'date-time', description: 'Only posts published after this time (default: as far back as the platform searches).' });
const limit = (max: number, fallback: number, what = 'posts') => Type.Integer({ minimum: 1, maximum: max, default: fallback, description: `Most ${what} answered, 1 to ${max}.` });
const comments = limit(500, 100, 'comments');
const cursor = Type.String({ minLength: 1, maxLength: 512, description: 'The `next` of the previous page; omit for the first.' });
const name = (description: string, pattern: string, msg: string, max: number) =>
  withError(Type.String({ minLength: 1, maxLength: max, pattern, description }), { type: 'string_pattern_mismatch', msg });

const searchInput = (max: number, fallback: number) => Closed({ query, since: Type.Optional(since), limit: Type.Optional(limit(max, fallback)) });

const redditName = name('A subreddit, without `r/`: `rust`.', '^[A-Za-z0-9][A-Za-z0-9_]{1,20}$', 'must be a subreddit name (2 to 21 letters, digits or underscores)', 21);
const redditUser = name('A username, without `u/`.', '^[A-Za-z0-9_-]{3,20}$', 'must be a Reddit username (3 to 20 letters, digits, `_` or `-`)', 20);
const redditPost = name('The post id, as in its URL `/comments/<id>/`, with or without `t3_`.', '^(t3_)?[a-z0-9]{1,16}$', 'must be a Reddit post id (`1abc2de` or `t3_1abc2de`)', 19);
const xUser = name('A username, without `@`.', '^[A-Za-z0-9_]{1,15}$', 'must be an X username (1 to 15 letters, digits or underscores)', 15);
const xPost = name('The post id, as in its URL `/status/<id>`.', '^[0-9]{1,19}$', 'must be an X post id (digits)', 19);
const bskyActor = name('A handle (`alice.bsky.social`) or a DID (`did:plc:…`).', '^(did:[a-z]+:[A-Za-z0-9._:%-]+|[A-Za-z0-9.-]+)$', 'must be a Bluesky handle or DID', 253);
const bskyPost = name(
  'The post: its `at://` URI or its `https://bsky.app/profile/<handle>/post/<id>` URL.',
  '^(at://[^\\s/]+/app\\.bsky\\.feed\\.post/[A-Za-z0-9]+|https://bsky\\.app/profile/[^\\s/]+/post/[A-Za-z0-9]+)$',
  'must be a post `at://` URI or bsky.app post URL',
  600,
);
const ytChannel = name('A channel id (`UC…`) or handle (`@name`).', '^(UC[A-Za-z0-9_-]{22}|@[A-Za-z0-9._-]{3,30})$', 'must be a channel id (`UC` and 22 characters) or a handle (`@name`)', 31);
const ytVideo = name('The video id, as in `watch?v=<id>`.', '^[A-Za-z0-9_-]{11}$', 'must be a YouTube video id (11 characters)', 11);
const ghOwner = name('The account that owns the repository.', '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$', 'must be a GitHub login (letters, digits and hyphens, up to 39)', 39);
const ghRepo = name('The repository name.', '^[A-Za-z0-9._-]{1,100}$', 'must be a repository name (letters, digits, `.`, `_`, `-`)', 100);
const ghUser = name('A login (a user or an organisation).', '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$', 'must be a GitHub login (letters, digits and hyphens, up to 39)', 39);
const hnUser = name('A username.', '^[A-Za-z0-9_-]{1,32}$', 'must be a Hacker News username', 32);
const hnItem = name('The item id, as in `item?id=<id>`.', '^[0-9]{1,10}$', 'must be a Hacker News item id (digits)', 10);

const row = <const E extends string, const P extends SocialPlatform>(r: Omit<SocialEndpoint, 'platform' | 'endpoint' | 'price'> & { platform: P; endpoint: E; price?: PriceName }) => ({
  price: 'socialCall' as const,
  ...r,
});

export const SOCIAL_ENDPOINTS = [
  // Hacker News
  row({ platform: 'hackernews', endpoint: 'search', answers: 'posts', summary: 'Stories and comments containing a query, newest first (Algolia HN Search; the official API, stories only, when it fails).', input: searchInput(100, 25) }),
  row({
    platform: 'hackernews',
    endpoint: 'recent',
    answers: 'posts',
    summary: "The stories of one of the site's lists: `new` (newest first), `top`, `best`, `ask`, `show`, `job`.",
    input: Closed({ list: Type.Optional(StringEnum(['new', 'top', 'best', 'ask', 'show', 'job'], { default: 'new', description: 'Which list.' })), limit: Type.Optional(limit(100, 30)), cursor: Type.Optional(cursor) }),
  }),
  row({ platform: 'hackernews', endpoint: 'item', answers: 'thread', summary: 'A story (or comment) with its comments, in the thread order.', input: Closed({ id: hnItem, limit: Type.Optional(comments) }) }),
  row({ platform: 'hackernews', endpoint: 'user', answers: 'profile', summary: "A user's profile: karma, about, when they joined, how many items they submitted.", input: Closed({ username: hnUser }) }),
  // Reddit
  row({ platform: 'reddit', endpoint: 'search', answers: 'posts', summary: 'Posts containing a query, newest first.', input: searchInput(100, 25) }),
  row({
    platform: 'reddit',
    endpoint: 'subreddit',
    answers: 'posts',
    summary: "A subreddit's posts: its newest (`new`, the default), `hot`, `top` (over `time`) or `rising`.",
    input: Closed({
      subreddit: redditName,
      sort: Type.Optional(StringEnum(['new', 'hot', 'top', 'rising'], { default: 'new', description: 'The order.' })),
      time: Type.Optional(StringEnum(['hour', 'day', 'week', 'month', 'year', 'all'], { default: 'day', description: 'For `top`: over what time.' })),
      limit: Type.Optional(limit(100, 25)),
      cursor: Type.Optional(cursor),
    }),
  }),
  row({ platform: 'reddit', endpoint: 'post', answers: 'thread', summary: 'A post with its comments, in the thread order.', input: Closed({ id: redditPost, limit: Type.Optional(comments) }) }),
  row({ platform: 'reddit', endpoint: 'user', answers: 'profile', summary: "A user's profile: karma, when they joined, their profile's title, description and followers.", input: Closed({ username: redditUser }) }),
  // X
  row({ platform: 'x', endpoint: 'search', answers: 'posts', summary: 'Posts of the last seven days containing a query, newest first (recent search; retweets left out).', input: searchInput(100, 25) }),
  row({ platform: 'x', endpoint: 'recent', answers: 'posts', summary: "A user's newest posts (retweets left out).", input: Closed({ username: xUser, limit: Type.Optional(limit(100, 25)), cursor: Type.Optional(cursor) }) }),
  row({ platform: 'x', endpoint: 'post', answers: 'thread', summary: 'A post with the replies of its conversation from the last seven days, in the thread order.', input: Closed({ id: xPost, limit: Type.Optional(comments) }) }),
  row({ platform: 'x', endpoint: 'user', answers: 'profile', summary: "A user's profile: name, description, followers, following, posts, when they joined.", input: Closed({ username: xUser }) }),
  // Bluesky
  row({ platform: 'bluesky', endpoint: 'search', answers: 'posts', summary: 'Posts containing a query, newest first.', input: searchInput(100, 25) }),
  row({ platform: 'bluesky', endpoint: 'recent', answers: 'posts', summary: "An account's own newest posts (replies and reposts left out).", input: Closed({ actor: bskyActor, limit: Type.Optional(limit(100, 25)), cursor: Type.Optional(cursor) }) }),
  row({ platform: 'bluesky', endpoint: 'post', answers: 'thread', summary: 'A post with its replies, in the thread order.', input: Closed({ uri: bskyPost, limit: Type.Optional(comments) }) }),
  row({ platform: 'bluesky', endpoint: 'profile', answers: 'profile', summary: "An account's profile: display name, description, followers, follows, posts.", input: Closed({ actor: bskyActor }) }),
  // YouTube
  row({ platform: 'youtube', endpoint: 'search', answers: 'posts', summary: 'Videos about a query (the phrase), newest first; each call spends 100 units of the key\'s daily quota per page.', input: searchInput(50, 25) }),
  row({ platform: 'youtube', endpoint: 'recent', answers: 'posts', summary: "A channel's newest videos (its uploads).", input: Closed({ channel: ytChannel, limit: Type.Optional(limit(50, 25)), cursor: Type.Optional(cursor) }) }),
  row({ platform: 'youtube', endpoint: 'video', answers: 'thread', summary: 'A video with its comments (each thread with the replies the API gives inline).', input: Closed({ id: ytVideo, limit: Type.Optional(comments) }) }),
  row({ platform: 'youtube', endpoint: 'channel', answers: 'profile', summary: "A channel's profile: title, description, handle, subscribers (unless hidden), videos.", input: Closed({ channel: ytChannel }) }),
  // GitHub
  row({ platform: 'github', endpoint: 'search', answers: 'posts', summary: 'Issues containing a query, newest first.', input: searchInput(100, 25) }),
  row({
    platform: 'github',
    endpoint: 'issues',
    answers: 'posts',
    summary: "A repository's newest issues (pull requests left out).",
    input: Closed({
      owner: ghOwner,
      repo: ghRepo,
      state: Type.Optional(StringEnum(['open', 'closed', 'all'], { default: 'all', description: 'Which issues.' })),
      limit: Type.Optional(limit(100, 25)),
      cursor: Type.Optional(cursor),
    }),
  }),
  row({
    platform: 'github',
    endpoint: 'issue',
    answers: 'thread',
    summary: 'An issue with its comments, oldest first.',
    input: Closed({ owner: ghOwner, repo: ghRepo, number: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The issue number.' }), limit: Type.Optional(comments) }),
  }),
  row({ platform: 'github', endpoint: 'repository', answers: 'repository', summary: 'A repository: description, stars, forks, open issues, language, topics, licence, dates.', input: Closed({ owner: ghOwner, repo: ghRepo }) }),
  row({ platform: 'github', endpoint: 'user', answers: 'profile', summary: "A user's (or an organisation's) profile: name, bio, followers, following, public repositories.", input: Closed({ username: ghUser }) }),
  // Feeds and the web
  row({
    platform: 'feeds',
    endpoint: 'read',
    answers: 'posts',
    summary: "A feed's items, newest first: an RSS, Atom or JSON feed, or a site whose feed is found on its page (read behind the SSRF guard like any page).",
    input: Closed({ url: HttpUrl('The feed, or a site that links one.'), since: Type.Optional(since), limit: Type.Optional(limit(100, 25)) }),
  }),
  row({ platform: 'web', endpoint: 'search', answers: 'posts', summary: 'Web pages containing a query (the phrase), from the search providers of POST /v1/search (the local index among them).', input: searchInput(20, 10) }),
] as const satisfies readonly SocialEndpoint[];

type Row = (typeof SOCIAL_ENDPOINTS)[number];
/** `platform/endpoint` of every row: what the searcher's runners are keyed by. */
export type SocialEndpointId = Row extends infer R ? (R extends { platform: infer P extends string; endpoint: infer E extends string } ? `${P}/${E}` : never) : never;

const BY_ID = new Map<string, SocialEndpoint>(SOCIAL_ENDPOINTS.map((e) => [`${e.platform}/${e.endpoint}`, e]));

/** The row of `platform/endpoint`, or undefined. */
export function socialEndpoint(platform: string, endpoint: string): SocialEndpoint | undefined {
  return BY_ID.get(`${platform}/${endpoint}`);
}

export const isSocialPlatform = (platform: string): platform is SocialPlatform => (SOCIAL_PLATFORMS as readonly string[]).includes(platform);

/** The component name of an endpoint's input in the OpenAPI document. */
export const socialInputName = (e: Pick<SocialEndpoint, 'platform' | 'endpoint'>) => `Social.${e.platform}.${e.endpoint}`;

/** An endpoint as the catalog shows it: its inputs as plain JSON Schema, its price key and credits. */
export function socialEndpointJson(e: SocialEndpoint): Record<string, unknown> {
  return {
    platform: e.platform,
    endpoint: e.endpoint,
    path: `/v1/social/${e.platform}/${e.endpoint}`,
    summary: e.summary,
    answers: e.answers,
    input: JSON.parse(JSON.stringify(e.input)) as unknown,
    price: { key: e.price, credits: PRICES[e.price].credits },
  };
}
