/**
 * The request policy of a render's context (`context.route('**\/*', …)`), asked before each
 * request the page makes:
 *
 * - `blockAssets` (default true): images, fonts and media are aborted — they change neither
 *   the DOM nor the text, and they are most of a page's bytes;
 * - the SSRF guard: a URL whose host is refused (pipeline/net/guard.ts) is aborted before it
 *   is sent, with the answer cached per host for the render. A refused main document is
 *   remembered so the render fails with `url_blocked` rather than a network error.
 *   Redirect hops do not pass a route handler (Chromium follows them itself); they meet the
 *   same guard in the proxy every connection goes through (proxy.ts).
 * - `acceptLanguage` (from `location`) is set on every request: Chromium would otherwise send
 *   only the context's locale (`de-DE`), not the weighted list the fetcher sends;
 * - data:, blob: and about: are left to the browser; any other scheme (file:, ftp:, …) is
 *   refused, whoever asks for it (a script of the page or of `executeJavascript`).
 *
 * With nothing to block or rewrite (`blockAssets: false`, no `location`) no route is set: a
 * route pauses every request of the page for a round trip to this process, and the guard
 * needs none of it — every connection already passes the guarded proxy (proxy.ts), which
 * refuses a main document (`x-wds-proxy-error`, or a refused tunnel by host) as the route
 * would. Web content cannot load other schemes in Chromium by itself (file: from an http(s)
 * page is "not allowed to load local resource"); the renderer tests hold that with and
 * without the route.
 */
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import type { NetGuard } from '../../pipeline/net/guard.js';

export const BLOCKED_ASSET_TYPES: ReadonlySet<string> = new Set(['image', 'font', 'media']);

/** Schemes whose content is in the page itself; every other non-http(s) scheme (file:, ftp:, chrome:) is refused. */
const INLINE_SCHEMES: ReadonlySet<string> = new Set(['data:', 'blob:', 'about:']);

export interface PolicyState {
  /** Why the main document was refused, when it was. */
  mainRefusal: Error | null;
}

function isMainDocument(request: Request, page: () => Page | null): boolean {
  if (!request.isNavigationRequest()) return false;
  const main = page();
  try {
    return main !== null && request.frame() === main.mainFrame();
  } catch {
    return false;
  }
}

export async function applyPolicy(
  context: BrowserContext,
  settings: { readonly guard: NetGuard; readonly blockAssets: boolean; readonly acceptLanguage?: string | null },
  page: () => Page | null,
): Promise<PolicyState> {
  const state: PolicyState = { mainRefusal: null };
  if (!settings.blockAssets && !settings.acceptLanguage) return state;
  const hosts = new Map<string, Promise<(Error & { code?: string }) | null>>();
  const refusalOf = (url: URL) => {
    const key = `${url.protocol}//${url.host}`;
    let found = hosts.get(key);
    if (!found) {
      found = settings.guard.check(url).then(
        () => null,
        (error: Error & { code?: string }) => error,
      );
      hosts.set(key, found);
    }
    return found;
  };
  // A route answered after its context closed (the render's timeout) throws; nobody waits for it.
  await context.route('**/*', (route) => decide(route).catch(() => undefined));
  async function decide(route: Route): Promise<void> {
    const request = route.request();
    if (settings.blockAssets && BLOCKED_ASSET_TYPES.has(request.resourceType())) return route.abort('blockedbyclient');
    let url: URL;
    try {
      url = new URL(request.url());
    } catch {
      return route.abort('invalidurl');
    }
    if (INLINE_SCHEMES.has(url.protocol)) return route.continue();
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return route.abort('accessdenied');
    const refusal = await refusalOf(url);
    if (refusal) {
      if (isMainDocument(request, page)) state.mainRefusal ??= refusal;
      return route.abort('blockedbyclient');
    }
    if (settings.acceptLanguage) return route.continue({ headers: { ...request.headers(), 'accept-language': settings.acceptLanguage } });
    return route.continue();
  }
  return state;
}
