/**
 * Social profile links: which network a URL is a profile on, and the profile's URL made
 * canonical (https, host without `www.`/`m.`, no query or fragment, no trailing slash). Share
 * buttons, intents, single posts and the networks' own pages are not profiles.
 *
 * `linkedin` is the professional network: a company page (`/company/…`, `/school/…`,
 * `/showcase/…`) is preferred over a person's (`/in/…`) as the company's profile.
 */

export type Network =
  | 'linkedin' | 'x' | 'facebook' | 'instagram' | 'youtube' | 'tiktok' | 'github' | 'pinterest' | 'xing' | 'threads' | 'bluesky' | 'mastodon' | 'vimeo' | 'telegram';

export interface SocialProfile {
  readonly network: Network;
  readonly url: string;
}

const HOSTS: Readonly<Record<string, Network>> = {
  'linkedin.com': 'linkedin',
  'twitter.com': 'x',
  'x.com': 'x',
  'facebook.com': 'facebook',
  'fb.com': 'facebook',
  'instagram.com': 'instagram',
  'youtube.com': 'youtube',
  'tiktok.com': 'tiktok',
  'github.com': 'github',
  'pinterest.com': 'pinterest',
  'xing.com': 'xing',
  'threads.net': 'threads',
  'bsky.app': 'bluesky',
  'mastodon.social': 'mastodon',
  'vimeo.com': 'vimeo',
  't.me': 'telegram',
};

/** First path segments that are a network's own pages or actions, never a profile. */
const NOT_PROFILES: Readonly<Partial<Record<Network, readonly string[]>>> = {
  linkedin: ['sharearticle', 'sharing', 'shareArticle', 'feed', 'jobs', 'login', 'signup', 'legal', 'help', 'pulse', 'posts', 'learning'],
  x: ['intent', 'share', 'home', 'search', 'hashtag', 'i', 'login', 'signup', 'settings', 'tos', 'privacy', 'explore'],
  facebook: ['sharer', 'sharer.php', 'share.php', 'dialog', 'plugins', 'login', 'login.php', 'policies', 'help', 'privacy', 'legal', 'tr', 'share', 'watch', 'events', 'hashtag', 'photo.php', 'story.php', 'permalink.php'],
  instagram: ['p', 'reel', 'reels', 'explore', 'accounts', 'about', 'legal', 'stories', 'tv'],
  youtube: ['watch', 'embed', 'shorts', 'results', 'playlist', 'feed', 'redirect', 'about', 't', 'howyoutubeworks', 'premium', 'live'],
  tiktok: ['embed', 'legal', 'tag', 'music', 'discover', 'share', 'login'],
  github: ['login', 'features', 'about', 'pricing', 'sponsors', 'topics', 'marketplace', 'site', 'settings', 'explore', 'orgs', 'apps'],
  pinterest: ['pin', 'search', 'ideas', 'today'],
  xing: ['login', 'jobs', 'news', 'app', 'spi'],
  threads: [],
  bluesky: ['search', 'intent', 'settings'],
  mastodon: ['share', 'about', 'explore', 'public'],
  vimeo: ['channels', 'groups', 'categories', 'watch', 'search', 'features', 'upgrade', 'ondemand'],
  telegram: ['share', 'joinchat', 's', 'addstickers'],
};

/** Networks whose profile names are case-insensitive (the path is lower-cased); the others' (YouTube channel ids) are not. */
const CASE_BLIND: ReadonlySet<Network> = new Set(['linkedin', 'x', 'facebook', 'instagram', 'github', 'tiktok', 'pinterest', 'xing', 'threads', 'bluesky']);

function networkOf(host: string): Network | null {
  const bare = host.replace(/^(www\.|m\.|mobile\.|[a-z]{2}(-[a-z]{2})?\.(?=linkedin\.com$))/, '');
  return HOSTS[bare] ?? null;
}

/** The profile `href` links to, when it is one (see the file comment); null otherwise. */
export function socialProfile(href: string): SocialProfile | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const network = networkOf(url.hostname.toLowerCase());
  if (!network) return null;
  const segments = url.pathname.split('/').filter(Boolean);
  const first = (segments[0] ?? '').toLowerCase();
  if (!first || (NOT_PROFILES[network] ?? []).includes(first)) return null;
  let keep = 1;
  if (network === 'linkedin') {
    if (!['company', 'school', 'showcase', 'in'].includes(first) || !segments[1]) return null;
    keep = 2;
  } else if (network === 'youtube' && ['channel', 'c', 'user'].includes(first)) {
    if (!segments[1]) return null;
    keep = 2;
  } else if (network === 'facebook' && first === 'pages') {
    keep = Math.min(segments.length, 3);
  } else if (network === 'facebook' && first === 'profile.php') {
    const id = url.searchParams.get('id');
    return id && /^\d+$/.test(id) ? { network, url: `https://facebook.com/profile.php?id=${id}` } : null;
  } else if (network === 'xing' && (first === 'pages' || first === 'companies' || first === 'profile')) {
    if (!segments[1]) return null;
    keep = 2;
  } else if (network === 'bluesky') {
    if (first !== 'profile' || !segments[1]) return null;
    keep = 2;
  }
  // Otherwise the profile is the first segment (`/name/status/…` is a post of `/name`).
  const host = url.hostname.toLowerCase().replace(/^(www\.|m\.|mobile\.)/, '');
  const canonicalHost = network === 'x' ? 'x.com' : network === 'facebook' ? 'facebook.com' : network === 'linkedin' ? 'linkedin.com' : host;
  const path = segments.slice(0, keep).join('/');
  return { network, url: `https://${canonicalHost}/${CASE_BLIND.has(network) ? path.toLowerCase() : path}` };
}

/** The company's professional-network profile among `profiles`: a company page over a person's. */
export function linkedinOf(profiles: readonly SocialProfile[]): string | null {
  const linkedin = profiles.filter((p) => p.network === 'linkedin');
  return (linkedin.find((p) => !p.url.includes('/in/')) ?? linkedin[0])?.url ?? null;
}
