/**
 * The service's outbound HTTP stack: got-scraping behind the SSRF guard. The fetcher reads
 * pages with it; the frontier reads robots.txt, sitemaps and pages to map (an actor never
 * imports another actor, so the stack lives here, shared).
 *
 * - Browser identity: a realistic header set (pipeline/runtime/net/identity.ts: header-generator,
 *   built as got-scraping builds its default one; desktop, or phone when `mobile`), the
 *   caller's headers merged except the reserved ones (pipeline/runtime/net/headers.ts),
 *   Accept-Language from `location`. Headers are generated here, not by got-scraping's hook,
 *   because that hook opens an ALPN probe connection of its own that no guard sees. HTTP/1.1
 *   only for the same reason (http2-wrapper connects itself).
 * - Every connection goes through the guard: direct requests use guarded agents (the
 *   guard's `lookup`, IP literals checked), each hop's URL is checked before it is requested,
 *   proxied requests are checked by resolving the target first (the proxy resolves it again
 *   itself: a proxy is outside this host's network, so rebinding through it reaches nothing
 *   of ours).
 * - Redirects are followed here, not by got: at most `maxRedirects` (10) hops, each one
 *   checked by the guard like the first; a loop or an 11th hop is `too_many_redirects`. A
 *   loop is a URL asked for again (fragments aside) with the same Cookie header as before: a
 *   redirect back to a visited URL whose cookies changed since (a consent or session gate
 *   that sets a cookie and redirects to itself) is followed.
 * - Cookies: one jar per fetch (pipeline/runtime/net/cookies.ts, RFC 6265): every hop stores its
 *   response's Set-Cookie and every request sends the jar's cookies for its URL, after the
 *   caller's own Cookie header, which goes to the first URL's host only. The caller's
 *   Authorization is dropped on a cross-origin hop. Cookies are never logged nor put into
 *   an error message.
 * - The body is streamed and counted after decompression (gzip, deflate, br): a declared
 *   Content-Length above `maxBytes` is refused before reading, a longer stream is aborted
 *   when it passes `maxBytes` (`content_too_large`). Bytes are kept as received; the text
 *   decoding (pipeline/runtime/net/charset.ts) is offered on the result.
 * - `timeoutMs` bounds the whole fetch: every hop and retry (`fetch_timeout`).
 * - Network hiccups (reset, broken pipe, temporary DNS failure) are retried with
 *   pipeline/runtime/retry.ts inside that budget; an HTTP answer of any status is a result.
 * - A request is a GET unless it says `method: 'POST'` (service clients: a token endpoint, an
 *   XRPC procedure) with its `body` and `contentType`. A POST is sent once, never retried: a
 *   hiccup may come after the server acted on it. Its redirects go as fetch() takes them: 307
 *   and 308 repeat the POST, body and all, but only to the same origin (the body may hold
 *   credentials; a 307/308 elsewhere is the answer); 301, 302 and 303 are followed with a GET
 *   without the body or its Content-Type.
 * - A request that says `lean` (a JSON API read: a store's products.json, a service client's
 *   call) is sent hop by hop by node:http itself (lean-hop.ts) rather than got-scraping, when
 *   it goes direct: everything above is the same, on the same guarded agents; what a hop does
 *   with its response is one piece of code for both (intake.ts). Proxied, it takes got's path.
 */
import type http from 'node:http';
import type https from 'node:https';
import { gotScraping, hooks as gotScrapingHooks, TransformHeadersAgent } from 'got-scraping';
import { AppError } from '../errors.js';
import { retry, RetriesExhausted } from '../retry.js';
import { guardedAgents, type GuardedAgents } from './agents.js';
import { decodeBody, type DecodedText } from './charset.js';
import type { ContentPolicy } from './content.js';
import { FetchCookies } from './cookies.js';
import { classify, isTransient } from './failures.js';
import { NetGuard } from './guard.js';
import { ACCEPT_ENCODING, mergeHeaders } from './headers.js';
import { browserHeaders } from './identity.js';
import { acceptLanguage, languagesFor, type Location } from './locale.js';
import { Intake, type Hop } from './intake.js';
import { leanHop } from './lean-hop.js';
import { ProxyRouter, type ProxyPools, type ProxyRoute, type ProxyUsed } from './proxies.js';
import { flatHeaders, safeOrigin, setCookiesOf, takeCookie, visited, withCookie, without, withoutHash } from './hop-parts.js';

/**
 * got-scraping without its `init` hook that validates got-scraping's own options with `ow` on
 * every request (proxyUrl, useHeaderGenerator, …): this module is the only caller and builds
 * those options itself, and the check (ow, which reads a stack trace for each call) was ~1.5%
 * of a crawl's CPU. Everything else got-scraping does per request is kept.
 */
const scraping = (() => {
  const instance = gotScraping.extend({ mutableDefaults: true });
  const init = instance.defaults.options.hooks.init;
  const at = init.indexOf(gotScrapingHooks.optionsValidationHandler);
  if (at >= 0) init.splice(at, 1);
  return instance;
})();

export const DEFAULT_MAX_BYTES = 15 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 10;

export interface HttpFetcherOptions {
  readonly guard: NetGuard;
  readonly proxies?: ProxyPools;
  /** Country code → proxy URLs of a geo-targeted pool (see pipeline/runtime/net/proxies.ts). */
  readonly proxiesByCountry?: Readonly<Record<string, readonly string[]>>;
  /** Largest body read, after decompression (default 15 MiB). */
  readonly maxBytes?: number;
  readonly maxRedirects?: number;
  /** Verify TLS certificates (default true). */
  readonly verifyTls?: boolean;
  /** Immediate retries of network hiccups (default 3 attempts, 100..1000 ms backoff). */
  readonly retry?: { readonly attempts: number; readonly baseDelayMs: number; readonly maxDelayMs: number };
}

export interface FetchRequest {
  readonly url: string;
  readonly timeoutMs: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly mobile?: boolean;
  readonly location?: Location | null;
  readonly proxy?: ProxyRoute;
  /** Content policy; null accepts every type (GET /v1/fetch). Default: no PDF. */
  readonly content?: ContentPolicy | null;
  /** Overrides the fetcher's maxBytes for this request (only lower). */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
  /**
   * A client of an outside API (pipeline/clients/service-http.ts) rather than a browser: this
   * User-Agent instead of the browser identity (no `Sec-CH-UA`, `Sec-Fetch-*`), as services'
   * usage policies ask (Nominatim refuses library and browser-faking defaults).
   */
  readonly userAgent?: string;
  /** Default GET. */
  readonly method?: 'GET' | 'POST';
  /** A POST's body (none: an empty one). */
  readonly body?: string | Buffer;
  /** The body's Content-Type. */
  readonly contentType?: string;
  /**
   * A JSON API read (a store's products.json, a service client's call): each direct hop is
   * sent by node:http itself (lean-hop.ts) instead of got-scraping, ≈ 2 ms of CPU less a
   * request, with the same guard, agents, redirects, cookies, caps, timeout and error mapping.
   * Through a proxy the request takes got-scraping's proxy agents as any other.
   */
  readonly lean?: boolean;
}

/** What a hop sends besides its headers. */
interface Outgoing {
  readonly method: 'GET' | 'POST';
  readonly body: string | Buffer;
}
const GET: Outgoing = { method: 'GET', body: '' };

export interface FetchResult {
  readonly url: string;
  readonly finalUrl: string;
  /** Every URL redirected to, in order (the final one last). */
  readonly redirects: readonly string[];
  readonly statusCode: number;
  /** Response headers, lower-case names, repeated ones joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The response's Content-Type (or the sniffed media type when it declared none). */
  readonly contentType: string;
  /** The body as received, after content decoding (gzip/br/deflate), before charset decoding. */
  readonly body: Buffer;
  readonly fetchedAtMs: number;
  readonly proxyUsed: ProxyUsed;
  readonly proxyCountry: string | null;
  /** The body decoded to text (charset from BOM, header, meta; else UTF-8). */
  text(): DecodedText;
}

export class HttpFetcher {
  readonly guard: NetGuard;
  private readonly router: ProxyRouter;
  private readonly agents: GuardedAgents;
  private readonly gotAgents: { http: http.Agent; https: https.Agent };
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly verifyTls: boolean;
  private readonly retryPolicy: { attempts: number; baseDelayMs: number; maxDelayMs: number };

  constructor(options: HttpFetcherOptions) {
    this.guard = options.guard;
    this.router = new ProxyRouter(options.proxies, options.proxiesByCountry);
    this.agents = guardedAgents(options.guard);
    this.gotAgents = {
      http: new TransformHeadersAgent(this.agents.http) as unknown as http.Agent,
      https: new TransformHeadersAgent(this.agents.https) as unknown as https.Agent,
    };
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    this.verifyTls = options.verifyTls ?? true;
    this.retryPolicy = { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000, ...options.retry };
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.agents.destroy();
  }

  async fetch(request: FetchRequest): Promise<FetchResult> {
    const choice = this.router.choose(request.proxy ?? 'auto', request.location?.country);
    // One controller per fetch, aborted by the timeout or by the caller's signal (forwarded, the
    // listener removed when the fetch ends). Not AbortSignal.any: Node 20 keeps a composite
    // signal that has an abort listener (got adds one per request and never removes it on a
    // response that ends normally) in a process-wide set for good, with the whole request.
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort(new Error('fetch timeout'));
    }, request.timeoutMs);
    const caller = request.signal;
    const onCallerAbort = () => deadline.abort(caller?.reason);
    if (caller?.aborted) onCallerAbort();
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    const signal = deadline.signal;
    const maxBytes = Math.min(request.maxBytes ?? this.maxBytes, this.maxBytes);
    const location = request.location ?? null;
    const forced: Record<string, string> = { 'Accept-Encoding': ACCEPT_ENCODING };
    if (location) forced['Accept-Language'] = acceptLanguage(languagesFor(location));
    if (request.contentType) forced['Content-Type'] = request.contentType;
    const identity = request.userAgent ? { 'User-Agent': request.userAgent } : browserHeaders(request.mobile ?? false);
    const { cookie: callerCookie, rest } = takeCookie(mergeHeaders(identity, request.headers, forced, location !== null));
    let baseHeaders = rest;
    let outgoing: Outgoing = request.method === 'POST' ? { method: 'POST', body: request.body ?? Buffer.alloc(0) } : GET;
    let current = request.url;
    try {
      const first = this.guard.parse(request.url);
      const origin = first.origin;
      current = first.href;
      const cookies = new FetchCookies(first, callerCookie);
      // Each URL asked for (a fragment never reaches the server: `/a` → `/a#top` asks for `/a`
      // again) → the Cookie headers it was asked with. The same URL with the same cookies is
      // a loop; with other cookies it may answer otherwise, so it is asked.
      const visits = new Map<string, Set<string>>();
      const redirects: string[] = [];
      let url = first;
      for (;;) {
        await this.guard.check(url);
        const cookie = cookies.header(url);
        visited(visits, url, cookie);
        const headers = withCookie(url.origin === origin ? baseHeaders : without(baseHeaders, 'authorization'), cookie);
        const hop = await this.hopWithRetries(url, headers, outgoing, choice.proxyUrl, signal, maxBytes, request.content === undefined ? { pdf: false } : request.content, request.lean === true);
        cookies.store(url, hop.setCookies);
        if (hop.location === null) {
          return this.result(request.url, url, redirects, hop, choice);
        }
        let next: URL;
        try {
          next = new URL(hop.location, url);
        } catch {
          return this.result(request.url, url, redirects, hop, choice);
        }
        if (redirects.length >= this.maxRedirects) {
          throw new AppError('too_many_redirects', `${url.origin}: more than ${this.maxRedirects} redirects`);
        }
        const target = this.guard.parse(next);
        if (visits.get(withoutHash(target))?.has(cookies.header(target))) {
          throw new AppError('too_many_redirects', `redirect loop: ${target.origin}${target.pathname} was asked for before with the same cookies`);
        }
        // A POST's body may hold credentials (a session's password): it never follows a 307/308 to another origin.
        if (outgoing.method === 'POST' && (hop.statusCode === 307 || hop.statusCode === 308) && target.origin !== url.origin) {
          return this.result(request.url, url, redirects, hop, choice);
        }
        redirects.push(next.href);
        if (outgoing.method === 'POST' && hop.statusCode !== 307 && hop.statusCode !== 308) {
          outgoing = GET;
          baseHeaders = without(baseHeaders, 'content-type');
        }
        url = target;
        current = url.href;
      }
    } catch (error) {
      if (caller?.aborted && !timedOut) throw caller.reason;
      throw classify(error instanceof RetriesExhausted ? error.cause : error, {
        url: safeOrigin(current),
        proxyUrl: choice.proxyUrl,
        timedOut,
        timeoutMs: request.timeoutMs,
      });
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
    }
  }

  private result(url: string, final: URL, redirects: string[], hop: Hop, choice: { proxyUsed: ProxyUsed; proxyCountry: string | null }): FetchResult {
    const contentType = hop.headers['content-type'] ?? '';
    const body = hop.body;
    let decoded: DecodedText | undefined;
    return {
      url,
      finalUrl: final.href,
      redirects,
      statusCode: hop.statusCode,
      headers: hop.headers,
      contentType,
      body,
      fetchedAtMs: hop.fetchedAtMs,
      proxyUsed: choice.proxyUsed,
      proxyCountry: choice.proxyCountry,
      text: () => (decoded ??= decodeBody(body, contentType)),
    };
  }

  private hopWithRetries(url: URL, headers: Record<string, string>, outgoing: Outgoing, proxyUrl: string | null, signal: AbortSignal, maxBytes: number, policy: ContentPolicy | null, lean: boolean): Promise<Hop> {
    return retry(() => this.hop(url, headers, outgoing, proxyUrl, signal, maxBytes, policy, lean), {
      ...this.retryPolicy,
      signal,
      retriable: (error) => outgoing.method === 'GET' && !signal.aborted && isTransient(error),
    }).catch((error: unknown) => {
      throw error instanceof RetriesExhausted ? error.cause : error;
    });
  }

  /** One request, no redirect following: the status, headers and body (or the Location). */
  private hop(url: URL, headers: Record<string, string>, outgoing: Outgoing, proxyUrl: string | null, signal: AbortSignal, maxBytes: number, policy: ContentPolicy | null, lean: boolean): Promise<Hop> {
    if (lean && !proxyUrl) {
      return leanHop({ url, headers, method: outgoing.method, body: outgoing.body, agents: this.agents, verifyTls: this.verifyTls, signal, maxBytes, policy });
    }
    return new Promise<Hop>((resolve, reject) => {
      const stream = scraping.stream(url.href, {
        headers,
        // A body makes got's stream read-only (no write end to close); a GET sends none.
        ...(outgoing.method === 'POST' ? { method: 'POST' as const, body: outgoing.body } : {}),
        followRedirect: false,
        http2: false,
        useHeaderGenerator: false,
        decompress: true,
        throwHttpErrors: false,
        retry: { limit: 0 },
        timeout: { request: 2 ** 31 - 1 },
        signal,
        agent: this.gotAgents,
        https: { rejectUnauthorized: this.verifyTls },
        ...(proxyUrl ? { proxyUrl } : {}),
      });
      const intake = new Intake({ url, proxyUrl, maxBytes, policy, resolve, reject, stop: () => stream.destroy() });
      stream.once('response', (res: http.IncomingMessage) => {
        intake.head(res.statusCode ?? 0, flatHeaders(res.headers), setCookiesOf(res));
      });
      stream.on('data', (chunk: Buffer) => intake.data(chunk));
      stream.once('error', (error: unknown) => intake.fail(error));
      stream.once('end', () => intake.end());
    });
  }
}
