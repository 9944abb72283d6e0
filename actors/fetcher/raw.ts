/**
 * The fetch behind `GET /v1/fetch`: the bytes of a URL of any content type, through the same
 * guard, proxies, redirects, size cap and timeout as a scrape. `proxy` omitted is `auto`.
 */
import type { ProxyRoute } from '../../pipeline/runtime/net/proxies.js';
import type { HttpFetcher } from '../../pipeline/runtime/net/http.js';

export interface RawFetchOptions {
  readonly proxy?: Exclude<ProxyRoute, 'none'> | 'none';
  readonly country?: string;
  readonly timeoutMs: number;
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
  /** A JSON API read: the HTTP stack's lean path (pipeline/runtime/net/http.ts `lean`). */
  readonly lean?: boolean;
}

export interface RawFetchResult {
  readonly statusCode: number;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly finalUrl: string;
}

export async function fetchRaw(http: HttpFetcher, url: string, options: RawFetchOptions): Promise<RawFetchResult> {
  const page = await http.fetch({
    url,
    timeoutMs: options.timeoutMs,
    proxy: options.proxy ?? 'auto',
    location: options.country ? { country: options.country } : null,
    content: null,
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.lean ? { lean: true } : {}),
  });
  return { statusCode: page.statusCode, contentType: page.contentType, headers: page.headers, body: page.body, finalUrl: page.finalUrl };
}
