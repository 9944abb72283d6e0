/**
 * A local Wayback Machine (/work/shared/design/reference-shapes-wave2.md §5, the CDX server's
 * README): a node:http server on 127.0.0.1 (a free port) with the CDX API and raw snapshots,
 * for pipeline/clients/wayback.ts (point WAYBACK_URL at `url`).
 *
 * - `GET /cdx/search/cdx?url=<domain>`: the captures of the domain's home page (`url` may carry
 *   a scheme, `www.` and a trailing `/`), oldest first, as rows of `urlkey timestamp original
 *   mimetype statuscode digest length` (digest: the page's SHA-1 in base 32, as CDX writes it;
 *   length: its bytes). Parameters: `output=json` (a list of rows, the header first; `[]` when
 *   none; without it, lines of space-separated fields), `fl` (the fields, in that order),
 *   `filter=[!]field:value` (repeatable; the value is matched whole, never run as a regular
 *   expression), `from` / `to` (1–14 digit timestamps, padded as CDX pads them),
 *   `collapse=timestamp:N` (the first capture of each N-digit prefix), `limit` (first N, or the
 *   last N when negative).
 * - `GET /web/<timestamp>id_/<original>`: the capture's HTML as archived (exact timestamp),
 *   else 404.
 * - Modes (`setMode`): `ok`; `rate_limited` (429, `Retry-After: 5`); `error` (503, as when the
 *   archive is overloaded); `hang`; `{status, body, headers?}` exactly that answer (raw text,
 *   for malformed rows). Every request is recorded.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { startStandIn, type StandInAnswer, type StandInReply } from './stand-in.js';

export interface FakeCapture {
  /** 14 digits. */
  readonly timestamp: string;
  readonly html: string;
  readonly statusCode?: number;
  readonly mimeType?: string;
}

export interface FakeWaybackRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
}

export type FakeWaybackMode = 'ok' | 'rate_limited' | 'error' | 'hang' | StandInAnswer;

export interface FakeWayback {
  readonly url: string;
  readonly requests: FakeWaybackRequest[];
  setMode(mode: FakeWaybackMode): void;
  close(): Promise<void>;
}

const ALL_FIELDS = ['urlkey', 'timestamp', 'original', 'mimetype', 'statuscode', 'digest', 'length'] as const;
type Field = (typeof ALL_FIELDS)[number];
type Row = Readonly<Record<Field, string>>;

export async function startFakeWayback(options: { readonly captures: Readonly<Record<string, readonly FakeCapture[]>> }): Promise<FakeWayback> {
  const captures = new Map(Object.entries(options.captures).map(([domain, list]) => [domain.toLowerCase(), [...list].sort((a, b) => a.timestamp.localeCompare(b.timestamp))]));
  const read = (req: http.IncomingMessage, url: URL): FakeWaybackRequest => ({ path: url.pathname, query: url.searchParams, headers: req.headers });
  const route = (request: FakeWaybackRequest, mode: FakeWaybackMode): StandInReply => {
    if (mode === 'hang') return 'hang';
    if (mode === 'rate_limited') return { status: 429, body: '<html><body>Too Many Requests</body></html>', headers: { 'content-type': 'text/html', 'retry-after': '5' } };
    if (mode === 'error') return { status: 503, body: '<html><body>Service Unavailable</body></html>', headers: { 'content-type': 'text/html' } };
    if (mode !== 'ok') return mode;
    if (request.path === '/cdx/search/cdx') return cdx(request.query, captures);
    if (request.path.startsWith('/web/')) return snapshot(request.path, captures);
    return { status: 404, body: 'not found', headers: { 'content-type': 'text/plain' } };
  };
  const { base, ...rest } = await startStandIn<FakeWaybackMode, FakeWaybackRequest>('ok', read, route);
  return { url: base, ...rest };
}

/** `example.com` from `https://www.example.com/`. */
function domainOf(url: string): string {
  let host = url.toLowerCase();
  const scheme = host.indexOf('://');
  if (scheme >= 0) host = host.slice(scheme + 3);
  const slash = host.indexOf('/');
  if (slash >= 0) host = host.slice(0, slash);
  return host.startsWith('www.') ? host.slice(4) : host;
}

function rowOf(domain: string, capture: FakeCapture): Row {
  const urlkey = `${domain.split('.').reverse().join(',')})/`;
  return {
    urlkey,
    timestamp: capture.timestamp,
    original: `http://${domain}/`,
    mimetype: capture.mimeType ?? 'text/html',
    statuscode: String(capture.statusCode ?? 200),
    digest: base32(createHash('sha1').update(capture.html).digest()),
    length: String(Buffer.byteLength(capture.html)),
  };
}

function cdx(query: URLSearchParams, captures: ReadonlyMap<string, readonly FakeCapture[]>): StandInAnswer {
  const target = query.get('url');
  if (!target) return { status: 400, body: 'Missing url', headers: { 'content-type': 'text/plain' } };
  const domain = domainOf(target);
  const fields = (query.get('fl')?.split(',') ?? [...ALL_FIELDS]).filter((f): f is Field => (ALL_FIELDS as readonly string[]).includes(f));
  const from = query.get('from') ? (query.get('from') as string).padEnd(14, '0') : null;
  const to = query.get('to') ? (query.get('to') as string).padEnd(14, '9') : null;
  let rows = (captures.get(domain) ?? []).map((c) => rowOf(domain, c));
  rows = rows.filter((r) => (!from || r.timestamp >= from) && (!to || r.timestamp <= to));
  for (const filter of query.getAll('filter')) rows = rows.filter(matches(filter));
  const collapse = query.get('collapse');
  if (collapse?.startsWith('timestamp:')) rows = collapsed(rows, Number(collapse.slice('timestamp:'.length)));
  const limit = Number(query.get('limit') ?? 0);
  if (limit > 0) rows = rows.slice(0, limit);
  if (limit < 0) rows = rows.slice(limit);
  const table = rows.map((r) => fields.map((f) => r[f]));
  if (query.get('output') === 'json') return { status: 200, body: JSON.stringify(table.length > 0 ? [fields, ...table] : []), headers: { 'content-type': 'application/json' } };
  return { status: 200, body: table.map((cells) => `${cells.join(' ')}\n`).join(''), headers: { 'content-type': 'text/plain' } };
}

/** `[!]field:value`, the value matched whole. */
function matches(filter: string): (row: Row) => boolean {
  const negate = filter.startsWith('!');
  const body = negate ? filter.slice(1) : filter;
  const colon = body.indexOf(':');
  const field = body.slice(0, colon) as Field;
  const value = body.slice(colon + 1);
  return (row) => (row[field] === value) !== negate;
}

function collapsed(rows: readonly Row[], digits: number): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = r.timestamp.slice(0, digits);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function snapshot(path: string, captures: ReadonlyMap<string, readonly FakeCapture[]>): StandInAnswer {
  const rest = path.slice('/web/'.length);
  const marker = rest.indexOf('id_/');
  if (marker !== 14) return { status: 404, body: 'not archived', headers: { 'content-type': 'text/plain' } };
  const timestamp = rest.slice(0, 14);
  const capture = (captures.get(domainOf(rest.slice(marker + 4))) ?? []).find((c) => c.timestamp === timestamp);
  if (!capture) return { status: 404, body: 'not archived', headers: { 'content-type': 'text/plain' } };
  return { status: capture.statusCode ?? 200, body: capture.html, headers: { 'content-type': `${capture.mimeType ?? 'text/html'}; charset=utf-8` } };
}

/** RFC 4648 base 32, without padding (a SHA-1 is 32 characters). */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}
