/**
 * Reading the JSON of outside services, whose every field may be missing or of another type:
 * small readers that answer null (or an empty list) instead of throwing, shared by the
 * clients in this folder. Plus the two URL and date rules the search clients share.
 */
export type JsonObject = Record<string, unknown>;

export const record = (v: unknown): JsonObject | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : null);
export const list = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
/** A non-blank string, trimmed; null otherwise. */
export const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** The URL when it is an http(s) URL (engines may give `magnet:` and the like); null otherwise. */
export function httpUrl(v: unknown): string | null {
  const raw = text(v);
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** `path` below the base URL's own path (`/searx` + `/search`), without its query or fragment. */
export function below(base: URL, path: string): URL {
  const url = new URL(base.href);
  let prefix = url.pathname;
  while (prefix.endsWith('/')) prefix = prefix.slice(0, -1);
  url.pathname = `${prefix}${path}`;
  url.search = '';
  url.hash = '';
  return url;
}

/** `2023-11-15`, `2023-11-15T09:12:03` (Python's isoformat: naive means UTC), with or without a zone. */
const ISO_LIKE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The date as ISO 8601: an instant (`…T…Z`) when it has a time, the day alone when it has
 * none; null when it does not read as an ISO date or names no day of the calendar
 * (`2024-02-30`, which Date.parse would roll over to March 1st).
 */
export function isoDate(v: unknown): string | null {
  const match = ISO_LIKE.exec(text(v) ?? '');
  if (!match) return null;
  const [, day = '', time, zone] = match;
  const offset = !zone ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const ms = Date.parse(`${day}T${time ?? '00:00'}${offset}`);
  if (!Number.isFinite(ms) || !isCalendarDay(day)) return null;
  return time ? new Date(ms).toISOString() : day;
}

function isCalendarDay(day: string): boolean {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().startsWith(day);
}
