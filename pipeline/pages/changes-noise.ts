/**
 * Page noise: what a scheduled check must not call a change. `withoutNoise(markdown)` takes
 * `normalizeMarkdown`'s output (pipeline/pages/changes.ts) and gives the text that decides
 * `same` against `changed`; that text is compared only, never shown or diffed, so it may be
 * ugly. A page read twice a minute apart differs in ways nobody edited; those are neutralised,
and a monitor compares `withoutNoise(normalizeMarkdown(page))` of its two snapshots:
 *
 * - Layout: whitespace, line endings and blank lines are already `normalizeMarkdown`'s job, and
 *   the order of HTML attributes cannot matter, since markdown has no attributes.
 * - Times and dates, replaced by TIME_TOKEN: ISO 8601 dates and date-times (`2026-11-26`,
 *   `2026-11-26T23:15:10.123+01:00`); clock times, 24-hour or with am/pm, with seconds,
 *   fractions, `Z`, a numeric offset or UTC/GMT (`23:15`, `11:15:10 PM`); numeric dates, day
 *   or month first, with `/`, `.` or `-` and a four-digit year (`26/11/2026`, `11/26/2026`,
 *   `26.11.2026`); English month names, full or short, with a year (`Nov 26, 2026`, `26th of
 *   November 2026`), with an optional weekday before any date (`Thursday, 26 November 2026`),
 *   and without a year only after a weekday (`Thu, Nov 26`: a newspaper's header); Unix epoch
 *   seconds or milliseconds standing alone (10 or 13 digits starting with 1: 2001 to 2033);
 *   relative times that end in "ago" (`3 minutes ago`, `an hour ago`, `2 hrs ago`, `5m ago`,
 *   `a few seconds ago`) and `just now`, which only a page's clock writes, counted from the
 *   moment it is read; render times (`generated in 0.123 s`, `rendered in 45ms`). A time of day
 *   cannot be told from an opening hour (`open 9:00-17:00`): changed hours are not a change,
 *   the price of not reporting every clock on the page. Dates likewise: a moved event date is
 *   not a change when the date is written in one of the forms above.
 * - In URLs (markdown link and image destinations, bare http(s) URLs): query parameters that
 *   bust caches or track visits (QUERY_NOISE_NAMES and any `utm_*` always; VERSION_NAMES when
 *   the value looks like a version or a token; any parameter whose value is a fingerprint, see
 *   `isFingerprint`, unless its name ends in `id`), keeping the others in their order and
 *   dropping the `?` when none is left; and fingerprints in file names, `app.3f9a2c1b.js`,
 *   `main-4f2a9c8e1b.css`, made `app.⟨hash⟩.js` (FINGERPRINT_TOKEN).
 *
 * Kept, because it is content: bare years (`since 1998`), prices (`$19.99`, `1,299.00`),
 * versions (`v2.3.1`, `1.2.3`), phone numbers, percentages, counts (`3 left in stock`), words
 * like `yesterday`, `today` or a lone weekday (prose uses them: "Yesterday the council voted",
 * "open Monday"; a post that rolls from `today` to `yesterday` is a change once a day, not on
 * every check), month-year (`November 2026`), a day and month with no weekday or year (`Nov 26`:
 * too often an event's date), an 8- or 9-digit number (an id more often than a hash), a two-digit
 * year (`26/11/26` could be anything), YouTube's `v=dQw4w9WgXcQ`, `?page=2` and `?id=42`, and
 * relative URLs in reference-style link definitions (`[1]: /a.css?v=3`; the converter writes
 * inline links). Nothing is lowercased and no line is dropped.
 *
 * Every regular expression here runs on untrusted page text in V8's backtracking engine, so
 * each is linear: every quantifier is bounded (`?`, `{m,n}`) except single character-class
 * runs (`[^\s()]+`), which nothing else quantifies; the only alternations under a quantifier
 * are optional ones whose branches start with distinct characters (`(?:st|nd|rd|th)?`). An
 * attempt at one position reads at most a constant number of characters, or one class run that
 * is anchored to the input's start, consumed by the match, or begun after a character the class
 * excludes (so no two attempts read the same run): the scan is linear in the page.
 */

/** What a time, date or relative time becomes. */
export const TIME_TOKEN = '⟨time⟩';
/** What an asset fingerprint in a URL's file name becomes. */
export const FINGERPRINT_TOKEN = '⟨hash⟩';

/**
 * Query parameters dropped whatever their value (names compared in lower case): cache busters,
 * click and campaign trackers (with any `utm_*`), and session ids.
 */
export const QUERY_NOISE_NAMES: readonly string[] = [
  '_', 'cb', 'cachebust', 'cachebuster', 'nocache', 'bust', 'rand', 'random', 'rnd', 'ts', '_t', '_ts', 'timestamp',
  'fbclid', 'gclid', 'dclid', 'msclkid', 'yclid', 'igshid', 'mc_cid', 'mc_eid', '_ga', '_gl',
  'sid', 'session', 'sessionid', 'phpsessid', 'jsessionid',
];
const TRACKING_PREFIX = 'utm_';

/**
 * Query parameters dropped only when the value looks like a version or a token (hex digits,
 * dots, colons, dashes: `v=3`, `ver=6.4.2`, `t=1795734910`, `h=9f86d0`): these short names
 * carry content too, YouTube's `v=dQw4w9WgXcQ` and `t=42s` stay.
 */
export const VERSION_NAMES: readonly string[] = ['v', 'ver', 'version', 't', 'time', 'r', 'rev', 'build', 'h', 'hash', 'cache'];

const ALWAYS_DROPPED = new Set(QUERY_NOISE_NAMES);
const DROPPED_WHEN_VERSION = new Set(VERSION_NAMES);
const VERSION_LIKE = /^[0-9a-f][0-9a-f.:_-]*$/i;
const HEX_RUN = /^[0-9a-f]{8,}$/i;
const DIGITS = /^\d+$/;
/** A name that says its value is an identifier (`id`, `productId`, `post_id`). */
const IDENTIFIER_NAME = /id$/i;

/**
 * A build or cache fingerprint: hex digits, at least 8 with a letter among them (a content
 * hash: `3f9a2c1b`) or at least 10 digits (an epoch, a random number). 8 or 9 digits alone
 * are more often an id.
 */
export function isFingerprint(value: string): boolean {
  return HEX_RUN.test(value) && (value.length >= 10 || !DIGITS.test(value));
}

function isNoiseParameter(parameter: string): boolean {
  const equals = parameter.indexOf('=');
  const name = equals < 0 ? '' : parameter.slice(0, equals).toLowerCase();
  const value = parameter.slice(equals + 1);
  if (ALWAYS_DROPPED.has(name) || name.startsWith(TRACKING_PREFIX)) return true;
  if (DROPPED_WHEN_VERSION.has(name)) return VERSION_LIKE.test(value);
  return !IDENTIFIER_NAME.test(name) && isFingerprint(value);
}

function quietQuery(query: string): string {
  const kept = query.split('&').filter((parameter) => !isNoiseParameter(parameter));
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}

/** Scheme and authority, `https://host:port` or `//host`; what follows is the path. */
const ORIGIN = /^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/]*/i;
/** A hex segment after `.` or `-` and before a further `.`: `app.3f9a2c1b.js`, `main-4f2a9c8e1b.css`. */
const FILE_FINGERPRINT = /([.-])([0-9a-f]{8,})(?=\.[a-z0-9])/gi;

function withoutFingerprints(location: string): string {
  const origin = ORIGIN.exec(location)?.[0] ?? '';
  const path = location.slice(origin.length).replace(FILE_FINGERPRINT, (segment: string, separator: string, hex: string) =>
    isFingerprint(hex) ? separator + FINGERPRINT_TOKEN : segment,
  );
  return origin + path;
}

function quietUrl(url: string): string {
  const hashAt = url.indexOf('#');
  const beforeFragment = hashAt < 0 ? url : url.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : url.slice(hashAt);
  const queryAt = beforeFragment.indexOf('?');
  if (queryAt < 0) return withoutFingerprints(beforeFragment) + fragment;
  return withoutFingerprints(beforeFragment.slice(0, queryAt)) + quietQuery(beforeFragment.slice(queryAt + 1)) + fragment;
}

/** A markdown link or image destination, `](url)`, or a bare http(s) URL. */
const URL_IN_MARKDOWN = /(\]\()([^\s()]+)|\bhttps?:\/\/[^\s()<>[\]"'`]+/gi;
/** What ends a sentence or an emphasis after a bare URL, rather than the URL. */
const AFTER_BARE_URL = '.,;:!?*_~';

function quietUrlsOf(markdown: string): string {
  return markdown.replace(URL_IN_MARKDOWN, (match: string, open: string | undefined, destination: string | undefined) => {
    if (open !== undefined && destination !== undefined) return open + quietUrl(destination);
    let end = match.length;
    while (end > 0 && AFTER_BARE_URL.includes(match.charAt(end - 1))) end--;
    return quietUrl(match.slice(0, end)) + match.slice(end);
  });
}

const MONTH =
  '\\b(?:january|jan|february|feb|march|mar|april|apr|may|june|jun|july|jul|' +
  'august|aug|september|sept|sep|october|oct|november|nov|december|dec)\\b\\.?';
const WEEKDAY_BEFORE =
  '\\b(?:monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thur|thu|friday|fri|saturday|sat|sunday|sun)\\b\\.?,? ';
const DAY = '(?<!\\d)(?:[12]\\d|3[01]|0?[1-9])(?:st|nd|rd|th)?(?![\\da-z])';
const YEAR = '(?:19|20)\\d\\d(?!\\d)';

const ISO_DATE = `(?<!\\d)${YEAR}-(?:1[0-2]|0[1-9])-(?:[12]\\d|3[01]|0[1-9])(?!\\d)`;
const DAY_OR_MONTH = '(?:[12]\\d|3[01]|0?[1-9])';
/** Day or month first: `26/11/2026`, `11/26/2026`, `26.11.2026`, `26-11-2026`. */
const NUMERIC_DATE = ['/', '\\.', '-'].map((sep) => `(?<![\\d./-])${DAY_OR_MONTH}${sep}${DAY_OR_MONTH}${sep}${YEAR}(?![./-]\\d)`).join('|');
const MONTH_DAY_YEAR = `${MONTH} ${DAY},? ${YEAR}`;
const DAY_MONTH_YEAR = `${DAY} (?:of )?${MONTH},? ${YEAR}`;
const DATE = [ISO_DATE, NUMERIC_DATE, MONTH_DAY_YEAR, DAY_MONTH_YEAR].join('|');
const CLOCK =
  '(?<![\\d:])(?:2[0-3]|[01]?\\d):[0-5]\\d(?::[0-5]\\d)?(?:[.,]\\d{1,9})?(?!\\d)' +
  '(?: ?[ap]\\.?m\\b\\.?)?(?:z\\b|[+-](?:0\\d|1[0-4]):?[0-5]\\d(?!\\d)| (?:utc|gmt)\\b)?';
const EPOCH = '(?<![\\w.,])1\\d{9}(?:\\d{3})?(?!\\w|[.,]\\d)';
const UNIT =
  '(?:seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w|months?|mos?|years?|yrs?|y)';
const RELATIVE =
  `(?<![\\w.,])\\d{1,3} ?${UNIT} ago\\b` +
  '|\\b(?:a few|an?|one|few|several) (?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|moments?) ago\\b' +
  '|\\bjust now\\b';
const RENDER_TIME =
  '\\b(?:generated|rendered|served|processed) in \\d{1,6}(?:[.,]\\d{1,9})? ?(?:ms|milliseconds?|seconds?|secs?|s)\\b';

/**
 * Every time and date the module doc lists. A date with a year may follow a weekday; a day and
 * month without a year count only after one. Alternatives that share a start are ordered
 * longest first, since the first that matches at a position wins.
 */
const TIME_NOISE = new RegExp(
  [
    `${WEEKDAY_BEFORE}(?:${DATE}|${MONTH} ${DAY}|${DAY} (?:of )?${MONTH})`,
    DATE,
    CLOCK,
    EPOCH,
    RELATIVE,
    RENDER_TIME,
  ].join('|'),
  'gi',
);

/** The text that decides whether a page changed (see the module doc); never shown to a user. */
export function withoutNoise(markdown: string): string {
  return quietUrlsOf(markdown).replace(TIME_NOISE, TIME_TOKEN);
}
