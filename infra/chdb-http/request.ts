/**
 * Reading one request of ClickHouse's HTTP protocol (the subset @clickhouse/client uses):
 *
 * - `query` in the URL and the body as INSERT data, or the whole query as the body;
 *   ClickHouse runs `<url query>\n<body>`. A multipart/form-data body carries `query` and
 *   `param_*` as parts (the client switches to it when parameters outgrow the URL).
 * - `param_<name>` = the text of a `{name:Type}` parameter, exactly as ClickHouse receives
 *   it (the client TSV-escapes strings and writes arrays as literals).
 * - `database`, `query_id`, `default_format`, `user`/`password` (also as X-ClickHouse-User,
 *   X-ClickHouse-Key, X-ClickHouse-Database, X-ClickHouse-Format headers, or Basic auth).
 * - Every other URL field is a setting candidate; the server applies the ones the engine
 *   knows and ignores the rest.
 *
 * Pure functions, no engine: chdb-http.ts executes what this returns.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface ChRequest {
  /** The statement; for an INSERT whose rows came as the body, without the rows. */
  readonly sql: string;
  /** The rows of an INSERT (the body, when the query itself came in the URL or a part). */
  readonly data: Buffer | null;
  readonly params: ReadonlyMap<string, string>;
  readonly settings: ReadonlyMap<string, string>;
  readonly database: string | null;
  readonly queryId: string | null;
  readonly defaultFormat: string | null;
  readonly user: string | null;
  readonly password: string | null;
}

/** URL fields of the HTTP interface that are not settings. */
const RESERVED = new Set([
  'query',
  'database',
  'default_format',
  'query_id',
  'session_id',
  'session_timeout',
  'session_check',
  'user',
  'password',
  'quota_key',
  'role',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'stacktrace',
]);

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? null) : null;
}

function basicAuth(headers: IncomingHttpHeaders): { user: string; password: string } | null {
  const value = header(headers, 'authorization');
  const match = value ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value) : null;
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? { user: decoded, password: '' } : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The named parts of a multipart/form-data body (values as UTF-8 text). */
export function multipartFields(body: Buffer, contentType: string): Map<string, string> {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const token = boundary?.[1] ?? boundary?.[2];
  if (!token) throw new RangeError('multipart body without a boundary');
  const delimiter = Buffer.from(`--${token}`);
  const fields = new Map<string, string>();
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString('latin1') === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) throw new RangeError('multipart body is not terminated');
    const part = body.subarray(start, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) throw new RangeError('multipart part without headers');
    const head = part.subarray(0, headerEnd).toString('utf8');
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    let value = part.subarray(headerEnd + 4);
    if (value.subarray(value.length - 2).toString('latin1') === '\r\n') value = value.subarray(0, value.length - 2);
    if (name !== undefined) fields.set(name, value.toString('utf8'));
    at = next;
  }
  return fields;
}

/** Splits a request into statement, data, parameters and settings. `body` is decompressed. */
export function readRequest(url: URL, headers: IncomingHttpHeaders, body: Buffer): ChRequest {
  const fields = new Map<string, string>();
  for (const [name, value] of url.searchParams) fields.set(name, value);
  let data: Buffer | null = body.length > 0 ? body : null;
  const contentType = header(headers, 'content-type') ?? '';
  if (data && /^multipart\/form-data/i.test(contentType)) {
    for (const [name, value] of multipartFields(data, contentType)) fields.set(name, value);
    data = null;
  }
  let sql = fields.get('query') ?? '';
  if (!fields.has('query') && data) {
    sql = data.toString('utf8');
    data = null;
  }
  const params = new Map<string, string>();
  const settings = new Map<string, string>();
  for (const [name, value] of fields) {
    if (name.startsWith('param_')) params.set(name.slice('param_'.length), value);
    else if (!RESERVED.has(name)) settings.set(name, value);
  }
  const basic = basicAuth(headers);
  return {
    sql,
    data,
    params,
    settings,
    database: fields.get('database') ?? header(headers, 'x-clickhouse-database'),
    queryId: fields.get('query_id') ?? null,
    defaultFormat: fields.get('default_format') ?? header(headers, 'x-clickhouse-format'),
    user: fields.get('user') ?? header(headers, 'x-clickhouse-user') ?? basic?.user ?? null,
    password: fields.get('password') ?? header(headers, 'x-clickhouse-key') ?? basic?.password ?? null,
  };
}
