/**
 * Phone numbers on a page. Precision first: a number is taken only where the page says it is
 * one — a `tel:` link, a `telephone` in the markup, a number right after a label (`Tel`,
 * `Phone`, `Telefon`, `Tél`, `Teléfono`, …) — or where it is written in international form
 * (`+49 30 1234567`). A number after `Fax` is never a phone.
 *
 * A number is a run of digits and the separators people write (space, `-`, `.`, `/`, `()`),
 * optionally led by `+`, of 6 to 15 digits (E.164's most; 8 for an unlabelled international
 * one). The scanner is linear: labels are matched at word starts against a fixed set (each
 * compare bounded by the longest label), and each run is read at most MAX_RUN characters.
 *
 * `phoneKey` is what two writings of one number share: its digits, a leading `+` kept, and a
 * national trunk `(0)` after the country code dropped (`+49 (0)30 …` is `+4930…`).
 */

const MAX_RUN = 28;
const LABELS = [
  'tel', 'tel.', 'telephone', 'telephon', 'phone', 'ph', 'ph.', 'call', 'call us', 'telefon', 'fon', 'téléphone', 'tél', 'tél.', 'teléfono',
  'telefono', 'telefone', 'telf', 'tlf', 'mobile', 'mobil', 'handy', 'cell', 'hotline', 'tel.:', 'phone:', 'telefoon', 'puhelin', 't',
];
const LABEL_SET = new Set(LABELS);
const MAX_LABEL = Math.max(...LABELS.map((l) => l.length));
const FAX_WORDS = new Set(['fax', 'telefax', 'fax.', 'f', 'f.', 'téléc', 'télécopie', 'facsimile']);

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isLetter = (c: string | undefined): boolean => c !== undefined && c.toLowerCase() !== c.toUpperCase();
const SEPARATORS = new Set([' ', '-', '.', '/', '(', ')', '\u00a0', '\u2011', '\u2013']);

/** The number's key (see the file comment): `+4930123456`, or its digits when written nationally. */
export function phoneKey(raw: string): string {
  const trimmed = raw.trim();
  const plus = trimmed.startsWith('+') || trimmed.startsWith('00');
  let body = trimmed.startsWith('00') ? trimmed.slice(2) : trimmed;
  const trunk = body.indexOf('(0)');
  if (plus && trunk >= 0) body = body.slice(0, trunk) + body.slice(trunk + 3);
  const digits = body.replace(/\D/g, '');
  return plus ? `+${digits}` : digits;
}

/** A run of phone characters starting at `from` (after optional `+`): its text and digit count. */
function readRun(text: string, from: number): { readonly raw: string; readonly digits: number } {
  let end = from;
  let digits = 0;
  if (text[end] === '+') end += 1;
  while (end < text.length && end - from < MAX_RUN) {
    const c = text[end];
    if (isDigit(c)) digits += 1;
    else if (!SEPARATORS.has(c as string)) break;
    end += 1;
  }
  let raw = text.slice(from, end);
  // Trailing separators, and an opening bracket that closes nothing, are not the number's.
  while (raw && !isDigit(raw[raw.length - 1]) && raw[raw.length - 1] !== ')') raw = raw.slice(0, -1);
  return { raw: raw.trim(), digits };
}

/** A phone as written, when `raw` is one: 6–15 digits (8–15 unlabelled), not a date or a year range. */
export function validPhone(raw: string, labelled: boolean): string | null {
  const key = phoneKey(raw);
  const digits = key.replace('+', '').length;
  if (digits < (labelled ? 6 : 8) || digits > 15) return null;
  if (!labelled && !key.startsWith('+')) return null;
  // `2019-2024`, `12.05.2023`: dates and ranges are not phones.
  if (/^\d{1,4}[./-]\d{1,2}[./-]\d{2,4}$/.test(raw) || /^\d{4}\s*-\s*\d{4}$/.test(raw)) return null;
  return raw.replace(/\s+/g, ' ');
}

/** The words ending right before `i` (lower case, at most MAX_LABEL + 1 characters), skipping `:`, spaces and a line break (a label in the cell before). */
function wordBefore(text: string, i: number): string {
  let end = i;
  let skipped = 0;
  while (end > 0 && skipped < 4 && (text[end - 1] === ' ' || text[end - 1] === ':' || text[end - 1] === '\n' || text[end - 1] === '\u00a0')) {
    end -= 1;
    skipped += 1;
  }
  let start = end;
  while (start > 0 && end - start <= MAX_LABEL && (isLetter(text[start - 1]) || text[start - 1] === '.' || text[start - 1] === ' ')) start -= 1;
  return text.slice(start, end).trim().toLowerCase();
}

/** Whether the word before a run is one of the labels (or ends in one: `Our phone`). */
function labelled(word: string): boolean | 'fax' {
  const last = word.split(' ').pop() ?? '';
  if (FAX_WORDS.has(last) || FAX_WORDS.has(word)) return 'fax';
  return LABEL_SET.has(word) || LABEL_SET.has(last) || LABEL_SET.has(word.replace(/\.$/, ''));
}

/** The phones written in `text` (see the file comment), as written, each number once. */
export function scanPhones(text: string): string[] {
  const out = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const starts = (c === '+' && isDigit(text[i + 1])) || ((isDigit(c) || c === '(') && !isDigit(text[i - 1]) && !isLetter(text[i - 1]) && text[i - 1] !== '+' && text[i - 1] !== '.');
    if (!starts) {
      i += 1;
      continue;
    }
    const run = readRun(text, i);
    const label = labelled(wordBefore(text, i));
    if (label !== 'fax') {
      const phone = validPhone(run.raw, label === true);
      if (phone && !out.has(phoneKey(phone))) out.set(phoneKey(phone), phone);
    }
    i += Math.max(1, run.raw.length);
  }
  return [...out.values()];
}

/** The number of a `tel:` (or `callto:`) link, when it is one. */
export function telNumber(href: string): string | null {
  let raw = href.slice(href.indexOf(':') + 1);
  try {
    raw = decodeURIComponent(raw);
  } catch {
    // Kept as written.
  }
  const q = raw.search(/[?;]/);
  return validPhone((q >= 0 ? raw.slice(0, q) : raw).trim(), true);
}

/**
 * Whether two keys are one number written two ways: equal, or one international (`+4930…`)
 * and one national (`030…`) whose digits after the trunk `0` are the international one's after
 * a country code of 1 to 3 digits.
 */
export function sameNumber(a: string, b: string): boolean {
  if (a === b) return true;
  const [intl, national] = a.startsWith('+') ? [a, b] : [b, a];
  if (!intl.startsWith('+') || national.startsWith('+')) return false;
  const rest = national.replace(/^0/, '');
  if (rest.length < 6) return false;
  for (let cc = 1; cc <= 3; cc += 1) if (intl.slice(1 + cc) === rest) return true;
  return false;
}

/** The numbers of `found`, each once: a number written both ways keeps its international writing, at its first place. */
export function distinctPhones<T extends { readonly phone: string }>(found: readonly T[]): T[] {
  const out: T[] = [];
  for (const item of found) {
    const key = phoneKey(item.phone);
    const at = out.findIndex((o) => sameNumber(phoneKey(o.phone), key));
    if (at < 0) out.push(item);
    else if (key.startsWith('+') && !phoneKey((out[at] as T).phone).startsWith('+')) out[at] = { ...(out[at] as T), phone: item.phone };
  }
  return out;
}
