/**
 * How a render's browser context looks to the page, from the scrape options:
 *
 * - identity: a desktop Chrome user agent of the running Chromium's version (not
 *   "HeadlessChrome"), or with `mobile` a phone: 390x844 viewport, device scale 3, touch,
 *   `isMobile`, an Android Chrome user agent. The caller cannot change these (`headers`
 *   that name browser identity are dropped, as for the fetcher: pipeline/runtime/net/headers.ts);
 * - `location`: locale (its first language), time zone (the country's main one) and
 *   Accept-Language (pipeline/runtime/net/locale.ts, as the fetcher sends it);
 * - `headers`: sent with every request of the context, except the reserved ones;
 * - service workers are blocked, so every request of the page passes the context's route
 *   (policy.ts) and the guarded proxy, and nothing outlives the context.
 */
import type { BrowserContextOptions } from 'playwright-core';
import { isReservedHeader } from '../../pipeline/runtime/net/headers.js';
import { acceptLanguage, languagesFor } from '../../pipeline/runtime/net/locale.js';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';

export const DESKTOP_VIEWPORT = { width: 1280, height: 800 } as const;
export const MOBILE_VIEWPORT = { width: 390, height: 844 } as const;

/** Main IANA time zone by country (the common ones); others keep the browser's (UTC). */
const COUNTRY_TIMEZONES: Readonly<Record<string, string>> = {
  US: 'America/New_York', CA: 'America/Toronto', MX: 'America/Mexico_City', BR: 'America/Sao_Paulo',
  AR: 'America/Argentina/Buenos_Aires', CL: 'America/Santiago', CO: 'America/Bogota', PE: 'America/Lima',
  GB: 'Europe/London', IE: 'Europe/Dublin', FR: 'Europe/Paris', DE: 'Europe/Berlin', ES: 'Europe/Madrid',
  IT: 'Europe/Rome', NL: 'Europe/Amsterdam', BE: 'Europe/Brussels', CH: 'Europe/Zurich', AT: 'Europe/Vienna',
  PT: 'Europe/Lisbon', SE: 'Europe/Stockholm', NO: 'Europe/Oslo', DK: 'Europe/Copenhagen', FI: 'Europe/Helsinki',
  PL: 'Europe/Warsaw', CZ: 'Europe/Prague', GR: 'Europe/Athens', RO: 'Europe/Bucharest', HU: 'Europe/Budapest',
  UA: 'Europe/Kyiv', RU: 'Europe/Moscow', TR: 'Europe/Istanbul', IL: 'Asia/Jerusalem', AE: 'Asia/Dubai',
  SA: 'Asia/Riyadh', EG: 'Africa/Cairo', ZA: 'Africa/Johannesburg', NG: 'Africa/Lagos', KE: 'Africa/Nairobi',
  IN: 'Asia/Kolkata', PK: 'Asia/Karachi', CN: 'Asia/Shanghai', HK: 'Asia/Hong_Kong', TW: 'Asia/Taipei',
  JP: 'Asia/Tokyo', KR: 'Asia/Seoul', SG: 'Asia/Singapore', ID: 'Asia/Jakarta', TH: 'Asia/Bangkok',
  VN: 'Asia/Ho_Chi_Minh', PH: 'Asia/Manila', MY: 'Asia/Kuala_Lumpur', AU: 'Australia/Sydney', NZ: 'Pacific/Auckland',
};

/** `Chrome/<major>.0.0.0` user agents, as Chrome reduces them (desktop Linux, Android). */
export function userAgent(browserVersion: string, mobile: boolean): string {
  const major = /^(\d+)/.exec(browserVersion)?.[1] ?? '130';
  return mobile
    ? `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`
    : `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

export function contextOptions(options: ScrapeOptions, browserVersion: string): BrowserContextOptions {
  const mobile = options.mobile ?? false;
  const location = options.location ?? null;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (isReservedHeader(name, location !== null) || /[\r\n\0]/.test(value)) continue;
    headers[name] = value;
  }
  const out: BrowserContextOptions = {
    userAgent: userAgent(browserVersion, mobile),
    viewport: mobile ? { ...MOBILE_VIEWPORT } : { ...DESKTOP_VIEWPORT },
    ...(mobile ? { isMobile: true, hasTouch: true, deviceScaleFactor: 3 } : {}),
    serviceWorkers: 'block',
    acceptDownloads: false,
    extraHTTPHeaders: headers,
  };
  if (location) {
    const languages = languagesFor(location);
    headers['Accept-Language'] = acceptLanguage(languages);
    const locale = languages[0];
    if (locale) out.locale = locale;
    const timezone = COUNTRY_TIMEZONES[location.country.toUpperCase()];
    if (timezone) out.timezoneId = timezone;
  }
  return out;
}
