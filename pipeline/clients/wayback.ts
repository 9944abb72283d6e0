/**
 * The Wayback Machine's CDX API (WAYBACK_URL, `https://web.archive.org` by default): one HTML
 * capture of a domain's home page per year, and the URL of a capture's archived bytes.
 *
 * - `yearly`: `GET <base>/cdx/search/cdx?url=<domain>&output=json&fl=timestamp,original,
 *   statuscode,mimetype,digest,length&filter=statuscode:200&filter=mimetype:text/html
 *   &collapse=timestamp:4[&from=<year>][&to=<year>]&limit=<MAX_CAPTURES>`. The answer is a list
 *   of rows whose first is the header (`[]` when there is no capture); the header names the
 *   columns, so a server that orders them otherwise is read right. A row without a 14-digit
 *   timestamp or an http(s) `original` is skipped; `-` and non-numbers are null. Rows are
 *   sorted oldest first and one is kept per year (the first), whatever the server collapsed.
 * - The answer is capped (MAX_ANSWER_BYTES: more is `unavailable`), at most MAX_ROWS rows are
 *   read, and an answer that is not a list is `unreadable`. 429 is `rate_limited` with
 *   Retry-After, 5xx `unavailable`, no answer in `ctx.timeoutMs` `timeout`
 *   (pipeline/clients/service-http.ts).
 * - `snapshotUrl`: `<base>/web/<timestamp>id_/<original>`, the capture's original bytes
 *   without the replay toolbar; the caller reads it through the fetch path.
 */
import { AppError } from '../runtime/errors.js';
import type { HttpFetcher } from '../runtime/net/http.js';
import { below, list, text } from './json-shapes.js';
import { getJson, serviceFetcher, ServiceError, shownEndpoint } from './service-http.js';

export const WAYBACK_URL = 'https://web.archive.org';
/** Years asked for at most (`limit`). */
export const MAX_CAPTURES = 100;
export const MAX_ROWS = 1_000;
export const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
const MAX_URL_CHARS = 2_048;
const SERVICE = 'wayback';

const FIELDS = ['timestamp', 'original', 'statuscode', 'mimetype', 'digest', 'length'] as const;

export interface WaybackOptions {
  /** WAYBACK_URL; may carry a path prefix. */
  readonly baseUrl?: string;
  readonly fetcher?: HttpFetcher;
}

export interface Capture {
  /** 14 digits, `YYYYMMDDhhmmss` (UTC). */
  readonly timestamp: string;
  readonly year: number;
  readonly original: string;
  readonly statusCode: number | null;
  readonly mimeType: string | null;
  readonly digest: string | null;
  readonly length: number | null;
}

export interface YearlyContext {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** First year asked for. */
  readonly from?: number;
  /** Last year asked for. */
  readonly to?: number;
}

export class WaybackClient {
  private readonly base: URL;
  private readonly fetcher: HttpFetcher;

  constructor(options: WaybackOptions = {}) {
    this.base = new URL(options.baseUrl ?? WAYBACK_URL);
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  /** One HTML 200 capture of the domain's home page per year (CDX collapse=timestamp:4), oldest first. ServiceError('wayback', …) on failure. */
  async yearly(domain: string, ctx: YearlyContext): Promise<Capture[]> {
    const url = cdxUrl(this.base, domain, ctx);
    const answer = await getJson(SERVICE, { url, timeoutMs: ctx.timeoutMs, signal: ctx.signal, maxBytes: MAX_ANSWER_BYTES }, this.fetcher);
    if (!Array.isArray(answer.json)) throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON that is not a list of rows`, null, answer.status);
    return onePerYear(capturesOf(answer.json));
  }

  /** The raw archived page URL (`<base>/web/<timestamp>id_/<original>`), read through the fetch path by the caller. */
  snapshotUrl(capture: Capture): string {
    return `${below(this.base, `/web/${capture.timestamp}id_/`).href}${capture.original}`;
  }
}

function cdxUrl(base: URL, domain: string, ctx: YearlyContext): URL {
  const url = below(base, '/cdx/search/cdx');
  const params = url.searchParams;
  params.set('url', domain);
  params.set('output', 'json');
  params.set('fl', FIELDS.join(','));
  params.append('filter', 'statuscode:200');
  params.append('filter', 'mimetype:text/html');
  params.set('collapse', 'timestamp:4');
  if (ctx.from !== undefined) params.set('from', yearOf(ctx.from, 'from'));
  if (ctx.to !== undefined) params.set('to', yearOf(ctx.to, 'to'));
  params.set('limit', String(MAX_CAPTURES));
  return url;
}

/** A year as CDX takes it (4 digits); anything else is the caller's mistake, said as bad_request. */
function yearOf(year: number, name: string): string {
  if (!Number.isInteger(year) || year < 1000 || year > 9999) throw new AppError('bad_request', `wayback: \`${name}\` must be a 4-digit year, got ${year}`);
  return String(year);
}

/** The rows after the header, read by the header's column names; malformed rows skipped. */
function capturesOf(rows: readonly unknown[]): Capture[] {
  const header = list(rows[0]).map((h) => text(h)?.toLowerCase() ?? '');
  const column = (name: string) => header.indexOf(name);
  const at = { timestamp: column('timestamp'), original: column('original'), statuscode: column('statuscode'), mimetype: column('mimetype'), digest: column('digest'), length: column('length') };
  if (at.timestamp < 0 || at.original < 0) return [];
  const out: Capture[] = [];
  for (const row of rows.slice(1, MAX_ROWS + 1)) {
    if (!Array.isArray(row)) continue;
    const capture = captureOf(row, at);
    if (capture) out.push(capture);
  }
  return out;
}

function captureOf(row: readonly unknown[], at: Readonly<Record<(typeof FIELDS)[number], number>>): Capture | null {
  const cell = (i: number) => (i >= 0 ? text(row[i]) : null);
  const timestamp = cell(at.timestamp);
  const original = cell(at.original);
  if (!timestamp || !isTimestamp(timestamp) || !original || !isWebUrl(original)) return null;
  const mimeType = cell(at.mimetype);
  const digest = cell(at.digest);
  return {
    timestamp,
    year: Number(timestamp.slice(0, 4)),
    original,
    statusCode: whole(cell(at.statuscode)),
    mimeType: mimeType && mimeType !== '-' ? mimeType.slice(0, 200) : null,
    digest: digest && digest !== '-' ? digest.slice(0, 200) : null,
    length: whole(cell(at.length)),
  };
}

function isTimestamp(value: string): boolean {
  if (value.length !== 14) return false;
  for (const ch of value) if (ch < '0' || ch > '9') return false;
  return true;
}

function isWebUrl(value: string): boolean {
  if (value.length > MAX_URL_CHARS) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A whole number written in digits (at most 15), else null (`-`, blank, text). */
function whole(value: string | null): number | null {
  if (!value || value.length > 15) return null;
  for (const ch of value) if (ch < '0' || ch > '9') return null;
  return Number(value);
}

function onePerYear(captures: Capture[]): Capture[] {
  const byYear = new Map<number, Capture>();
  for (const capture of [...captures].sort((a, b) => a.timestamp.localeCompare(b.timestamp))) if (!byYear.has(capture.year)) byYear.set(capture.year, capture);
  return [...byYear.values()];
}
