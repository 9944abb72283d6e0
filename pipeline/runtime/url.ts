/**
 * The one rule by which the service files a page under its URL: the page cache
 * (pipeline/pages/cache.ts), change tracking and monitor snapshots, and the mention sources
 * that tell posts apart by link (pipeline/mentions/web.ts, pipeline/clients/social/feeds.ts).
 * It lives in the runtime so that every family may apply it without importing another's
 * rules (docs/architecture.md, the import table).
 *
 * WHATWG parsing: scheme and host lower-cased, default port and dot segments dropped, an empty
 * path made `/`; the `#fragment`, which never reaches the server, is dropped. Query parameters
 * keep their order: servers may read it.
 */

/** The URL a page is filed under; a string that does not parse is used as it is. */
export function normalizeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}
