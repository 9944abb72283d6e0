/**
 * Scrape option `location` → the Accept-Language a reader in that place sends. `languages`
 * wins when given; otherwise the country's main languages (a table of the common ones; an
 * unlisted country gets `en-<CC>, en`). Shared by the fetcher (header) and the renderer
 * (browser locale).
 */
export interface Location {
  readonly country: string;
  readonly languages?: readonly string[] | null;
}

/** Main languages by ISO 3166-1 alpha-2 country, most used first. */
const COUNTRY_LANGUAGES: Readonly<Record<string, readonly string[]>> = {
  US: ['en-US', 'en'], GB: ['en-GB', 'en'], IE: ['en-IE', 'en', 'ga'], AU: ['en-AU', 'en'], NZ: ['en-NZ', 'en'],
  CA: ['en-CA', 'en', 'fr-CA', 'fr'], IN: ['en-IN', 'hi', 'en'], ZA: ['en-ZA', 'en', 'af'], SG: ['en-SG', 'en', 'zh'],
  DE: ['de-DE', 'de'], AT: ['de-AT', 'de'], CH: ['de-CH', 'de', 'fr-CH', 'fr', 'it'], FR: ['fr-FR', 'fr'],
  BE: ['nl-BE', 'fr-BE', 'nl', 'fr'], NL: ['nl-NL', 'nl'], LU: ['fr-LU', 'fr', 'de', 'lb'], ES: ['es-ES', 'es'],
  PT: ['pt-PT', 'pt'], IT: ['it-IT', 'it'], GR: ['el-GR', 'el'], SE: ['sv-SE', 'sv'], NO: ['nb-NO', 'no', 'nb'],
  DK: ['da-DK', 'da'], FI: ['fi-FI', 'fi', 'sv'], IS: ['is-IS', 'is'], PL: ['pl-PL', 'pl'], CZ: ['cs-CZ', 'cs'],
  SK: ['sk-SK', 'sk'], HU: ['hu-HU', 'hu'], RO: ['ro-RO', 'ro'], BG: ['bg-BG', 'bg'], HR: ['hr-HR', 'hr'],
  SI: ['sl-SI', 'sl'], RS: ['sr-RS', 'sr'], UA: ['uk-UA', 'uk'], RU: ['ru-RU', 'ru'], BY: ['be-BY', 'ru'],
  LT: ['lt-LT', 'lt'], LV: ['lv-LV', 'lv'], EE: ['et-EE', 'et'], TR: ['tr-TR', 'tr'], IL: ['he-IL', 'he'],
  SA: ['ar-SA', 'ar'], AE: ['ar-AE', 'ar', 'en'], EG: ['ar-EG', 'ar'], MA: ['ar-MA', 'fr', 'ar'], IR: ['fa-IR', 'fa'],
  PK: ['ur-PK', 'en'], BD: ['bn-BD', 'bn'], CN: ['zh-CN', 'zh'], TW: ['zh-TW', 'zh'], HK: ['zh-HK', 'zh', 'en'],
  JP: ['ja-JP', 'ja'], KR: ['ko-KR', 'ko'], VN: ['vi-VN', 'vi'], TH: ['th-TH', 'th'], ID: ['id-ID', 'id'],
  MY: ['ms-MY', 'ms', 'en'], PH: ['en-PH', 'fil', 'en'], MX: ['es-MX', 'es'], AR: ['es-AR', 'es'], CO: ['es-CO', 'es'],
  CL: ['es-CL', 'es'], PE: ['es-PE', 'es'], VE: ['es-VE', 'es'], BR: ['pt-BR', 'pt'], NG: ['en-NG', 'en'],
  KE: ['en-KE', 'en', 'sw'],
};

/** Languages for a location: its own list, else the country's, else `en-<CC>, en`. */
export function languagesFor(location: Location): string[] {
  const own = (location.languages ?? []).map((l) => l.trim()).filter((l) => /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(l));
  if (own.length > 0) return own;
  const country = location.country.toUpperCase();
  return [...(COUNTRY_LANGUAGES[country] ?? [`en-${country}`, 'en'])];
}

/** `de-DE,de;q=0.9,…` with decreasing weights (at most 10 languages). */
export function acceptLanguage(languages: readonly string[]): string {
  const unique = [...new Set(languages)].slice(0, 10);
  return unique.map((l, i) => (i === 0 ? l : `${l};q=${(1 - i / 10).toFixed(1)}`)).join(',');
}
