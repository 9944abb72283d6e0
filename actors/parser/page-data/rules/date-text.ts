/**
 * Dates written on a page, read into ISO 8601: `2024-03-12`, or `2024-03-12T10:30:00` when a
 * time is written next to the date (with its offset when one is given, as in a
 * `datetime` attribute: `2024-03-12T10:30:00+01:00`).
 *
 * Formats, tried at each position of the text in this order (the first full match wins):
 *   ISO          2024-03-12, 2024-03-12T10:30[:00][.123][Z|+01:00]
 *   Y/M/D        2024/03/12, 2024.03.12
 *   D.M.Y        12.03.2024, 12-03-2024; 03/12/2024 is month/day when the page's language is
 *                English without a region or en-US (or the first number is above 12), else
 *                day/month
 *   D Month Y    12 March 2024, 12. März 2024, 1er mars 2024, 12 de marzo de 2024, 12 Mar. 2024
 *   Month D, Y   March 12, 2024, Mar. 12 2024
 * Month names (full and abbreviated) in English, German, French, Spanish, Italian, Dutch
 * and Portuguese. A time follows within a few characters (`, 10:30`, ` at 10:30 pm`,
 * ` um 10:30 Uhr`, ` à 14h30`). Years 1900–2100 and real calendar days only; a year alone
 * (a copyright line) is never a date. Every pattern is a bounded sequence with no nested
 * quantifier, and callers pass bounded text. A pattern runs only on text holding what it
 * cannot match without (four digits in a row, its separators, a month name): run once or
 * twice per page, each costs microseconds.
 */

const MONTHS: Readonly<Record<string, number>> = (() => {
  const table: Record<string, number> = {};
  const add = (month: number, ...names: string[]) => {
    for (const n of names) table[n] = month;
  };
  add(1, 'january', 'jan', 'januar', 'jänner', 'jän', 'janvier', 'janv', 'enero', 'ene', 'gennaio', 'gen', 'januari', 'janeiro');
  add(2, 'february', 'feb', 'februar', 'feber', 'février', 'fevrier', 'févr', 'fevr', 'febrero', 'febbraio', 'februari', 'fevereiro', 'fev');
  add(3, 'march', 'mar', 'märz', 'maerz', 'mär', 'mrz', 'mars', 'marzo', 'maart', 'mrt', 'março', 'marco');
  add(4, 'april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile');
  add(5, 'may', 'mai', 'mayo', 'maggio', 'mag', 'mei', 'maio');
  add(6, 'june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu', 'junho');
  add(7, 'july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug', 'julho');
  add(8, 'august', 'aug', 'août', 'aout', 'agosto', 'ago', 'augustus');
  add(9, 'september', 'sep', 'sept', 'septembre', 'septiembre', 'setiembre', 'settembre', 'set', 'setembro');
  add(10, 'october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott', 'outubro', 'out');
  add(11, 'november', 'nov', 'novembre', 'noviembre', 'novembro');
  add(12, 'december', 'dec', 'dezember', 'dez', 'décembre', 'decembre', 'déc', 'diciembre', 'dic', 'dicembre', 'dezembro');
  return table;
})();

export const monthOf = (name: string): number | undefined => MONTHS[name.toLowerCase().replace(/\.$/, '')];

export interface FoundDate {
  /** ISO 8601: a calendar date, or a local date-time, or a date-time with offset. */
  readonly iso: string;
  /** Where the match starts in the text. */
  readonly index: number;
  /** Where the date (not a time after it) ends in the text. */
  readonly end: number;
}

const pad = (n: number): string => String(n).padStart(2, '0');

function validDate(y: number, m: number, d: number): boolean {
  if (y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

const ISO = /(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:[.,]\d{1,9})?\s?(Z|[+-]\d{2}:?\d{2})?)?(?!\d)/;
const YMD = /(?<!\d)(\d{4})([/.])(\d{1,2})\2(\d{1,2})(?![\d])/;
const DMY = /(?<![\d.])(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?!\d)/;
const D_MONTH_Y = /(?<![\d\p{L}])(\d{1,2})(?:\.|st|nd|rd|th|er|º|°)?\s{0,2}(?:de\s{1,2})?(\p{L}{3,10})\.?,?\s{1,2}(?:de\s{1,2})?(\d{4})(?!\d)/u;
const MONTH_D_Y = /(?<!\p{L})(\p{L}{3,10})\.?\s{1,2}(\d{1,2})(?:st|nd|rd|th)?,?\s{1,2}(\d{4})(?!\d)/u;
/** A time just after a date: separators and a connecting word, then H:MM or HhMM, am/pm. */
const TIME_AFTER = /^[\s,|–-]{0,4}(?:at|um|à|a las|alle|om|às|-)?\s{0,2}(\d{1,2})[:h](\d{2})(?::(\d{2}))?(?:\s?([ap])\.?\s?m\.?)?/i;

function withTime(date: string, text: string, end: number): string {
  const m = TIME_AFTER.exec(text.slice(end, end + 30));
  if (!m) return date;
  let hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = m[3] ? Number(m[3]) : 0;
  const half = m[4]?.toLowerCase();
  if (half === 'p' && hour < 12) hour += 12;
  if (half === 'a' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59 || second > 59) return date;
  return `${date}T${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

/** Month-first reading of `03/12/2024`: English without a region, or US English. */
const monthFirst = (lang: string): boolean => lang === 'en' || lang === 'en-us';

type Reader = (m: RegExpExecArray, lang: string) => { y: number; m: number; d: number } | null;

const READERS: ReadonlyArray<readonly [RegExp, Reader]> = [
  [YMD, (m) => ({ y: Number(m[1]), m: Number(m[3]), d: Number(m[4]) })],
  [DMY, (m, lang) => {
    const a = Number(m[1]);
    const b = Number(m[3]);
    const usOrder = m[2] === '/' && a <= 12 && (b > 12 || monthFirst(lang));
    return usOrder ? { y: Number(m[4]), m: a, d: b } : { y: Number(m[4]), m: b, d: a };
  }],
  [D_MONTH_Y, (m) => {
    const month = monthOf(m[2] ?? '');
    return month ? { y: Number(m[3]), m: month, d: Number(m[1]) } : null;
  }],
  [MONTH_D_Y, (m) => {
    const month = monthOf(m[1] ?? '');
    return month ? { y: Number(m[3]), m: month, d: Number(m[2]) } : null;
  }],
];

/** An ISO date or date-time at the start of a match; the offset is kept, fractions dropped. */
function readIso(m: RegExpExecArray): string | null {
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validDate(y, mo, d)) return null;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  if (!m[4]) return date;
  if (Number(m[4]) > 23 || Number(m[5]) > 59) return date;
  const zone = m[7] ? (m[7] === 'Z' ? 'Z' : `${m[7].slice(0, 3)}:${m[7].slice(-2)}`) : '';
  return `${date}T${m[4]}:${m[5]}:${m[6] ?? '00'}${zone}`;
}

/** The global copy of each pattern `firstMatch` runs, made once (not per call). */
const GLOBAL = new Map<RegExp, RegExp>([ISO, ...READERS.map(([pattern]) => pattern)].map((p) => [p, new RegExp(p.source, `${p.flags}g`)]));

/** Every pattern needs a four-digit year: text without four digits in a row holds no date. */
const YEAR_DIGITS = /\d{4}/;

/**
 * Any month name (lower-cased text): the two patterns with a month name (the costly ones,
 * their letters being any script's) are run on text holding one only.
 */
const MONTH_NAME = new RegExp(Object.keys(MONTHS).join('|'));

/**
 * Whether a pattern can match `text`, by what it cannot do without (a pattern run once on a
 * page's few dates costs microseconds): the separators of the numeric forms, a month name.
 */
function mayMatch(pattern: RegExp, text: string, named: () => boolean): boolean {
  if (pattern === ISO) return text.includes('-');
  if (pattern === YMD) return text.includes('.') || text.includes('/');
  if (pattern === DMY) return text.includes('.') || text.includes('/') || text.includes('-');
  return named();
}

/** Runs a sticky-free pattern over `text` and returns its first match the reader accepts. */
function firstMatch(pattern: RegExp, text: string, accept: (m: RegExpExecArray) => string | null): FoundDate | null {
  const re = GLOBAL.get(pattern) as RegExp;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const iso = accept(m);
    if (iso) return { iso, index: m.index, end: m.index + m[0].length };
    re.lastIndex = m.index + 1;
  }
  return null;
}

/** The earliest date written in `text` (see the file comment); `lang` is the page's `<html lang>`. */
export function findDate(text: string, lang = ''): FoundDate | null {
  if (!YEAR_DIGITS.test(text)) return null;
  let monthNamed: boolean | undefined;
  const named = (): boolean => (monthNamed ??= MONTH_NAME.test(text.toLowerCase()));
  let best: FoundDate | null = mayMatch(ISO, text, named) ? firstMatch(ISO, text, readIso) : null;
  for (const [pattern, read] of READERS) {
    if (!mayMatch(pattern, text, named)) continue;
    const found = firstMatch(pattern, text, (m) => {
      const parts = read(m, lang);
      if (!parts || !validDate(parts.y, parts.m, parts.d)) return null;
      return withTime(`${parts.y}-${pad(parts.m)}-${pad(parts.d)}`, text, m.index + m[0].length);
    });
    if (found && (!best || found.index < best.index)) best = found;
  }
  return best;
}

/** Every date written in `text`, in order (at most `max`). */
export function findDates(text: string, lang = '', max = 5): FoundDate[] {
  const out: FoundDate[] = [];
  let from = 0;
  while (out.length < max && from < text.length) {
    const found = findDate(text.slice(from), lang);
    if (!found) break;
    out.push({ iso: found.iso, index: from + found.index, end: from + found.end });
    from += found.end;
  }
  return out;
}

/** A `datetime` attribute (or a date written in it): ISO when it is one, else any format above. */
export function parseDateAttribute(value: string, lang = ''): string | null {
  const text = value.trim().slice(0, 100);
  const iso = ISO.exec(text);
  if (iso && iso.index === 0) return readIso(iso);
  return findDate(text, lang)?.iso ?? null;
}
