/**
 * The request policy of a render's context (`context.route('**\/*', …)`, set when a header is
 * rewritten: see below), asked before each request the page makes:
 *
 * - `blockAssets` (default true): images, fonts and media are aborted — they change neither
 *   the DOM nor the text, and they are most of a page's bytes;
 * - the SSRF guard: a URL whose host is refused (pipeline/runtime/net/guard.ts) is aborted before it
 *   is sent, with the answer cached per host for the render. A refused main document is
 *   remembered so the render fails with `url_blocked` rather than a network error.
 *   Redirect hops do not pass a route handler (Chromium follows them itself); they meet the
 *   same guard in the proxy every connection goes through (proxy.ts).
 * - `acceptLanguage` (from `location`) is set on every request: Chromium would otherwise send
 *   only the context's locale (`de-DE`), not the weighted list the fetcher sends;
 * - data:, blob: and about: are left to the browser; any other scheme (file:, ftp:, …) is
 *   refused, whoever asks for it (a script of the page or of `executeJavascript`).
 *
 * The route is set only when there is a header to rewrite (`location`). A route pauses every
 * request of the page for a round trip to this process (and Playwright turns the browser's
 * cache off under it), and the guard needs none of it — every connection already passes the
 * guarded proxy (proxy.ts), which refuses a main document (`x-wds-proxy-error`, or a refused
 * tunnel by host) as the route would. Web content cannot load other schemes in Chromium by
 * itself (file: from an http(s) page is "not allowed to load local resource"); the renderer
 * tests hold that with and without the route.
 *
 * `blockAssets` without `location` is done in the browser instead (`attach`, before the page
 * navigates): the page's CDP session pauses only requests of the asset types
 * (`Fetch.enable` with resource-type patterns) and fails them as blocked by the client, so
 * the document, scripts and data requests go out unpaused. It covers the render's page from
 * its first request; a page it opens (a popup) from when Playwright reports it (what the popup
 * asked for before that goes out), and a cross-site iframe in a process of its own (a CDP
 * target of its own) loads its assets: blocking assets saves work, it guards nothing.
 */
import type { BrowserContext, CDPSession, Page, Request, Route } from 'playwright-core';
import type { NetGuard } from '../../pipeline/runtime/net/guard.js';

export const BLOCKED_ASSET_TYPES: ReadonlySet<string> = new Set(['image', 'font', 'media']);

/** Schemes whose content is in the page itself; every other non-http(s) scheme (file:, ftp:, chrome:) is refused. */
const INLINE_SCHEMES: ReadonlySet<string> = new Set(['data:', 'blob:', 'about:']);

export interface PolicyState {
  /** Why the main document was refused, when it was. */
  mainRefusal: Error | null;
  /** Sets the policy up on the render's page, before it navigates; the page's CDP session when it opened one. */
  attach(page: Page): Promise<CDPSession | null>;
}

/**
 * The requests `blockAssets` pauses in the browser (CDP Fetch patterns): BLOCKED_ASSET_TYPES
 * by their CDP resource type, and the browser's own request for the page's default icon
 * (type `Other`; a page's own fetch of it is of type `Fetch`), an image nothing reads.
 */
const BLOCKED_ASSET_PATTERNS = [
  ...(['Image', 'Font', 'Media'] as const).map((resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Request' as const })),
  { urlPattern: '*/favicon.ico', resourceType: 'Other' as const, requestStage: 'Request' as const },
];

/** Blocks the asset types in `page` without a route: only those requests are paused, and failed. */
async function blockAssetsIn(context: BrowserContext, page: Page): Promise<CDPSession> {
  const session = await context.newCDPSession(page);
  session.on('Fetch.requestPaused', (event) => {
    // The page may be closing: nobody waits for the answer.
    session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => undefined);
  });
  await session.send('Fetch.enable', { patterns: BLOCKED_ASSET_PATTERNS });
  return session;
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
  const state: PolicyState = { mainRefusal: null, attach: async () => null };
  if (!settings.acceptLanguage) {
    if (settings.blockAssets) {
      state.attach = (main) => blockAssetsIn(context, main);
      // Pages the render's page opens (popups: they have an opener) get it too, from when they are seen.
      context.on('page', (opened) => {
        void opened.opener().then((from) => (from ? blockAssetsIn(context, opened) : undefined)).catch(() => undefined);
      });
    }
    return state;
  }
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
