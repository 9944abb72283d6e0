/**
 * What a company's pages state in plain text, where the markup says nothing: its legal name
 * (a line ending in a legal form: `Muster GmbH`, `Acme Ltd.`), its postal address (a street
 * line above a postal-code-and-town line, as imprints and contact pages write them), the year
 * it was founded (`founded in 1998`, `gegründet 1998`, `fondée en 1998`, …) and its headcount
 * (`120 employees`, `team of 40`, `über 50 Mitarbeiter`, …).
 *
 * Every reading works on the page's visible text split into lines (each cut to MAX_LINE
 * characters); patterns run on one short line at a time, and keyword searches are `indexOf`
 * over the folded text with a bounded look around each hit: linear in the page.
 */
import { fold } from './company-pages.js';

const MAX_LINE = 160;

export interface CompanyAddress {
  readonly street: string | null;
  readonly postalCode: string | null;
  readonly locality: string | null;
  readonly region: string | null;
  readonly country: string | null;
  /** The address on one line, as the page writes it. */
  readonly text: string;
}

export interface Headcount {
  readonly min: number | null;
  readonly max: number | null;
  /** The words it was read from. */
  readonly text: string;
}

const lines = (text: string): string[] => text.split('\n').map((l) => l.slice(0, MAX_LINE).trim()).filter(Boolean);

/** Legal forms, as the last words of a company's name (compared folded, without the final dot). */
const LEGAL_FORMS = [
  'gmbh', 'gmbh & co. kg', 'gmbh & co kg', 'ag', 'ug (haftungsbeschrankt)', 'ug', 'kg', 'e.k', 'ek', 'e.v', 'ohg', 'gbr', 'mbh', 'se', 'kgaa',
  'ltd', 'limited', 'llc', 'l.l.c', 'inc', 'incorporated', 'corp', 'corporation', 'plc', 'llp', 'lp', 'co',
  's.a', 'sa', 'sas', 's.a.s', 'sarl', 's.a.r.l', 'eurl', 's.l', 'sl', 's.l.u', 'slu', 's.r.l', 'srl', 's.p.a', 'spa', 's.n.c', 'snc',
  'b.v', 'bv', 'n.v', 'nv', 'oy', 'oyj', 'ab', 'as', 'asa', 'aps', 'a/s', 'sp. z o.o', 'sp. z o. o', 's.c', 'lda', 'ltda', 'pty ltd', 'pte ltd', 'k.k',
];
const FORMS_BY_LENGTH = [...LEGAL_FORMS].sort((a, b) => b.length - a.length);

/** The line's legal form, when it ends in one after at least one other word. */
function legalFormOf(line: string): string | null {
  const folded = fold(line).replace(/\.$/, '').trim();
  for (const form of FORMS_BY_LENGTH) {
    if (folded.length > form.length + 1 && folded.endsWith(form)) {
      const before = folded[folded.length - form.length - 1];
      if (before === ' ' || before === ',') return form;
    }
  }
  return null;
}

/** The first line naming a company by its legal form (2–8 words, no sentence), or null. */
export function legalName(text: string): string | null {
  for (const line of lines(text)) {
    const words = line.split(/\s+/).length;
    if (words < 2 || words > 8 || line.length > 90 || /[:?!@]|https?:/.test(line)) continue;
    if (legalFormOf(line)) return line.replace(/^(©|\(c\)|copyright)\s*(\d{4}(\s*[-–]\s*\d{4})?)?\s*/i, '').trim() || null;
  }
  return null;
}

/** A postal code followed by the town: `10115 Berlin`, `D-80331 München`, `75008 Paris`, `1010 Wien`. */
const EU_POSTAL_LINE = /^(?:[A-Z]{1,2}[- ])?(\d{4,5})\s+(\p{Lu}[\p{L}\p{M} .'()/-]{1,50})$/u;
/** A Dutch postal line: `1015 AA Amsterdam`. */
const NL_POSTAL_LINE = /^(\d{4} ?[A-Z]{2})\s+(\p{Lu}[\p{L}\p{M} .'()/-]{1,50})$/u;
/** A US or Canadian last line: `Springfield, IL 62704`, `Toronto, ON M5V 2T6`. */
const NA_POSTAL_LINE = /^(\p{Lu}[\p{L} .'-]{1,40}),\s*([A-Z]{2})\s+(\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d)$/u;
/** A UK last line: `London SW1A 1AA`, `Manchester, M1 1AE`. */
const UK_POSTAL_LINE = /^(\p{Lu}[\p{L} .'-]{1,40}),?\s+([A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})$/u;

const COUNTRIES = new Set([
  'germany', 'deutschland', 'austria', 'osterreich', 'switzerland', 'schweiz', 'suisse', 'france', 'spain', 'espana', 'italy', 'italia', 'netherlands',
  'nederland', 'belgium', 'belgique', 'united kingdom', 'uk', 'usa', 'united states', 'canada', 'sweden', 'sverige', 'norway', 'denmark', 'finland',
  'poland', 'polska', 'portugal', 'ireland', 'luxembourg',
]);

/** Whether a line can be a street: letters and a house number, no more than 8 words, not a sentence or contact line. */
function streetLine(line: string): boolean {
  if (line.length > 70 || line.split(/\s+/).length > 8 || /[@:]|https?:|www\./i.test(line)) return false;
  return /\p{L}{2}/u.test(line) && /\d/.test(line) && !/^\+?[\d\s()/.-]+$/.test(line);
}

interface PostalLine {
  readonly postalCode: string;
  readonly locality: string;
  readonly region: string | null;
}

function postalLine(line: string): PostalLine | null {
  const nl = NL_POSTAL_LINE.exec(line);
  if (nl) return { postalCode: nl[1] as string, locality: (nl[2] as string).trim(), region: null };
  const eu = EU_POSTAL_LINE.exec(line);
  if (eu) return { postalCode: eu[1] as string, locality: (eu[2] as string).trim(), region: null };
  const na = NA_POSTAL_LINE.exec(line);
  if (na) return { postalCode: na[3] as string, locality: (na[1] as string).trim(), region: na[2] as string };
  const uk = UK_POSTAL_LINE.exec(line);
  if (uk) return { postalCode: uk[2] as string, locality: (uk[1] as string).trim(), region: null };
  return null;
}

/**
 * The first postal address the text writes (see the file comment): a street line directly
 * above a postal line (a country on the line below is taken too), or both on one line
 * separated by a comma (`Musterstraße 12, 10115 Berlin`).
 */
export function addressFromText(text: string): CompanyAddress | null {
  const all = lines(text);
  for (let i = 0; i < all.length; i += 1) {
    const line = all[i] as string;
    const parts = line.split(/\s*[,|·•]\s*/);
    // One line: `street, postal town[, country]`.
    for (let p = 1; p < parts.length && p < 4; p += 1) {
      const postal = postalLine(parts[p] as string);
      if (postal && streetLine(parts[p - 1] as string)) {
        const country = parts[p + 1] && COUNTRIES.has(fold(parts[p + 1] as string)) ? (parts[p + 1] as string) : null;
        const street = parts[p - 1] as string;
        return { street, ...postal, country, text: [street, parts[p], country].filter(Boolean).join(', ') };
      }
    }
    const postal = postalLine(line);
    const above = all[i - 1];
    if (postal && above && streetLine(above)) {
      const below = all[i + 1];
      const country = below && COUNTRIES.has(fold(below)) ? below : null;
      return { street: above, ...postal, country, text: [above, line, country].filter(Boolean).join(', ') };
    }
  }
  return null;
}

/** Words that state a founding, surest first: `since` and its kind come last (`seit 2005 in Berlin` may be a move, not a founding). */
const FOUNDED_WORDS = [
  'founded in', 'founded', 'established in', 'established', 'gegrundet', 'fondee en', 'fonde en', 'fondee', 'fundada en', 'fundado en', 'fundada',
  'fondata nel', 'fondato nel', 'opgericht in', 'opgericht', 'grundat', 'grundlagt', 'zalozona w', 'est.', 'since', 'seit', 'sinds', 'depuis', 'desde',
];

/** Whether `i` starts a word in `s`. */
const wordStart = (s: string, i: number): boolean => i === 0 || !/[\p{L}\d]/u.test(s[i - 1] as string);

/** The founding year the text states, between 1700 and `nowYear`: the surest word's first statement (FOUNDED_WORDS' order). */
export function foundingYear(text: string, nowYear: number): number | null {
  const folded = fold(text);
  for (const word of FOUNDED_WORDS) {
    for (let at = folded.indexOf(word); at >= 0; at = folded.indexOf(word, at + 1)) {
      if (!wordStart(folded, at)) continue;
      const after = folded.slice(at + word.length, at + word.length + 20);
      const m = /^[\s:,]*(?:in |im |en |nel |the year |dem jahr |jahr )?(\d{4})\b/.exec(after);
      const year = m ? Number(m[1]) : NaN;
      if (year >= 1700 && year <= nowYear) return year;
    }
  }
  return null;
}

const STAFF_WORDS = ['employees', 'employee', 'staff', 'people', 'team members', 'mitarbeiter', 'mitarbeiterinnen', 'mitarbeitende', 'beschaftigte', 'employes', 'salaries', 'empleados', 'colaboradores', 'dipendenti', 'medewerkers', 'anstallda', 'pracownikow'];
const TEAM_OF = ['team of', 'staff of', 'workforce of', 'team von', 'equipe de', 'equipo de', 'squadra di'];

function readCount(s: string): number | null {
  const n = Number(s.replace(/[.,\s]/g, ''));
  return Number.isFinite(n) && n > 0 && n < 10_000_000 ? n : null;
}

/** The headcount the text states: `120 employees`, `50+ Mitarbeiter`, `10-50 employees`, `team of 40`. */
export function headcountFromText(text: string): Headcount | null {
  const folded = fold(text);
  for (const word of STAFF_WORDS) {
    for (let at = folded.indexOf(word); at >= 0; at = folded.indexOf(word, at + 1)) {
      if (!wordStart(folded, at)) continue;
      const before = folded.slice(Math.max(0, at - 24), at);
      const m = /(\d[\d.,]{0,9})\s*(?:[-–]|to|bis)\s*(\d[\d.,]{0,9})\+?\s*$|(\d[\d.,]{0,9})\s*\+?\s*$/.exec(before);
      if (!m) continue;
      const text = `${before.slice(m.index).trim()} ${word}`;
      if (m[1] && m[2]) return { min: readCount(m[1]), max: readCount(m[2]), text };
      const n = readCount(m[3] as string);
      if (n !== null && n < 1_000_000) return { min: n, max: /\+\s*$/.test(before) ? null : n, text };
    }
  }
  for (const phrase of TEAM_OF) {
    const at = folded.indexOf(phrase);
    if (at < 0) continue;
    const m = /^\s*(?:over |more than |uber |mehr als |plus de |mas de )?(\d[\d.,]{0,9})/.exec(folded.slice(at + phrase.length, at + phrase.length + 24));
    const n = m ? readCount(m[1] as string) : null;
    if (n !== null) return { min: n, max: n, text: `${phrase}${m?.[0] ?? ''}`.trim() };
  }
  return null;
}
