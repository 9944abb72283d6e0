/**
 * Which responses the fetcher passes on to the parser, by media type:
 *
 * - HTML (`text/html`), XHTML (`application/xhtml+xml`), XML (`application/xml`, `text/xml`,
 *   any `+xml` such as RSS and Atom), any other `text/*` (plain, markdown, csv, …), JSON
 *   (`application/json`, any `+json`);
 * - PDF (`application/pdf`) only when the scrape options ask for it (`parsers: ['pdf']`);
 * - no Content-Type, or `application/octet-stream`: decided from the first bytes (`%PDF-` is
 *   PDF, markup is HTML, text without NUL bytes is text/plain);
 * - anything else (images, audio, video, archives, office files…) is `unsupported_content`,
 *   refused when the response headers arrive, before the body is read.
 *
 * `GET /v1/fetch` (fetchRaw) returns bytes of any type and skips this policy (`content: null`).
 */
export interface ContentPolicy {
  readonly pdf: boolean;
}

/** `text/html; charset=x` → `text/html`. */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function isUndeclared(contentType: string | null | undefined): boolean {
  const type = mediaType(contentType);
  return type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream';
}

export function isReadable(contentType: string | null | undefined, policy: ContentPolicy): boolean {
  const type = mediaType(contentType);
  if (type.startsWith('text/')) return true;
  if (type === 'application/xhtml+xml' || type === 'application/xml' || type.endsWith('+xml')) return true;
  if (type === 'application/json' || type.endsWith('+json')) return true;
  if (type === 'application/pdf') return policy.pdf;
  return false;
}

/** A media type for a body that declared none (or octet-stream); null when binary. */
export function sniffMediaType(body: Buffer): string | null {
  const head = body.subarray(0, 1024);
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (head.includes(0)) return null;
  const text = head.toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart().toLowerCase();
  if (/^<(!doctype html|html|head|body|meta|title|div|p\b|!--)/.test(text)) return 'text/html';
  if (text.startsWith('<?xml')) return 'application/xml';
  if (text.startsWith('{') || text.startsWith('[')) return 'application/json';
  return 'text/plain';
}
