/**
 * URL identity for the frontier: which URLs are the same page, and which belong to a site.
 * Map uses it to dedupe what sitemaps and links list; the crawl frontier dedupes its queue
 * with the same keys (`deduplicateSimilarURLs`).
 *
 * - `cleanUrl` is the form a URL is listed in: absolute http(s), no fragment, no user or
 *   password, lower-case host, no default port (WHATWG URL parsing does those two), tracking
 *   parameters removed (`utm_*`, `gclid`, `fbclid`, …) and session ids removed (the path
 *   parameter `;jsessionid=…`, query parameters `PHPSESSID`, `jsessionid`, `sessionid`,
 *   `ASPSESSIONID…`, … and `sid` when its value is a token: `isSessionParam`): both name a
 *   visit, never a page, and a site hands out new ones on every view. Null for anything else,
 *   and for a URL over MAX_URL_LENGTH characters.
 * - `urlKey` is the dedupe key of a cleaned URL: it further ignores the scheme, a leading
 *   `www.`, a trailing slash and the order of the query parameters.
 * - `siteOf` / `inSite`: a site is a host name with `www.` taken off; a URL is in the site
 *   when its host is the site with or without `www.`, or, with `includeSubdomains`, any
 *   host ending in `.<site>`. The port is not part of a site.
 */

/** Query parameters that say where a visitor came from, never which page it is. */
const TRACKING_PARAMS = new Set([
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'rb_clickid',
  's_cid',
  's_kwcid',
  'ef_id',
  'ref_src',
  'srsltid',
  'gad_source',
  'gad_campaignid',
  'epik',
  'irclickid',
  '_kx',
]);

export function isTrackingParam(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMS.has(lower);
}

/** Query parameters that only ever carry a session id (Java, PHP, ASP, ColdFusion, shop engines). */
const SESSION_PARAMS = new Set(['jsessionid', 'phpsessid', 'sessionid', 'session_id', 'sessid', 'aspsessionid', 'cfid', 'cftoken', 'oscsid', 'zenid']);

/** A value that looks like a session token: 16 or more letters and digits. */
const TOKEN = /^[0-9a-z]{16,}$/i;

/**
 * Whether a query parameter carries a session id: a name that always does (`PHPSESSID`,
 * `jsessionid`, `ASPSESSIONIDXXXXXXXX`, …), or `sid` with a token for its value (a short
 * `sid=42` may well be a story or site id, and is kept).
 */
export function isSessionParam(name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (SESSION_PARAMS.has(lower) || lower.startsWith('aspsessionid')) return true;
  return lower === 'sid' && TOKEN.test(value);
}

/** Session ids as path parameters: `/a;jsessionid=0A1B…`, `/a;sid=…` (up to the next `/` or `;`). */
const SESSION_PATH = /;(?:jsessionid|phpsessid|sessionid|sid)=[^/;]*/gi;

/** A URL as the frontier holds it: cleaned, with its dedupe key and its host without `www.`. */
export interface UrlIdentity {
  readonly url: string;
  readonly key: string;
  readonly host: string;
}

/**
 * The longest URL the frontier holds, in characters (the ref and the URL it makes): servers
 * refuse longer request lines (8 KiB is common), sitemaps.org allows 2,048. Each held URL is
 * kept in the job's state, keyed, compared and fetched; a page of 100 links of 100 KB each held
 * a crawl's thread over a second.
 */
export const MAX_URL_LENGTH = 8 * 1024;

function parse(ref: string, base?: string): URL | null {
  if (ref.length > MAX_URL_LENGTH * 2) return null;
  const trimmed = ref.trim();
  if (!trimmed || trimmed.startsWith('#') || trimmed.length > MAX_URL_LENGTH) return null;
  let url: URL;
  try {
    url = base === undefined ? new URL(trimmed) : new URL(trimmed, base);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.href.length > MAX_URL_LENGTH) return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  if (url.pathname.includes(';')) url.pathname = url.pathname.replace(SESSION_PATH, '');
  if (url.search) {
    const params = [...url.searchParams];
    const kept = params.filter(([name, value]) => !isTrackingParam(name) && !isSessionParam(name, value));
    if (kept.length !== params.length) url.search = kept.length ? new URLSearchParams(kept).toString() : '';
  }
  return url;
}

function keyOf(url: URL): string {
  let path = url.pathname;
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  let query = '';
  if (url.search) {
    const params = [...url.searchParams].sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
    query = `?${new URLSearchParams(params).toString()}`;
  }
  return `${withoutWww(url.hostname)}${url.port ? `:${url.port}` : ''}${path}${query}`;
}

/** `ref` (absolute, or relative to `base`) cleaned, keyed and scoped in one parse; null when not http(s). */
export function identify(ref: string, base?: string): UrlIdentity | null {
  const url = parse(ref, base);
  return url ? { url: url.href, key: keyOf(url), host: withoutWww(url.hostname) } : null;
}

/** `ref` (absolute, or relative to `base`) as a listed URL; null when it is not http(s) or does not parse. */
export function cleanUrl(ref: string, base?: string): string | null {
  return parse(ref, base)?.href ?? null;
}

/** A host name without a leading `www.`. */
export function withoutWww(hostname: string): string {
  return hostname.startsWith('www.') ? hostname.slice(4) : hostname;
}

/** The dedupe key of a URL cleaned by `cleanUrl`: no scheme, no `www.`, no trailing slash, sorted query. */
export function urlKey(cleaned: string): string {
  return keyOf(new URL(cleaned));
}

/** The site a URL belongs to: its host name without `www.`. */
export function siteOf(url: string | URL): string {
  return withoutWww((typeof url === 'string' ? new URL(url) : url).hostname);
}

/** Whether a host (without `www.`) belongs to `site` (see the module comment). */
export function hostInSite(host: string, site: string, includeSubdomains: boolean): boolean {
  return host === site || (includeSubdomains && host.endsWith(`.${site}`));
}

/** Whether `url` belongs to `site` (see the module comment). */
export function inSite(url: string | URL, site: string, includeSubdomains: boolean): boolean {
  let host: string;
  try {
    host = withoutWww((typeof url === 'string' ? new URL(url) : url).hostname);
  } catch {
    return false;
  }
  return hostInSite(host, site, includeSubdomains);
}

/**
 * URLs in first-seen order under their dedupe keys. A later sighting of a URL already held
 * only upgrades it from http to https, and fills a missing title or description.
 */
export class UrlSet<T extends { url: string; title?: string; description?: string }> {
  private readonly byKey = new Map<string, T>();

  get size(): number {
    return this.byKey.size;
  }

  has(url: string): boolean {
    return this.byKey.has(urlKey(url));
  }

  /** Adds `entry` (its `url` already cleaned; `key` its urlKey, when known); true when it was new. */
  add(entry: T, key: string = urlKey(entry.url)): boolean {
    const held = this.byKey.get(key);
    if (!held) {
      this.byKey.set(key, entry);
      return true;
    }
    if (held.url.startsWith('http:') && entry.url.startsWith('https:')) held.url = entry.url;
    if (!held.title && entry.title) held.title = entry.title;
    if (!held.description && entry.description) held.description = entry.description;
    return false;
  }

  /** The entry held for `url`'s key. */
  get(url: string): T | undefined {
    return this.byKey.get(urlKey(url));
  }

  values(): T[] {
    return [...this.byKey.values()];
  }
}
