/**
 * Request headers: a realistic browser set made by the service, plus the caller's `headers`
 * scrape option — except the ones the service owns. Reserved (compared case-insensitively):
 *
 * - browser identity: `User-Agent`, every `Sec-CH-UA*` client hint, every `Sec-Fetch-*`;
 * - `Accept-Language` when the request has a `location` (it is set from there; without a
 *   location the caller's Accept-Language is sent);
 * - what the HTTP stack must control to read the response: `Accept-Encoding` (only codings
 *   it decodes), `Host`, `Connection`, `Keep-Alive`, `Proxy-Connection`, `Proxy-Authorization`,
 *   `Content-Length`, `Transfer-Encoding`, `TE`, `Trailer`, `Upgrade`.
 *
 * Anything else (Cookie, Authorization, Referer, X-…) is passed through.
 */
export const RESERVED_HEADERS: readonly string[] = [
  'user-agent',
  'accept-encoding',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
];
export const RESERVED_PREFIXES: readonly string[] = ['sec-ch-ua', 'sec-fetch-'];

/** Codings the fetcher decodes (Node 20 has no zstd). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

export function isReservedHeader(name: string, hasLocation: boolean): boolean {
  const lower = name.toLowerCase();
  if (hasLocation && lower === 'accept-language') return true;
  return RESERVED_HEADERS.includes(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p));
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The headers to send: `generated` (the browser set), then the caller's headers that are not
 * reserved (a caller header replaces a generated one of the same name), then `forced`
 * (Accept-Language from the location, Accept-Encoding). Header names that are not HTTP
 * tokens and values with line breaks are dropped.
 */
export function mergeHeaders(
  generated: Readonly<Record<string, string>>,
  caller: Readonly<Record<string, string>> | undefined,
  forced: Readonly<Record<string, string>>,
  hasLocation: boolean,
): Record<string, string> {
  const out = new Map<string, [string, string]>();
  const put = (name: string, value: string) => out.set(name.toLowerCase(), [name, value]);
  for (const [name, value] of Object.entries(generated)) put(name, value);
  for (const [name, value] of Object.entries(caller ?? {})) {
    if (!TOKEN.test(name) || /[\r\n\0]/.test(value) || isReservedHeader(name, hasLocation)) continue;
    put(name, value);
  }
  for (const [name, value] of Object.entries(forced)) put(name, value);
  return Object.fromEntries(out.values());
}
