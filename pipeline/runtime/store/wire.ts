/**
 * What both drivers send and receive, defined once so they behave the same:
 *
 * - Rows travel as JSONEachRow. `toJson` is JSON.stringify with bigint written as a decimal
 *   string (ClickHouse parses "123" into a UInt64 column). A Date becomes ISO text with `Z`,
 *   which the drivers' `date_time_input_format = 'best_effort'` reads as UTC.
 * - Query parameters are bound by the engine (`{name:Type}` placeholders), never spliced into
 *   SQL. `bindable` rewrites the values whose text form differs between chdb and
 *   @clickhouse/client into the client's form: a Date as a Unix timestamp with milliseconds
 *   (`1700000000.123`, time-zone independent; bind it to DateTime64(3)), a top-level boolean
 *   as 1/0.
 * - SETTINGS both drivers apply to every statement (`SESSION_SETTINGS`): 64-bit integers come
 *   back as JSON strings (ClickHouse 25+ defaults to bare numbers, which lose precision in
 *   JavaScript); date-time text is parsed best-effort (ISO 8601 with a zone).
 */
import { StoreError } from './store-error.js';

export const SESSION_SETTINGS = {
  output_format_json_quote_64bit_integers: 1,
  date_time_input_format: 'best_effort',
} as const;

export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** Rows as a JSONEachRow body: one JSON object per line. */
export function jsonEachRow(rows: readonly Record<string, unknown>[]): string {
  let out = '';
  for (const row of rows) out += `${toJson(row)}\n`;
  return out;
}

/** A JSONEachRow response parsed into objects. */
export function parseJsonEachRow<T>(text: string): T[] {
  const rows: T[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end > start) rows.push(JSON.parse(text.slice(start, end)) as T);
    start = end + 1;
  }
  return rows;
}

/**
 * The earliest time (ms) from which every Date binds (`bindable`) as itself: Unix time
 * 10,000 s, 1970-01-01T02:46:40Z. The engine does not read every earlier Unix time: it
 * refuses a whole number of seconds under 10,000 (`0`, `9999`) and 1,000 to 9,999 s with a
 * fraction (`1000.5`) as DateTime64(3), and reads a negative time under a second without its
 * sign (`-0.001` as 0.001 s after the epoch). A lower bound earlier than any stored time (a
 * window reaching back past it) binds as this instead, which selects the same rows.
 */
export const EARLIEST_BOUND_MS = 10_000_000;

function unixMillisText(date: Date): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new StoreError('cannot bind an invalid Date', { rejected: true });
  const seconds = Math.floor(ms / 1000);
  const millis = ms - seconds * 1000;
  return millis === 0 ? String(seconds) : `${seconds}.${String(millis).padStart(3, '0')}`;
}

function bindableValue(value: unknown, nested: boolean): unknown {
  if (value instanceof Date) return unixMillisText(value);
  if (typeof value === 'boolean' && !nested) return value ? 1 : 0;
  if (Array.isArray(value)) return value.map((v) => bindableValue(v, true));
  return value;
}

/** Parameters rewritten so that both drivers send the engine the same text. */
export function bindable(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new StoreError(`invalid query parameter name ${JSON.stringify(name)}`, { rejected: true });
    out[name] = bindableValue(value, false);
  }
  return out;
}

/** A table name safe to put in `INSERT INTO <table>`: `name` or `db.name`, [A-Za-z0-9_]. */
export function checkTable(table: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(table)) {
    throw new StoreError(`invalid table name ${JSON.stringify(table)}`, { rejected: true });
  }
  return table;
}
