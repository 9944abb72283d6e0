/**
 * How the intel pool reads a site's pages for POST /v1/company, /v1/products and /v1/posts:
 * a FetchRequested on the fetch path, answered on the replies topic (the pool's own Requester,
 * as pages.ts asks the scrape path), so every page goes through the fetcher's SSRF guard,
 * proxies, redirects and size cap, bytes as served — a store's JSON and a sitemap's XML as
 * much as a page's HTML — decoded here (pipeline/intel/site/read.ts `decodeText`).
 *
 * - Each page has its own request id (`<id>:s<n>`) and waits at most SITE_PAGE_TIMEOUT_MS,
 *   never past the call's deadline.
 * - A JSON read (`accept: 'json'`: products.json, a Store API or REST page, cart.js) is asked
 *   `lean`: the fetcher sends it on the HTTP stack's lean path (node:http itself rather than
 *   the browser-like client; the same guard, proxies, caps and error codes).
 * - A page the site did not answer (no such host, refused, timed out, too large, blocked by the
 *   guard) reads as null, and its code is kept (`failureOf`): the caller tells `url_blocked` on
 *   the home page from a site that is down.
 * - A failure that is the service's, not the site's (no fetcher running, the bus down, the
 *   request aborted) throws with its code: the call fails as it is, not as an unreachable site.
 */
import { readFetchedBytes } from '../../schemas/events/replies.js';
import type { ErrorCode } from '../../schemas/errors.js';
import { decodeText, type ReadPage } from '../../pipeline/intel/site/read.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { ask, failedReply, type Requester } from '../../pipeline/runtime/request-reply.js';

/** Codes that say the service could not ask, not that the site did not answer. */
const SERVICE_FAULTS: ReadonlySet<string> = new Set<ErrorCode>(['service_unavailable', 'bus_unavailable', 'internal_error', 'event_undecodable', 'not_implemented', 'state_unavailable']);

/** Shortest wait worth asking for: less than this left before the deadline, the page is not asked. */
const MIN_PAGE_MS = 250;

export interface SitePages {
  readonly read: ReadPage;
  /** The code the fetch path answered for `url`, when it failed. */
  failureOf(url: string): string | null;
}

export interface SitePagesOptions {
  readonly requestId: string;
  readonly tenant: string;
  readonly pageTimeoutMs: number;
  /** Epoch ms past which no page is asked (the call's deadline). */
  readonly deadlineMs: number;
  readonly now: () => number;
}

/** A ReadPage over the fetch path for one call (see the file comment). */
export function sitePages(requester: () => Promise<Requester>, options: SitePagesOptions): SitePages {
  let n = 0;
  const failures = new Map<string, string>();
  const read: ReadPage = async (url, opts) => {
    const timeoutMs = Math.min(options.pageTimeoutMs, options.deadlineMs - options.now());
    if (timeoutMs < MIN_PAGE_MS) return null;
    const ctx = { requestId: `${options.requestId}:s${++n}`, tenant: options.tenant, ...(opts.signal ? { signal: opts.signal } : {}) };
    let reply;
    try {
      reply = await ask(await requester(), ctx, 'fetchRequested', { url, proxy: null, country: null, lean: opts.accept === 'json' }, timeoutMs);
    } catch (error) {
      reply = failedReply(error);
    }
    if (!reply.ok) {
      const code = reply.errorCode ?? 'upstream_error';
      if (SERVICE_FAULTS.has(code)) throw new AppError(code as ErrorCode, reply.errorMessage ?? 'the fetch path did not answer');
      failures.set(url, code);
      return null;
    }
    const fetched = reply.data === null ? null : readFetchedBytes(reply.data);
    if (!fetched) {
      failures.set(url, 'upstream_error');
      return null;
    }
    const body = Buffer.from(fetched.bodyBase64, 'base64');
    return { url: fetched.finalUrl, status: fetched.statusCode, contentType: fetched.contentType, body: decodeText(body, fetched.contentType) };
  };
  return { read, failureOf: (url) => failures.get(url) ?? null };
}
