/**
 * The settings that point the service's platform clients at the local stand-ins
 * (test/helpers/fake-*.ts), for the stand-ins a test started; a platform left out stays at its
 * default (and, where it needs a credential, not configured).
 */
import type { FakeBluesky } from './fake-bluesky.js';
import type { FakeGitHub } from './fake-github.js';
import type { FakeHackerNews } from './fake-hackernews.js';
import type { FakeReddit } from './fake-reddit.js';
import type { FakeX } from './fake-x.js';
import type { FakeYouTube } from './fake-youtube.js';

export interface PlatformFakes {
  readonly hn?: FakeHackerNews;
  readonly reddit?: FakeReddit;
  readonly x?: FakeX;
  readonly bsky?: FakeBluesky;
  readonly yt?: FakeYouTube;
  readonly gh?: FakeGitHub;
}

export function platformEnv(f: PlatformFakes): Record<string, string> {
  return {
    ...(f.hn ? { HACKERNEWS_URL: f.hn.algoliaUrl, HACKERNEWS_FIREBASE_URL: f.hn.firebaseUrl } : {}),
    ...(f.reddit
      ? { REDDIT_URL: f.reddit.url, REDDIT_OAUTH_URL: f.reddit.oauthUrl, REDDIT_CLIENT_ID: f.reddit.clientId, REDDIT_CLIENT_SECRET: f.reddit.clientSecret }
      : {}),
    ...(f.x ? { X_API_URL: f.x.url, X_BEARER_TOKEN: f.x.token } : {}),
    ...(f.bsky ? { BLUESKY_URL: f.bsky.url, BLUESKY_IDENTIFIER: f.bsky.identifier, BLUESKY_APP_PASSWORD: f.bsky.password } : {}),
    ...(f.yt ? { YOUTUBE_API_URL: f.yt.url, YOUTUBE_API_KEY: f.yt.key } : {}),
    ...(f.gh ? { GITHUB_API_URL: f.gh.url, GITHUB_TOKEN: f.gh.token } : {}),
  };
}
