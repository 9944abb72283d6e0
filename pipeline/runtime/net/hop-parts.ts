/**
 * The header and URL plumbing of one hop of pipeline/runtime/net/http.ts: a response's
 * headers flattened, its Set-Cookie lines, the caller's Cookie header taken out and put back
 * (the jar adds the site's), a header removed, the keys of redirect-loop detection (a URL
 * without its fragment, asked with the same cookies), and what a message may show of a URL.
 */
import type http from 'node:http';

/** Lower-case names, each once (a repeated header's values joined with `, `). */
export function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** The URL without its fragment (the server never sees it). */
export function withoutHash(url: URL): string {
  if (!url.href.includes('#')) return url.href;
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}

/** The URL's Cookie headers asked with so far, `cookie` added. */
export function visited(visits: Map<string, Set<string>>, url: URL, cookie: string): void {
  const key = withoutHash(url);
  const cookies = visits.get(key) ?? new Set<string>();
  cookies.add(cookie);
  visits.set(key, cookies);
}

/** The Set-Cookie lines of a response, one per cookie (Node keeps them apart). */
export function setCookiesOf(res: http.IncomingMessage): string[] {
  return res.headers['set-cookie'] ?? [];
}

/** The caller's Cookie header (its name in any case) taken out of the headers to send. */
export function takeCookie(headers: Record<string, string>): { cookie: string | undefined; rest: Record<string, string> } {
  let cookie: string | undefined;
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'cookie') cookie = value;
    else rest[name] = value;
  }
  return { cookie, rest };
}

export function withCookie(headers: Record<string, string>, cookie: string): Record<string, string> {
  return cookie ? { ...headers, Cookie: cookie } : headers;
}

/** The headers without `lowerName` (in any case). */
export function without(headers: Record<string, string>, lowerName: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== lowerName));
}

/** Scheme, host and path of a URL, without userinfo or query: what messages show. */
export function safeOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}
