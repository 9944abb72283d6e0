/**
 * When a scrape is read in a browser, and what that costs: defined once for the gateway (which
 * routes the request and reserves its credits) and the renderer (which charges them).
 *
 * A scrape needs a browser when it asks for `waitFor > 0`, any `actions`, or the `screenshot`
 * or `network` format (spec, Scrape options). Everything else is fetched over plain HTTP:
 * a browser costs far more memory and time than a fetch, so it is never used when not asked
 * for. (`captchaHandling: auto` applies inside a render; on its own it does not start one.)
 *
 * The one exception is found only after a fetch: a page that holds a challenge needing a
 * click (`challengeFrameIn`). With `captchaHandling: auto` (the default) and a renderer in the
 * build, the fetcher sends such a request on to the renderer (`escalated`), which clears the
 * challenge and reads the page. A challenge met on a plain fetch is cleared in the browser at
 * a fetched page's price (`renderCredits`): the caller asked for, and the gateway reserved,
 * a fetched page. The prices are schemas/api/prices.ts's.
 */
import { load } from 'cheerio';
import { PRICES } from '../../schemas/api/prices.js';
import { CAPTCHA_FRAME_SELECTOR, type ScrapeOptions } from '../../schemas/api/scrape-options.js';

/** Formats only a browser produces. */
export const BROWSER_FORMATS: readonly string[] = ['screenshot', 'network'];

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
 * (pipeline/pages/cache.ts): null for a page fetched over HTTP, so its key is unchanged.
 */
export function renderVariant(options: ScrapeOptions): Record<string, unknown> | null {
  if (!needsBrowser(options)) return null;
  return { waitFor: options.waitFor ?? 0, actions: options.actions ?? [], blockAssets: options.blockAssets ?? true };
}

/**
 * Credits a render costs: a browser page, or, when the fetcher escalated it, a fresh page's
 * price (what the gateway reserved for the plain scrape).
 */
export function renderCredits(event: { readonly escalated: boolean }): number {
  return event.escalated ? PRICES.freshPage.credits : PRICES.browserPage.credits;
}

const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\b/i;
/** Cheap test before parsing: a challenge frame needs an iframe mentioning "challenge". */
const MAYBE_FRAME = /<iframe\b/i;
const MAYBE_CHALLENGE = /challenge/i;

/**
 * Whether a fetched page holds a challenge frame the renderer's `captchaHandling: auto` would
 * click (the same CAPTCHA_FRAME_SELECTOR, actors/renderer/captcha.ts): an HTML body with a
 * matching iframe. Bodies with no `<iframe` or no "challenge" are not parsed at all.
 */
export function challengeFrameIn(contentType: string | null, body: Buffer): boolean {
  if (!contentType || !HTML_TYPE.test(contentType)) return false;
  const html = body.toString('latin1');
  if (!MAYBE_FRAME.test(html) || !MAYBE_CHALLENGE.test(html)) return false;
  return load(html)(CAPTCHA_FRAME_SELECTOR).length > 0;
}

/**
 * Whether a page fetched over HTTP is to be rendered instead: it holds a challenge frame, the
 * caller left `captchaHandling` on `auto`, and it is not a job page (jobs take no browser
 * options yet; their pages are read as fetched).
 */
export function needsChallengeRender(
  request: { readonly jobId: string | null; readonly escalated: boolean },
  options: Pick<ScrapeOptions, 'captchaHandling'>,
  page: { readonly contentType: string | null; readonly body: Buffer },
): boolean {
  if (request.jobId !== null || request.escalated) return false;
  if ((options.captchaHandling ?? 'auto') !== 'auto') return false;
  return challengeFrameIn(page.contentType, page.body);
}
