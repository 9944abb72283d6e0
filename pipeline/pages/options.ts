/**
 * The scrape options as the actors read them off an event (ScrapeRequested.options,
 * PageFetched.options: JSON text of schemas/api/scrape-options.ts ScrapeOptions), decoded and
 * typed once here instead of parsed and cast by each actor. The schema's top-level defaults
 * are filled in (what the gateway's validation does for a request's body), so a reader never
 * writes `options.timeout ?? 90_000` again.
 */
import { PAGE_TIMEOUT_MS, scrapeOptionFields, type ScrapeOptions } from '../../schemas/api/scrape-options.js';
import { parseJsonObject } from '../runtime/json.js';

/** The options that have a default in the schema: always present once decoded. */
export type DefaultedScrapeOption =
  | 'formats'
  | 'onlyMainContent'
  | 'maxAge'
  | 'storeInCache'
  | 'waitFor'
  | 'timeout'
  | 'captchaHandling'
  | 'captchaEvidence'
  | 'mobile'
  | 'proxy'
  | 'blockAssets'
  | 'removeBase64Images';

/** Scrape options with the schema's defaults filled in. */
export type DecodedScrapeOptions = ScrapeOptions & Required<Pick<ScrapeOptions, DefaultedScrapeOption>>;

/** Each top-level option's `default`, read from the schema (its only definition). */
export const SCRAPE_OPTION_DEFAULTS: Readonly<Pick<ScrapeOptions, DefaultedScrapeOption>> = Object.freeze(
  Object.fromEntries(
    Object.entries(scrapeOptionFields)
      .filter(([, field]) => (field as { default?: unknown }).default !== undefined)
      .map(([name, field]) => [name, (field as { default: unknown }).default]),
  ) as Required<Pick<ScrapeOptions, DefaultedScrapeOption>>,
);

/**
 * The scrape options of an event, defaults filled in; null when the text is not a JSON object
 * (the actor answers `bad_request`). An empty string is `{}`: every default.
 */
export function decodeScrapeOptions(json: string): DecodedScrapeOptions | null {
  const options = parseJsonObject<ScrapeOptions>(json);
  if (!options) return null;
  return { ...freshDefaults(), ...options };
}

type Copier = (value: unknown) => unknown;
const asIs: Copier = (value) => value;
const sliced: Copier = (value) => (value as unknown[]).slice();
const cloned: Copier = (value) => structuredClone(value);

/**
 * How each default is copied, decided once: primitives as they are, an array of primitives
 * (`formats`) sliced, anything deeper cloned. Every page's events decode their options, and
 * structuredClone of the whole object was ~1% of a crawl's CPU.
 */
const DEFAULT_COPIERS: ReadonlyArray<readonly [string, unknown, Copier]> = Object.entries(SCRAPE_OPTION_DEFAULTS).map(
  ([key, value]) =>
    [
      key,
      value,
      value === null || typeof value !== 'object'
        ? asIs
        : Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')
          ? sliced
          : cloned,
    ] as const,
);

/** A copy of the defaults a caller may change. */
function freshDefaults(): Required<Pick<ScrapeOptions, DefaultedScrapeOption>> {
  const out: Record<string, unknown> = {};
  for (const [key, value, copy] of DEFAULT_COPIERS) out[key] = copy(value);
  return out as Required<Pick<ScrapeOptions, DefaultedScrapeOption>>;
}

/** Every option at its default: what an event whose options cannot be read is read with, where it is read at all. */
export function defaultScrapeOptions(): DecodedScrapeOptions {
  return freshDefaults() as DecodedScrapeOptions;
}

/**
 * The time one read of the page may take: the `timeout` option within its bounds, and never
 * past the request's deadline (at least 1 ms).
 */
export function pageTimeoutMs(options: Pick<ScrapeOptions, 'timeout'>, deadlineMs: number, nowMs: number): number {
  const wanted = Math.min(PAGE_TIMEOUT_MS.max, Math.max(PAGE_TIMEOUT_MS.min, options.timeout ?? PAGE_TIMEOUT_MS.default));
  return Math.max(1, Math.min(wanted, deadlineMs - nowMs));
}
