/**
 * What a Reply's `data` (JSON text) holds, per request event, where the gateway does more
 * with it than pass it on. The worker writes it and the gateway reads it; this is its one
 * definition. (For ScrapeRequested and ParseRequested the data is the scrape document, which
 * the gateway returns as it is.)
 */

/** The Reply data answering a FetchRequested: the upstream response, body in base64. */
export interface FetchedBytes {
  /** HTTP status of the final response (after redirects); any status, 404 and 500 included. */
  readonly statusCode: number;
  /** The response's Content-Type as received; empty when it sent none. */
  readonly contentType: string;
  /** The URL after redirects. */
  readonly finalUrl: string;
  /** The body as received (after content decoding: gzip, br, deflate), base64. */
  readonly bodyBase64: string;
}

/** Reads FetchedBytes from a Reply's data; null when the JSON does not have that shape. */
export function readFetchedBytes(json: string): FetchedBytes | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  const v = value as Partial<Record<keyof FetchedBytes, unknown>> | null;
  if (!v || typeof v !== 'object') return null;
  if (typeof v.statusCode !== 'number' || !Number.isInteger(v.statusCode)) return null;
  if (typeof v.contentType !== 'string' || typeof v.finalUrl !== 'string' || typeof v.bodyBase64 !== 'string') return null;
  return { statusCode: v.statusCode, contentType: v.contentType, finalUrl: v.finalUrl, bodyBase64: v.bodyBase64 };
}
