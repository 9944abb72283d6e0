/**
 * The settings of mention watches (POST /v1/mentions/watches …): where each platform's API is
 * reached and with which credentials, and how collections are paced. This family's part of the one settings table:
 * pipeline/service/settings.ts assembles the parts, pipeline/runtime/config.ts parses them
 * (`satisfies SettingsTable` checks each entry here); README.md's "Configuration" lists them.
 *
 * `<PLATFORM>_URL` replaces the platform's documented API base, so a deployment (and our
 * tests) can point a connector at a proxy or a stand-in; the endpoints are operator
 * configuration and may be private addresses. A platform whose credentials are unset is
 * reported as not configured on the watch and in test answers (Reddit falls back to its
 * public JSON instead). `web` asks the search providers (SEARCH_PROVIDERS, the local index
 * among them); `feeds` reads the feed URLs of the watch through the fetcher's SSRF guard.
 */
import type { ConfigOf, SettingsTable } from '../runtime/config.js';

export const MENTION_SETTINGS = {
  hackernewsUrl: {
    env: 'HACKERNEWS_URL',
    type: 'string',
    default: 'https://hn.algolia.com/api/v1',
    description: "Base of Algolia's Hacker News Search API (`/search_by_date` below it). No key.",
  },
  hackernewsFirebaseUrl: {
    env: 'HACKERNEWS_FIREBASE_URL',
    type: 'string',
    default: 'https://hacker-news.firebaseio.com/v0',
    description: 'Base of the official Hacker News API, asked when Algolia fails (newest stories only: it has no search).',
  },
  redditUrl: {
    env: 'REDDIT_URL',
    type: 'string',
    default: 'https://www.reddit.com',
    description: "Reddit's site: its token endpoint (`/api/v1/access_token`) and the public `search.json`, used when no app credentials are set or OAuth fails (heavily throttled).",
  },
  redditOauthUrl: {
    env: 'REDDIT_OAUTH_URL',
    type: 'string',
    default: 'https://oauth.reddit.com',
    description: "Where Reddit's API is asked with an app-only OAuth token (`/search`).",
  },
  redditClientId: {
    env: 'REDDIT_CLIENT_ID',
    type: 'string',
    default: null,
    description: 'Client id of a Reddit "script" or web app (reddit.com/prefs/apps). With REDDIT_CLIENT_SECRET: OAuth, about 100 queries a minute.',
  },
  redditClientSecret: {
    env: 'REDDIT_CLIENT_SECRET',
    type: 'string',
    default: null,
    secret: true,
    description: "The Reddit app's secret.",
  },
  blueskyUrl: {
    env: 'BLUESKY_URL',
    type: 'string',
    default: 'https://bsky.social',
    description: 'The Bluesky PDS where the app-password session is made (`com.atproto.server.createSession`) and searches are asked (`app.bsky.feed.searchPosts`).',
  },
  blueskyIdentifier: {
    env: 'BLUESKY_IDENTIFIER',
    type: 'string',
    default: null,
    description: 'Handle or e-mail of the Bluesky account searches are made as. With BLUESKY_APP_PASSWORD; unset: Bluesky is not configured (its unauthenticated search is unreliable).',
  },
  blueskyAppPassword: {
    env: 'BLUESKY_APP_PASSWORD',
    type: 'string',
    default: null,
    secret: true,
    description: 'An app password of that account (Settings → App passwords), never the account password.',
  },
  githubApiUrl: {
    env: 'GITHUB_API_URL',
    type: 'string',
    default: 'https://api.github.com',
    description: "Base of GitHub's REST API (`/search/issues` below it; a GitHub Enterprise Server's `https://<host>/api/v3`).",
  },
  githubToken: {
    env: 'GITHUB_TOKEN',
    type: 'string',
    default: null,
    secret: true,
    description: 'A GitHub token (30 searches a minute). Unset: GitHub is not configured.',
  },
  youtubeApiUrl: {
    env: 'YOUTUBE_API_URL',
    type: 'string',
    default: 'https://www.googleapis.com/youtube/v3',
    description: 'Base of the YouTube Data API (`/search` below it; each search costs 100 of the default 10,000 daily quota units).',
  },
  youtubeApiKey: {
    env: 'YOUTUBE_API_KEY',
    type: 'string',
    default: null,
    secret: true,
    description: 'A YouTube Data API key. Unset: YouTube is not configured.',
  },
  xApiUrl: {
    env: 'X_API_URL',
    type: 'string',
    default: 'https://api.x.com',
    description: "Base of the X API (`/2/tweets/search/recent` below it: the last 7 days).",
  },
  xBearerToken: {
    env: 'X_BEARER_TOKEN',
    type: 'string',
    default: null,
    secret: true,
    description: "An X app's bearer token (a paid tier with recent search). Unset: X is not configured.",
  },
  mentionStartsPerSecond: {
    env: 'MENTION_STARTS_PER_SECOND',
    type: 'integer',
    default: 20,
    min: 1,
    max: 10000,
    description: 'Most watch collections one frontier process starts a second; collections due together start at this pace, oldest due first.',
  },
  mentionPlatformTimeoutMs: {
    env: 'MENTION_PLATFORM_TIMEOUT_MS',
    type: 'integer',
    default: 30000,
    min: 1000,
    max: 300000,
    description: 'How long a collection waits for one platform (all its terms and pages); a platform that takes longer is that collection\'s error for it. Also the longest one social call (POST /v1/social/…) waits: past it, `platform_timeout`.',
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type MentionsConfig = ConfigOf<typeof MENTION_SETTINGS>;
