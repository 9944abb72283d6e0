/**
 * URL helpers shared by links, media, metadata and the HTML cleaner. Relative references
 * resolve against the page's base: `<base href>` (itself resolved against the final URL)
 * when the page has one, else the final URL after redirects — as browsers do.
 */
import type { CheerioAPI } from 'cheerio';
import { findFirst } from './walk.js';

/** The base URL of a loaded page: its first `<base href>` (anywhere, as browsers read it). */
export function baseOf($: CheerioAPI, finalUrl: string): string {
  const root = $.root()[0];
  const base = root ? findFirst(root, (el) => el.name === 'base' && el.attribs['href'] !== undefined) : undefined;
  const href = base?.attribs['href']?.trim();
  if (href) {
    const resolved = absolute(href, finalUrl);
    if (resolved && /^https?:/i.test(resolved)) return resolved;
  }
  return finalUrl;
}

/** `ref` made absolute against `base`; null when it cannot be parsed. Whitespace is trimmed. */
export function absolute(ref: string, base: string): string | null {
  const trimmed = ref.trim();
  if (!trimmed) return null;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return null;
  }
}

/**
 * A link as the `links` format lists it: absolute, http(s) only, fragment dropped, user
 * and password dropped. Null for anything else (mailto:, javascript:, tel:, data:, `#top`).
 */
export function linkUrl(ref: string, base: string): string | null {
  const trimmed = ref.trim();
  if (!trimmed || trimmed.startsWith('#')) return null;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // Each setter re-serialises the URL: set only what is there. A serialised URL holds `#` only
  // where its fragment starts (elsewhere it is percent-encoded), so the fragment is cut there.
  if (url.username !== '' || url.password !== '') {
    url.username = '';
    url.password = '';
  }
  const href = url.href;
  const fragment = href.indexOf('#');
  return fragment === -1 ? href : href.slice(0, fragment);
}

/** An http(s) media URL, absolute; null for data:, blob: and unparsable references. */
export function mediaUrl(ref: string, base: string): string | null {
  const resolved = absolute(ref, base);
  return resolved && /^https?:/i.test(resolved) ? resolved : null;
}

/** The largest candidate of a `srcset` (by width `w`, else density `x`). */
export function largestSrcset(srcset: string): string | null {
  let best: { url: string; size: number } | null = null;
  for (const part of srcset.split(/,\s+/)) {
    const [url, descriptor] = part.trim().split(/\s+/);
    if (!url) continue;
    const size = descriptor ? Number.parseFloat(descriptor) || 1 : 1;
    if (!best || size > best.size) best = { url, size };
  }
  return best?.url ?? null;
}

/** Is this reference an inline `data:` URI? */
export const isDataUri = (ref: string | undefined): boolean => !!ref && /^\s*data:/i.test(ref);
