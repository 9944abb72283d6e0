/**
 * The mention connectors of a process, one per platform, built once from the settings
 * (pipeline/mentions/settings.ts) and shared by every collection the process runs:
 * each keeps what it should across collections (OAuth tokens, Bluesky sessions, feed
 * validators and discovered feeds).
 *
 * - Social platforms and Hacker News: their clients (pipeline/clients/social/), pointed at
 *   `<PLATFORM>_URL` with their credentials; the service-client fetcher (operator endpoints
 *   may be private addresses).
 * - `feeds`: feed and site URLs come from callers, so they are read through a fetcher with
 *   the SSRF guard of every page fetch (FETCH_ALLOW_PRIVATE and nothing else lets a private
 *   address through).
 * - `web`: the search providers of POST /v1/search, in SEARCH_PROVIDERS order, the local
 *   index among them.
 *
 * The same clients answer the social catalog (schemas/api/social.ts, actors/searcher/social.ts):
 * `platformClients` builds them once, typed per platform, and `connectorsOf` hands them to
 * collections as connectors, so a process holds one client per platform for both.
 *
 * `platformReadiness` says, without building anything, which platforms lack credentials: the
 * gateway shows it on every watch and in the social catalog.
 */
import { BlueskyConnector } from '../clients/social/bluesky.js';
import { FeedsConnector } from '../clients/social/feeds.js';
import { GitHubConnector } from '../clients/social/github.js';
import { HackerNewsConnector } from '../clients/social/hackernews.js';
import { RedditConnector } from '../clients/social/reddit.js';
import type { Connector, Platform } from '../clients/social/types.js';
import { XConnector } from '../clients/social/x.js';
import { YouTubeConnector } from '../clients/social/youtube.js';
import type { RuntimeConfig } from '../runtime/config.js';
import { NetGuard } from '../runtime/net/guard.js';
import { HttpFetcher } from '../runtime/net/http.js';
import type { Store } from '../runtime/store/store.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import { searchProviders } from '../search/providers.js';
import type { SearchConfig } from '../search/settings.js';
import type { MentionsConfig } from './settings.js';
import { WebConnector } from './web.js';

export type Connectors = ReadonlyMap<Platform, Connector>;

const pair = <A, B>(a: A | null, b: B | null) => (a !== null && b !== null ? { a, b } : null);

/** One client per platform, typed: what the social catalog's runners ask. */
export interface PlatformClients {
  readonly web: WebConnector;
  readonly feeds: FeedsConnector;
  readonly reddit: RedditConnector;
  readonly hackernews: HackerNewsConnector;
  readonly x: XConnector;
  readonly bluesky: BlueskyConnector;
  readonly youtube: YouTubeConnector;
  readonly github: GitHubConnector;
}

export type ConnectorsConfig = MentionsConfig & SearchConfig & Pick<RuntimeConfig, 'fetchAllowPrivate' | 'fetchMaxBytes'>;

export function platformClients(config: ConnectorsConfig, store: Store, writer?: Pick<BatchWriter, 'flush' | 'pending'>): PlatformClients {
  const reddit = pair(config.redditClientId, config.redditClientSecret);
  const bluesky = pair(config.blueskyIdentifier, config.blueskyAppPassword);
  const feedsFetcher = new HttpFetcher({ guard: new NetGuard({ allowPrivate: config.fetchAllowPrivate }), maxBytes: config.fetchMaxBytes });
  return {
    web: new WebConnector({ providers: searchProviders(config, store, writer), perProviderMs: config.searchTimeoutMs }),
    feeds: new FeedsConnector({ fetcher: feedsFetcher }),
    reddit: new RedditConnector({ url: config.redditUrl, oauthUrl: config.redditOauthUrl, credentials: reddit && { clientId: reddit.a, clientSecret: reddit.b } }),
    hackernews: new HackerNewsConnector({ algoliaUrl: config.hackernewsUrl, firebaseUrl: config.hackernewsFirebaseUrl }),
    x: new XConnector({ apiUrl: config.xApiUrl, bearerToken: config.xBearerToken }),
    bluesky: new BlueskyConnector({ url: config.blueskyUrl, credentials: bluesky && { identifier: bluesky.a, appPassword: bluesky.b } }),
    youtube: new YouTubeConnector({ apiUrl: config.youtubeApiUrl, apiKey: config.youtubeApiKey }),
    github: new GitHubConnector({ apiUrl: config.githubApiUrl, token: config.githubToken }),
  };
}

/** The clients as mention connectors, by platform: what collections ask. */
export function connectorsOf(clients: PlatformClients): Connectors {
  const connectors: Connector[] = Object.values(clients);
  return new Map(connectors.map((c) => [c.platform, c]));
}

type ReadinessConfig = Pick<MentionsConfig, 'blueskyIdentifier' | 'blueskyAppPassword' | 'githubToken' | 'youtubeApiKey' | 'xBearerToken'>;

/** Per platform: null when it can be asked, else the settings it lacks (as the connectors say it). */
export function platformReadiness(config: ReadinessConfig): Readonly<Record<Platform, string | null>> {
  return {
    web: null,
    feeds: null,
    reddit: null,
    hackernews: null,
    x: config.xBearerToken ? null : 'X_BEARER_TOKEN is not set',
    bluesky: config.blueskyIdentifier && config.blueskyAppPassword ? null : 'BLUESKY_IDENTIFIER and BLUESKY_APP_PASSWORD are not set',
    youtube: config.youtubeApiKey ? null : 'YOUTUBE_API_KEY is not set',
    github: config.githubToken ? null : 'GITHUB_TOKEN is not set',
  };
}
