/**
 * Reading values out of text, for coercion (coerce.ts). Each rule, as published:
 *
 * - **plain text**: HTML reduced to its text (tags dropped, block tags read as spaces,
 *   script and style content dropped, entities decoded, by htmlparser2), whitespace runs
 *   collapsed to one space. Text without `<` or `&` is only collapsed; a URL alone (a scheme
 *   or `/` first, no whitespace) only has `&amp;` decoded, so `?a=1&copy=2` stays as written.
 * - **numbers**: the first number in the text (`€ 19.99`, `19,99 EUR`, `Price: 1,299.00`).
 *   Separators: the last of two different ones is the decimal point (`1.299,00`,
 *   `1,299.00`); a lone `.` is a decimal point (schema.org writes numbers that way); a lone
 *   `,` followed by exactly three digits is a thousands separator (`1,299`), else a decimal
 *   comma (`19,99`); a repeated one separates thousands (`1.299.000`) when every group has
 *   three digits. Apostrophes, thin and no-break spaces, and a plain space before exactly three
 *   digits, separate thousands (`1 299,00`, `1'299.00`). The first 200 characters are read.
 * - **dates**: ISO 8601 / RFC 3339 (`2024-03-12`, `2024-03-12T09:30[:00][.123][Z|+01:00|+0100]`,
 *   a space for the `T`), `2024/03/12`, `12.03.2024` (day first), English text
 *   (`12 March 2024`, `March 12, 2024`, `Tue, 12 Mar 2024 09:30:00 GMT`, with an optional
 *   `at 9:30 pm`). Real calendar days only; month/day/year with slashes is ambiguous and not
 *   read. Written out as RFC 3339: a date-time with no offset is taken as UTC (`Z`: the page's
 *   zone is unknown); an offset is kept as written (`+0100` → `+01:00`).
 * - **durations**: ISO 8601 (`PT1H20M`, `P1DT2H`, `P0Y0M0DT0H20M0S`; years or months other
 *   than zero are not a fixed length and are refused) and written ones (`1 hour 20 minutes`,
 *   `1h 20m`, `45 min`) → minutes.
 * - **cutting**: text longer than a limit is cut at the last word boundary within it (a single
 *   over-long word is cut hard), counted in code points as JSON Schema counts.
 *
 * Every pattern here is a bounded sequence without nested quantifiers, run on bounded text.
 */
import { Parser } from 'htmlparser2';

const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'td', 'th', 'tr', 'ul',
]);
const SKIPPED_TAGS = new Set(['script', 'style', 'template']);

function htmlText(html: string): string {
  let out = '';
  let skipped = 0;
  const parser = new Parser(
    {
      ontext(text) {
        if (!skipped) out += text;
      },
      onopentag(name) {
        if (SKIPPED_TAGS.has(name)) skipped += 1;
        else if (BLOCK_TAGS.has(name)) out += ' ';
      },
      onclosetag(name) {
        if (SKIPPED_TAGS.has(name)) skipped = Math.max(0, skipped - 1);
        else if (BLOCK_TAGS.has(name)) out += ' ';
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(html);
  return out;
}

/** A URL or path written alone: its `&` separate query parameters, only `&amp;` is an entity there. */
const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:|\/)\S*$/i;

/** `text` without HTML or entities, whitespace collapsed (a URL keeps its `&…` parameters: only `&amp;` is decoded). */
export function plainText(text: string): string {
  const trimmed = text.trim();
  if (URL_LIKE.test(trimmed)) return trimmed.split('&amp;').join('&');
  const decoded = text.includes('<') || text.includes('&') ? htmlText(text) : text;
  return decoded.replace(/\s+/g, ' ').trim();
}

// ---- numbers ------------------------------------------------------------------------

const NUMBER_TOKEN = /[-\u2212]?\d[\d.,'\u2019\u00a0\u202f\u2009]*/;

function joinGroups(parts: readonly string[]): string | null {
  return parts.slice(1).every((p) => p.length === 3) ? parts.join('') : null;
}

function decimalForm(token: string): string | null {
  const dot = token.lastIndexOf('.');
  const comma = token.lastIndexOf(',');
  if (dot >= 0 && comma >= 0) {
    const [decimal, thousands] = dot > comma ? ['.', ','] : [',', '.'];
    const [whole, fraction, extra] = token.split(decimal);
    if (extra !== undefined || whole === undefined) return null;
    const joined = joinGroups(whole.split(thousands));
    return joined === null ? null : `${joined}.${fraction ?? ''}`;
  }
  const separator = dot >= 0 ? '.' : comma >= 0 ? ',' : null;
  if (!separator) return token;
  const parts = token.split(separator);
  if (parts.length > 2) return joinGroups(parts);
  const [whole = '', fraction = ''] = parts;
  if (separator === ',' && fraction.length === 3 && whole !== '0') return `${whole}${fraction}`;
  return `${whole}.${fraction}`;
}

/** The first number written in `text` (see the file comment), or null. */
export function parseNumber(text: string): number | null {
  const spaced = text.slice(0, 200).replace(/(\d) (?=\d{3}(?!\d))/g, '$1');
  const match = NUMBER_TOKEN.exec(spaced);
  if (!match) return null;
  let token = match[0].replace(/['\u2019\u00a0\u202f\u2009]/g, '').replace(/[.,]+$/, '');
  const negative = token.startsWith('-') || token.startsWith('\u2212');
  if (negative) token = token.slice(1);
  const form = decimalForm(token);
  if (form === null) return null;
  const value = Number(form);
  if (!Number.isFinite(value)) return null;
  return negative ? -value : value;
}

// ---- dates --------------------------------------------------------------------------

export interface DateParts {
  readonly date: string;
  readonly time: string | null;
  readonly offset: string | null;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)? ?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const YMD_SLASH = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/;
const DMY_DOTS = /^(\d{1,2})\. ?(\d{1,2})\. ?(\d{4})$/;
const TIME_TAIL = '(?:,? (?:at )?(\\d{1,2}):(\\d{2})(?::(\\d{2}))? ?(am|pm)? ?(gmt|utc|z|[+-]\\d{2}:?\\d{2})?)?$';
const TEXT_DMY = new RegExp(`^(?:[a-z]{2,9}\\.?,? )?(\\d{1,2})(?:st|nd|rd|th|\\.)? ([a-z]{3,9})\\.?,? (\\d{4})${TIME_TAIL}`, 'i');
const TEXT_MDY = new RegExp(`^(?:[a-z]{2,9}\\.?,? )?([a-z]{3,9})\\.? (\\d{1,2})(?:st|nd|rd|th)?,? (\\d{4})${TIME_TAIL}`, 'i');

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6, jul: 7, july: 7,
  aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11, dec: 12, december: 12,
};

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function calendarDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days ? `${pad(year, 4)}-${pad(month)}-${pad(day)}` : null;
}

function clock(hours: number, minutes: number, seconds: number, fraction = ''): string | null {
  if (hours > 23 || minutes > 59 || seconds > 60) return null;
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}${fraction}`;
}

function offsetOf(raw: string | undefined): string | null {
  if (!raw) return null;
  const lower = raw.toLowerCase();
  if (lower === 'z' || lower === 'gmt' || lower === 'utc') return 'Z';
  const digits = raw.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 23 || minutes > 59) return null;
  return `${raw.charAt(0)}${pad(hours)}:${pad(minutes)}`;
}

function isoParts(m: RegExpExecArray): DateParts | null {
  const date = calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
  if (!date) return null;
  if (m[4] === undefined) return { date, time: null, offset: null };
  const time = clock(Number(m[4]), Number(m[5]), Number(m[6] ?? 0), m[7] ?? '');
  const offset = offsetOf(m[8]);
  if (!time || (m[8] !== undefined && !offset)) return null;
  return { date, time, offset };
}

function textParts(year: string, month: string, day: string, rest: readonly (string | undefined)[]): DateParts | null {
  const monthNumber = MONTHS[month.toLowerCase()];
  if (!monthNumber) return null;
  const date = calendarDate(Number(year), monthNumber, Number(day));
  if (!date) return null;
  const [h, min, s, meridiem, zone] = rest;
  if (h === undefined) return { date, time: null, offset: null };
  let hours = Number(h);
  if (meridiem) {
    if (hours < 1 || hours > 12) return null;
    hours = (hours % 12) + (meridiem.toLowerCase() === 'pm' ? 12 : 0);
  }
  const time = clock(hours, Number(min), Number(s ?? 0));
  const offset = offsetOf(zone);
  if (!time || (zone !== undefined && !offset)) return null;
  return { date, time, offset };
}

/** A date (and time) written in `text`, or null (see the file comment). */
export function parseDate(text: string): DateParts | null {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t.length > 64) return null;
  let m = ISO.exec(t);
  if (m) return isoParts(m);
  m = YMD_SLASH.exec(t);
  if (m) {
    const date = calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
    return date ? { date, time: null, offset: null } : null;
  }
  m = DMY_DOTS.exec(t);
  if (m) {
    const date = calendarDate(Number(m[3]), Number(m[2]), Number(m[1]));
    return date ? { date, time: null, offset: null } : null;
  }
  m = TEXT_DMY.exec(t);
  if (m) return textParts(m[3] as string, m[2] as string, m[1] as string, m.slice(4));
  m = TEXT_MDY.exec(t);
  if (m) return textParts(m[3] as string, m[1] as string, m[2] as string, m.slice(4));
  return null;
}

/**
 * RFC 3339 text of `parts`: `date` → the full-date; `date-time` → a date-time (a date alone
 * at `T00:00:00Z`; no offset → `Z`); `auto` → the date alone when no time was written, else
 * the date-time.
 */
export function formatDate(parts: DateParts, mode: 'date' | 'date-time' | 'auto'): string {
  if (mode === 'date' || (mode === 'auto' && parts.time === null)) return parts.date;
  return `${parts.date}T${parts.time ?? '00:00:00'}${parts.offset ?? 'Z'}`;
}

// ---- durations ----------------------------------------------------------------------

const ISO_DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/i;
const HOURS = /(\d+(?:[.,]\d+)?) ?(?:hours?|hrs?|h|std\.?|stunden?)(?![a-z])/i;
const MINUTES = /(\d+) ?(?:minutes?|mins?|m|minuten?)(?![a-z])/i;

const decimal = (raw: string | undefined): number => (raw ? Number(raw.replace(',', '.')) : 0);

/** Minutes of an ISO 8601 duration, or null. */
export function isoDurationMinutes(text: string): number | null {
  const t = text.trim();
  if (t.length < 3 || t.length > 64 || t.toUpperCase().endsWith('T')) return null;
  const m = ISO_DURATION.exec(t);
  if (!m || m.slice(1).every((g) => g === undefined)) return null;
  if (Number(m[1] ?? 0) !== 0 || Number(m[2] ?? 0) !== 0) return null;
  return decimal(m[3]) * 10080 + decimal(m[4]) * 1440 + decimal(m[5]) * 60 + decimal(m[6]) + decimal(m[7]) / 60;
}

/** Minutes of a duration, ISO 8601 or written (`1 hour 20 minutes`), or null. */
export function durationMinutes(text: string): number | null {
  const iso = isoDurationMinutes(text);
  if (iso !== null) return iso;
  const t = text.trim().slice(0, 100);
  if (/^P[\dT]/i.test(t) && !t.includes(' ')) return null;
  const hours = HOURS.exec(t);
  const minutes = MINUTES.exec(t);
  if (!hours && !minutes) return null;
  return decimal(hours?.[1]) * 60 + decimal(minutes?.[1]);
}

// ---- cutting ------------------------------------------------------------------------

/** Code points, as JSON Schema's `maxLength` counts them. */
export const lengthOf = (text: string): number => {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
};

/** What a cut text does not end with. */
const TRAILING = ' \t\n,;:\u2013\u2014-';

/** `text` cut at the last word boundary within `max` code points (hard when one word is longer). */
export function cutAtWord(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  if (max <= 0) return '';
  const head = chars.slice(0, max).join('');
  if (chars[max] === ' ') return head.trimEnd();
  const space = head.lastIndexOf(' ');
  const cut = space > 0 ? head.slice(0, space) : head;
  let end = cut.length;
  while (end > 0 && TRAILING.includes(cut.charAt(end - 1))) end -= 1;
  return cut.slice(0, end);
}

