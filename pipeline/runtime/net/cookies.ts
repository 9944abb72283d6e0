/**
 * The cookies of one fetch (pipeline/runtime/net/http.ts): a jar that lives as long as one call of
 * `HttpFetcher.fetch` — one scrape, one job page, one robots.txt — and is never shared
 * between fetches, keys or jobs. It exists so a site can set a cookie and redirect (a consent
 * or session gate: `Set-Cookie: consent=1` + `302` to the same URL) and see that cookie on
 * the next hop, as a browser would.
 *
 * - Cookies the sites set: tough-cookie's `CookieJar`, RFC 6265 rules — domain matching
 *   (host-only unless `Domain=`, never a public suffix), path, `Secure` (only over https:
 *   `allowSecureOnLocal` off, so plain-http localhost is no secure context either), expiry
 *   (`Max-Age=0` or a past `Expires` removes a cookie), `HttpOnly` (this is an HTTP client, it
 *   sends them). Every hop's `Set-Cookie` is stored for that hop's URL; a malformed or
 *   refused one is dropped silently, as browsers do. SameSite is not enforced: it guards a
 *   user's standing session against requests another site starts, and this jar starts empty
 *   and holds only what the sites of this one fetch set during it.
 * - The caller's `Cookie` header (the `headers` scrape option) is sent first, the jar's
 *   cookies after it (a name in both is sent twice, the caller's first). It is scoped as a
 *   browser scopes a host-only cookie of the first URL with `Path=/`, `Secure` when that URL
 *   is https: sent to any hop on the same host name (any path or port), never to another
 *   host — not a sibling subdomain, not another site — and never over http once the fetch
 *   started over https. got drops it the same way on a redirect to another host; browsers
 *   never let a page set the header at all. (Authorization stays stricter, same origin only:
 *   pipeline/runtime/net/http.ts.)
 *
 * Cookies are secrets: nothing here logs them or puts them into an error, and nothing leaves
 * this object but the Cookie header of a request.
 */
import { CookieJar } from 'tough-cookie';

export class FetchCookies {
  /** Made at the first Set-Cookie: most fetches get none, and an empty jar's lookup is not free. */
  private jar: CookieJar | null = null;
  private readonly callerHost: string;
  private readonly callerSecure: boolean;

  /** `first`: the fetch's first URL; `caller`: the Cookie header the caller sent, if any. */
  constructor(
    first: URL,
    private readonly caller: string | undefined,
  ) {
    this.callerHost = first.hostname;
    this.callerSecure = first.protocol === 'https:';
  }

  /** Stores a response's Set-Cookie headers for the URL that answered. */
  store(url: URL, setCookies: readonly string[]): void {
    if (setCookies.length === 0) return;
    this.jar ??= new CookieJar(undefined, { allowSecureOnLocal: false });
    for (const line of setCookies) this.jar.setCookieSync(line, url.href, { ignoreError: true });
  }

  /** The Cookie header of a request to `url` ('' when it carries none). */
  header(url: URL): string {
    const own = this.caller && this.callerMayGo(url) ? this.caller : '';
    const jar = this.jar ? this.jar.getCookieStringSync(url.href) : '';
    return own && jar ? `${own}; ${jar}` : own || jar;
  }

  private callerMayGo(url: URL): boolean {
    return url.hostname === this.callerHost && (!this.callerSecure || url.protocol === 'https:');
  }
}
