/**
 * Events carry options and small records as JSON text (ScrapeRequested.options and the like).
 * Reading them back is always the same: an empty string is `{}`, and anything that is not a
 * JSON object is refused rather than trusted.
 */
export function parseJsonObject<T extends object = Record<string, unknown>>(json: string): T | null {
  try {
    const value: unknown = JSON.parse(json || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null;
  } catch {
    return null;
  }
}
