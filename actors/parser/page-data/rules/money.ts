/**
 * Prices as written: `1.299,00 €`, `€1,299.00`, `$19.99`, `19,99 EUR`, `¥1,200`, `CHF 12.50`,
 * `1 299,00 zł`, `19,-` → a number and an ISO 4217 currency.
 *
 * Numbers are read by a hand-written scan (no regular expression): a run of digits with
 * `.`, `,`, `'`, thin or no-break spaces (and a plain space before exactly three digits)
 * between them. The separator read as the decimal point: the last of two different ones
 * (`1.299,00`, `1,299.00`); a lone one followed by one or two digits (`19,99`, `12.5`); a
 * lone or repeated one followed by three digits is a thousands separator (`1.299`,
 * `1,299,000`). Only the first 200 characters are read.
 *
 * The currency is a symbol or code within three characters before or after the number:
 * € EUR, £ GBP, ¥/￥ JPY (CNY on a Chinese-language page), ₹ INR, ₩ KRW, ₽ RUB, ₺ TRY, ₴ UAH,
 * ₪ ILS, ₫ VND, ฿ THB, ₱ PHP, zł PLN, Kč CZK, Ft HUF, R$ BRL, US$ USD, A$/AU$ AUD, C$/CA$
 * CAD, NZ$ NZD, HK$ HKD, S$ SGD, MX$ MXN, CHF/Fr./SFr. CHF, kr by the page's language or
 * domain (sv SEK, nb/nn/no NOK, da DKK, is ISK), the ISO codes themselves; `$` alone is the
 * dollar of the page's region — the `<html lang>` region first (en-CA/fr-CA CAD, en-AU AUD,
 * en-NZ NZD, es-MX MXN, es-AR ARS, es-CL CLP, es-CO COP, en-SG SGD, zh-HK HKD, zh-TW TWD),
 * else the domain's country code (.ca .au .nz .mx .ar .cl .sg .hk .tw) — else USD.
 * The first number with a currency wins; without any, the first number (currency unknown).
 */

export interface Money {
  readonly price: number;
  readonly currency: string | null;
}

const CODES = new Set([
  'EUR', 'USD', 'GBP', 'CHF', 'JPY', 'CNY', 'SEK', 'NOK', 'DKK', 'ISK', 'PLN', 'CZK', 'HUF', 'RON', 'BGN', 'CAD', 'AUD',
  'NZD', 'INR', 'BRL', 'MXN', 'ARS', 'CLP', 'COP', 'RUB', 'TRY', 'UAH', 'ZAR', 'HKD', 'SGD', 'KRW', 'TWD', 'ILS', 'THB',
  'VND', 'PHP', 'IDR', 'MYR', 'AED', 'SAR',
]);
/** Symbols, longest first so `US$` is read before `$`. `$` and `kr` are resolved by region. */
const SYMBOLS: ReadonlyArray<readonly [string, string]> = [
  ['US$', 'USD'], ['AU$', 'AUD'], ['CA$', 'CAD'], ['NZ$', 'NZD'], ['HK$', 'HKD'], ['MX$', 'MXN'], ['SFr.', 'CHF'],
  ['R$', 'BRL'], ['A$', 'AUD'], ['C$', 'CAD'], ['S$', 'SGD'], ['Fr.', 'CHF'], ['zł', 'PLN'], ['Kč', 'CZK'], ['Ft', 'HUF'],
  ['kr', 'kr'], ['€', 'EUR'], ['£', 'GBP'], ['¥', 'JPY'], ['￥', 'JPY'], ['₹', 'INR'], ['₩', 'KRW'], ['₽', 'RUB'], ['₺', 'TRY'],
  ['₴', 'UAH'], ['₪', 'ILS'], ['₫', 'VND'], ['฿', 'THB'], ['₱', 'PHP'], ['$', '$'],
];
const DOLLAR_BY_REGION: Readonly<Record<string, string>> = {
  ca: 'CAD', au: 'AUD', nz: 'NZD', mx: 'MXN', ar: 'ARS', cl: 'CLP', co: 'COP', sg: 'SGD', hk: 'HKD', tw: 'TWD',
};
const DOLLAR_BY_TLD = new Set(['ca', 'au', 'nz', 'mx', 'ar', 'cl', 'sg', 'hk', 'tw']);
const KRONA_BY_LANG: Readonly<Record<string, string>> = { sv: 'SEK', nb: 'NOK', nn: 'NOK', no: 'NOK', da: 'DKK', is: 'ISK' };
const KRONA_BY_TLD: Readonly<Record<string, string>> = { se: 'SEK', no: 'NOK', dk: 'DKK', is: 'ISK' };

/** What the page says about where it is: `<html lang>` and the URL's top-level domain. */
export interface Locale {
  readonly lang: string;
  readonly tld: string;
}

export function localeOf(lang: string, url: string): Locale {
  let tld = '';
  try {
    tld = new URL(url).hostname.split('.').pop() ?? '';
  } catch {
    tld = '';
  }
  return { lang: lang.toLowerCase(), tld: tld.toLowerCase() };
}

function resolveSymbol(code: string, locale: Locale): string | null {
  const [language = '', region = ''] = locale.lang.split(/[-_]/);
  if (code === '$') {
    const byRegion = DOLLAR_BY_REGION[region];
    if (byRegion) return byRegion;
    return DOLLAR_BY_TLD.has(locale.tld) ? (DOLLAR_BY_REGION[locale.tld] ?? 'USD') : 'USD';
  }
  if (code === 'kr') return KRONA_BY_LANG[language] ?? KRONA_BY_TLD[locale.tld] ?? null;
  if (code === 'JPY' && language === 'zh') return 'CNY';
  return code;
}

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const GROUP = new Set(["'", '\u00a0', '\u202f', '\u2009', '’']);

interface NumberToken {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** Number tokens of the text (see the file comment), in order. Linear: each character is looked at a bounded number of times. */
function numberTokens(text: string): NumberToken[] {
  const out: NumberToken[] = [];
  let i = 0;
  while (i < text.length) {
    if (!isDigit(text.charAt(i))) {
      i += 1;
      continue;
    }
    const start = i;
    let end = i;
    while (end < text.length) {
      const c = text.charAt(end);
      if (isDigit(c)) end += 1;
      else if ((c === '.' || c === ',' || GROUP.has(c)) && isDigit(text.charAt(end + 1))) end += 1;
      else if (c === ' ' && isDigit(text.charAt(end + 1)) && isDigit(text.charAt(end + 2)) && isDigit(text.charAt(end + 3)) && !isDigit(text.charAt(end + 4))) end += 1;
      else break;
    }
    out.push({ text: text.slice(start, end), start, end });
    i = end + 1;
  }
  return out;
}

/** The value of a number token (see the file comment for the decimal-point rule). */
export function readNumber(token: string): number | null {
  let digits = '';
  let lastSep = '';
  let lastSepAt = -1;
  const seps = new Set<string>();
  for (let i = 0; i < token.length; i += 1) {
    const c = token.charAt(i);
    if (c === '.' || c === ',') {
      seps.add(c);
      lastSep = c;
      lastSepAt = digits.length;
    } else if (isDigit(c)) digits += c;
  }
  if (!digits) return null;
  let decimals = 0;
  if (lastSep) {
    const after = digits.length - lastSepAt;
    const repeated = token.split(lastSep).length > 2;
    const decimal = seps.size === 2 || (!repeated && after !== 3);
    if (decimal) decimals = after;
  }
  const value = Number(decimals ? `${digits.slice(0, digits.length - decimals)}.${digits.slice(digits.length - decimals)}` : digits);
  return Number.isFinite(value) ? value : null;
}

const isLetter = (c: string): boolean => c !== '' && /\p{L}/u.test(c);

/** Is `mark` written at the end of `before` (or the start of `after`) as a word of its own? (`Ft` in "12 Ft", not in "Gift 12".) */
const endsWithMark = (before: string, mark: string): boolean =>
  before.endsWith(mark) && !(isLetter(mark.charAt(0)) && isLetter(before.charAt(before.length - mark.length - 1)));
const startsWithMark = (after: string, mark: string): boolean =>
  after.startsWith(mark) && !(isLetter(mark.charAt(mark.length - 1)) && isLetter(after.charAt(mark.length)));

/** A currency symbol or code touching the number (within three characters) before or after it. */
function currencyNear(text: string, token: NumberToken, locale: Locale): string | null {
  const before = text.slice(Math.max(0, token.start - 8), token.start).replace(/[\s:]{0,3}$/, '');
  const after = text.slice(token.end, token.end + 8).replace(/^(?:,-|,–|\.-)?[\s]{0,3}/, '');
  for (const [symbol, code] of SYMBOLS) {
    if (endsWithMark(before, symbol) || startsWithMark(after, symbol)) return resolveSymbol(code, locale);
  }
  for (const code of CODES) if (endsWithMark(before, code) || startsWithMark(after, code)) return code;
  return null;
}

/** The first price written in `text` (see the file comment); null when it holds no number. */
export function parseMoney(text: string, locale: Locale = { lang: '', tld: '' }): Money | null {
  const head = text.slice(0, 200);
  let first: Money | null = null;
  for (const token of numberTokens(head)) {
    const price = readNumber(token.text);
    if (price === null) continue;
    const currency = currencyNear(head, token, locale);
    if (currency) return { price, currency };
    first ??= { price, currency: null };
  }
  return first;
}
