/**
 * When a scrape is read in a browser, and what that costs: defined once for the gateway (which
 * routes the request and reserves its credits) and the renderer (which charges them).
 *
 * A scrape needs a browser when it asks for `waitFor > 0`, any `actions`, or the `screenshot`
 * or `network` format (spec, Scrape options). Everything else is fetched over plain HTTP:
 * a browser costs far more memory and time than a fetch, so it is never used when not asked
 * for. (`captchaHandling: auto` applies inside a render; on its own it does not start one.)
 */
import type { ScrapeOptions } from '../schemas/api/scrape-options.js';

/** Formats only a browser produces. */
export const BROWSER_FORMATS: readonly string[] = ['screenshot', 'network'];

/**
 * Credits a rendered page costs (spec, Charging rule 3: billed as a browser page). A render
 * holds a Chromium page for seconds where a fetch holds a socket for milliseconds; 5 is the
 * ratio hosted scraping APIs commonly charge for JavaScript rendering.
 */
export const BROWSER_PAGE_CREDITS = 5;

function formatName(format: NonNullable<ScrapeOptions['formats']>[number]): string {
  return typeof format === 'string' ? format : format.type;
}

export function needsBrowser(options: Pick<ScrapeOptions, 'waitFor' | 'actions' | 'formats'>): boolean {
  if ((options.waitFor ?? 0) > 0) return true;
  if ((options.actions ?? []).length > 0) return true;
  return (options.formats ?? []).some((f) => BROWSER_FORMATS.includes(formatName(f)));
}

/**
 * What of a rendered request changes the DOM a copy of it holds, for the page cache key
 * (pipeline/page-cache.ts): null for a page fetched over HTTP, so its key is unchanged.
 */
export function renderVariant(options: ScrapeOptions): Record<string, unknown> | null {
  if (!needsBrowser(options)) return null;
  return { waitFor: options.waitFor ?? 0, actions: options.actions ?? [], blockAssets: options.blockAssets ?? true };
}
