/**
 * The site a request names: `url` is a domain or any URL on it ("example.com",
 * "https://www.example.com/about"), and both name the same site.
 *
 * - The site's origin is the URL's scheme and host (a bare domain is `https://`); readers start
 *   at its home page, `<origin>/`, whatever path the caller gave.
 * - The site's key (`domain`) is its registrable domain, lower case, via tldts
 *   (`shop.example.co.uk` → `example.co.uk`); a host without one (an IP address, `localhost`)
 *   is its own key, with its port. `www.example.com/about` and `example.com` share a key: that
 *   is what a stored company answer is filed under.
 * - Only http(s); credentials in the URL are dropped; anything else is `null` (the gateway
 *   answers 422).
 */
import { parse as parseDomain } from 'tldts';

export interface Site {
  /** `https://www.example.com` (scheme, host and a port other than the default). */
  readonly origin: string;
  /** `<origin>/`. */
  readonly home: string;
  /** The registrable domain, or the host (with its port) when there is none. */
  readonly domain: string;
  /** The host, lower case, without port. */
  readonly host: string;
  /** Keyed by host and port (no registrable domain): only that host and port are the site. */
  readonly byHost: boolean;
}

/** The site `input` names, or null when it names none (see the file comment). */
export function siteOf(input: string): Site | null {
  const raw = input.trim();
  if (!raw || /\s/.test(raw)) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return null;
  const host = url.hostname.toLowerCase();
  const parsed = parseDomain(host);
  const isIp = parsed.isIp === true || host.startsWith('[');
  if (!isIp && host !== 'localhost' && !host.includes('.')) return null;
  const domain = !isIp && parsed.domain ? parsed.domain : url.host.toLowerCase();
  return { origin: url.origin, home: `${url.origin}/`, domain, host, byHost: isIp || !parsed.domain };
}

/** Whether `url` is on the site: the same registrable domain (any subdomain), or for a site keyed by host, the same host and port. */
export function onSite(site: Site, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (site.byHost) return parsed.host.toLowerCase() === new URL(site.origin).host;
  const host = parsed.hostname.toLowerCase();
  return host === site.domain || host.endsWith(`.${site.domain}`);
}

/** `path` (with its query) on the site's origin. */
export function siteUrl(site: Site, path: string): string {
  return new URL(path, site.home).href;
}
